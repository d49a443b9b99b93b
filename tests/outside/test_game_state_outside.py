"""Outside checks of the Game's state as plain attributes (issue 27), from the docs alone.

Written without reading game/core/*.py or the project's own engine tests: every promise
checked here is quoted from docs/rules.md, docs/notation.md, docs/performance.md or the
docstrings ``help()`` shows on public objects.

- docs/rules.md, "State:": "Everything a deal resets (``hands``, ``discard``, ``pile``,
  ``pending``, ``decider``, the pending press...) is a plain attribute of the game, declared
  once with its meaning by ``RoundState`` [...]; ``game.total_turns`` counts the turns of the
  whole game." ``game.core.round``'s docstring: "A snapshot for ``Game.push``/``Game.pop``
  and ``Game.copy`` takes the game's attributes and [...] the round's, and copies their
  containers"; ``copy_round_fields``: "the snapshot shares nothing mutable with the game".
- docs/rules.md, "Copy, undo": "``game.copy()`` is an independent game with the same chance
  stream and the pushed moves (``copy(stack=False)``: without them [...]); ``game.push(move)``
  plays a move and remembers the state before it, ``game.pop()`` restores it (events
  included) and returns the move; ``game.move_stack`` lists the pushed moves and
  ``game.peek()`` the last." ``History.copy``: "An independent copy of the game with no event
  callback. Its chance stream continues like this game's."
- docs/rules.md, "Chance moves": "When a card needs presses, ``play()`` returns with
  ``game.is_chance_node()`` true (``game.pending is Decision.PRESS``) and ``game.press_due`` =
  who presses, how many presses are left and why (``PressDue(seat, presses, reason,
  until)``)". ``PressDue``: "``seat`` must press the launcher ``presses`` more times. ``until``:
  ``count`` (exactly that many presses), ``fire`` (stop at the first press that shoots cards;
  ``presses`` is the cap left), ``playable`` (...; ``presses`` is the cap left)."
- docs/rules.md, "Launchers and card identities": "the cards are the next N of the pile";
  "The draw pile is the engine's own ``game.pile`` (plain data, next card out first)"; "every
  card a press yields goes to the player who pressed (§2.3)"; ``hit`` event: "player, reason,
  cards, counted — one per press".
- docs/performance.md: "reusing one [PressDue] per round would hand callers that keep
  ``press_due`` an object that changes under them, so it stays."
- ``Game.total_turns``: "Turns begun in the whole game"; ``round_end`` event: "turns";
  docs/rules.md: "``round_turn_limit`` (5000 turns) ends a round after exactly that many
  turns, with no winner and no points".
- docs/notation.md: "Cards are interned (one object per card), equal only to themselves, and
  have no order of their own: ``card < other`` raises ``TypeError``. Display order [...] is
  the key ``game.core.cards.sort_key`` (or ``Card.display``, the same order as one int)";
  "``Card.parse(str(card)) == card``"; "Compact, case-insensitive text".
- docs/rules.md, the rulesets table (112, 112, 112, 112, 51 cards; "``--option wilds=4`` gives
  the common 108-card classic deck"; "UNO Attack decks have no zeros") and ``tests/event_checker``
  's promise that "no card is created or lost"; ``game_start`` event: "deck".
- docs/rules.md: "``game.play(move)`` [...] raises ``IllegalMove`` [...]; the game is
  unchanged"; "``hand(seat)`` (sorted copy)"; ``resample_from_infostate``: "a game identical
  in everything ``seat`` knows".
- docs/rules.md: "``game.outcome()`` is None while the game is on, then an ``Outcome(winner,
  scores, rounds, termination)``"; "Starting the next round is the move ``next-round``, so a
  round boundary can be pushed and popped too"; "a saved game is its ``Game.new`` arguments
  plus the moves made (table moves included), in order"; "given ``press_odds`` [...] the odds
  of counts above the pile's size fall on ``fired:len(pile)``".

Two promises were found false, and fixed since: ``Game.legal_moves``' docstring ("empty when
the round or game is over") against docs/rules.md's ``[next-round]``, and the
``NotationError`` of a bad ``fired:N`` text, which said a *seat number* was expected.
"""

from __future__ import annotations

import copy as copy_module
import dataclasses
import enum
import json
import pickle
import random
from collections import Counter, deque
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game import (
    Card,
    Decision,
    FiredMove,
    Game,
    GameError,
    IllegalMove,
    Kind,
    Move,
    NotationError,
    PlayMove,
    TakeMove,
    Termination,
)
from game.core.cards import all_cards, parse_cards, sort_key
from game.core.round import ROUND_FIELDS, PressDue, RoundState

RULESETS = ["attack", "classic", "pocket", "attack-original", "attack-mega-hit"]
PILE_RULESETS = {"classic", "pocket"}  # "a draw pile" in docs/rules.md's table
DECK_SIZES = {
    "attack": 112,
    "attack-original": 112,
    "attack-mega-hit": 112,
    "classic": 112,
    "pocket": 51,
}
MAX_PLAYERS = {"pocket": 5}

SETTINGS = settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Game-wide state the docs name ("State:" in docs/rules.md, and the copy/undo section).
GAME_ATTRIBUTES = (
    "top_card",
    "active_color",
    "direction",
    "hands",
    "hand_sizes",
    "scores",
    "dealer",
    "round_number",
    "round_winner",
    "winner",
    "stacked",
    "drawn_card",
    "uno_pending",
    "actor",
    "eliminated",
    "seats_in_play",
    "in_play",
    "discard",
    "pile",
    "pending",
    "decider",
    "current",
    "press_due",
    "total_turns",
    "move_stack",
)
# ``legal`` is declared by RoundState but is the legal-move cache (``Game.legal_moves``:
# ":meth:`legal_moves` caches"); it is compared through ``legal_moves()`` instead.
SNAPSHOT_ROUND_FIELDS = tuple(name for name in ROUND_FIELDS if name != "legal")


