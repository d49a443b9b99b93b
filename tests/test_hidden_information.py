"""Secrets stay secret: each seat's observation, and every message of the web table, is its
information set and nothing more.

The property: two games that differ only in what a seat cannot know — the other hands,
the pile order, the seed, every secret field of the game's own record — give that seat
identical observations (hand, legal moves and their order, the history it saw). The twin
of a game is :meth:`Game.resample_from_infostate` (other hands and the pile dealt again
from the cards the seat has not seen, its own hand in another internal order, a new chance
source) with the game's event record copied and every secret in it replaced by
:func:`disguise` — a list of secrets written here, apart from the engine's own redaction,
so a field the engine forgets to hide makes the twins differ.
"""

from __future__ import annotations

import json
import random
from collections import Counter, deque
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from game import Game
from game.cli import main
from game.core.cards import Card, sort_key
from game.core.chance import derive_seed, fresh_seed
from game.core.errors import JournalError, RulesetError
from game.core.moves import Decision, Move, MoveKind
from game.core.observe import NOBODY
from game.core.rulesets import load_ruleset
from game.core.turns import LOGGED
from game.play.events import read_jsonl
from game.play.journal import JournalWriter
from game.tables.web.views import describe, public_event, seat_view, table_view
from hardware.files import create_secret
from tests.web_client import app_and_tokens, hello, open_page, quick_settings

RULESETS = ["attack", "attack-original", "attack-mega-hit", "classic", "pocket"]
Event = dict[str, Any]


# -- the twin ------------------------------------------------------------------------------
def disguise(events: list[Event], seat: int, rng: random.Random, deck: list[str]) -> list[Event]:
    """``events`` with everything ``seat`` may not know replaced by other plausible values."""
    return [_disguised(event, seat, rng, deck) for event in events]


def _disguised(event: Event, seat: int, rng: random.Random, deck: list[str]) -> Event:
    kind, out = event["type"], dict(event)

    def others_cards(cards: list[str]) -> list[str]:
        return [rng.choice(deck) for _ in cards]

    if kind == "game_start":
        out["seed"] = rng.getrandbits(128)
        out["launcher"] = f"<SimLauncher seed={rng.getrandbits(63)}>"
    elif kind == "deal":
        out["hands"] = [h if s == seat else others_cards(h) for s, h in enumerate(event["hands"])]
        out["loaded"] = rng.sample(event["loaded"], len(event["loaded"]))
    elif kind == "reload":  # which cards went in is public, their order is not
        out["cards"] = rng.sample(event["cards"], len(event["cards"]))
    elif kind == "hit" and event["player"] != seat:
        out["cards"] = others_cards(event["cards"])
    elif kind == "give" and seat not in (event["player"], event["to"]):
        out["card"] = rng.choice(deck)
    elif kind == "decision" and event["player"] != seat:
        out["moves"] = rng.sample(event["moves"], len(event["moves"]))
    elif kind == "challenge" and seat not in (event["player"], event["accused"]):
        out["hand"] = others_cards(event["hand"])
    return out


def twin_of(game: Game, seat: int, rng: random.Random) -> Game:
    """A game that differs from ``game`` only in what ``seat`` cannot know."""
    twin = game.resample_from_infostate(seat, random.Random(rng.getrandbits(64)))
    twin.events = disguise(game.events, seat, rng, list(game.rules.deck_codes))
    return twin


def all_cards(game: Game) -> Counter[str]:
    cards = [c for hand in game.hands for c in hand] + game.discard + list(game.pile)
    return Counter(c.code for c in cards)


# -- a random game ------------------------------------------------------------------------
def step(game: Game, rng: random.Random) -> None:
    """One random move: a press's count, a table move now and then, else a legal move."""
    if game.is_round_over():
        game.start_next_round()
    elif game.pending is Decision.PRESS:
        wanted = 1 if game.ruleset.draws_from_pile else rng.choice((0, 1, 1, 2, 3))
        game.play(Move.fired(min(wanted, len(game.pile))))  # a press shoots what the pile holds
    elif game.table_moves() and rng.random() < 0.3:
        game.play(rng.choice(game.table_moves()))
    else:
        game.play(rng.choice(game.legal_moves()))


