"""Outside checks of ``game.events`` (issue 27), from the docs alone.

Written without reading game/core/ or the project's event tests. Every promise checked here
is quoted from the docs:

- docs/rules.md, "Python API": "``game.events`` holds every event; ``on_event`` is called
  synchronously as each one happens [...] read it again after more moves to see their events."
- ``Game.events``: "Every event so far, oldest first, as the dicts game.play.events
  documents. [...] read it again after more moves for their events (the same list, grown)."
- ``Game.copy``: "An independent copy of the game with no event callback. Its chance stream
  continues like this game's."
- ``Game.pop``: "Undo the last push and return its move (the events it caused are dropped)";
  docs/rules.md: "``game.pop()`` restores it (events included)".
- game/play/events.py: "The engine emits plain dicts with a ``type`` key", "one JSON object
  per event (JSON Lines)", ``decision``: "player, decision (...), moves (the moves offered,
  in notation)"; docs/rules.md, "The event log": "every decision other than a turn offered
  with its moves (``decision``; logged again, with the moves offered then, after an
  out-of-turn penalty such as a UNO catch interrupts it ...)".
- docs/rules.md, "Determinism": "The same seed, ruleset, players, options [...] replay the
  same events, event for event".
- docs/performance.md: "``copy()``, ``push``/``pop`` and pickling copy the log".
- docs/notation.md: ``fired:3`` is a press's outcome, ``Move.fired(count)`` builds it.
"""

from __future__ import annotations

import copy as copy_module
import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game import Decision, Game, Move, Table, play_out
from game.bots import GreedyBot
from game.play.events import schema_problem
from tests.outside.docs_facts import LOGGED_DECISIONS

RULESETS = ["attack", "classic", "pocket", "attack-original", "attack-mega-hit"]
MAX_MOVES = 400

# The types game/play/events.py's table lists (``sim_game`` is added by simulate logs only).
DOCUMENTED_TYPES = {
    "game_start",
    "dealer",
    "deal",
    "play",
    "decision",
    "color",
    "target",
    "draw",
    "hit",
    "reload",
    "skip",
    "reverse",
    "discard",
    "trade",
    "give",
    "rotate",
    "uno",
    "challenge",
    "accept",
    "take",
    "pass",
    "round_end",
    "game_end",
}

Event = dict[str, Any]

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def setups(draw: st.DrawFn) -> tuple[str, int, int, int]:
    """(ruleset, players, game seed, move-picking seed)."""
    ruleset = draw(st.sampled_from(RULESETS))
    players = draw(st.integers(2, 5))
    return ruleset, players, draw(st.integers(0, 2**64)), draw(st.integers(0, 2**32))


