"""The Presser's draw-pile fast path presses exactly as the general loop does.

``Presser.settle`` takes a shorter loop when the launcher is exactly the in-memory
:class:`~launcher.base.DrawPile` (classic, pocket, ``pile://``). A subclass of
``DrawPile`` takes the general loop (``hit`` and its volley), so playing the same
seeded game with both shows the fast path changes no game, no hopper model and no
press count.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game import Card
from game.play.driver import Table
from launcher.base import DrawPile, Volley


class WatchedPile(DrawPile[Card]):
    """A draw pile the Presser does not recognise: it is pressed through ``hit``."""


def play_out(launcher: DrawPile[Card], ruleset: str, players: int, seed: int) -> list[Any]:
    """Random legal moves to the end of one round; the events and the launcher after each."""
    game = Table.new(ruleset, players, seed=seed, launcher=launcher)
    pick = random.Random(seed).choice
    trace: list[Any] = []
    while not game.is_round_over():
        game.play(pick(game.legal_moves()))
        trace.append((launcher.presses, launcher.peek_hopper(), len(game.pile)))
    start, *rest = game.events
    trace.append(({**start, "launcher": None}, rest))  # the start names the launcher's class
    return trace


@settings(max_examples=8, deadline=None)
@given(
    ruleset=st.sampled_from(["classic", "pocket"]),
    players=st.integers(2, 5),
    seed=st.integers(0, 2**32),
)
def test_a_plain_draw_pile_presses_like_the_general_loop(
    ruleset: str, players: int, seed: int
) -> None:
    plain: DrawPile[Card] = DrawPile()
    plain.hit = None  # type: ignore[assignment,method-assign]  # the fast path never calls hit
    fast = play_out(plain, ruleset, players, seed)
    general = play_out(WatchedPile(), ruleset, players, seed)
    assert fast == general
    assert fast[-2][0] > 0  # the round pressed the pile


def test_a_when_fired_hook_still_sees_every_volley() -> None:
    pile: DrawPile[Card] = DrawPile()
    volleys: list[Volley[Card]] = []
    pile.when_fired = volleys.append
    game = Table.new("classic", 2, seed=3, launcher=pile)
    pick = random.Random(3).choice
    while not game.is_round_over():
        game.play(pick(game.legal_moves()))
    assert len(volleys) == pile.presses > 0
    hits = [e for e in game.events if e["type"] == "hit"]
    assert [[c.code for c in v.cards] for v in volleys] == [e["cards"] for e in hits]


def test_a_closed_draw_pile_refuses_the_press() -> None:
    pile: DrawPile[Card] = DrawPile()
    pile.load([Card.parse("R1")])
    pile.close()
    with pytest.raises(Exception, match="closed"):
        pile.hit_count()


def test_a_press_expecting_another_hopper_presses_nothing() -> None:
    pile: DrawPile[Card] = DrawPile()
    pile.load([Card.parse("R1"), Card.parse("B2")])
    assert pile.hit_count(loaded=3) == -1
    assert (pile.presses, pile.remaining) == (0, 2)
    assert pile.hit_count(loaded=2) == 1 and pile.hit_count() == 1 and pile.hit_count() == 0
    assert (pile.presses, pile.remaining) == (3, 0)
