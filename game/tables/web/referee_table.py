"""A refereed game with physical cards, for the referee page: taps in, the engine's rules out.

:class:`RefereeTable` wraps :class:`game.referee.referee.Referee` (the state machine ``uno-attack
referee`` runs, with the engine's own effect blocks and hand *counts*): the page sends
what was tapped, :func:`entry_from_page` turns it into an :class:`~game.referee.referee.Entry`
after checking every field (never trusting the page), and :meth:`RefereeTable.apply`
applies it, journals it, and presses the launcher when the rules say so. Hand sizes come
from the launcher's counts (``Volley.counted``) exactly as in the terminal referee.

The journal is a ``referee`` journal (``uno-attack referee --resume`` and ``replay`` read
it, and ``table serve --referee --resume`` continues it): the same header, one ``entry``
record per accepted entry, one ``press`` record per press.

A jam (:class:`~hardware.errors.LauncherFault`) sets :attr:`RefereeTable.jam` and waits,
in the worker thread, for the page's answer (:meth:`answer_jam`): the cards pulled out
by hand, or ``None`` to press again (the rules of :class:`~game.play.driver.Presser`).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from game.core.cards import Card, Color, NotationError, sort_key
from game.core.chance import derive_seed, fresh_seed
from game.core.errors import GameError, JournalError
from game.core.moves import FiredMove
from game.core.referee_entries import ALLOWED, PHASE_REASONS
from game.core.rulesets import load_ruleset
from game.play.driver import Presser
from game.play.journal import ENTRY, PRESS, Journal, JournalWriter, confirm_launcher, read_journal
from game.referee.referee import Entry, IllegalEntry, Op, Phase, Referee, check_refereeable
from game.tables.prompt import check_seat_names
from game.tables.web.settings import WebSettings
from game.tables.web.views import COLOUR_NAMES, card_text, card_view
from hardware.errors import LauncherFault
from launcher.spec import open_launcher, resolve_spec

#: Entries a page may send (``start`` is a ``play`` of the card turned up).
PAGE_OPS = {
    "play": Op.PLAY,
    "press": Op.PRESS,
    "done": Op.DONE,
    "uno": Op.UNO,
    "catch": Op.CATCH,
    "fix": Op.FIX,
}
MAX_EXTRA = 30  #: most extra cards a Discard All may take along
MAX_HAND = 120  #: most cards tapped as left in one hand
MAX_PULLED = 200
LOG_LINES = 40
_CLOSED = object()


class EntryRefused(GameError):
    """What the page sent is not an entry the referee accepts now; nothing changed."""

    hint = "look at the page again: it shows what the referee waits for"


class RefereeTable:
    """One refereed game: the referee, its launcher and journal, what the pages see."""

    def __init__(self, settings: WebSettings) -> None:
        self.resumed: Journal | None = None
        header = self._header(settings)
        self.header = header
        self.ruleset = load_ruleset(header["ruleset"], header.get("options") or {})
        check_refereeable(self.ruleset)
        self.players: list[str] = list(header["players"])
        self.ruleset.check_players(len(self.players))
        self.journal_path = settings.resume or settings.journal
        self.writer: JournalWriter | None = None
        self.referee: Referee | None = None
        self.log: list[str] = []
        self._lock = threading.Lock()
        self.listeners: list[Callable[[], None]] = []
        self.jam: dict[str, Any] | None = None
        self._answers: queue.Queue[object] = queue.Queue()
        self.closed = False
        self.presses = 0
        #: Grows with every accepted entry and every press: a page knows a state is newer.
        self.version = 0

    def _header(self, settings: WebSettings) -> dict[str, Any]:
        if settings.resume is None:
            seed = settings.seed if settings.seed is not None else fresh_seed()
            return {
                "mode": "referee",
                "ruleset": settings.ruleset,
                "options": dict(settings.options),
                "players": settings.names,
                "launcher": resolve_spec(settings.launcher),
                "seed": seed,
            }
        journal = read_journal(settings.resume)
        if journal.header.get("mode") != "referee":
            raise JournalError(
                f"{settings.resume} is a {journal.header.get('mode')!r} journal, not a refereed "
                "game",
                hint="`table serve --referee --resume` continues journals of refereed games",
            )
        check_seat_names(journal.header["players"], f"--resume {settings.resume}")
        spec = confirm_launcher(journal, settings.launcher, interactive=False, ask=input)
        self.resumed = journal
        return {**journal.header, "launcher": spec}

    # -- life cycle ------------------------------------------------------------------
    def open(self) -> None:
        """Open the launcher and the journal; replay a resumed journal's entries."""
        journal = self.resumed
        if journal is not None:
            self.writer = JournalWriter.reopen(journal)
        elif self.journal_path is not None:
            fields = {k: v for k, v in self.header.items() if k != "type"}
            self.writer = JournalWriter.create(self.journal_path, fields)
        device = open_launcher(
            self.header["launcher"], default_seed=derive_seed(int(self.header["seed"]), "launcher")
        )
        presser = Presser(
            device,
            owns_launcher=True,
            on_fault=self._on_fault,
            on_outcome=self._journal_press,
            replay=journal.press_counts if journal else (),
        )
        self.referee = Referee(
            self.ruleset, self.players, presser, announce=self._say, on_press=self._pressed
        )
        if journal is not None:
            self._replay(journal)
        self._notify()

    def _replay(self, journal: Journal) -> None:
        referee = self.ready()
        for line, record in journal.numbered(ENTRY):
            try:  # as when it was tapped: the same log lines, versions go on where they were
                self._enter(referee, Entry.from_record(record))
            except IllegalEntry as error:
                raise JournalError(
                    f"{journal.path}: line {line}: this entry cannot be replayed: {error}"
                ) from None
        self._say(f"Resumed from {journal.path}.")

    def release(self) -> None:
        self.closed = True
        self._answers.put(_CLOSED)

    def close(self) -> None:
        self.release()
        if self.referee is not None:
            self.referee.presser.close()
        if self.writer is not None:
            self.writer.close()

    def ready(self) -> Referee:
        if self.referee is None:
            raise EntryRefused("the referee is still starting")
        if self.closed:
            raise EntryRefused("the server is stopping")
        return self.referee

    # -- what happens ------------------------------------------------------------------
    def _say(self, text: str) -> None:
        with self._lock:
            self.log.append(text)
        self._notify()

    def _pressed(self, name: str, counted: int, reason: str, number: int) -> None:
        self.presses += 1
        self.version += 1
        outcome = "nothing!" if counted == 0 else f"{counted} card{'s' * (counted != 1)}!"
        self._say(f"{name} presses the launcher ({reason}, press {number}): {outcome}")

    def _journal_press(self, move: FiredMove) -> None:
        if self.writer is not None:
            self.writer.append({"type": PRESS, "counted": move.count})

    def _notify(self) -> None:
        for listener in list(self.listeners):
            listener()

    # -- entries ---------------------------------------------------------------------------
    def apply(self, entry: Entry, version: int | None = None) -> None:
        """Apply and journal ``entry``, or raise :class:`IllegalEntry` (nothing changed).

        ``version``: the state the page showed; a page that is behind is refused, so a
        double tap on PRESS never presses twice.
        """
        referee = self.ready()
        if self.jam is not None:
            raise EntryRefused("the launcher is jammed: clear it first")
        if version is not None and version != self.version:
            raise EntryRefused("the table changed since your page was drawn: look again")
        self._enter(referee, entry)
        if self.writer is not None:
            self.writer.append({"type": ENTRY, **entry.to_record()})

    def _enter(self, referee: Referee, entry: Entry) -> None:
        """Apply ``entry`` and log it (a card played, before what the referee says it does)."""
        with self._lock:
            mark = len(self.log)
        seat = referee.state.current
        referee.apply(entry)
        self.version += 1
        said = _said(entry, self.players[seat], self.players)
        if said:
            with self._lock:
                self.log.insert(mark, said)

    def score_entry(self, hands: object) -> Entry:
        """The round's score from the cards tapped as left in each hand (checked)."""
        referee = self.ready()
        if referee.phase is not Phase.SCORING:
            raise EntryRefused("not now: the round is not over")
        if not isinstance(hands, list) or len(hands) != len(self.players):
            raise EntryRefused(f"hands: one list of cards per player ({len(self.players)})")
        points = []
        for seat, codes in enumerate(hands):
            cards = _cards(codes, referee)
            if seat == referee.state.round_winner and cards:
                raise EntryRefused(f"{self.players[seat]} went out: their hand is empty")
            points.append(referee.hand_points(cards))
        return Entry(Op.SCORE, points=tuple(points))

    # -- jams ----------------------------------------------------------------------------
    def _on_fault(self, fault: LauncherFault) -> int | None:
        referee = self.referee
        seat = referee.pressing[0] if referee is not None and referee.pressing else None
        self.jam = {
            "message": str(fault),
            "hint": fault.hint,
            "counted": fault.counted,
            "name": self.players[seat] if seat is not None else None,
        }
        self._notify()
        try:
            answer = self._answers.get()
        finally:
            self.jam = None
            self._notify()
        if answer is _CLOSED:
            raise EntryRefused("the server stopped while the launcher was jammed")
        return answer if isinstance(answer, int) else None

    def answer_jam(self, pulled: object) -> None:
        """The page's answer to a jam: cards pulled out by hand, or None to press again."""
        if self.jam is None:
            raise EntryRefused("there is no jam to clear")
        if pulled is not None and (
            not isinstance(pulled, int) or isinstance(pulled, bool) or not 0 <= pulled <= MAX_PULLED
        ):
            raise EntryRefused(f"cards pulled out: give 0 to {MAX_PULLED}, or press again")
        self._answers.put(pulled)

    # -- what the page sees ----------------------------------------------------------------
    def view(self) -> dict[str, Any]:
        referee = self.referee
        with self._lock:
            log = self.log[-LOG_LINES:]
        if referee is None:
            return {
                "players": self.players,
                "log": log,
                "phase": None,
                "jam": self.jam,
                "version": self.version,
            }
        state = referee.state
        phase = state.phase
        return {
            "players": self.players,
            "hands": list(state.hands),
            "scores": list(state.scores),
            "phase": phase.value,
            "prompt": prompt(referee),
            "allowed": sorted(op.value for op in ALLOWED[phase]),
            "current": state.current,
            "dealer": state.dealer,
            "direction": state.direction,
            "top": card_view(state.top.code) if state.top else None,
            "color": state.color.value if state.color else None,
            "color_name": COLOUR_NAMES.get(state.color.value, "any") if state.color else "any",
            "exposed": state.exposed,
            "stack": state.stack,
            "round": state.round_number,
            "round_winner": state.round_winner,
            "winner": state.winner,
            "target": self.ruleset.target,
            "launcher": self.header["launcher"],
            "pile": referee.pile_count,
            "presses": self.presses,
            "version": self.version,
            "log": log,
            "jam": self.jam,
        }

    def deck(self) -> list[dict[str, Any]]:
        """Each distinct card of the ruleset's deck, with what playing it asks for."""
        referee = self.referee
        cards = sorted(set(self.ruleset.deck), key=sort_key)
        return [
            {
                **card_view(card.code),
                "kind": card.kind.value,
                "wild": card.is_wild,
                "target": bool(referee and referee.needs_target(card)),
                "extra": bool(referee and referee.discards_color(card)),
            }
            for card in cards
        ]


