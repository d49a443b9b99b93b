"""The python-chess-style API: copy, push/pop, outcome, observation."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game import Decision, Game, Move
from game.play.driver import Table


def _advance(game: Game, moves: int) -> None:
    for _ in range(moves):
        if game.is_round_over():
            return
        if game.pending is Decision.PRESS:
            game.play(Move.fired(1))
        else:
            game.play(game.legal_moves()[-1])


def test_a_copy_plays_on_like_the_original_and_does_not_touch_it() -> None:
    game = Game.new("attack", 3, seed=3)
    _advance(game, 15)
    before = (list(game.events), [list(h) for h in game.hands], list(game.pile))
    twin = game.copy()
    _advance(twin, 25)
    assert (game.events, game.hands, list(game.pile)) == before
    _advance(game, 25)
    assert game.events == twin.events and game.hands == twin.hands


def test_a_copy_of_a_launcher_game_has_no_launcher() -> None:
    game = Table.new("attack", 3, seed=3)
    twin = game.copy()
    assert type(twin) is Game and not hasattr(twin, "presser")


def test_pop_undoes_push_exactly() -> None:
    game = Game.new("classic", 3, seed=5)
    snapshot = (list(game.events), [list(h) for h in game.hands], game.pending, game.decider)
    for _ in range(6):
        if game.pending is Decision.PRESS:
            game.push(Move.fired(1))
        else:
            game.push(game.legal_moves()[0])
    for _ in range(6):
        game.pop()
    assert (game.events, game.hands, game.pending, game.decider) == snapshot
    with pytest.raises(IndexError):
        game.pop()


def test_outcome_is_none_until_the_game_ends() -> None:
    game = Table.new("pocket", 2, seed=2, options={"target": 30})
    assert game.outcome() is None
    while not game.is_game_over():
        if game.is_round_over():
            game.start_next_round()
        else:
            game.play(game.legal_moves()[0])
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == game.winner
    assert outcome.scores == tuple(game.scores) and outcome.termination == "target"


def test_an_observation_shows_only_the_seats_own_cards() -> None:
    game = Table.new("attack", 3, seed=9)
    view = game.observation(1)
    deal = next(e for e in view.history if e["type"] == "deal")
    assert isinstance(deal["hands"][0], int) and isinstance(deal["hands"][1], list)
    assert view.hand == tuple(c.code for c in game.hand(1))
    assert all("cards" not in e for e in view.history if e["type"] == "hit" and e["player"] != 1)
    assert (view.legal_moves != ()) == (game.decider == 1)


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["attack", "attack-original", "attack-mega-hit", "classic", "pocket"]),
    st.integers(0, 2**32),
    st.integers(1, 30),
)
def test_pushing_random_moves_then_popping_them_all_restores_the_game(
    ruleset: str, seed: int, depth: int
) -> None:
    import random

    rng = random.Random(seed)
    game = Game.new(ruleset, 3, seed=seed)
    start = (list(game.events), [list(h) for h in game.hands], list(game.pile), game.scores[:])
    pushed = 0
    while pushed < depth and not game.is_round_over():
        if game.pending is Decision.PRESS:
            game.push(Move.fired(rng.choice([0, 1, 3])))
        else:
            game.push(rng.choice(game.legal_moves()))
        pushed += 1
    twin = game.copy()
    for _ in range(pushed):
        game.pop()
    assert (game.events, game.hands, list(game.pile), game.scores) == start
    assert twin.events[: len(start[0])] == start[0]
