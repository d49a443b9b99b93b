"""The referee of a game played with real cards."""