# -- helpers ------------------------------------------------------------------------------


def plain(value: Any) -> Any:
    """``value`` as plain, comparable data (cards and moves as notation)."""
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, Card | Move):
        return str(value)
    if isinstance(value, enum.Enum):
        return (type(value).__name__, value.value)
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple | deque):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {plain(key): plain(item) for key, item in value.items()}
    if isinstance(value, set | frozenset):
        return sorted(repr(plain(item)) for item in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (
            type(value).__name__,
            {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)},
        )
    text = repr(value)
    assert " at 0x" not in text, f"no plain form for {type(value)}: {text}"
    return (type(value).__name__, text)


def snapshot(game: Game, *, events: bool = True) -> dict[str, Any]:
    """Every documented piece of the game's state, as plain data."""
    snap: dict[str, Any] = {}
    for name in SNAPSHOT_ROUND_FIELDS + GAME_ATTRIBUTES:
        snap[name] = plain(getattr(game, name))
    seats = range(len(game.hands))
    snap["hand()"] = [plain(game.hand(seat)) for seat in seats]
    snap["hand_size()"] = [game.hand_size(seat) for seat in seats]
    snap["is_round_over"] = game.is_round_over()
    snap["is_game_over"] = game.is_game_over()
    snap["is_chance_node"] = game.is_chance_node()
    snap["outcome"] = plain(game.outcome())
    snap["legal_moves"] = plain(game.legal_moves())
    snap["table_moves"] = plain(game.table_moves())
    if game.is_chance_node():
        snap["chance_outcomes"] = plain(game.chance_outcomes())
    snap["observations"] = [
        {
            name: plain(getattr(view, name))
            for name in (
                "hand",
                "hand_sizes",
                "top_card",
                "active_color",
                "pending",
                "legal_moves",
                "scores",
                "decider",
                "direction",
                "round_number",
                "total_turns",
                "stacked",
                "uno_pending",
                "pile_size",
                "in_play",
            )
        }
        for view in (game.observation(seat, history=False) for seat in seats)
    ]
    if events:
        snap["events"] = [json.dumps(event, sort_keys=True, default=str) for event in game.events]
    return snap


