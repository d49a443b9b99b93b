"""The rules core: cards, rulesets, effects, the Game state machine; no device, no I/O."""
