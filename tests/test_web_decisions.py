"""Every decision the engine has can be made from a phone: the page's buttons are the legal moves.

Random games per ruleset, all seats played by "phones": at each step every seat's view
is built as the server sends it, one of the buttons shown (on any seat) is pressed, and
the server must accept it. The buttons say what they do in words (a card's name, never
its colour alone).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from game.tables.prompt import SeatSpec
from game.tables.web.session import GameSession
from game.tables.web.settings import WebSettings
from game.tables.web.views import seat_view

#: The decisions (``Decision`` values) and out-of-turn moves each ruleset must show.
EXPECTED = {
    "attack": ({"turn", "color", "target", "play_again"}, {"uno", "catch", "pass"}),
    "attack-mega-hit": ({"turn", "stack"}, {"take"}),
    "classic": ({"turn", "drawn", "challenge"}, {"challenge", "accept", "pass"}),
    "pocket": ({"turn", "give", "drawn"}, {"give"}),
}
COLOUR_WORDS = ("Red", "Blue", "Green", "Yellow", "Wild")


Seen = tuple[set[str], set[str], set[str]]  # decisions, move kinds, button labels


def _phones_play(
    ruleset: str, seed: int, options: dict[str, Any], done: Callable[[Seen], bool]
) -> Seen:
    seats = [SeatSpec(f"P{i}") for i in range(3)]
    session = GameSession(
        WebSettings(ruleset=ruleset, seats=seats, seed=seed, options=options, launcher=None)
    )
    session.open()
    game = session.game
    assert game is not None
    rng = random.Random(seed)
    decisions: set[str] = set()
    kinds: set[str] = set()
    labels: set[str] = set()
    for _ in range(4000):
        if game.is_game_over() or done((decisions, kinds, labels)):
            break
        if game.is_round_over():
            game.start_next_round()
            session.advance()
            continue
        views = [seat_view(game, session.names, session.bot_names, s) for s in range(3)]
        buttons = [(s, move) for s, view in enumerate(views) for move in view["moves"]]
        decisions.add(game.pending.value)
        for _, move in buttons:
            kinds.add(move["kind"])
            labels.add(move["label"])
            if move["kind"] == "play":
                assert move["label"].split(": ")[-1].startswith(COLOUR_WORDS), move
        seat, move = rng.choice(buttons)
        session.act(seat, [move["move"]], version=session.version)
    return decisions, kinds, labels


@pytest.mark.parametrize("ruleset", sorted(EXPECTED))
def test_every_decision_of_the_ruleset_is_offered_as_buttons(ruleset: str) -> None:
    want_decisions, want_kinds = EXPECTED[ruleset]
    decisions, kinds, labels = _phones_play(
        ruleset, 3, {}, lambda seen: want_decisions <= seen[0] and want_kinds <= seen[1]
    )
    assert want_decisions <= decisions
    assert want_kinds <= kinds
    assert all(label.strip() for label in labels)


def test_a_jump_in_is_offered_to_the_seat_holding_the_same_card() -> None:
    def jumped(seen: Seen) -> bool:
        return any(label.startswith("Jump in: ") for label in seen[2])

    assert jumped(_phones_play("classic", 4, {"jump_in": True}, jumped))