def diff(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    return [key for key in before if before[key] != after.get(key)]


def mutable_containers(value: Any, seen: set[int] | None = None) -> Iterator[Any]:
    """Every list, deque, dict, set or bytearray reachable from ``value``."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return
    if isinstance(value, list | deque | dict | set | bytearray):
        seen.add(id(value))
        yield value
    if isinstance(value, dict):
        for item in value.values():
            yield from mutable_containers(item, seen)
    elif isinstance(value, list | tuple | deque | set | frozenset):
        for item in value:
            yield from mutable_containers(item, seen)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from mutable_containers(getattr(value, f.name), seen)


def state_containers(game: Game) -> dict[int, tuple[str, Any]]:
    """The mutable containers of the game's state by id (kept alive with their names: a
    property's fresh list must not free its id for the other game's containers)."""
    found: dict[int, tuple[str, Any]] = {}
    for name in ROUND_FIELDS + GAME_ATTRIBUTES:
        for container in mutable_containers(getattr(game, name)):
            found.setdefault(id(container), (name, container))
    return found


def shared_state(first: Game, second: Game) -> list[str]:
    """Names of the state attributes whose mutable containers the two games share."""
    mine, theirs = state_containers(first), state_containers(second)
    return sorted({mine[key][0] for key in mine.keys() & theirs.keys()})


def card_count(game: Game) -> Counter[Card]:
    """Every card on the table: hands + discard pile + draw pile / launcher."""
    counted: Counter[Card] = Counter()
    for hand in game.hands:
        counted.update(hand)
    counted.update(game.discard)
    counted.update(game.pile)
    return counted


def deck_of(game: Game) -> Counter[Card]:
    """The deck as the ``game_start`` event names it ("ruleset, players, options, ..., deck")."""
    start = game.events[0]
    assert start["type"] == "game_start"
    return Counter(Card.parse(code) for code in start["deck"])


def advance(game: Game, rng: random.Random, moves: int) -> None:
    """Play up to ``moves`` random moves (:func:`pick`), fewer when the game ends."""
    for _ in range(moves):
        move = pick(game, rng)
        if move is None:
            return
        game.play(move)


def pick(game: Game, rng: random.Random) -> Move | None:
    """A random legal move, a random out-of-turn move, or a press outcome; None when over."""
    if game.is_game_over():
        return None
    if game.is_chance_node():
        return Move.fired(rng.randint(0, min(3, len(game.pile))))
    table = game.table_moves()
    if table and rng.random() < 0.25:
        return rng.choice(table)
    moves = game.legal_moves()
    if not moves:
        return None
    plays = [move for move in moves if isinstance(move, PlayMove)]
    if plays and rng.random() < 0.5:
        return rng.choice(plays)  # so that rounds end (and games, with a small target)
    return rng.choice(moves)


def eager_pick(game: Game, rng: random.Random) -> Move | None:
    """Like :func:`pick`, but plays a card whenever it can and presses yield one card at
    most: rounds end, and so do games."""
    if game.is_chance_node():
        return Move.fired(min(1, len(game.pile)))
    plays = [move for move in game.legal_moves() if isinstance(move, PlayMove)]
    if plays and rng.random() < 0.9:
        return rng.choice(plays)
    return pick(game, rng)


@st.composite
def setups(draw: st.DrawFn) -> tuple[str, int, dict[str, Any], int, int]:
    """(ruleset, players, options, game seed, move-picking seed), options short-game-friendly."""
    ruleset = draw(st.sampled_from(RULESETS))
    players = draw(st.integers(2, MAX_PLAYERS.get(ruleset, 6)))
    options: dict[str, Any] = {}
    hand = draw(st.sampled_from([None, 2, 3]))
    if hand is not None:
        options["hand_size"] = hand
    target = draw(st.sampled_from([None, 40, 120]))
    if target is not None:
        options["target"] = target
    scoring = draw(st.sampled_from([None, "lowest", "elimination"]))
    if scoring is not None:
        options["scoring"] = scoring
    if ruleset in PILE_RULESETS:
        options["stack_draws"] = draw(st.booleans())
        options["draw_until_playable"] = draw(st.booleans())
    else:
        options["mega_hit_stack"] = draw(st.booleans())
    options["seven_zero"] = draw(st.booleans())
    options["jump_in"] = draw(st.booleans())
    options["empty_launcher"] = draw(st.sampled_from(["reload", "dry"]))
    options["challenges"] = draw(st.booleans())
    limit = draw(st.sampled_from([None, 12, 60]))
    if limit is not None:
        options["round_turn_limit"] = limit
    return ruleset, players, options, draw(st.integers(0, 2**32)), draw(st.integers(0, 2**32))


def new_game(setup: tuple[str, int, dict[str, Any], int, int]) -> tuple[Game, random.Random]:
    ruleset, players, options, seed, move_seed = setup
    return Game.new(ruleset, players, seed=seed, options=options), random.Random(move_seed)


# -- copy ---------------------------------------------------------------------------------


@SETTINGS
@given(setups())
def test_a_copy_equals_the_game_and_shares_no_mutable_state(
    setup: tuple[str, int, dict[str, Any], int, int],
) -> None:
    game, rng = new_game(setup)
    for step in range(150):
        if step % 15 == 0:
            twin = game.copy()
            assert diff(snapshot(game), snapshot(twin)) == []
            assert shared_state(game, twin) == [], "the copy shares these containers"
            assert twin.events is not game.events
        move = pick(game, rng)
        if move is None:
            break
        game.play(move)


@SETTINGS
@given(setups())
def test_mutating_or_playing_a_copy_never_changes_the_original_nor_the_reverse(
    setup: tuple[str, int, dict[str, Any], int, int],
) -> None:
    game, rng = new_game(setup)
    for step in range(120):
        if step % 20 == 5:
            before = snapshot(game)
            # 1. a copy whose containers are mutated by hand
            scribbled = game.copy()
            for hand in scribbled.hands:
                hand.clear()
            scribbled.hands.append([])
            scribbled.discard.clear()
            scribbled.pile.clear()
            scribbled.scores[0] += 999
            if scribbled.eliminated:
                scribbled.eliminated[0] = not scribbled.eliminated[0]
            scribbled.move_stack.append(Move.parse("draw"))
            assert diff(before, snapshot(game)) == []
            # 2. a copy played on (its own random moves, across rounds)
            played = game.copy()
            other_rng = random.Random(rng.random())
            advance(played, other_rng, 25)
            assert diff(before, snapshot(game)) == []
            # 3. the original played on leaves a copy taken earlier as it was
            kept = game.copy()
            kept_before = snapshot(kept)
            advance(game, rng, 10)
            assert diff(kept_before, snapshot(kept)) == []
        move = pick(game, rng)
        if move is None:
            break
        game.play(move)


@SETTINGS
@given(setups())
def test_a_copy_continues_the_same_chance_stream(
    setup: tuple[str, int, dict[str, Any], int, int],
) -> None:
    """Fed the same moves (deals, reloads, a dealt next round), a copy stays identical."""
    game, rng = new_game(setup)
    advance(game, rng, 40)
    twin = game.copy()
    for _ in range(250):
        move = pick(game, rng)
        if move is None:
            break
        game.play(move)
        twin.play(move)
        assert game.total_turns == twin.total_turns
        assert list(game.pile) == list(twin.pile)
    assert diff(snapshot(game), snapshot(twin)) == []


def test_copy_has_no_event_callback_and_copy_without_stack_has_no_moves() -> None:
    heard: list[dict[str, Any]] = []
    game = Game.new("classic", 3, seed=11, on_event=heard.append)
    rng = random.Random(3)
    pushed: list[Move] = []
    for _ in range(6):
        move = pick(game, rng)
        assert move is not None
        game.push(move)
        pushed.append(move)
    assert game.move_stack == pushed
    assert game.peek() == pushed[-1]
    heard_before = len(heard)
    twin = game.copy()
    assert twin.on_event is None
    assert twin.move_stack == pushed and twin.move_stack is not game.move_stack
    bare = game.copy(stack=False)
    assert bare.move_stack == []
    with pytest.raises(IndexError):
        bare.peek()
    # the copy's moves reach nobody's callback; popping the copy leaves the original as it is
    before = snapshot(game)
    advance(twin, rng, 10)
    assert len(heard) == heard_before
    full = game.copy()
    assert full.pop() == pushed[-1]
    assert diff(before, snapshot(game)) == []
    assert game.move_stack == pushed


# -- push / pop ---------------------------------------------------------------------------


@settings(SETTINGS, max_examples=20)
@given(setups(), st.lists(st.integers(1, 8), min_size=1, max_size=8))
def test_pop_restores_every_documented_attribute_exactly(
    setup: tuple[str, int, dict[str, Any], int, int],
    depths: list[int],
) -> None:
    game, rng = new_game(setup)
    for depth in depths:
        # play on a little, then push a chain of ``depth`` moves and pop them all
        for _ in range(rng.randint(0, 25)):
            move = pick(game, rng)
            if move is None:
                break
            game.play(move)
        base_stack = list(game.move_stack)
        snaps: list[dict[str, Any]] = []
        pushed: list[Move] = []
        after_first: dict[str, Any] | None = None
        for _ in range(depth):
            move = pick(game, rng)
            if move is None:
                break
            snaps.append(snapshot(game))
            game.push(move)
            pushed.append(move)
            if after_first is None:
                after_first = snapshot(game)
            assert game.move_stack == base_stack + pushed
            assert game.peek() == move
        for i in reversed(range(len(pushed))):
            assert game.pop() == pushed[i]
            problems = diff(snaps[i], snapshot(game))
            assert problems == [], f"pop left {problems} changed (after {pushed[i]})"
        assert game.move_stack == base_stack
        if pushed:
            # the chance stream is restored too: the same move gives the same state again
            assert after_first is not None
            game.push(pushed[0])
            assert diff(after_first, snapshot(game)) == []
            game.pop()
            assert diff(snaps[0], snapshot(game)) == []


@SETTINGS
@given(setups())
def test_push_then_pop_then_another_move_leaves_no_trace_of_the_first(
    setup: tuple[str, int, dict[str, Any], int, int],
) -> None:
    """The snapshot pop restores is not shared with the live state (a later move cannot
    change it)."""
    game, rng = new_game(setup)
    for _ in range(40):
        before = snapshot(game)
        first = pick(game, rng)
        if first is None:
            break
        game.push(first)
        after_first = snapshot(game)
        game.pop()
        second = pick(game, rng)
        assert second is not None
        game.push(second)
        game.pop()
        assert diff(before, snapshot(game)) == []
        game.push(first)
        assert diff(after_first, snapshot(game)) == []
        game.pop()
        game.play(first)


def test_pushed_move_that_presses_stops_at_the_chance_node() -> None:
    """docs/rules.md: "a pushed move that reaches a press stops at the chance node"."""
    for ruleset in RULESETS:
        game = Game.new(ruleset, 3, seed=4)
        while game.is_chance_node():
            game.play(Move.fired(min(1, len(game.pile))))
        assert game.pending is Decision.TURN
        game.push("draw")
        assert game.is_chance_node() and game.pending is Decision.PRESS
        assert game.press_due is not None and game.press_due.seat == game.decider
        assert game.pop() == Move.parse("draw")
        assert game.pending is Decision.TURN


# -- pending press --------------------------------------------------------------------------


@SETTINGS
@given(setups())
def test_press_due_exactly_at_chance_nodes_and_its_fields_mean_what_they_say(
    setup: tuple[str, int, dict[str, Any], int, int],
) -> None:
    game, rng = new_game(setup)
    ruleset = setup[0]
    for _ in range(400):
        due = game.press_due
        chance = game.is_chance_node()
        assert (due is not None) == chance == (game.pending is Decision.PRESS)
        if not chance:
            with pytest.raises(GameError):
                game.chance_outcomes()
            move = pick(game, rng)
            if move is None:
                break
            stacked, decider = game.stacked, game.decider
            game.play(move)
            if isinstance(move, TakeMove):
                # "``take``: press (draw) the stacked total instead of stacking"
                assert game.press_due is not None
                assert (game.press_due.seat, game.press_due.presses) == (decider, stacked)
            continue
        assert isinstance(due, PressDue)
        assert due.seat == game.decider
        assert due.seat in game.seats_in_play
        assert due.presses >= 1
        assert due.until in ("count", "fire", "playable")
        assert isinstance(due.reason, str) and due.reason
        odds = game.chance_outcomes()
        if ruleset in PILE_RULESETS:
            # "In classic/pocket [...] chance_outcomes() is [(fired:1, 1.0)], fired:0 once it
            # is empty"
            expected = [(Move.fired(1 if game.pile else 0), 1.0)]
            assert odds == expected
        else:
            assert odds == []  # "Without odds the list is empty: the sampled mode"
        kept = copy_module.copy(due)
        pile = list(game.pile)
        hand = Counter(game.hands[due.seat])
        seen = len(game.events)
        count = rng.randint(0, min(3, len(pile)))
        game.play(Move.fired(count))
        assert due == kept, "a kept press_due changed under its caller"
        new = game.events[seen:]
        hits = [event for event in new if event["type"] == "hit"]
        assert len(hits) == 1, new  # "one per press"
        assert hits[0]["player"] == due.seat and hits[0]["reason"] == due.reason
        if not any(event["type"] == "reload" for event in new):
            # "the cards are the next N of the pile" and go "to the player who pressed"
            assert hits[0]["cards"] == [str(card) for card in pile[:count]]
            gained = Counter(game.hands[due.seat])
            gained.subtract(hand)
            assert +gained == Counter(pile[:count]) and -gained == Counter()
        after = game.press_due
        if due.until == "count" and due.presses > 1:
            # "exactly that many presses", "each resolved before the next"
            assert after == PressDue(due.seat, due.presses - 1, due.reason, "count")
        elif due.until == "fire" and count == 0 and due.presses > 1:
            assert after == PressDue(due.seat, due.presses - 1, due.reason, "fire")
        elif due.until == "fire" and count > 0:
            # "stop at the first press that shoots cards"
            assert not (after and after.seat == due.seat and after.until == "fire")
        if (
            after is not None
            and (after.seat, after.reason, after.until) == (due.seat, due.reason, due.until)
            and due.until != "count"
        ):
            assert after.presses == due.presses - 1  # "presses is the cap left"


def test_a_first_hit_fire_presses_at_most_hit_fire_cap_times_and_stops_at_cards() -> None:
    """Wild Hit-Fire: "the next player presses until cards fire (at most ``hit_fire_cap``
    presses)"; PressDue: "``fire`` (stop at the first press that shoots cards; ``presses`` is
    the cap left)"."""
    whf = Card.parse("WHF")
    for cap, fire_at in ((5, None), (5, 3), (1, None)):
        game = Game.new("attack-original", 3, seed=2, options={"hit_fire_cap": cap})
        deck = list(deck_of(game).elements())
        assert whf in deck
        rest = [card for card in deck if card is not whf]
        hands = [[whf, *rest[0:3]], rest[3:7], rest[7:11]]
        top = next(card for card in rest[11:] if card.kind is Kind.NUMBER)
        game.set_position(hands, top, current=0)
        assert game.decider == 0 and game.pending is Decision.TURN
        game.play(Move.play(whf))
        if game.pending is Decision.COLOR:
            game.play(game.legal_moves()[0])
        presses = 0
        while game.is_chance_node():
            due = game.press_due
            assert due is not None and due.until == "fire"
            assert due.presses == cap - presses
            presses += 1
            game.play(Move.fired(1 if presses == fire_at else 0))
        assert presses == (fire_at or cap)
        assert not game.is_chance_node()