def new_game(ruleset: str, players: int, seed: int) -> Game:
    try:
        load_ruleset(ruleset).check_players(players)
    except RulesetError:
        assume(False)
    return Game.new(ruleset, players, seed=seed)


# -- the property, for the engine -----------------------------------------------------------
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(RULESETS),
    st.integers(2, 10),
    st.integers(0, 2**64),
    st.integers(0, 9),
    st.integers(10, 100),
)
def test_a_seat_cannot_tell_a_game_from_its_twin(
    ruleset: str, players: int, seed: int, viewer: int, steps: int
) -> None:
    game = new_game(ruleset, players, seed)
    seat, rng = viewer % players, random.Random(seed)
    for _ in range(steps):
        if game.is_game_over():
            break
        twin = twin_of(game, seat, rng)
        assert all_cards(twin) == all_cards(game)  # the same deck, only dealt differently
        assert twin.observation(seat) == game.observation(seat)
        if game.decider == seat and game.pending not in (Decision.PRESS, Decision.ROUND_OVER):
            _same_after_the_seats_move(game, twin, seat, rng)
        step(game, rng)


def _same_after_the_seats_move(game: Game, twin: Game, seat: int, rng: random.Random) -> None:
    """The seat's own move, legal in both, keeps them alike while the seat still decides.

    (Once another seat acts, what happens may depend on its hidden cards — whether it can
    stack, what a Trade Hands brings — and is then public news, not a leak.)
    """
    move = rng.choice(game.observation(seat).moves)
    played, other = game.copy(), twin.copy()
    played.play(move)
    other.play(move)
    if all(g.decider == seat and g.pending is not Decision.PRESS for g in (played, other)):
        assert other.observation(seat) == played.observation(seat)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(RULESETS),
    st.integers(2, 6),
    st.integers(0, 2**64),
    st.integers(0, 9),
)
@example("attack-original", 2, 21, 0)  # a UNO catch interrupts the other seat's colour choice
@example("pocket", 2, 37, 0)
def test_a_sampled_world_plays_on_from_another_seats_offer(
    ruleset: str, players: int, seed: int, viewer: int
) -> None:
    """A search (ISMCTS) plays on in worlds dealt from a seat's view, whose log is that view.

    There another seat's offer is redacted (no ``moves``). The world must play on from such
    a log as from its own, losing no card, even when a table move (a UNO catch) interrupts
    that offer and it is made again (CI found a KeyError there, in an ISMCTS search).
    """
    game = new_game(ruleset, players, seed)
    seat, rng = viewer % players, random.Random(seed)
    worlds = 0
    for _ in range(400):
        if game.is_game_over() or worlds == 4:
            break
        if game.pending in LOGGED and game.decider != seat:
            worlds += 1
            _worlds_play_to_the_end_of_their_round(game, seat, rng)
        step(game, rng)


def _worlds_play_to_the_end_of_their_round(game: Game, seat: int, rng: random.Random) -> None:
    """A world for each table move open now (a catch, a call), made first, and one without."""
    for move in [None, *game.table_moves()]:
        world = game.resample_from_infostate(seat, random.Random(rng.getrandbits(64)))
        if move is not None:
            world.play(move)  # out of turn: the offer is interrupted
        _plays_to_the_end_of_its_round(world, all_cards(game), rng)


def _plays_to_the_end_of_its_round(world: Game, cards: Counter[str], rng: random.Random) -> None:
    round_number = world.round_number
    for _ in range(600):
        if world.is_game_over() or world.round_number != round_number:
            break
        assert all_cards(world) == cards
        step(world, rng)


