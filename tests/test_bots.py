"""Bots: random is uniform over legal moves and seeded; greedy plays sensibly and beats it."""

from __future__ import annotations

from collections import Counter

import pytest
from rig import position

from game import Card, Color, Decision, Move, RulesetError
from game.bots import GreedyBot, RandomBot, make_bot
from game.play.simulate import SimConfig, simulate


def test_random_bot_only_picks_legal_moves_and_covers_them_all() -> None:
    game = position("attack", ["R2 R3 B3", "G5 G6"], "R1")
    bot = RandomBot(seed=1)
    picks = Counter(str(bot.choose(game, 0)) for _ in range(600))
    assert set(picks) == {str(m) for m in game.legal_moves()} == {"R2", "R3", "draw"}
    assert min(picks.values()) > 150


def test_random_bot_replays_with_the_same_seed() -> None:
    game = position("attack", ["R2 R3 B3", "G5 G6"], "R1")
    assert [RandomBot(3).choose(game, 0) for _ in range(5)] == [
        RandomBot(3).choose(game, 0) for _ in range(5)
    ]


def test_greedy_dumps_high_points_and_keeps_wilds() -> None:
    game = position("attack", ["R2 RH2 W B9", "G5 G6"], "R1")
    assert GreedyBot(0).choose(game, 0) == Move.parse("RH2")
    only_wild = position("attack", ["W B9", "G5 G6"], "R1")
    assert GreedyBot(0).choose(only_wild, 0) == Move.parse("W")


def test_greedy_picks_its_most_held_colour_and_the_player_with_fewest_cards() -> None:
    game = position("attack", ["WAA B2 B3 G4", "G5 G6 G7", "Y1", "R5 R6"], "R1")
    bot = GreedyBot(0)
    game.play(bot.choose(game, 0))
    assert bot.choose(game, 0) == Move.choose(Color.BLUE)
    game.play(Move.choose(Color.BLUE))
    assert game.pending is Decision.TARGET and bot.choose(game, 0) == Move.aim(2)


def test_greedy_calls_uno_and_catches_others() -> None:
    game = position("attack", ["R5 R6", "G5 G6", "Y1 Y2"], "R1")
    game.play("R5")
    bot = GreedyBot(0)
    assert bot.table_move(
        game, 0, [m for m in game.table_moves() if game.seat_of(m) == 0]
    ) == Move.parse("uno")
    assert bot.table_move(
        game, 1, [m for m in game.table_moves() if game.seat_of(m) == 1]
    ) == Move.catch(0, 1)


def test_greedy_challenges_a_big_hand_and_accepts_against_a_tiny_one() -> None:
    big = position("classic", ["W+4 R5 B2 B3 G4", "G5 G6", "Y1 Y2"], "R1")
    big.play("W+4")
    big.play("color:G")
    assert GreedyBot(0).choose(big, 1) == Move.parse("challenge")
    tiny = position("classic", ["W+4 R5", "G5 G6", "Y1 Y2"], "R1")
    tiny.play("W+4")
    tiny.play("color:G")
    assert GreedyBot(0).choose(tiny, 1) == Move.parse("accept")


def test_greedy_plays_the_drawn_card_but_keeps_a_drawn_wild() -> None:
    game = position("classic", ["B2 B3 G9", "G5 G6"], "R1", bottom="R7")
    game.play("draw")
    assert GreedyBot(0).choose(game, 0) == Move.parse("R7")
    wild = position("classic", ["B2 B3 G9", "G5 G6"], "R1", bottom="W")
    wild.play("draw")
    assert wild.drawn_card == Card.parse("W") and GreedyBot(0).choose(wild, 0) == Move.parse("pass")


def test_greedy_beats_random_over_many_games() -> None:
    summary = simulate(
        SimConfig(ruleset="classic", players=2, games=60, seed=4, bots=("greedy", "random"))
    )
    assert summary["seats"][0]["wins"] > summary["seats"][1]["wins"]


def test_unknown_bot_is_a_clear_error() -> None:
    with pytest.raises(RulesetError, match="unknown bot 'smart'"):
        make_bot("smart", 1)