def test_draw_until_playable_stops_after_hit_fire_cap_empty_presses() -> None:
    """docs/rules.md: "after ``hit_fire_cap`` (50) presses that brought nothing the drawing
    stops, so an empty launcher never loops for ever"."""
    for cap in (3, 7):
        game = Game.new(
            "classic", 3, seed=6, options={"draw_until_playable": True, "hit_fire_cap": cap}
        )
        while game.pending is not Decision.TURN:
            game.play(Move.fired(1) if game.is_chance_node() else game.legal_moves()[0])
        game.play("draw")
        presses = 0
        while game.is_chance_node():
            due = game.press_due
            assert due is not None and due.until == "playable"
            presses += 1
            assert presses <= cap, "drawing went on past hit_fire_cap empty presses"
            game.play(Move.fired(0))
        assert presses == cap


# -- total_turns --------------------------------------------------------------------------


@SETTINGS
@given(setups())
def test_total_turns_counts_every_turn_of_the_game_across_rounds(
    setup: tuple[str, int, dict[str, Any], int, int],
) -> None:
    game, rng = new_game(setup)
    made = 0  # turn decisions answered (a move while ``pending`` is ``turn``)
    previous = game.total_turns
    for _ in range(600):
        if game.pending is Decision.TURN:
            # a turn has begun and waits for its move
            assert game.total_turns == made + 1
        if game.is_round_over():
            assert game.total_turns == made
            ends = [event for event in game.events if event["type"] == "round_end"]
            assert sum(event["turns"] for event in ends) == made
            limit = setup[2].get("round_turn_limit", 5000)
            assert all(event["turns"] <= limit for event in ends)
            # "ends a round after exactly that many turns, with no winner and no points"
            last = ends[-1]
            if last["turns"] == limit and last["winner"] is None:
                assert all(gained == 0 for gained in last["gained"])
        assert game.total_turns >= previous
        previous = game.total_turns
        move = pick(game, rng)
        if move is None:
            break
        turn_move = game.pending is Decision.TURN
        if move in game.table_moves():
            # An out-of-turn move is no turn, except a jump-in: "play continues from S" (the
            # engine counts it as a turn begun by S; the docs do not say, see the report).
            turn_move = isinstance(move, PlayMove)
        game.play(move)
        made += turn_move


