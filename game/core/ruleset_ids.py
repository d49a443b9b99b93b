"""The names of the built-in rulesets, importable without loading any of them.

``uno-attack simulate --help`` (and every other help that lists the rulesets) needs
only these names; :mod:`game.core.rulesets`, which re-exports them, parses TOML and builds
dataclasses, which costs tens of milliseconds at start-up.
"""

RULESET_IDS = ("attack", "attack-original", "attack-mega-hit", "classic", "pocket")
DEFAULT_RULESET = "attack"
