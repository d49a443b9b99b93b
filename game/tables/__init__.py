"""Where people play: the terminal table and the web table."""