def test_round_turn_limit_ends_the_round_after_exactly_that_many_turns() -> None:
    """docs/rules.md: "``round_turn_limit`` (5000 turns) ends a round after exactly that many
    turns, with no winner and no points". Seven turns among three seats of seven cards
    cannot empty a hand (jump-ins are off), so every round here ends at the limit."""
    for ruleset in RULESETS:
        game = Game.new(ruleset, 3, seed=9, options={"round_turn_limit": 7, "hand_size": 7})
        rng = random.Random(1)
        for round_number in (1, 2, 3):
            while not game.is_round_over():
                move = pick(game, rng)
                assert move is not None
                game.play(move)
            end = [event for event in game.events if event["type"] == "round_end"][-1]
            assert end["winner"] is None and game.round_winner is None
            assert end["turns"] == game.turns == 7
            assert game.total_turns == 7 * round_number
            assert list(game.scores) == [0, 0, 0]
            game.play("next-round")
            assert game.round_number == round_number + 1


# -- cards ----------------------------------------------------------------------------------


def test_cards_have_no_order_of_their_own() -> None:
    a, b = Card.parse("R1"), Card.parse("B2")
    for compare in (
        lambda: a < b,  # type: ignore[operator]
        lambda: a <= b,  # type: ignore[operator]
        lambda: a > b,  # type: ignore[operator]
        lambda: a >= b,  # type: ignore[operator]
        lambda: sorted([a, b]),  # type: ignore[type-var]
        lambda: max(a, b),  # type: ignore[call-overload]
    ):
        with pytest.raises(TypeError):
            compare()


