"""Every logged decision offers the move its seat then makes (issue 24, part 5).

An outside replayer checks each ``decision`` event's offered moves against the move that
seat makes next. After a UNO catch the caught seat's penalty cards can change its options
(a play-again offer gains the cards just drawn), so the decision must be logged again (it
always is: whether the cards changed it is that seat's secret, tests/test_hidden_information.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from game.play.simulate import SimConfig, play_game

#: Event type -> the notation of the move it records (None: not a decision's answer).
MOVE_OF = {
    "play": lambda e: e["card"] if e["reason"] != "jump-in" else None,
    "draw": lambda e: "draw",
    "color": lambda e: f"color:{e['color']}",
    "target": lambda e: f"target:{e['target']}",
    "pass": lambda e: "pass",
    "give": lambda e: f"give:{e['card']}",
    "take": lambda e: "take",
    "accept": lambda e: "accept",
    "challenge": lambda e: "challenge",
}


def stale_offers(events: Sequence[dict[str, Any]]) -> list[str]:
    """Each decision whose seat's next move was not among the moves it offered."""
    found = []
    for index, decision in enumerate(events):
        if decision["type"] != "decision":
            continue
        seat = decision["player"]
        for later in events[index + 1 :]:
            if later["type"] == "decision" and later["player"] == seat:
                break  # offered again before answering: the newer offer is checked
            name = MOVE_OF.get(later["type"])
            move = name(later) if name is not None and later.get("player") == seat else None
            if move is not None:
                if move not in decision["moves"]:
                    found.append(f"event {index}: P{seat} {move} not in {decision['moves']}")
                break
    return found


def test_a_play_again_offer_is_logged_again_after_a_uno_catch() -> None:
    # the repro: simulate --ruleset attack --players 3 --games 1 --seed 7 --bots casual
    config = SimConfig("attack", 3, 1, seed=7, bots=("casual",), keep_events=True)
    events = play_game(config, 0).events
    assert stale_offers(events) == []
    caught = [i for i, e in enumerate(events) if e["type"] == "uno" and e["caught"]]
    assert caught, "the repro game has a UNO catch"


@pytest.mark.parametrize("bots", [("random",), ("casual",), ("casual", "random", "greedy")])
def test_every_decision_offered_the_move_its_seat_made(bots: tuple[str, ...]) -> None:
    config = SimConfig("attack", 3, 1, seed=11, bots=bots, keep_events=True)
    for index in range(12):
        assert stale_offers(play_game(config, index).events) == []
