"""Outside checks of issue 24 (hidden information, chance nodes, push/pop), from the docs only.

Written without reading game/ or tests/: every promise checked here is quoted from
docs/rules.md ("Copy, undo, outcome, observation", "Chance moves"), docs/index.md
("Secrets"), docs/launchers.md ("Writing a backend") and shared/reference/rules.md.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from typing import Any

import pytest

from game import Card, Game, IllegalMove, Move, Table
from launcher import Launcher

RULESETS = {"attack": 10, "attack-original": 10, "attack-mega-hit": 10, "classic": 10, "pocket": 5}
CASES = [(rs, n) for rs, top in RULESETS.items() for n in (2, 3, top)]
STEPS = 260


def seed128(rng: random.Random) -> int:
    """A seed with its top bit set, so it has 128 bits."""
    return rng.getrandbits(127) | (1 << 127)


def walk(value: Any) -> Iterator[Any]:
    """Every leaf of an observation: dataclass fields, mappings, sequences."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            yield from walk(getattr(value, field.name))
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from walk(key)
            yield from walk(item)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            yield from walk(item)
    else:
        yield value


def random_step(game: Game, rng: random.Random) -> None:
    """One random legal move: a chance outcome, a table move now and then, or a decision."""
    if game.is_chance_node():
        odds = game.chance_outcomes()
        if odds:
            move = rng.choices([m for m, _ in odds], [p for _, p in odds])[0]
        else:
            move = Move.fired(rng.choice([0, 1, 1, 2, 3][: 1 + min(4, len(game.pile))]))
        game.play(move)
        return
    table = game.table_moves()
    if table and rng.random() < 0.3:
        game.play(rng.choice(table))
        return
    moves = game.legal_moves()
    challenge = [m for m in moves if str(m) == "challenge"]
    game.play(challenge[0] if challenge and rng.random() < 0.7 else rng.choice(moves))


def random_games(count: int, base: int) -> Iterator[tuple[Game, int, random.Random]]:
    for index in range(count):
        ruleset, players = CASES[(base + index) % len(CASES)]
        rng = random.Random(base * 1000 + index)
        seed = seed128(rng)
        yield Game.new(ruleset, players, seed=seed), seed, rng


def check_no_seed(game: Game, seed: int) -> None:
    text = str(seed)
    for seat in range(len(game.hand_sizes)):
        for leaf in walk(game.observation(seat)):
            assert leaf != seed, f"seat {seat} sees the seed as a number"
            if isinstance(leaf, int) and not isinstance(leaf, bool):
                assert abs(leaf) < 2**40, f"seat {seat} sees a seed-sized number {leaf}"
            if isinstance(leaf, str):
                assert text not in leaf and hex(seed)[2:] not in leaf, f"seat {seat} sees the seed"
        assert text not in repr(game.observation(seat))


def test_no_observation_holds_the_seed() -> None:
    """docs/index.md "Secrets": no event in a seat's Game.observation(seat) holds the seed
    (128-bit fresh seeds; we give 128-bit seeds and search the whole observation)."""
    for game, seed, rng in random_games(30, 1):
        check_no_seed(game, seed)
        for step in range(STEPS):
            if game.is_game_over():
                break
            if game.is_round_over():
                game.play("next-round")
            else:
                random_step(game, rng)
            if step % 40 == 0:
                check_no_seed(game, seed)
        check_no_seed(game, seed)


def redaction_problems(full: dict[str, Any], seen: dict[str, Any], seat: int) -> list[str]:
    """What a seat's copy of one event shows that the rules do not show it (rules.md §2-4)."""
    kind, player = full.get("type"), full.get("player")
    problems = []
    if kind == "deal":
        for other, hand in enumerate(seen.get("hands", [])):
            if other != seat and not isinstance(hand, int):
                problems.append(f"deal shows seat {other}'s hand")
        if isinstance(seen.get("loaded"), list):
            problems.append("deal shows the launcher's loaded order")
    if kind in ("hit", "draw") and player != seat and full.get("cards") and "cards" in seen:
        problems.append(f"{kind} shows the cards seat {player} got")
    if kind == "challenge" and "hand" in seen and seat not in (player, full.get("accused")):
        problems.append("challenge shows the accused's hand to a bystander")
    if kind == "give" and "card" in seen and seat not in (player, full.get("to")):
        problems.append("give shows the passed card to a bystander")
    return problems


