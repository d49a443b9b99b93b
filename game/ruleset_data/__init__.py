"""Ruleset data (TOML) read by :mod:`game.rulesets`: one file per ruleset plus ``common.toml``."""
