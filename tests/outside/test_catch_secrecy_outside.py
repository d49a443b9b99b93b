"""Outside checks of UNO catches against the secrecy of the launcher's order, from the docs only.

Written without reading game/, launcher/ or the project's own tests. The promises checked,
quoted from the docs:

- docs/rules.md, "The event log": the log holds "every decision other than a turn offered
  with its moves (``decision``; logged again, with the moves offered then, after an
  out-of-turn penalty such as a UNO catch interrupts it, whether or not the penalty's cards
  changed them: whether they did is the decider's secret, so the other seats see the same
  events either way; a ``turn`` decision is not logged [...])".
- docs/rules.md, "Copy, undo, outcome, observation": "``game.observation(seat)`` is what
  that seat may know, its information set [...] the history as it saw it — other seats'
  hidden cards, the seed, the launcher's loaded order and a reload's order removed";
  ``game.copy()`` "is an independent game with the same chance stream".
- docs/rules.md, "Chance moves": "The outcome of one press is the move ``fired:N``
  (``Move.fired(n)``: N cards came out)"; "The draw pile is the engine's own ``game.pile``
  (plain data, next card out first)"; "the cards are the next N of the pile".
- docs/rules.md, "Out-of-turn moves": "``catch:P@S``: seat S catches seat P, who is down to
  one card and has not called UNO. P presses the launcher twice (classic/pocket: draws
  two)"; ``uno`` "is legal even while that player still chooses a colour or a target".
- docs/rules.md, "Decisions": "a ``drawn`` decision tells the other seats that the card just
  drawn fits [...] found no other way the hidden cards show in a seat's view before a
  round's end reveals the hands". That one named exception, a draw that ends at a ``drawn``
  decision, is left out of the comparisons below (and so is a move that ends the round,
  whose ``round_end`` reveals the hands); both are counted, not compared.

How: a seeded random game is stopped at a position; copies of it (``game.copy()``) get the
launcher's pile (``game.pile``) in other orders, which no seat may know; the same move is
made in each and every press that follows is fed the same ``fired:N``. A seat that received
no card in that time must then see the same ``observation(seat)`` in every copy — above all
the catcher after a ``catch``. UNO catches happen in every ruleset (rules.md "UNO": §2.3,
§3.2, §4.2), so all five are played; UNO Attack with 3-4 players gives play-again offers
(``skip_reverse_play_again=always``), Mega Hit its stack offers, classic its challenges and
pocket its ``give``.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter, deque
from collections.abc import Iterator
from typing import Any

from game import CatchMove, Decision, Game, Move
from tests.outside.docs_facts import LOGGED_DECISIONS

# (ruleset, players): every ruleset, with the player counts whose decisions differ.
CASES: list[tuple[str, int]] = [
    ("attack", 3),
    ("attack", 4),
    ("attack", 2),
    ("attack-mega-hit", 3),
    ("attack-mega-hit", 4),
    ("attack-original", 3),
    ("classic", 2),
    ("classic", 3),
    ("classic", 4),
    ("pocket", 3),
]
MAX_STEPS = 700  # moves of one random round at most
VARIANTS = 3  # copies with the pile in another order, besides one in the same order


def press_count(game: Game, rng: random.Random) -> Move:
    """One press's outcome: from chance_outcomes() when explicit, else sampled (0-3 cards)."""
    odds = game.chance_outcomes()
    if odds:
        return rng.choices([move for move, _ in odds], [p for _, p in odds])[0]
    return Move.fired(rng.choice([0, 1, 1, 2, 3][: 1 + min(4, len(game.pile))]))


def pick_move(game: Game, rng: random.Random) -> Move:
    """A random legal move for the decider, or out of turn: players forget UNO half the time
    and catch now and then, so catches happen in every kind of decision."""
    table = game.table_moves()
    calls = [m for m in table if str(m) == "uno"]
    if calls and rng.random() < 0.25:
        return calls[0]
    catches = [m for m in table if isinstance(m, CatchMove)]
    if catches and rng.random() < 0.3:
        return rng.choice(catches)
    moves = game.legal_moves()
    plays = [m for m in moves if str(m) not in ("draw", "pass", "take", "accept")]
    if plays and rng.random() < 0.8:
        return rng.choice(plays)
    return rng.choice(moves)


def diff(one: Any, two: Any) -> str:
    """Where two observations first differ: a field, or the first differing history event."""
    for field in dataclasses.fields(one):
        if field.name.startswith("_"):
            continue
        a, b = getattr(one, field.name), getattr(two, field.name)
        if a != b:
            return f"field {field.name}: {a!r} != {b!r}"
    history_a, history_b = one.history, two.history
    for index, (a, b) in enumerate(zip(history_a, history_b, strict=False)):
        if a != b:
            return f"history[{index}]: {a!r} != {b!r}"
    if len(history_a) != len(history_b):
        return f"history length {len(history_a)} != {len(history_b)}"
    return "the observations differ in a private field"


