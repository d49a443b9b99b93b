"""The event log keeps records and writes dicts when read (game.core.eventlog, issue 27).

Readers must see what they always saw: the same dicts in the same order, key order included,
whether they read the log as the game runs, at the end, through ``on_event``, a copy or a pickle.
"""

from __future__ import annotations

import json
import pickle
import random
from typing import Any

from game import Game


def _advance(game: Game, moves: int, rng: random.Random, *, read: bool = False) -> None:
    """``moves`` random legal moves (``fired:1`` at presses), reading the log after each."""
    for _ in range(moves):
        if game.is_round_over():
            return
        if game.is_chance_node():
            game.play("fired:1" if game.pile else "fired:0")
        else:
            game.play(rng.choice(game.legal_moves()))
        if read:
            game.events  # noqa: B018  # the read writes the records logged so far


def _played(seed: int, *, read: bool) -> Game:
    game = Game.new("attack", 3, seed=seed)
    _advance(game, 300, random.Random(seed), read=read)
    return game


def test_reading_as_the_game_runs_or_at_the_end_gives_the_same_log() -> None:
    for seed in range(5):
        early, late = _played(seed, read=True), _played(seed, read=False)
        assert early.events == late.events
        dumps = [json.dumps(e) for e in early.events]  # key order included
        assert dumps == [json.dumps(e) for e in late.events]


def test_each_event_is_written_once_and_later_reads_get_the_same_dicts() -> None:
    game = Game.new("classic", 2, seed=3)
    first = game.events
    kept = list(first)
    _advance(game, 20, random.Random(3))
    again = game.events
    assert again is first and all(a is b for a, b in zip(kept, again, strict=False))
    assert len(game.event_log) == len(again)


def test_on_event_gets_every_event_as_it_happens_in_order() -> None:
    seen: list[dict[str, Any]] = []

    def watch(event: dict[str, Any]) -> None:
        assert game.events[-1] is event  # logged before the callback hears of it
        seen.append(event)

    game = Game.new("attack", 3, seed=8)
    game.on_event = watch  # set late: the events before it are written first
    before = len(game.events)
    _advance(game, 60, random.Random(8))
    assert seen == game.events[before:]
    assert all(a is b for a, b in zip(seen, game.events[before:], strict=True))


def test_a_decision_event_lists_the_moves_offered_in_notation() -> None:
    for seed in range(20):
        game = Game.new("attack", 3, seed=seed)
        _advance(game, 200, random.Random(seed))
        for event in game.events:
            if event["type"] == "decision":
                assert all(isinstance(move, str) for move in event["moves"])
                return
    raise AssertionError("no decision logged in 20 games")


def test_a_copy_and_a_pickle_keep_the_log_and_grow_their_own() -> None:
    game = Game.new("attack", 3, seed=5)
    _advance(game, 40, random.Random(5))
    twin = game.copy()
    assert twin.events == game.events and twin.on_event is None
    _advance(twin, 40, random.Random(6))
    assert len(twin.events) > len(game.events)
    log = pickle.loads(pickle.dumps(game.event_log))
    assert log.events == game.events


def test_setting_the_events_starts_the_log_from_them() -> None:
    game = Game.new("classic", 2, seed=2)
    history = list(game.events)
    game.events = history
    assert game.events is history
    _advance(game, 10, random.Random(2))
    assert game.events is history and len(history) > 0