def test_sort_key_and_display_give_the_documented_display_order() -> None:
    shown = " ".join(map(str, sorted(parse_cards("W Y1 R9 B2 R1"), key=sort_key)))
    assert shown == "R1 R9 B2 Y1 W"
    cards = all_cards()
    by_key = sorted(cards, key=sort_key)
    by_display = sorted(cards, key=lambda card: card.display)
    assert by_key == by_display
    assert len({card.display for card in cards}) == len(cards)
    colour_rank = {"R": 0, "B": 1, "G": 2, "Y": 3}
    ranks = [4 if card.is_wild else colour_rank[str(card.color)] for card in by_key]
    assert ranks == sorted(ranks), "colour first: R, B, G, Y, then wilds"
    numbers = [card for card in by_key if card.kind is Kind.NUMBER and card.color is not None]
    for first, second in zip(numbers, numbers[1:], strict=False):
        if first.color == second.color:
            assert first.number is not None and second.number is not None
            assert first.number < second.number


def test_cards_are_interned_equal_only_to_themselves_and_round_trip() -> None:
    cards = all_cards()
    assert len(set(cards)) == len(cards)
    for card in cards:
        text = str(card)
        assert Card.parse(text) is card
        assert Card.parse(text.lower()) is card  # "case-insensitive"
        assert Card(card.kind, card.color, card.number) is card
        assert pickle.loads(pickle.dumps(card)) is card  # "one object per card"
        assert copy_module.copy(card) is card and copy_module.deepcopy(card) is card
        assert card == card and hash(card) == hash(Card.parse(text))
    for first, second in zip(cards, cards[1:], strict=False):
        assert first != second
    with pytest.raises((AttributeError, TypeError, dataclasses.FrozenInstanceError)):
        cards[0].number = 3  # "immutable"


def test_every_card_in_play_is_the_interned_card_of_its_notation() -> None:
    for ruleset in RULESETS:
        game = Game.new(ruleset, 4, seed=5)
        rng = random.Random(5)
        for _ in range(200):
            for card in [*game.discard, *game.pile, *(c for h in game.hands for c in h)]:
                assert Card.parse(str(card)) is card
            move = pick(game, rng)
            if move is None:
                break
            game.play(move)


# -- no card created or lost ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("ruleset", "options", "size"),
    [(name, None, size) for name, size in DECK_SIZES.items()] + [("classic", {"wilds": 4}, 108)],
)
def test_the_deck_has_the_documented_size(
    ruleset: str, options: dict[str, Any] | None, size: int
) -> None:
    game = Game.new(ruleset, 3, seed=1, options=options)
    deck = deck_of(game)
    assert sum(deck.values()) == size
    assert card_count(game) == deck
    if ruleset.startswith("attack"):
        assert not any(card.kind is Kind.NUMBER and card.number == 0 for card in deck)


@settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(setups(), st.booleans())
def test_no_card_is_created_or_lost_by_any_move(
    setup: tuple[str, int, dict[str, Any], int, int],
    wilds4: bool,
) -> None:
    ruleset, players, options, seed, move_seed = setup
    if wilds4 and ruleset == "classic":
        options = {**options, "wilds": 4}
    game = Game.new(ruleset, players, seed=seed, options=options)
    rng = random.Random(move_seed)
    deck = deck_of(game)
    assert sum(deck.values()) == (108 if "wilds" in options else DECK_SIZES[ruleset])
    for _ in range(500):
        counted = card_count(game)
        assert counted == deck, (counted - deck, deck - counted, game.pending)
        # the other documented views of the same state agree with it
        assert game.top_card is game.discard[-1]
        assert game.hand_sizes == [len(hand) for hand in game.hands]
        assert game.direction in (1, -1)
        assert game.in_play == tuple(game.seats_in_play)
        for seat in range(len(game.hands)):
            shown = game.hand(seat)
            assert shown == sorted(game.hands[seat], key=sort_key)
            shown.clear()  # "sorted copy"
            assert game.hand_size(seat) == len(game.hands[seat])
        assert sum(game.hand_sizes) + len(game.discard) + len(game.pile) == sum(deck.values())
        check_documented_invariants(game)
        move = pick(game, rng)
        if move is None:
            break
        game.play(move)
    assert card_count(game) == deck


def check_documented_invariants(game: Game) -> None:
    """What docs/rules.md says the state attributes mean, checked against each other."""
    if game.pending is Decision.TURN:
        # "``game.current`` is whose turn it is"; a ``turn`` decision is "the player to play"'s
        assert game.current == game.decider
    if game.uno_pending is not None:
        # "The seat that is down to one card and has not called UNO yet"
        assert game.hand_size(game.uno_pending) == 1
    if game.pending is Decision.STACK:
        assert game.stacked > 0  # "``stacked`` (presses waiting on a stack)"
    if not game.is_round_over():
        assert game.outcome() is None  # "None while the game is on"
        for seat, out in enumerate(game.eliminated):
            if out:
                # "out of the game (their seat is skipped, dealt nothing, cannot be targeted)"
                assert seat not in game.seats_in_play and not game.hands[seat]
                assert seat != game.decider
    elif not game.is_game_over():
        # "``game.legal_moves()`` lists that seat's moves (``[next-round]`` once a round is
        # over)"
        assert game.legal_moves() == [Move.parse("next-round")]
    else:
        assert game.legal_moves() == []


