"""Ruleset data (TOML) read by :mod:`game.core.rulesets`: one per ruleset, ``common.toml``."""
