"""What the web pages are told to show, from real games: turns, results, news, the UNO toggle.

The views are built from the real engine (seeded games, every move the engine allows);
the pages only lay them out, so these facts are checked here, without a browser.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.core.moves import Decision, PlayMove
from game.play.driver import Table
from game.tables.web.views import card_text, seat_view, table_view

NAMES = ["Ann", "Bob", "Kim"]
BOTS: list[str | None] = [None, None, None]
PRESSED = re.compile(r"^You press the launcher[^:]*: \d+ cards? \((.*)\)\.$")


def states(seed: int, pick: int = 0, **options: object) -> Iterator[Table]:
    """Every state of a seeded game played with the ``pick``-th legal move (cycling)."""
    game = Table.new("attack", len(NAMES), seed=seed, options=dict(options))
    turn = 0
    while not game.is_game_over() and turn < 3000:
        yield game
        if game.is_round_over():
            game.start_next_round()
            continue
        moves = game.legal_moves()
        game.play(moves[(pick + turn) % len(moves)])
        turn += 1
    yield game


def test_no_uno_toggle_when_the_only_move_is_to_press() -> None:
    found = 0
    for seed in range(40):
        for game in states(seed, pick=seed):
            seat = game.decider
            if game.is_round_over() or game.pending is not Decision.TURN:
                continue
            if len(game.hands[seat]) != 2:
                continue
            view = seat_view(game, NAMES, BOTS, seat)
            can_play = any(isinstance(m, PlayMove) for m in game.legal_moves())
            assert view["uno_with_play"] is can_play, view["moves"]
            found += not can_play
        if found >= 3:
            return
    pytest.fail(f"only {found} two-card turns without a card to play in 40 games")


def test_at_the_end_nobody_is_to_play_and_the_winner_is_told_you_win() -> None:
    game = list(states(2, target=1))[-1]
    assert game.is_game_over()
    table = table_view(game, NAMES, BOTS)
    winner = game.winner
    assert winner is not None
    assert table["turn_name"] is None and table["round_over"] is True
    result = table["result"]
    assert result["game_over"] and result["name"] == NAMES[winner]
    assert result["text"] == f"{NAMES[winner]} wins the game!"
    assert result["points"] == game.scores[winner] > 0
    for seat in range(len(NAMES)):
        expected = "You win!" if seat == winner else f"{NAMES[winner]} wins the game."
        assert seat_view(game, NAMES, BOTS, seat)["situation"] == expected


def test_a_round_end_shows_the_rounds_points_until_the_next_deal() -> None:
    for game in states(3):
        if game.is_round_over() and not game.is_game_over():
            break
    else:
        pytest.fail("no round ended before the game did")
    result = table_view(game, NAMES, BOTS)["result"]
    end = next(e for e in reversed(game.events) if e["type"] == "round_end")
    assert result["points"] == end["gained"][end["winner"]]
    assert result["text"] == f"{NAMES[end['winner']]} wins round {end['round']}!"
    mine = seat_view(game, NAMES, BOTS, end["winner"])["situation"]
    assert mine == f"You win round {end['round']}! (+{result['points']} points)"
    game.start_next_round()
    assert table_view(game, NAMES, BOTS)["result"] is None
    assert table_view(game, NAMES, BOTS)["turn_name"] in NAMES


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), pick=st.integers(0, 5))
def test_what_was_done_to_you_names_only_cards_you_hold(seed: int, pick: int) -> None:
    """A phone's notice lists the cards its own presses brought, never anyone else's."""
    lines_seen = 0
    for game in states(seed, pick):
        for seat in range(len(NAMES)):
            news = seat_view(game, NAMES, BOTS, seat)["done_to_you"]
            lines_seen += len(news)
            if any("trades hands" in line or "passes you" in line for line in news):
                continue
            hand = [card_text(c.code) for c in game.hand(seat)]
            for line in news:
                listed = PRESSED.match(line)
                for card in listed.group(1).split(", ") if listed else ():
                    assert card in hand, (line, hand)
                    hand.remove(card)
    assert lines_seen > 0