def _said(entry: Entry, who: str, players: list[str]) -> str:
    """The feed's line for an accepted card (the referee announces only its effects)."""
    if entry.op is not Op.PLAY or entry.card is None:
        return ""
    text = f"{who} plays {card_text(entry.card.code)}"
    if entry.color is not None and entry.card.is_wild:
        text += f", chooses {COLOUR_NAMES.get(entry.color.value, entry.color.value)}"
    if entry.seat is not None:
        text += f", aimed at {players[entry.seat]}"
    if entry.count:
        text += f", with {entry.count} more"
    return text + (", and calls UNO." if entry.uno else ".")


def prompt(referee: Referee) -> str:
    """What the referee waits for, in one sentence."""
    state, name = referee.state, referee.name(referee.state.current)
    texts = {
        Phase.START: f"{referee.name(state.dealer)} deals: tap the card turned up.",
        Phase.PLAYING: f"{name}'s turn: tap the card played, or PRESS if none matches.",
        Phase.STACK: f"{name}: tap a hit card stacked on it, or PRESS to take {state.stack} hits.",
        Phase.PLAY_AGAIN: f"{name} may play one more card, or tap Done.",
        Phase.SCORING: "Round over: tap the cards left in each hand, then Score.",
        Phase.GAME_OVER: "Game over.",
    }
    return texts.get(state.phase, PHASE_REASONS[state.phase])


