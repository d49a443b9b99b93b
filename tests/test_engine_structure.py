"""The engine's shape (issue 9): one round state, effects through the context protocol only.

Which modules the rules core may import, and that nothing in game/ imports in a circle, is
tests/test_architecture.py's (docs/architecture.md).
"""

from __future__ import annotations

import ast
from pathlib import Path

from game import Game
from game.core.round import RoundState

GAME = Path(__file__).resolve().parent.parent / "game" / "core"


def test_the_round_state_lives_in_one_object_and_the_game_shows_it() -> None:
    game = Game.new("attack", 3, seed=4)
    assert isinstance(game.round, RoundState)
    assert game.hands is game.round.hands and game.pile is game.round.pile
    game.pos = 2
    assert game.round.pos == 2


def test_a_copy_shares_no_round_state_with_its_original() -> None:
    game = Game.new("classic", 2, seed=9)
    other = game.copy()
    other.hands[0].clear()
    other.discard.append(other.discard[-1])
    assert game.hands[0] and len(game.discard) == 1
    assert other.round is not game.round


def test_effect_blocks_touch_no_private_member() -> None:
    tree = ast.parse((GAME / "effects.py").read_text(encoding="utf-8"))
    private = [
        f"line {node.lineno}: {node.attr}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr.startswith("_")
    ]
    assert private == []


# -- imports: one direction inside game/, no device below the rules (issue 24) ---------------
#: The rules core: the pure state machine and what it is made of.
