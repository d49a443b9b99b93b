"""The rules core holds no device (issue 24): chance nodes, push/pop/copy, next-round, the loop."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game import Decision, Game, IllegalMove, Move, Table, Termination, play_out
from game.bots import make_bot
from game.core.errors import GameError
from game.core.moves import NEXT_ROUND, FiredMove, NextRoundMove
from game.core.rulesets import RULESET_IDS
from game.play.driver import SampledChance
from launcher.sim import SimLauncher


def counting_table(seed: int, ruleset: str = "attack", players: int = 2) -> Table:
    """A game on a seeded simulated launcher: ``table.launcher.presses`` counts every press."""
    launcher: SimLauncher[Any] = SimLauncher("web-game", seed=seed)
    return Table.new(ruleset, players, launcher=launcher, seed=seed)


# -- push/pop/copy never touch a device ------------------------------------------------------
def test_push_and_pop_of_a_draw_press_nothing_and_the_game_goes_on_like_its_twin() -> None:
    # the repro: on main, push("draw"); pop() pressed the launcher (93 left of 95)
    table, twin = counting_table(900), counting_table(900)
    while table.pending is not Decision.TURN:  # to the first turn, then a draw
        move = table.legal_moves()[0]
        table.play(move)
        twin.play(move)
    table.play("draw")
    twin.play("draw")
    while table.pending is not Decision.TURN:
        move = table.legal_moves()[0]
        table.play(move)
        twin.play(move)
    presses, left = table.launcher.presses, table.launcher.remaining
    table.push("draw")
    assert table.is_chance_node()  # the pushed draw waits at its press: nothing was pressed
    assert table.pop() == Move.parse("draw")
    assert (table.launcher.presses, table.launcher.remaining) == (presses, left)
    for _ in range(40):
        if table.is_round_over():
            break
        move = table.legal_moves()[0]
        table.play(move)
        twin.play(move)
    assert table.events == twin.events


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ruleset=st.sampled_from(RULESET_IDS),
    players=st.integers(2, 5),
    seed=st.integers(0, 2**32),
    steps=st.integers(0, 60),
)
def test_push_pop_and_copy_never_press_on_any_game(
    ruleset: str, players: int, seed: int, steps: int
) -> None:
    table = counting_table(seed, ruleset, players)
    rng = random.Random(seed)
    for _ in range(steps):
        if table.is_game_over():
            break
        table.play(rng.choice(table.legal_moves()))
    presses, before = table.launcher.presses, list(table.events)
    game = table.game
    for move in game.legal_moves():
        game.push(move)
        while game.is_chance_node():  # a search feeds its own counts
            game.push(game.chance_outcomes()[-1][0] if game.chance_outcomes() else Move.fired(0))
        while game.move_stack:
            game.pop()
    game.copy().legal_moves()
    assert table.launcher.presses == presses
    assert game.events == before


def test_pop_returns_the_move_and_peek_shows_the_last_one() -> None:
    game = Game.new("classic", 3, seed=5)
    with pytest.raises(IndexError):
        game.peek()
    first = game.legal_moves()[0]
    game.push(first)
    assert game.peek() == first and game.move_stack == [first]
    assert game.pop() == first and game.move_stack == []


def test_a_copy_with_its_stack_pops_on_its_own_and_one_without_has_none() -> None:
    game = Game.new("classic", 3, seed=5)
    game.push(game.legal_moves()[0])
    hands = [list(h) for h in game.hands]
    twin = game.copy()
    twin.pop()
    twin.hands[0].clear()
    assert game.move_stack and [list(h) for h in game.hands] == hands
    game.pop()
    searched = game.copy(stack=False)
    assert searched.move_stack == []
    with pytest.raises(IndexError):
        searched.pop()


# -- chance nodes ------------------------------------------------------------------------
def at_a_press(game: Game) -> Game:
    while not game.is_chance_node():
        draws = [m for m in game.legal_moves() if str(m) == "draw"]
        game.play(draws[0] if draws else game.legal_moves()[-1])
    return game


def test_a_draw_pile_press_is_one_card_for_sure_and_sampled_mode_has_no_odds() -> None:
    pile = at_a_press(Game.new("classic", 3, seed=2))
    assert pile.chance_outcomes() == [(Move.fired(1), 1.0)]
    attack = at_a_press(Game.new("attack", 3, seed=2))
    assert attack.chance_outcomes() == []  # sampled: no launcher odds given
    with pytest.raises(GameError, match="not at a chance node"):
        Game.new("attack", 3, seed=2).chance_outcomes()


def test_a_profile_gives_the_odds_of_each_count_capped_by_the_hopper() -> None:
    game = at_a_press(Game.new("attack", 3, seed=2, press_odds=(0.5, 0.2, 0.2, 0.1)))
    outcomes = game.chance_outcomes()
    assert [(str(m), p) for m, p in outcomes] == [
        ("fired:0", 0.5),
        ("fired:1", 0.2),
        ("fired:2", 0.2),
        ("fired:3", 0.1),
    ]
    while len(game.pile) > 1:  # a nearly empty hopper: 2 and 3 cards cannot come out
        game.pile.pop()
    assert [(str(m), round(p, 9)) for m, p in game.chance_outcomes()] == [
        ("fired:0", 0.5),
        ("fired:1", 0.5),
    ]


def test_a_table_on_an_iid_launcher_is_explicit_and_its_outcomes_are_playable() -> None:
    table = counting_table(3, "attack", 3)
    game = at_a_press(table.game)
    outcomes = game.chance_outcomes()
    assert abs(sum(p for _, p in outcomes) - 1) < 1e-9 and len(outcomes) == 10
    game.play(outcomes[2][0])


@pytest.mark.parametrize("count", [1.5, -1, True, "2", 10**6])
@pytest.mark.parametrize("ruleset", ["attack", "classic"])
def test_a_count_that_is_not_a_whole_number_within_the_pile_is_illegal(
    count: Any, ruleset: str
) -> None:
    # on main: fired(1.5) raised TypeError on a large pile and was logged "counted": 1.5 on
    # a small one; a count beyond the pile was taken as the pile
    game = at_a_press(Game.new(ruleset, 3, seed=4))
    for small in (False, True):
        if small:
            while len(game.pile) > 1:
                game.pile.pop()
        events = list(game.events)
        with pytest.raises(IllegalMove, match="whole number"):
            game.play(FiredMove(count))
        assert game.events == events and game.is_chance_node()


def test_the_text_fired_n_is_checked_like_the_move() -> None:
    game = at_a_press(Game.new("attack", 3, seed=4))
    with pytest.raises(IllegalMove):
        game.play(f"fired:{len(game.pile) + 1}")
    game.play(f"fired:{len(game.pile)}")


# -- the next round is a move ------------------------------------------------------------------
def round_over(seed: int) -> Table:
    table = Table.new("classic", 2, seed=seed, options={"target": 1000})
    rng = random.Random(seed)
    while not table.is_round_over():
        table.play(rng.choice(table.legal_moves()))
    return table


def test_a_round_boundary_can_be_pushed_and_popped() -> None:
    game = round_over(11).game
    assert game.legal_moves() == [NEXT_ROUND] and str(NEXT_ROUND) == "next-round"
    assert Move.parse("next-round") == NEXT_ROUND and isinstance(NEXT_ROUND, NextRoundMove)
    before = (list(game.events), game.round_number, [list(h) for h in game.hands])
    game.push("next-round")
    assert game.round_number == before[1] + 1 and game.pending is not Decision.ROUND_OVER
    game.pop()
    assert (game.events, game.round_number, [list(h) for h in game.hands]) == before
    with pytest.raises(IllegalMove, match="round is over"):
        game.play("draw")


def test_the_termination_is_an_enum_with_the_logged_strings() -> None:
    table = Table.new("classic", 2, seed=3)
    play_out(table.game, [make_bot("random", 1), make_bot("random", 2)], table.presser)
    outcome = table.outcome()
    assert outcome is not None and outcome.termination is Termination.TARGET
    assert outcome.termination == "target"


# -- the one loop ------------------------------------------------------------------------
def test_play_out_takes_callbacks_and_a_sampled_chance_and_stops_when_asked() -> None:
    game = Game.new("attack", 3, seed=6)
    first = lambda game, seat: game.legal_moves()[0]  # noqa: E731
    seen: list[str] = []
    play_out(
        game,
        [first] * 3,
        SampledChance(6),
        on_step=lambda game, move: seen.append(str(move)),
        stop=lambda game: game.round_number > 1,
    )
    assert game.round_number == 2 and seen[-1] == "next-round"
    again = Game.new("attack", 3, seed=6)
    play_out(again, [first] * 3, SampledChance(6), stop=lambda game: game.round_number > 1)
    assert again.events == game.events  # the same seeds, the same game