# -- illegal moves, resampling ------------------------------------------------------------


@SETTINGS
@given(setups())
def test_an_illegal_move_leaves_the_game_unchanged(
    setup: tuple[str, int, dict[str, Any], int, int],
) -> None:
    game, rng = new_game(setup)
    for step in range(200):
        if step % 7 == 0:
            before = snapshot(game)
            before_no_events = snapshot(game, events=False)
            bad: list[Callable[[], Move | str]] = []
            if game.is_chance_node():
                # "N must be a whole number from 0 to the cards the pile holds [...]; anything
                # else (1.5, -1, True, "2", more than the pile) is an IllegalMove" (raised by
                # Move.fired or by play: either way inside the ``raises`` block)
                bad += [lambda: f"fired:{len(game.pile) + 1}", lambda: "draw"]
                bad += [lambda: "next-round", lambda: Move.fired(len(game.pile) + 1)]
                for odd in (-1, 1.5, True, "2"):
                    bad.append(lambda odd=odd: Move.fired(odd))  # type: ignore[misc]
            else:
                bad += [lambda: "fired:1", lambda: Move.fired(0)]
                if not game.is_round_over():
                    bad.append(lambda: "next-round")
                held = {card for hand in game.hands for card in hand}
                absent = [card for card in all_cards() if card not in held]
                if absent and not game.is_game_over():
                    bad.append(lambda missing=absent[0]: Move.play(missing))  # type: ignore[misc]
            for make in bad:
                with pytest.raises(IllegalMove):
                    game.play(make())
                assert diff(before_no_events, snapshot(game, events=False)) == []
            assert diff(before, snapshot(game)) == []
        move = pick(game, rng)
        if move is None:
            break
        game.play(move)


@SETTINGS
@given(setups())
def test_resample_from_infostate_changes_nothing_and_keeps_what_the_seat_knows(
    setup: tuple[str, int, dict[str, Any], int, int],
) -> None:
    game, rng = new_game(setup)
    for step in range(120):
        if step % 30 == 10 and not game.is_game_over():
            seat = game.decider
            before = snapshot(game)
            world = game.resample_from_infostate(seat, random.Random(step))
            assert diff(before, snapshot(game)) == []
            assert world.observation(seat) == game.observation(seat)
            assert card_count(world) == deck_of(game)
            assert world.hand(seat) == game.hand(seat)
            assert shared_state(world, game) == []
        move = pick(game, rng)
        if move is None:
            break
        game.play(move)


def test_round_state_declares_the_documented_fields() -> None:
    """docs/rules.md: ``hands``, ``discard``, ``pile``, ``pending``, ``decider``, the pending
    press... are declared by RoundState and are plain attributes of the game."""
    declared = RoundState.__annotations__
    for name in ("hands", "discard", "pile", "pending", "decider", "active_color", "direction"):
        assert name in declared and name in ROUND_FIELDS
    game = Game.new("attack", 3, seed=1)
    for name in ROUND_FIELDS:
        assert hasattr(game, name)
    assert RoundState in type(game).__mro__
    assert isinstance(game.pile, deque) and isinstance(game.hands, list)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_outcome_agrees_with_the_state_when_the_game_ends(ruleset: str) -> None:
    """``game.outcome()`` is "None while the game is on, then an ``Outcome(winner, scores,
    rounds, termination)``, ``termination`` a ``Termination`` (``TARGET`` = "target",
    ``ELIMINATION`` = "elimination")"; ``game_end`` event: "winner, scores, rounds"."""
    for scoring, termination in (
        ("winner", Termination.TARGET),
        ("lowest", Termination.TARGET),
        ("elimination", Termination.ELIMINATION),
    ):
        game = Game.new(
            ruleset, 3, seed=21, options={"scoring": scoring, "target": 40, "hand_size": 3}
        )
        rng = random.Random(2)
        for _ in range(20000):
            check_documented_invariants(game)
            move = eager_pick(game, rng)
            if move is None:
                break
            game.play(move)
        assert game.is_game_over()
        outcome = game.outcome()
        assert outcome is not None
        assert outcome.termination is termination
        assert outcome.winner == game.winner is not None
        assert list(outcome.scores) == list(game.scores)
        assert outcome.rounds == game.round_number
        end = game.events[-1]
        assert end["type"] == "game_end"
        assert (end["winner"], end["scores"], end["rounds"]) == (
            outcome.winner,
            list(outcome.scores),
            outcome.rounds,
        )


def test_legal_moves_is_next_round_once_the_round_is_over() -> None:
    """Found by this file: the docstring said "empty when the round or game is over"; it now
    says what docs/rules.md says, ``[next-round]``."""
    game = Game.new("classic", 2, seed=3, options={"round_turn_limit": 3})
    rng = random.Random(3)
    while not game.is_round_over():
        move = pick(game, rng)
        assert move is not None
        game.play(move)
    assert not game.is_game_over()
    assert [str(m) for m in game.legal_moves()] == ["next-round"]