@dataclasses.dataclass
class Situation:
    """Where a check happened, for the failure message."""

    ruleset: str
    players: int
    seed: int
    step: int
    move: str
    decision: str
    decider: int

    def __str__(self) -> str:
        return (
            f"Game.new({self.ruleset!r}, {self.players}, seed={self.seed}), step {self.step}, "
            f"at {self.decision} of seat {self.decider}: move {self.move}"
        )


@dataclasses.dataclass
class Outcome:
    """What the copies did after the move: their games, the presses fed, who got cards."""

    games: list[Game]
    fired: list[str]
    receivers: set[int]
    excluded: str | None  # why the views are not compared (drawn, round over), or None


def replay_in_copies(
    game: Game, move: Move, rng: random.Random, *, variants: int = VARIANTS
) -> Outcome:
    """Copies of ``game`` that differ only in the pile's order, the same move made in each and
    the same ``fired:N`` fed to every press that follows, up to the next decision."""
    games = [game.copy()]
    for index in range(variants):
        clone = game.copy()
        order = list(clone.pile)
        if index == 0:
            order.reverse()
        else:
            rng.shuffle(order)
        clone.pile = deque(order)
        assert sorted(map(str, clone.pile)) == sorted(map(str, game.pile))
        games.append(clone)
    assert [str(c) for c in game.pile] == [str(c) for c in games[0].pile], "a copy moved it"
    starts = [len(g.events) for g in games]
    sizes = list(game.hand_sizes)
    for clone in games:
        clone.play(move)
    fired: list[str] = []
    while games[0].is_chance_node():
        assert all(g.is_chance_node() for g in games), "the copies stopped in different places"
        assert len({len(g.pile) for g in games}) == 1, "the copies' piles differ in size"
        outcome = press_count(games[0], rng)
        fired.append(str(outcome))
        for clone in games:
            clone.play(outcome)
    receivers: set[int] = set()
    for clone, start in zip(games, starts, strict=True):
        for event in clone.events[start:]:
            if event["type"] == "hit" and event.get("cards"):
                receivers.add(event["player"])
        receivers.update(s for s, n in enumerate(clone.hand_sizes) if n > sizes[s])
    excluded = None
    if any(g.pending is Decision.DRAWN for g in games):
        excluded = "drawn"
    elif any(g.is_round_over() or g.is_game_over() for g in games):
        excluded = "round over"
    return Outcome(games, fired, receivers, excluded)


def compare_views(outcome: Outcome, where: Situation) -> int:
    """Every seat that received no card sees the same in every copy; returns how many seats
    were compared."""
    reference = outcome.games[0]
    compared = 0
    for seat in range(len(reference.hand_sizes)):
        if seat in outcome.receivers:
            continue
        view = reference.observation(seat)
        for index, clone in enumerate(outcome.games[1:], 1):
            other = clone.observation(seat)
            assert view == other, (
                f"{where}, presses {outcome.fired}: seat {seat}, which received no card, "
                f"sees the pile's order (copy {index} of the pile): {diff(view, other)}"
            )
        compared += 1
    return compared


def random_rounds(
    cases: list[tuple[str, int]], games: int, base: int
) -> Iterator[tuple[str, int, int, int, Game]]:
    """(ruleset, players, seed, step, game) at every decision of the first round of seeded
    random games; the caller looks at the position (and may copy the game), then the
    generator makes a random move and feeds the presses it leads to."""
    for index in range(games):
        ruleset, players = cases[index % len(cases)]
        seed = base + index
        rng = random.Random(seed * 7919 + 1)
        game = Game.new(ruleset, players, seed=seed)
        for step in range(MAX_STEPS):
            if game.is_round_over() or game.is_game_over():
                break
            if game.is_chance_node():
                game.play(press_count(game, rng))
                continue
            yield ruleset, players, seed, step, game  # step: loop count, presses included
            game.play(pick_move(game, rng))


def last_decision(events: list[dict[str, Any]]) -> dict[str, Any] | None:
    return next((e for e in reversed(events) if e["type"] == "decision"), None)


def offered(game: Game) -> list[str]:
    return sorted(str(move) for move in game.legal_moves())


