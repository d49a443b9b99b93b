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

    from game.core.cards import Card, Color, Kind, NotationError
    from game.core.engine import Game
    from game.core.errors import GameError, IllegalMove, RulesetError
    from game.core.moves import (
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
    from game.core.observe import Observation, Outcome, Termination
    from game.core.rulesets import RULESET_IDS, load_ruleset
    from game.play.driver import Presser, SampledChance, Table, play_out

#: Each public name -> the module that defines it.
_HOMES = {
    "RULESET_IDS": "game.core.rulesets",
    "Card": "game.core.cards",
    "AcceptMove": "game.core.moves",
    "AimMove": "game.core.moves",
    "CatchMove": "game.core.moves",
    "ChallengeMove": "game.core.moves",
    "ChooseMove": "game.core.moves",
    "DrawMove": "game.core.moves",
    "FiredMove": "game.core.moves",
    "GiveMove": "game.core.moves",
    "PassMove": "game.core.moves",
    "PenalizeMove": "game.core.moves",
    "PlayMove": "game.core.moves",
    "TakeMove": "game.core.moves",
    "UnoMove": "game.core.moves",
    "Color": "game.core.cards",
    "Decision": "game.core.moves",
    "Game": "game.core.engine",
    "GameError": "game.core.errors",
    "IllegalMove": "game.core.errors",
    "Kind": "game.core.cards",
    "Move": "game.core.moves",
    "MoveKind": "game.core.moves",
    "NotationError": "game.core.cards",
    "Observation": "game.core.observe",
    "Outcome": "game.core.observe",
    "Presser": "game.play.driver",
    "SampledChance": "game.play.driver",
    "Table": "game.play.driver",
    "play_out": "game.play.driver",
    "NextRoundMove": "game.core.moves",
    "Termination": "game.core.observe",
    "RulesetError": "game.core.errors",
    "load_ruleset": "game.core.rulesets",
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
