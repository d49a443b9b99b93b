"""Playing a game: the launcher driver, the one loop, simulate, journals, event logs."""