def keys_as_text(value: Any) -> Any:
    """``value`` as JSON gives it back: dict keys as strings, tuples as lists."""
    if isinstance(value, dict):
        return {str(key): keys_as_text(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [keys_as_text(item) for item in value]
    return value


def pick(game: Game, rng: random.Random) -> Move | str | None:
    """A random legal move (or a press outcome), sometimes as its notation; None when over."""
    if game.is_game_over():
        return None
    if game.is_chance_node():
        count = rng.randint(0, min(3, len(game.pile)))
        # docs/notation.md: ``fired:N``, or ``Move.fired(count)``: both must be accepted.
        return Move.fired(count) if rng.random() < 0.5 else f"fired:{count}"
    moves: list[Move] = list(game.legal_moves())
    table = list(game.table_moves())
    if table and rng.random() < 0.2:
        moves = table
    if not moves:
        return None
    move = rng.choice(moves)
    return str(move) if rng.random() < 0.3 else move


def play_random(
    game: Game,
    rng: random.Random,
    limit: int = MAX_MOVES,
    after: Callable[[Game, Move | str], None] | None = None,
) -> list[str]:
    """Play up to ``limit`` random moves; returns them in notation."""
    made: list[str] = []
    for _ in range(limit):
        move = pick(game, rng)
        if move is None:
            break
        game.play(move)
        made.append(str(move))
        if after is not None:
            after(game, move)
    return made


# -- the events themselves ---------------------------------------------------------------


@SETTINGS
@given(setups())
def test_every_event_is_a_documented_json_dict_with_type_first(
    setup: tuple[str, int, int, int],
) -> None:
    ruleset, players, seed, move_seed = setup
    game = Game.new(ruleset, players, seed=seed)
    play_random(game, random.Random(move_seed))
    events = game.events
    assert [e["type"] for e in events[:3]] == ["game_start", "dealer", "deal"]
    for event in events:
        assert type(event) is dict
        assert next(iter(event)) == "type", event
        assert event["type"] in DOCUMENTED_TYPES, event
        assert schema_problem(event) is None, (schema_problem(event), event)
    # "one JSON object per event (JSON Lines)": plain JSON data that round-trips, except
    # that JSON writes the ``dealer`` event's seat-keyed maps (``turned``, ``rounds``) with
    # string keys: the dicts use int seats there (undocumented either way; see the report).
    text = json.dumps(events)
    assert json.loads(text) == keys_as_text(events)
    if game.is_game_over():
        assert events[-1]["type"] == "game_end"
        assert events[-1]["winner"] == game.winner


@SETTINGS
@given(setups())
def test_events_read_again_hold_the_earlier_ones_unchanged_in_order(
    setup: tuple[str, int, int, int],
) -> None:
    ruleset, players, seed, move_seed = setup
    game = Game.new(ruleset, players, seed=seed)
    rng = random.Random(move_seed)
    snapshots: list[list[Event]] = [copy_module.deepcopy(game.events)]
    first_read = game.events
    for _ in range(6):
        if not play_random(game, rng, limit=40):
            break
        now = game.events
        for snapshot in snapshots:
            assert now[: len(snapshot)] == snapshot
        assert len(now) >= len(snapshots[-1])
        snapshots.append(copy_module.deepcopy(now))
    # The dicts handed out earlier were not changed by later moves, and the list read first
    # is "the same list, grown" (Game.events' docstring) once read again.
    assert first_read[: len(snapshots[0])] == snapshots[0]
    assert first_read is game.events


# -- on_event --------------------------------------------------------------------------


@SETTINGS
@given(setups())
def test_on_event_sees_the_same_events_as_they_happen(setup: tuple[str, int, int, int]) -> None:
    ruleset, players, seed, move_seed = setup
    received: list[Event] = []
    frozen: list[str] = []  # each event as JSON when it was handed over

    def listen(event: Event) -> None:
        received.append(event)
        frozen.append(json.dumps(event))

    game = Game.new(ruleset, players, seed=seed, on_event=listen)
    # The set-up's events are handed over during Game.new.
    assert len(received) >= 3

    def check(game: Game, move: Move | str) -> None:
        # Synchronous: everything the move caused (a hit included) reached the callback
        # before play() returned.
        assert len(received) == len(game.events), move
        assert received == game.events

    moves = play_random(game, random.Random(move_seed), after=check)
    assert received == game.events
    # The dicts were not changed after they were handed over.
    assert [json.loads(text) for text in frozen] == keys_as_text(game.events)
    # Listening does not change what is logged: the same game without a callback.
    silent = Game.new(ruleset, players, seed=seed)
    for move in moves:
        silent.play(move)
    assert silent.events == received


@SETTINGS
@given(setups())
def test_hit_reaches_the_callback_before_the_press_returns(
    setup: tuple[str, int, int, int],
) -> None:
    ruleset, players, seed, move_seed = setup
    received: list[Event] = []
    game = Game.new(ruleset, players, seed=seed, on_event=received.append)
    rng = random.Random(move_seed)
    for _ in range(MAX_MOVES):
        if game.is_game_over():
            break
        if game.is_chance_node():
            before = len(received)
            count = rng.randint(0, min(3, len(game.pile)))
            game.play(f"fired:{count}")
            new = received[before:]
            hits = [e for e in new if e["type"] == "hit"]
            assert hits, new  # "one per press"
            assert hits[0]["cards"] == [] or len(hits[0]["cards"]) == count, hits
        else:
            move = pick(game, rng)
            if move is None:
                break
            game.play(move)
    assert received == game.events


@SETTINGS
@given(setups(), st.integers(0, 60))
def test_callback_set_late_sees_a_tail_of_the_log(
    setup: tuple[str, int, int, int], warmup: int
) -> None:
    ruleset, players, seed, move_seed = setup
    game = Game.new(ruleset, players, seed=seed)
    rng = random.Random(move_seed)
    play_random(game, rng, limit=warmup)
    already = len(game.events)
    received: list[Event] = []
    game.on_event = received.append
    play_random(game, rng, limit=80)
    events = game.events
    assert len(received) >= len(events) - already
    assert received == events[len(events) - len(received) :]


# -- copy, push/pop ---------------------------------------------------------------


@SETTINGS
@given(setups(), st.integers(0, 80))
def test_copy_has_equal_events_then_independent(
    setup: tuple[str, int, int, int], warmup: int
) -> None:
    ruleset, players, seed, move_seed = setup
    received: list[Event] = []
    game = Game.new(ruleset, players, seed=seed, on_event=received.append)
    rng = random.Random(move_seed)
    play_random(game, rng, limit=warmup)
    at_copy = copy_module.deepcopy(game.events)
    twin = game.copy()
    assert twin.on_event is None  # "with no event callback"
    assert twin.events == at_copy
    assert game.copy(stack=False).events == at_copy
    seen = len(received)
    # The copy goes its own way: the original's log and callback do not move.
    play_random(twin, random.Random(move_seed + 1), limit=60)
    assert game.events == at_copy
    assert len(received) == seen
    assert twin.events[: len(at_copy)] == at_copy
    twin_log = copy_module.deepcopy(twin.events)
    # The original goes on: the copy's log does not move.
    moves = play_random(game, rng, limit=60)
    assert twin.events == twin_log
    assert game.events[: len(at_copy)] == at_copy
    assert received == game.events
    # Same chance stream: a fresh copy replaying the original's moves logs the same events.
    replay = Game.new(ruleset, players, seed=seed)
    play_random(replay, random.Random(move_seed), limit=warmup)
    assert replay.events == at_copy
    again = replay.copy()
    for move in moves:
        again.play(move)
    assert again.events == game.events


@SETTINGS
@given(setups(), st.integers(0, 80))
def test_push_pop_restore_the_log_exactly(setup: tuple[str, int, int, int], warmup: int) -> None:
    ruleset, players, seed, move_seed = setup
    game = Game.new(ruleset, players, seed=seed)
    rng = random.Random(move_seed)
    play_random(game, rng, limit=warmup)
    logs: list[list[Event]] = []
    pushed: list[Move] = []
    for _ in range(rng.randint(1, 25)):
        move = pick(game, rng)
        if move is None:
            break
        typed = Move.parse(move) if isinstance(move, str) else move
        logs.append(copy_module.deepcopy(game.events))
        game.push(typed)
        pushed.append(typed)
        assert game.events[: len(logs[-1])] == logs[-1]
    # A copy at the deepest point has equal events, and keeps them while we pop.
    deep = game.copy()
    deep_log = copy_module.deepcopy(game.events)
    assert deep.events == deep_log
    while pushed:
        assert game.pop() == pushed.pop()
        # pop drops exactly the events that move caused.
        assert game.events == logs.pop()
    assert deep.events == deep_log
    # After popping everything, the game goes on like one that never pushed.
    fresh = Game.new(ruleset, players, seed=seed)
    play_random(fresh, random.Random(move_seed), limit=warmup)
    assert fresh.events == game.events
    follow = random.Random(move_seed + 7)
    moves = play_random(game, follow, limit=40)
    for move in moves:
        fresh.play(move)
    assert fresh.events == game.events


def test_pop_with_a_listener_keeps_events_and_callback_consistent() -> None:
    received: list[Event] = []
    game = Game.new("attack", 3, seed=7, on_event=received.append)
    before = copy_module.deepcopy(game.events)
    # The first card needs presses in this game; push through a few of them.
    count = 0
    while count < 5 and not game.is_game_over():
        move = pick(game, random.Random(count))
        assert move is not None
        game.push(Move.parse(move) if isinstance(move, str) else move)
        count += 1
    for _ in range(count):
        game.pop()
    assert game.events == before
    # Whatever the callback saw, the log and a further move stay consistent.
    after = len(game.events)
    move = pick(game, random.Random(99))
    assert move is not None
    seen = len(received)
    game.play(move)
    assert received[seen:] == game.events[after:]


# -- determinism ---------------------------------------------------------------------------


@SETTINGS
@given(setups())
def test_same_seed_players_and_moves_give_equal_events(setup: tuple[str, int, int, int]) -> None:
    ruleset, players, seed, move_seed = setup
    names = [f"p{i}" for i in range(players)]
    first = Game.new(ruleset, names, seed=seed)
    moves = play_random(first, random.Random(move_seed))
    second = Game.new(ruleset, names, seed=seed)
    for move in moves:
        second.play(move)
    assert second.events == first.events
    assert json.dumps(second.events) == json.dumps(first.events)


# -- decision events ------------------------------------------------------------------------


@SETTINGS
@given(setups())
def test_decision_event_lists_the_moves_legal_at_that_decision(
    setup: tuple[str, int, int, int],
) -> None:
    ruleset, players, seed, move_seed = setup
    game = Game.new(ruleset, players, seed=seed)
    rng = random.Random(move_seed)
    for _ in range(MAX_MOVES):
        move = pick(game, rng)
        if move is None:
            break
        game.play(move)
        if game.pending in LOGGED_DECISIONS:
            logged = [e for e in game.events if e["type"] == "decision"]
            assert logged, game.pending
            last = logged[-1]
            assert last["player"] == game.decider, (last, game.decider)
            assert last["decision"] == game.pending.value, (last, game.pending)
            assert last["moves"] == [str(m) for m in game.legal_moves()], last


def test_a_decision_is_logged_for_a_wild_colour() -> None:
    """A concrete case: the first wild played asks for a colour, logged with its moves."""
    for seed in range(200):
        game = Game.new("classic", 2, seed=seed)
        rng = random.Random(seed)
        for _ in range(MAX_MOVES):
            if game.is_chance_node():
                game.play(Move.fired(min(1, len(game.pile))))
                continue
            wilds = [m for m in game.legal_moves() if str(m) in ("W", "W+4")]
            if wilds:
                game.play(wilds[0])
                if game.pending is Decision.COLOR:
                    last = [e for e in game.events if e["type"] == "decision"][-1]
                    assert last["player"] == game.decider
                    assert last["decision"] == "color"
                    assert last["moves"] == [str(m) for m in game.legal_moves()]
                    assert sorted(last["moves"]) == ["color:B", "color:G", "color:R", "color:Y"]
                    return
            move = pick(game, rng)
            if move is None:
                break
            game.play(move)
    pytest.fail("no seed reached a wild in classic")


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_whole_game_ends_with_game_end_matching_the_outcome(ruleset: str) -> None:
    """Played to the end (playing a card when one is legal), the log closes the game."""
    received: list[Event] = []
    game = Game.new(ruleset, 3, seed=11, on_event=received.append)
    rng = random.Random(5)
    for _ in range(20_000):
        if game.is_game_over():
            break
        if game.is_chance_node():
            game.play(Move.fired(min(1, len(game.pile))))
            continue
        moves = game.legal_moves()
        plays = [m for m in moves if str(m) not in ("draw", "pass", "take", "accept")]
        game.play(rng.choice(plays or moves))
    assert game.is_game_over()
    events = game.events
    assert received == events
    assert events[-1]["type"] == "game_end"
    assert [e["type"] for e in events].count("game_end") == 1
    assert events[-1]["winner"] == game.winner
    assert events[-1]["scores"] == list(game.scores)
    round_ends = [e for e in events if e["type"] == "round_end"]
    assert len(round_ends) == events[-1]["rounds"] == game.round_number
    assert round_ends[-1]["scores"] == events[-1]["scores"]
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == game.winner


@pytest.mark.parametrize("ruleset", ["classic", "attack"])
def test_table_on_event_sees_the_games_log(ruleset: str) -> None:
    """``Table.new(..., on_event=)`` (docs/rules.md): presses made by the table's Presser."""
    received: list[Event] = []
    launcher = "pile://" if ruleset == "classic" else "sim://?seed=3"
    with Table.new(ruleset, 3, launcher=launcher, seed=4, on_event=received.append) as table:
        game = table.game
        bots = [GreedyBot(seed=seat) for seat in range(3)]
        steps: list[int] = []
        play_out(
            game,
            bots,
            table.presser,
            on_step=lambda game, move: steps.append(len(received) - len(game.events)),
            stop=lambda game: game.is_round_over(),
        )
    assert steps and set(steps) == {0}
    assert received == game.events
    assert any(e["type"] == "hit" for e in received)
    assert received[-1]["type"] in ("round_end", "game_end")