def test_other_hands_stay_hidden() -> None:
    """docs/rules.md "observation": other seats' hidden cards, the launcher's loaded order are
    removed; the challenged hand goes to the challenger only (shared rules.md §3.2, "shows
    their hand to the challenger"); a card passed goes to its receiver (§4.2). Each seat's
    history is compared event by event with the full log game.events."""
    kinds: set[str] = set()
    for game, _seed, rng in random_games(40, 2):
        for _ in range(STEPS * 3):
            if game.is_game_over():
                break
            if game.is_round_over():
                game.play("next-round")
            else:
                random_step(game, rng)
        for seat in range(len(game.hand_sizes)):
            history = game.observation(seat).history
            assert len(history) == len(game.events)
            for full, seen in zip(game.events, history, strict=True):
                assert not redaction_problems(full, seen, seat), (full, seen, seat)
                kinds.add(full["type"])
    assert {"deal", "hit", "challenge", "give"} <= kinds, kinds


def test_the_checker_sees_a_leak() -> None:
    """Self-test: redaction_problems flags the full (unredacted) events, so the checks can fail."""
    game = Game.new("classic", 3, seed=11)
    deal = next(e for e in game.events if e["type"] == "deal")
    assert redaction_problems(deal, deal, 0)
    hit = {"type": "hit", "player": 1, "cards": ["R5"], "counted": 1}
    assert redaction_problems(hit, hit, 0) and not redaction_problems(hit, hit, 1)
    shown = {"type": "challenge", "player": 0, "accused": 1, "hand": ["R5"]}
    assert redaction_problems(shown, shown, 2) and not redaction_problems(shown, shown, 0)


def test_reload_order_is_not_shown() -> None:
    """docs/rules.md "The event log": a reload's shuffled order is secret and never logged;
    docs/index.md "Secrets": no observation holds a reload's order. We compare the reload
    event a seat sees with the pile the engine then holds (`game.pile`, next card first)."""
    reloads = 0
    for index in range(60):
        ruleset = ["classic", "pocket", "attack"][index % 3]
        rng = random.Random(index)
        game = Game.new(ruleset, 2, seed=seed128(rng))
        for _ in range(1500):
            if game.is_round_over():
                break
            before = len(game.events)
            random_step(game, rng)
            fresh = [e.get("type") for e in game.events[before:]]
            if "reload" not in fresh or len(game.pile) < 6:
                continue
            for event in game.observation(0).history[before:]:
                if event.get("type") != "reload":
                    continue
                reloads += 1
                shown = list(map(str, event.get("cards", [])))
                pile = [str(card) for card in game.pile]
                for order in (pile, pile[::-1]):
                    assert shown[-len(order) :] != order and shown[: len(order)] != order
    assert reloads >= 5


def test_legal_moves_order_depends_on_infoset_only() -> None:
    """docs/rules.md: legal moves come "in a canonical order: by card, then notation, never the
    hand's internal order". Our own twins: one position set up with set_position twice, the
    seat's hand given in two orders and the other hands swapped for different cards."""
    for ruleset in RULESETS:
        deck = list(Game.new(ruleset, 2, seed=1).ruleset.deck)
        rng = random.Random(ruleset)
        for trial in range(10):
            cards = deck[:]
            rng.shuffle(cards)
            numbers = [c for c in cards if str(c)[1:].isdigit()]
            top = numbers[0]
            cards.remove(top)
            mine, other_a, other_b = cards[:7], cards[7:14], cards[14:21]
            views = []
            for hand, other in ((mine, other_a), (mine[::-1], other_b), (mine, other_b)):
                game = Game.new(ruleset, 2, seed=trial)
                game.set_position([hand, other], top, current=0)
                views.append(game.observation(0))
            assert views[0].legal_moves == views[1].legal_moves
            assert views[0].hand == views[1].hand
            # same hand in the same order, other cards elsewhere: the set_position deal event
            # lists the hand in the order given, so only this pair must be equal throughout
            assert views[0] == views[2], "the other seat's cards change what seat 0 sees"