def test_a_decision_is_logged_again_after_a_catch_interrupts_it() -> None:
    """rules.md "The event log": a decision other than a turn is logged with its moves, and
    logged again, with the moves offered then, after a UNO catch interrupts it, whether or
    not the penalty's cards changed them (we count both kinds)."""
    logged = 0
    reached: Counter[str] = Counter()
    for ruleset, players, seed, step, game in random_rounds(CASES, 400, 1000):
        if game.pending not in LOGGED_DECISIONS:
            continue
        # Every logged decision: the last ``decision`` event is this one, with these moves.
        event = last_decision(game.events)
        assert event is not None, f"{ruleset} {players} seed {seed} step {step}: not logged"
        assert (event["player"], event["decision"]) == (game.decider, game.pending.value)
        assert sorted(event["moves"]) == offered(game), (ruleset, players, seed, step, event)
        logged += 1
        for move in game.table_moves():
            if not isinstance(move, CatchMove):
                continue
            where = Situation(
                ruleset, players, seed, step, str(move), game.pending.value, game.decider
            )
            before = offered(game)
            outcome = replay_in_copies(game, move, random.Random(seed + step), variants=0)
            clone = outcome.games[0]
            start = len(game.events)
            new = clone.events[start:]
            caught = [
                i for i, e in enumerate(new) if e["type"] == "uno" and e.get("caught") is True
            ]
            assert caught and new[caught[0]]["player"] == move.seat, (str(where), new)
            assert (clone.pending, clone.decider) == (game.pending, game.decider), (
                f"{where}: the catch did not return to the decision it interrupted "
                f"({clone.pending}, seat {clone.decider})"
            )
            again = last_decision(new[caught[0] :])
            assert again is not None, f"{where}: the decision was not logged again: {new}"
            assert (again["player"], again["decision"]) == (game.decider, game.pending.value)
            assert sorted(again["moves"]) == offered(clone), (str(where), again, offered(clone))
            changed = offered(clone) != before
            reached[f"{game.pending.value}, {'changed' if changed else 'unchanged'}"] += 1
    total = sum(reached.values())
    print(f"logged decisions checked: {logged}; catches interrupting one: {total} {reached}")
    assert logged >= 5000, logged
    assert total >= 300, reached
    assert sum(n for k, n in reached.items() if k.endswith(" changed")) >= 40, reached
    assert sum(n for k, n in reached.items() if k.endswith("unchanged")) >= 250, reached
    kinds = {key.split(",")[0] for key in reached}
    assert {"color", "target", "challenge", "play_again", "stack"} <= kinds, reached


def test_the_catcher_and_the_others_see_nothing_of_the_pile_order_after_a_catch() -> None:
    """rules.md "observation" and "The event log": at every catch the random games offer (in a
    turn and in every logged decision), the catch made in copies whose pile is in other
    orders, every press after it fed the same: the catcher and every other seat that got no
    card see the same observation in all copies; the caught seat's view may differ (it must,
    somewhere, or the copies would not differ at all)."""
    reached: Counter[str] = Counter()
    split = 0  # the caught decider's re-offered moves changed in some copies and not others
    differed = 0  # the caught seat's own view differed between the copies
    secret = 0  # the full log (game.events: every card) differed, as an unredacted view would
    for ruleset, players, seed, step, game in random_rounds(CASES, 150, 5000):
        for move in game.table_moves():
            if not isinstance(move, CatchMove):
                continue
            where = Situation(
                ruleset, players, seed, step, str(move), game.pending.value, game.decider
            )
            outcome = replay_in_copies(game, move, random.Random(seed * 31 + step))
            assert outcome.excluded is None, f"{where}: {outcome.excluded}"
            assert move.by not in outcome.receivers, f"{where}: the catcher got cards"
            assert compare_views(outcome, where) >= players - 1, f"{where}: {outcome.receivers}"
            reached[game.pending.value] += 1
            views = [g.observation(move.seat) for g in outcome.games]
            differed += any(view != views[0] for view in views)
            start = len(game.events)
            logs = [g.events[start:] for g in outcome.games]
            secret += any(log != logs[0] for log in logs)
            if game.pending in LOGGED_DECISIONS and game.decider == move.seat:
                before = offered(game)
                changed = {offered(g) != before for g in outcome.games}
                split += changed == {True, False}
    total = sum(reached.values())
    print(f"catches compared: {total} {reached}; {split=} {differed=} {secret=}")
    assert total >= 1000, reached
    assert sum(n for kind, n in reached.items() if kind != "turn") >= 100, reached
    assert split >= 5 and differed >= 1000 and secret >= 1000, (split, differed, secret)


def test_no_move_lets_a_seat_without_new_cards_see_the_pile_order() -> None:
    """rules.md "observation": the launcher's loaded order is secret. At every fourth position
    of the random games, a random legal move (a play, a draw, a decision's answer, a UNO call,
    a catch) is made in copies whose pile is in other orders, and its presses fed the same:
    every seat that got no card sees the same in all copies. Left out, as the docs name it:
    a draw ending at a ``drawn`` decision (and a move that ends the round)."""
    reached: Counter[str] = Counter()
    excluded: Counter[str] = Counter()
    seats = 0
    for ruleset, players, seed, step, game in random_rounds(CASES, 120, 9000):
        if step % 4:
            continue
        move = pick_move(game, random.Random(seed * 13 + step))
        where = Situation(ruleset, players, seed, step, str(move), game.pending.value, game.decider)
        outcome = replay_in_copies(game, move, random.Random(seed * 17 + step))
        if outcome.excluded is not None:
            excluded[outcome.excluded] += 1
            continue
        seats += compare_views(outcome, where)
        reached[f"{game.pending.value}:{move.kind.value}"] += 1
    total = sum(reached.values())
    print(f"moves compared: {total}, seat views: {seats}; left out: {dict(excluded)}; {reached}")
    assert total >= 2500 and seats >= 7000, (total, seats)
    assert {"turn:play", "turn:draw", "color:color", "play_again:play", "stack:play"} <= set(
        reached
    ), reached
    assert excluded["drawn"] >= 100, excluded
