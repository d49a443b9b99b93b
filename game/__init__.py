"""Cards, rulesets, the rules engine, bots, table play and the ``uno-attack`` CLI.

The public API of the rules engine (``docs/rules.md``, ``docs/notation.md``)::

    from game import Game, Move, Card
    game = Game.new("attack", players=4, seed=1)
"""

from game.cards import Card, Color, Kind, NotationError
from game.driver import Presser
from game.engine import Game
from game.errors import GameError, IllegalMove, RulesetError
from game.moves import Decision, Move, MoveKind
from game.observe import Observation, Outcome
from game.rulesets import RULESET_IDS, load_ruleset

__all__ = [
    "RULESET_IDS",
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
    "RulesetError",
    "load_ruleset",
]