def test_the_copy_and_undo_example_of_docs_rules_md() -> None:
    """docs/rules.md's example, then the same with every seat's full observation (history
    included) across longer push chains, round boundaries and presses."""
    game = Game.new("classic", 3, seed=5)
    before = game.observation(0)
    game.push(game.legal_moves()[0])
    taken_back = game.pop()
    assert game.observation(0) == before
    assert taken_back == game.legal_moves()[0] and game.outcome() is None
    world = game.resample_from_infostate(0, random.Random(1))
    assert world.observation(0).legal_moves == before.legal_moves
    for ruleset in RULESETS:
        game = Game.new(ruleset, 3, seed=8, options={"hand_size": 3})
        rng = random.Random(8)
        for _ in range(30):
            views = [game.observation(seat) for seat in range(3)]
            histories = [list(view.history) for view in views]
            pushed = 0
            for _ in range(rng.randint(1, 12)):
                move = pick(game, rng)
                if move is None:
                    break
                game.push(move)
                pushed += 1
            for _ in range(pushed):
                game.pop()
            assert [game.observation(seat) for seat in range(3)] == views
            assert [list(game.observation(seat).history) for seat in range(3)] == histories
            for _ in range(rng.randint(1, 12)):
                move = pick(game, rng)
                if move is None:
                    break
                game.play(move)


@SETTINGS
@given(setups())
def test_a_game_is_its_new_arguments_plus_its_moves(
    setup: tuple[str, int, dict[str, Any], int, int],
) -> None:
    """docs/rules.md, "Determinism": "a saved game is its ``Game.new`` arguments plus the moves
    made (table moves included), in order" -- the whole documented state, not only the
    events."""
    game, rng = new_game(setup)
    moves: list[Move] = []
    for _ in range(300):
        move = pick(game, rng)
        if move is None:
            break
        game.play(move)
        moves.append(move)
    again, _ = new_game(setup)
    for move in moves:
        again.play(str(move))
    assert diff(snapshot(game), snapshot(again)) == []


@pytest.mark.parametrize("ruleset", RULESETS)
def test_push_and_pop_cross_round_boundaries_and_the_game_end(ruleset: str) -> None:
    """docs/notation.md: ``next-round`` is "a move, so push/pop cross a round boundary";
    docs/rules.md: "a round boundary can be pushed and popped too". The deal's shuffle and
    the scores, round number, dealer and total turns come back exactly, and the game's end
    is undone by a pop as well."""
    game = Game.new(ruleset, 3, seed=13, options={"hand_size": 2, "target": 250})
    rng = random.Random(13)
    boundaries = 0
    while not game.is_game_over():
        move = eager_pick(game, rng)
        assert move is not None
        if game.is_round_over() or rng.random() < 0.1:
            before = snapshot(game)
            game.push(move)
            after = snapshot(game)
            chain = [move]
            for _ in range(rng.randint(0, 6)):
                extra = eager_pick(game, rng)
                if extra is None:
                    break
                game.push(extra)
                chain.append(extra)
            for pushed in reversed(chain):
                assert game.pop() == pushed
            assert diff(before, snapshot(game)) == []
            game.push(move)  # the same deal again: the chance stream was restored
            assert diff(after, snapshot(game)) == []
            game.pop()
            boundaries += str(move) == "next-round"
        game.play(move)
    assert boundaries >= 2


def test_pop_undoes_the_end_of_the_game() -> None:
    for ruleset in RULESETS:
        game = Game.new(ruleset, 2, seed=17, options={"hand_size": 2, "target": 30})
        rng = random.Random(17)
        while True:
            move = eager_pick(game, rng)
            assert move is not None
            before = game.copy(stack=False)
            game.push(move)
            if game.is_game_over():
                break
            game.pop()
            game.play(move)
        assert game.outcome() is not None and game.events[-1]["type"] == "game_end"
        assert game.pop() == move
        assert not game.is_game_over() and game.outcome() is None and game.winner is None
        assert diff(snapshot(before), snapshot(game)) == []


@pytest.mark.parametrize("ruleset", ["attack", "classic"])
def test_chance_outcomes_follow_press_odds_capped_at_the_pile(ruleset: str) -> None:
    """docs/rules.md: "given ``press_odds`` [...] the odds of counts above the pile's size fall
    on ``fired:len(pile)``"; "``press_odds[k]`` = P(k cards)"; "``()`` the sampled mode"."""
    odds = [0.1, 0.2, 0.3, 0.4]
    game = Game.new(ruleset, 3, seed=3, press_odds=odds, options={"empty_launcher": "dry"})
    sampled = Game.new(ruleset, 3, seed=3, press_odds=())
    rng = random.Random(3)
    small_piles = 0
    for _ in range(3000):
        if game.is_game_over():
            break
        if not game.is_chance_node():
            move = pick(game, rng)
            assert move is not None
            game.play(move)
            continue
        size = len(game.pile)
        expected: dict[int, float] = {}
        for count, probability in enumerate(odds):
            expected[min(count, size)] = expected.get(min(count, size), 0.0) + probability
        got: dict[int, float] = {}
        for outcome, probability in game.chance_outcomes():
            assert isinstance(outcome, FiredMove)  # "a list of ``(fired:N, probability)``"
            got[outcome.count] = probability
        assert got.keys() == expected.keys()
        assert all(abs(got[count] - expected[count]) < 1e-12 for count in got)
        small_piles += size < len(odds) - 1
        game.play(Move.fired(min(len(odds) - 1, size)))
    assert small_piles > 0, "the dry launcher never ran low: nothing checked the cap"
    while not sampled.is_chance_node():
        sampled.play(sampled.legal_moves()[0] if sampled.pending is not Decision.TURN else "draw")
    assert sampled.chance_outcomes() == []


@pytest.mark.parametrize("text", ["fired:-1", "fired:1.5"])
def test_bad_fired_text_says_a_count_was_expected(text: str) -> None:
    game = Game.new("attack", 3, seed=1)
    game.play("draw")
    assert game.is_chance_node()
    with pytest.raises(NotationError) as error:
        game.play(text)
    assert "seat" not in str(error.value)