@pytest.mark.parametrize(
    ("ruleset", "players", "seed"),
    [("attack", 3, 45), ("attack-mega-hit", 3, 47), ("attack", 4, 250)],
)
def test_a_catch_does_not_tell_the_catcher_whether_the_penalty_changed_an_offer(
    ruleset: str, players: int, seed: int
) -> None:
    """A UNO catch interrupts a seat's logged offer (play again?); the penalty's cards are
    that seat's secret, so the catcher's view after the presses must not depend on them.

    The offer used to be logged again only when those cards changed it (a playable card
    drawn): the catcher saw a second ``decision`` event exactly then. These walks reach
    such a catch (found by a search over seeds).
    """
    game, rng, catches = Game.new(ruleset, players, seed=seed), random.Random(seed), 0
    for _ in range(600):
        if game.is_game_over():
            break
        if game.pending in LOGGED:
            catch = _a_catch_of(game, game.decider)
            if catch is not None:
                catches += 1
                _catch_looks_the_same_whatever_the_pile(game, catch)
        step(game, rng)
    assert catches


def _a_catch_of(game: Game, seat: int) -> Move | None:
    return next((m for m in game.table_moves() if m.kind is MoveKind.CATCH and m.by != seat), None)


def _catch_looks_the_same_whatever_the_pile(game: Game, catch: Move) -> None:
    catcher = game.seat_of(catch)
    assert catcher is not None
    views = [world.observation(catcher) for world in _in_other_orders(game, catch, 8)]
    assert all(view == views[0] for view in views)


def _in_other_orders(game: Game, move: Move, orders: int) -> list[Game]:
    """Copies of ``game``, the launcher loaded in another order in each, after ``move`` and
    the presses it causes (each press shoots a card)."""
    worlds = []
    for order in range(orders):
        world = game.copy()
        pile = list(world.pile)
        random.Random(order).shuffle(pile)
        world.pile = deque(pile)
        world.play(move)
        while world.pending is Decision.PRESS:
            world.play(Move.fired(min(1, len(world.pile))))
        worlds.append(world)
    return worlds


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(RULESETS), st.integers(2, 5), st.integers(0, 2**64))
@example("attack-mega-hit", 3, 107)  # a catch interrupts a play-again offer (found by a search)
@example("attack", 4, 338)
def test_a_move_looks_the_same_whatever_order_the_launcher_holds(
    ruleset: str, players: int, seed: int
) -> None:
    """Make a move in copies of a game whose launcher is loaded in other orders, each press
    shooting a card: every seat that got no card sees the same view in all of them.

    The order is secret (rules.md); so are the cards a press gives another seat. One
    exception is documented (docs/rules.md, "Decisions"): a ``drawn`` decision shows the
    card drawn fits, so a draw where a drawn card may be played is left out.
    """
    game, rng = new_game(ruleset, players, seed), random.Random(seed)
    for _ in range(200):
        if game.is_round_over():
            break
        if game.pending is not Decision.PRESS and rng.random() < 0.3:
            table = game.table_moves()  # catches and calls, often: they interrupt offers
            move = rng.choice(table if table and rng.random() < 0.5 else game.legal_moves())
            if not (move.kind is MoveKind.DRAW and game.rules.play_after_draw):
                _looks_the_same_whatever_the_order(game, move)
        step(game, rng)


def _looks_the_same_whatever_the_order(game: Game, move: Move) -> None:
    worlds = _in_other_orders(game, move, 3)
    if any(world.is_round_over() for world in worlds):
        return  # the round's end shows the hands (and the scores they make)
    for seat in range(game.num_players):
        if all(len(w.hands[seat]) == len(game.hands[seat]) for w in worlds):
            views = [world.observation(seat) for world in worlds]
            assert all(view == views[0] for view in views), f"P{seat} after {move}"


def test_twins_really_differ_in_what_the_seat_cannot_see() -> None:
    game = Game.new("attack", 4, seed=3)
    twin = twin_of(game, 0, random.Random(1))
    assert twin.hands[1:] != game.hands[1:] and list(twin.pile) != list(game.pile)
    assert twin.events[0]["seed"] != game.seed  # and so does the record's secret
    assert twin.observation(0) == game.observation(0)