def card_lists_in(value: Any) -> Iterator[list[str]]:
    """Every list or tuple inside a value (dataclass fields included), as card texts."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            if field.name != "ruleset":
                yield from card_lists_in(getattr(value, field.name))
    elif isinstance(value, dict):
        for item in value.values():
            yield from card_lists_in(item)
    elif isinstance(value, (list, tuple)):
        yield [str(item) for item in value]
        for item in value:
            yield from card_lists_in(item)


def test_observation_object_holds_no_hidden_cards() -> None:
    """docs/rules.md: game.observation(seat) is what that seat may know, its information set.
    The object handed to a bot (Bot.decide(view)) must not carry the other hands in any of its
    dataclass fields (what a learner that serialises the fields ships)."""
    game = Game.new("classic", 3, seed=5)
    view = game.observation(0)
    carried = list(card_lists_in(view))
    for seat in (1, 2):
        hand = [str(card) for card in game.hands[seat]]
        assert hand not in carried, f"seat 0's observation carries seat {seat}'s hand {hand}"


def test_resampled_world_looks_the_same() -> None:
    """docs/rules.md: resample_from_infostate(seat, rng) is a game identical in everything seat
    knows; its observation(seat) must equal the true one, legal moves in the same order."""
    worlds_differ = 0
    for game, _seed, rng in random_games(25, 3):
        for step in range(120):
            if game.is_game_over():
                break
            if game.is_round_over():
                game.play("next-round")
            else:
                random_step(game, rng)
            if step % 30 == 29:
                for seat in range(len(game.hand_sizes)):
                    world = game.resample_from_infostate(seat, random.Random(step))
                    assert world.observation(seat) == game.observation(seat)
                    worlds_differ += world.hands != game.hands
    assert worlds_differ > 0


# -- push / pop / copy never press a launcher -------------------------------------------


class CountingLauncher(Launcher[object]):
    """docs/launchers.md "Writing a backend": a Launcher subclass with _press; counts presses."""

    backend = "counting"

    def __init__(self) -> None:
        super().__init__()
        self.presses = 0

    def _press(self, loaded: int) -> int:
        self.presses += 1
        return min(1, loaded)


def state(game: Game) -> tuple[Any, ...]:
    return (
        game.observation(0),
        tuple(map(tuple, game.hands)),
        tuple(game.pile),
        len(game.events),
        game.pending,
        game.decider,
        game.round_number,
    )


def test_push_pop_copy_never_press() -> None:
    """docs/rules.md "Copy, undo": push/pop/copy cannot press a launcher; pop() restores the state
    (events included) and returns the move; move_stack, peek(); next-round is a move (issue 24,
    repro: attack, 2 players, seed 900, B1 B6 draw, then push("draw"); pop())."""
    for ruleset in ("attack", "classic"):
        for seed in range(8):
            launcher = CountingLauncher()
            table = Table.new(ruleset, 2, launcher=launcher, seed=900 + seed)
            game = table.game
            rng = random.Random(seed)
            for _ in range(40):
                if game.is_round_over():
                    break
                moves = game.legal_moves()
                draws = [m for m in moves if str(m) == "draw"]
                for move in draws + moves[:2]:
                    pressed, before = launcher.presses, state(game)
                    game.push(move)
                    assert game.peek() == move and game.move_stack[-1] == move
                    if game.is_chance_node():
                        game.push(Move.fired(min(1, len(game.pile))))
                        assert game.pop() == Move.fired(min(1, len(game.pile)))
                    clone = game.copy()
                    while clone.is_chance_node():
                        clone.play(Move.fired(min(1, len(clone.pile))))
                    search = game.copy(stack=False)
                    assert search.move_stack == [] or len(search.move_stack) == 0
                    assert clone.move_stack == game.move_stack
                    assert game.pop() == move
                    assert launcher.presses == pressed
                    assert state(game) == before
                table.play(rng.choice(game.legal_moves()))


def test_next_round_is_a_move() -> None:
    """docs/rules.md, docs/notation.md: next-round is a move; a round boundary pushes and pops."""
    rng = random.Random(5)
    game = Game.new("classic", 3, seed=seed128(rng))
    while not game.is_round_over():
        random_step(game, rng)
    before = state(game)
    assert [str(m) for m in game.legal_moves()] == ["next-round"]
    game.push("next-round")
    assert game.round_number == before[-1] + 1
    assert str(game.pop()) == "next-round"
    assert state(game) == before


# -- chance nodes ------------------------------------------------------------------------


def test_chance_outcomes_sum_to_one_and_are_capped() -> None:
    """docs/rules.md "Chance moves": chance_outcomes() lists (fired:N, p); with press_odds the odds
    above the pile's size fall on fired:len(pile); a draw pile's is [(fired:1, 1.0)]."""
    odds = (0.2, 0.3, 0.3, 0.2)
    seen_caps = 0
    for ruleset in ("attack", "classic", "pocket"):
        for seed in range(12):
            rng = random.Random(seed)
            game = Game.new(ruleset, 2, seed=seed, press_odds=odds if ruleset == "attack" else None)
            for _ in range(1500):
                if game.is_round_over():
                    break
                if game.is_chance_node():
                    outcomes = game.chance_outcomes()
                    assert abs(sum(p for _, p in outcomes) - 1) < 1e-9
                    counts = [m.count for m, _ in outcomes]
                    assert max(counts) <= len(game.pile) and len(set(counts)) == len(counts)
                    seen_caps += len(game.pile) < len(odds) - 1
                random_step(game, rng)
    assert seen_caps >= 1


@pytest.mark.parametrize("bad", [1.5, -1, True, "2", 2.0, None])
@pytest.mark.parametrize("ruleset", ["attack", "classic"])
def test_fired_refuses_non_whole_counts(ruleset: str, bad: Any) -> None:
    """docs/rules.md "Chance moves": N must be a whole number from 0 to the pile's size; 1.5, -1,
    True, "2" are IllegalMove, whatever the pile holds (big pile and a pile of one card)."""
    game = Game.new(ruleset, 2, seed=3)
    while not game.is_chance_node():
        game.play("draw" if "draw" in map(str, game.legal_moves()) else game.legal_moves()[0])
    size = len(game.pile)
    with pytest.raises(IllegalMove):
        game.play(Move.fired(bad))
    assert game.is_chance_node() and len(game.pile) == size
    with pytest.raises(IllegalMove):
        game.play(Move.fired(len(game.pile) + 1))


def test_card_notation_roundtrip_sanity() -> None:
    """docs/notation.md: Card.parse(str(card)) == card (used by the checks above)."""
    assert str(Card.parse("y+2")) == "Y+2"


@pytest.mark.parametrize("bad", [1.5, -1, True, "2"])
def test_fired_refuses_non_whole_counts_on_a_small_pile(bad: Any) -> None:
    """docs/rules.md "Chance moves": the same refusal when the pile holds one card or none
    (issue 24: fired:1.5 was logged as "counted": 1.5 on a small pile)."""
    game = Game.new("attack", 2, seed=4, options={"empty_launcher": "dry"})
    for _ in range(2000):
        if game.is_round_over() or (game.is_chance_node() and len(game.pile) <= 1):
            break
        if game.is_chance_node():
            game.play(Move.fired(min(3, len(game.pile))))
        else:
            draw = [m for m in game.legal_moves() if str(m) == "draw"]
            game.play(draw[0] if draw else game.legal_moves()[0])
    assert game.is_chance_node() and len(game.pile) <= 1, "never reached a small pile"
    events = len(game.events)
    with pytest.raises(IllegalMove):
        game.play(Move.fired(bad))
    assert len(game.events) == events and game.is_chance_node()
