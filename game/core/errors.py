"""Game-layer errors; leaves of the one hierarchy rooted in :mod:`hardware.errors`."""

from __future__ import annotations

from hardware.errors import ConfigError, UnoAttackError


class GameError(UnoAttackError):
    """Something about a game (rules, moves, saved games) is wrong."""


class IllegalMove(GameError, ValueError):
    """A move the rules forbid; the message names the rule broken. Nothing changed."""

    hint = "the legal moves are listed with `?` (play) or Game.legal_moves()"


class RulesetError(ConfigError):
    """Unknown ruleset, bad option, a deck too small for the players, a bad custom-card file."""

    hint = "`uno-attack rules list` shows the rulesets and their options"


class JournalError(GameError):
    """A saved game that cannot be resumed or replayed."""

    hint = "a journal is a JSON Lines file written by --journal; only its last line may be cut off"