def entry_from_page(message: dict[str, Any], players: int) -> Entry:
    """The :class:`Entry` a page's ``{"type": "entry", ...}`` asks for, every field checked."""
    op = PAGE_OPS.get(str(message.get("op")))
    if op is None:
        raise EntryRefused(f"unknown entry {str(message.get('op'))[:20]!r}")
    card = _card(message.get("card")) if op is Op.PLAY else None
    color = _color(message.get("color")) if message.get("color") is not None else None
    seat = _whole(message.get("seat"), "seat", players - 1)
    count = _whole(message.get("count"), "count", MAX_HAND if op is Op.FIX else MAX_EXTRA)
    uno = message.get("uno", False)
    if not isinstance(uno, bool):
        raise EntryRefused("uno: true or false")
    if op in (Op.UNO, Op.CATCH, Op.FIX) and seat is None:
        raise EntryRefused("name the player (seat)")
    if op is Op.FIX and count is None:
        raise EntryRefused("count: how many cards the player really holds")
    return Entry(op, card=card, color=color, seat=seat, count=count, uno=uno)


def _card(code: object) -> Card:
    if not isinstance(code, str) or not 0 < len(code) <= 8:
        raise EntryRefused("card: a card code such as R7 or WH4")
    try:
        return Card.parse(code)
    except NotationError as error:
        raise EntryRefused(str(error)) from None


def _color(code: object) -> Color:
    if not isinstance(code, str) or len(code) > 8:
        raise EntryRefused("color: R, B, G or Y")
    try:
        return Color.parse(code)
    except NotationError as error:
        raise EntryRefused(str(error)) from None


def _whole(value: object, name: str, most: int) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= most:
        raise EntryRefused(f"{name}: a whole number from 0 to {most}")
    return value


def _cards(codes: object, referee: Referee) -> list[Card]:
    if not isinstance(codes, list) or len(codes) > MAX_HAND:
        raise EntryRefused(f"a hand: a list of at most {MAX_HAND} card codes")
    cards = [_card(code) for code in codes]
    for card in cards:
        if card not in referee.ruleset.deck:
            raise EntryRefused(f"the {referee.ruleset.id} deck has no {card.title}")
    return cards


def journal_of(settings: WebSettings) -> Path | None:
    return settings.resume or settings.journal
