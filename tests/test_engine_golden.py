"""The same seed replays the same game, byte for byte, across refactors of the engine.

Each case plays one complete seeded game with bots and hashes its event log. A change
of the engine's structure (moves, round state, module split, speed work) must keep every
digest; only a deliberate change of a rule or a bot may move one, and then the new digest
is pinned here in the same commit, with the reason in its message.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from game.simulate import SimConfig, play_game

BOTS = ("random", "greedy")
HOUSE_RULES = {"jump_in": True, "seven_zero": True, "stack_draws": True}

#: (ruleset, players, options) -> sha256 (first 16 hex digits) of the game's events, JSON Lines.
PINNED: dict[tuple[str, int, str], str] = {
    ("attack", 2, ""): "ca6725e972cdb55b",
    ("attack", 4, ""): "e5d8691352eadf2c",
    ("attack-original", 2, ""): "3fe5baaba2992216",
    ("attack-original", 4, ""): "e63bf03cf3fb0419",
    ("attack-mega-hit", 2, ""): "5f28c770a1dc5bee",
    ("attack-mega-hit", 4, ""): "749eb16d54c48fbd",
    ("classic", 2, ""): "fa6e1a8ab59bc407",
    ("classic", 4, ""): "193dc9761a76fcf6",
    ("pocket", 2, ""): "0de0356fbf7a76b9",
    ("pocket", 4, ""): "882bc465d367a9fc",
    ("classic", 4, "house"): "df348eeee223ae6f",
    ("attack", 3, "house"): "e6b8c7dffa0d1049",
    ("attack-mega-hit", 5, "mega"): "4508fa7e2587471c",
}
OPTIONS = {
    "": {},
    "house": {**HOUSE_RULES, "skip_reverse_play_again": "always", "suggestion_penalty": 4},
    "mega": {"mega_hit_stack": True, "scoring": "elimination", "jump_in": True},
}


def digest(ruleset: str, players: int, options: str) -> str:
    config = SimConfig(
        ruleset=ruleset,
        players=players,
        games=1,
        seed=11,
        bots=BOTS,
        options=OPTIONS[options],
        keep_events=True,
    )
    events = play_game(config, 0).events
    text = "".join(json.dumps(e, sort_keys=True) + "\n" for e in events)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@pytest.mark.parametrize("case", sorted(PINNED), ids=lambda c: "-".join(map(str, c)).strip("-"))
def test_a_seeded_game_replays_byte_for_byte(case: tuple[str, int, str]) -> None:
    assert digest(*case) == PINNED[case], f"game {case} changed: new digest {digest(*case)}"
