"""Cards, rulesets, the rules engine, bots, table play and the ``uno-attack`` CLI.

The public API of the rules engine (``docs/rules.md``, ``docs/notation.md``)::

    from game import Game, Move, Card
    game = Game.new("attack", players=4, seed=1)      # the pure rules: feed fired:N
    table = Table.new("attack", players=4, seed=1)    # the same game on a launcher

The names below are imported on first use (PEP 562), so that ``uno-attack --help``
and other ``game.*`` imports that need no engine do not pay for loading it.
"""

from __future__ import annotations

import importlib

#: ``typing.TYPE_CHECKING`` without importing :mod:`typing` (a few ms of every start-up);
#: mypy treats any constant of this name the same way.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from game.cards import Card, Color, Kind, NotationError
    from game.driver import Presser, SampledChance, Table, play_out
    from game.engine import Game
    from game.errors import GameError, IllegalMove, RulesetError
    from game.moves import (
        AcceptMove,
        AimMove,
        CatchMove,
        ChallengeMove,
        ChooseMove,
        Decision,
        DrawMove,
        FiredMove,
        GiveMove,
        Move,
        MoveKind,
        NextRoundMove,
        PassMove,
        PenalizeMove,
        PlayMove,
        TakeMove,
        UnoMove,
    )
    from game.observe import Observation, Outcome, Termination
    from game.rulesets import RULESET_IDS, load_ruleset

#: Each public name -> the module that defines it.
_HOMES = {
    "RULESET_IDS": "game.rulesets",
    "Card": "game.cards",
    "AcceptMove": "game.moves",
    "AimMove": "game.moves",
    "CatchMove": "game.moves",
    "ChallengeMove": "game.moves",
    "ChooseMove": "game.moves",
    "DrawMove": "game.moves",
    "FiredMove": "game.moves",
    "GiveMove": "game.moves",
    "PassMove": "game.moves",
    "PenalizeMove": "game.moves",
    "PlayMove": "game.moves",
    "TakeMove": "game.moves",
    "UnoMove": "game.moves",
    "Color": "game.cards",
    "Decision": "game.moves",
    "Game": "game.engine",
    "GameError": "game.errors",
    "IllegalMove": "game.errors",
    "Kind": "game.cards",
    "Move": "game.moves",
    "MoveKind": "game.moves",
    "NotationError": "game.cards",
    "Observation": "game.observe",
    "Outcome": "game.observe",
    "Presser": "game.driver",
    "SampledChance": "game.driver",
    "Table": "game.driver",
    "play_out": "game.driver",
    "NextRoundMove": "game.moves",
    "Termination": "game.observe",
    "RulesetError": "game.errors",
    "load_ruleset": "game.rulesets",
}

__all__ = [
    "RULESET_IDS",
    "AcceptMove",
    "AimMove",
    "CatchMove",
    "ChallengeMove",
    "ChooseMove",
    "DrawMove",
    "FiredMove",
    "GiveMove",
    "PassMove",
    "PenalizeMove",
    "PlayMove",
    "TakeMove",
    "UnoMove",
    "Card",
    "Color",
    "Decision",
    "Game",
    "GameError",
    "IllegalMove",
    "Kind",
    "Move",
    "MoveKind",
    "NotationError",
    "Observation",
    "Outcome",
    "Presser",
    "NextRoundMove",
    "SampledChance",
    "Table",
    "Termination",
    "play_out",
    "RulesetError",
    "load_ruleset",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'game' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
