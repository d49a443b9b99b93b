"""The engine's shape (issue 9): one round state, effects through the context protocol only.

Which modules the rules core may import, and that nothing in game/ imports in a circle, is
tests/test_architecture.py's (docs/architecture.md).
"""

from __future__ import annotations

import ast
from pathlib import Path

from game import Game
from game.core.round import RoundState, round_fields

GAME = Path(__file__).resolve().parent.parent / "game" / "core"


def test_every_round_field_is_declared_once_and_a_new_deal_resets_it() -> None:
    """RoundState declares the round's fields; reset_round gives every one a value (reading
    one it missed raises), and none of them spills into the game's own attribute dict."""
    declared = set(RoundState.__annotations__)
    fresh = object.__new__(Game)
    fresh.reset_round(3, dealer=1)
    assert set(round_fields(fresh)) == declared
    assert fresh.hands == [[], [], []] and fresh.dealer == 1 and fresh.legal is None
    game = Game.new("attack", 3, seed=4)
    assert not declared & set(vars(game))


def test_a_copy_shares_no_round_state_with_its_original() -> None:
    game = Game.new("classic", 2, seed=9)
    other = game.copy()
    other.hands[0].clear()
    other.discard.append(other.discard[-1])
    assert game.hands[0] and len(game.discard) == 1
    assert other.pile is not game.pile and other.queue is not game.queue


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
