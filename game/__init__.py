"""Cards, rulesets, the rules engine, bots, table play and the ``uno-attack`` CLI."""