# -- the two leaks found from outside --------------------------------------------------------
def test_game_start_carries_no_seed_for_anyone() -> None:
    game = Game.new("attack", 3, seed=123456789)
    assert "seed" not in game.events[0]
    for seat in range(3):
        start = game.observation(seat).history[0]
        assert start["type"] == "game_start"
        assert "123456789" not in json.dumps(start)  # not even inside the launcher's name


def test_the_table_screens_first_message_carries_no_seed() -> None:
    seed = 987654321987654321
    app, tokens = app_and_tokens(quick_settings(seed=seed))
    with TestClient(app) as client, open_page(client, None) as socket:
        page = hello(socket)
        page.view_after()  # the game's start may come in an update before the first view
    assert page.events[0]["type"] == "game_start"
    assert str(seed) not in json.dumps(page.messages) and "seed" not in page.events[0]


def _game_with_a_reload(ruleset: str = "classic") -> tuple[Game, Event, list[str]]:
    for seed in range(200):
        game, rng = Game.new(ruleset, 2, seed=seed), random.Random(seed)
        while not game.is_game_over() and game.round_number == 1:
            before = len(game.events)
            step(game, rng)
            reloads = [e for e in game.events[before:] if e["type"] == "reload"]
            if reloads:
                return game, reloads[0], [c.code for c in game.pile]
    raise AssertionError("no reload in 200 games")


def test_a_reload_does_not_tell_the_order_of_the_new_pile() -> None:
    game, reload, pile = _game_with_a_reload()
    cards = reload["cards"]
    assert cards == sorted(cards, key=lambda code: sort_key(Card.parse(code)))
    # the seats learn which cards went in (the discard pile), never the order they come out
    assert sorted(cards) != cards or pile[: len(cards)] != cards
    for seat in range(2):
        seen = next(e for e in game.observation(seat).history if e["type"] == "reload")
        assert seen["cards"] == cards


def test_the_challenged_hand_is_shown_to_the_challenger_only() -> None:
    for seed in range(400):
        game, rng = Game.new("classic", 3, seed=seed), random.Random(seed)
        while not game.is_game_over() and game.round_number == 1:
            if game.pending is Decision.CHALLENGE:
                game.play(Move.parse("challenge"))
            else:
                step(game, rng)
            shown = [e for e in game.events if e["type"] == "challenge"]
            if shown:
                event = shown[0]
                bystander = ({0, 1, 2} - {event["player"], event["accused"]}).pop()
                assert "hand" not in _challenge_seen_by(game, bystander)
                assert _challenge_seen_by(game, event["player"])["hand"] == event["hand"]
                return
    raise AssertionError("no challenge in 400 games")


def _challenge_seen_by(game: Game, seat: int) -> Event:
    return next(e for e in game.observation(seat).history if e["type"] == "challenge")


def test_legal_moves_do_not_follow_the_hand_order() -> None:
    game = Game.new("attack", 2, seed=5)
    seat = game.decider
    reordered = game.copy()
    reordered.hands[seat].reverse()  # e.g. after Trade Hands: drawn cards first
    reordered.legal = None
    assert [str(m) for m in reordered.legal_moves()] != [str(m) for m in game.legal_moves()]
    assert reordered.observation(seat).legal_moves == game.observation(seat).legal_moves


# -- the property, for every message of the web table ------------------------------------
def web_messages(game: Game, viewer: int, names: list[str], bots: list[str | None]) -> Any:
    """What :mod:`game.tables.web.live` sends ``viewer``: each event cut, its line, its view."""
    events = [public_event(e, viewer) for e in game.events]
    lines = [describe(e, names) for e in events]
    view = (
        table_view(game, names, bots) if viewer == NOBODY else seat_view(game, names, bots, viewer)
    )
    return json.dumps([events, lines, view], sort_keys=True)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(RULESETS), st.integers(2, 6), st.integers(0, 2**64), st.integers(5, 25))
def test_no_web_viewer_can_tell_a_game_from_its_twin(
    ruleset: str, players: int, seed: int, steps: int
) -> None:
    game = new_game(ruleset, players, seed)
    rng = random.Random(seed)
    names = [f"P{i}" for i in range(players)]
    bots: list[str | None] = [None] * players
    for _ in range(steps):
        if game.is_game_over():
            break
        for viewer in (NOBODY, *range(players)):  # the table screen and host page; phones
            twin = twin_of(game, max(viewer, 0), rng)
            if viewer == NOBODY:  # the screens know less than seat 0: its secrets go too
                twin.events = disguise(game.events, NOBODY, rng, list(game.rules.deck_codes))
            assert web_messages(twin, viewer, names, bots) == web_messages(
                game, viewer, names, bots
            )
        for _ in range(rng.randrange(1, 6)):
            if not game.is_game_over():
                step(game, rng)


def test_every_message_to_every_page_of_a_played_round_is_free_of_the_seed() -> None:
    seed = 2**100 + 12345
    app, tokens = app_and_tokens(quick_settings(seed=seed))
    with TestClient(app) as client, ExitStack() as stack:
        tokens_of = {"table": None, "host": tokens.host, "phone": tokens.seats[0]}
        pages = {n: hello(stack.enter_context(open_page(client, t))) for n, t in tokens_of.items()}
        for page in pages.values():
            page.view_after()
    for name, page in pages.items():
        text = json.dumps(page.messages)
        assert str(seed) not in text and '"seed"' not in text, name


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_sample_keeps_what_the_seat_was_given(ruleset: str) -> None:
    """A card the seat passed on stays in the receiver's sampled hand (known, not hidden)."""
    game = Game.new(ruleset, 3, seed=11)
    seat = game.decider
    receiver = (seat + 1) % 3
    card = game.hands[seat][0]
    game.hands[seat].remove(card)
    game.hands[receiver].append(card)
    game.emit("give", {"player": seat, "to": receiver, "card": card.code})
    for k in range(20):
        twin = game.resample_from_infostate(seat, random.Random(k))
        assert card in twin.hands[receiver]


# -- files that hold secrets are the owner's alone --------------------------------------------
def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_a_journal_is_created_readable_by_its_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "night.jsonl"
    with JournalWriter.create(path, {"mode": "play", "ruleset": "attack", "seed": 7}):
        assert _mode(path) == 0o600  # from its first byte: the header holds the seed
    taken = tmp_path / "made-by-mktemp.jsonl"
    taken.touch(mode=0o644)
    with JournalWriter.create(taken, {"mode": "play", "ruleset": "attack", "seed": 7}):
        assert _mode(taken) == 0o600  # an empty file is taken over, and closed to others
    with pytest.raises(JournalError, match="already exists"):
        JournalWriter.create(path, {"mode": "play", "ruleset": "attack", "seed": 7})


def test_a_secret_file_is_never_opened_over_another_file_or_a_link(tmp_path: Path) -> None:
    target = tmp_path / "someone-elses"
    target.write_text("keep me")
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    for path in (target, link):
        with pytest.raises(OSError):
            create_secret(path, reuse_empty=True)
    assert target.read_text() == "keep me"


def test_a_simulation_log_with_every_hand_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    log = tmp_path / "games.jsonl"
    assert main(["simulate", "--games", "1", "--players", "2", "--log", str(log)]) == 0
    assert _mode(log) == 0o600
    assert any(e["type"] == "deal" and all(isinstance(h, list) for h in e["hands"])
               for e in read_jsonl(log))  # fmt: skip


def test_fresh_seeds_are_secret_and_wide() -> None:
    seeds = {fresh_seed() for _ in range(64)}
    assert len(seeds) == 64 and max(seeds) >= 2**120  # 128 bits, not a 32-bit number
    assert derive_seed(2**100 + 5, "bot:1") != derive_seed(5, "bot:1")  # every bit counts
