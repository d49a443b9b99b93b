"""What one seat may see, and how a game ended: value types for bots, search and learning.

:meth:`game.core.engine.Game.observation` builds an :class:`Observation`: exactly the seat's
information set. That is its own hand, every hand's size, the public table, the history
as the seat saw it (:func:`redact`: other seats' hidden cards, the seed and every random
order removed; the hand a challenge shows goes to the challenger only) and, when it
decides, its legal moves. Every list in it is in a canonical order (:func:`move_key`,
cards by :func:`~game.core.cards.sort_key`), never the engine's internal order, which would
tell a seat which of its cards were dealt and which were drawn or traded.
:meth:`game.core.engine.Game.outcome` builds an :class:`Outcome`.

A bot decides hundreds of times a game, so an observation is cheap to make: it stores the
seat's data as the engine's own values (cards, moves, enums) and renders their text only
when read (:attr:`Observation.hand`, :attr:`Observation.legal_moves`); the history is
redacted only for an observation that asks for it (``history=True``, the default of
:meth:`~game.core.engine.Game.observation`; the rule bots ask for none), one event once per
seat; and the display order of each card is worked out once (docs/performance.md,
"Whole games").
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from game.core.cards import Card, Color, sort_key
from game.core.moves import Decision, Move, MoveKind, PlayMove

if TYPE_CHECKING:
    from game.core.rulesets import Ruleset
    from game.core.steps import Engine

#: The viewer seat of a screen that is nobody's (the public table screen).
NOBODY = -1

#: Event fields that show cards only the seats named in the event may see, by event type:
#: (the field, the event fields naming the seats that see it).
_PRIVATE: dict[str, tuple[str, tuple[str, ...]]] = {
    "hit": ("cards", ("player",)),
    "give": ("card", ("player", "to")),
    "decision": ("moves", ("player",)),
    # rules.md 3.2: the accused shows the hand to the challenger only
    "challenge": ("hand", ("player", "accused")),
}
#: ``game_start`` fields nobody at the table may see: the seed rebuilds every hand, and the
#: launcher's description names the seed it was opened with.
_SECRET_START = ("seed", "launcher")


class Termination(StrEnum):
    """Why a game ended (python-chess's ``Termination``); the values are the logged strings."""

    TARGET = "target"  #: a score reached the target
    ELIMINATION = "elimination"  #: the challenge game: one seat is left


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended (python-chess's ``Outcome``): the winner, the scores, the rounds."""

    winner: int
    scores: tuple[int, ...]
    rounds: int
    termination: Termination


MoveKey = tuple[int, int, str]


def move_key(move: Move) -> MoveKey:
    """The canonical order of the moves a seat sees: card moves by card, then the rest.

    Moves with the same card go by their notation; a plain play's notation is its card's
    code, which sorts before every other move with that card (``R7``, ``R7@3``,
    ``give:R7``), so its key leaves the text out ("") and the order is the same.
    """
    card: Card | None = getattr(move, "card", None)
    if card is None:
        return (1, 0, str(move))
    if move.by is None and move.kind is _PLAY:
        return (0, card.display, "")
    return (0, card.display, str(move))


def canonical(moves: Iterable[Move]) -> tuple[Move, ...]:
    """``moves`` in :func:`move_key` order: a function of the moves, not of the hand order.

    The common offer, plain plays and moves without a card (``draw``, ``pass``, ``take``,
    ``color:G``...), is sorted in two parts with keys read in C: the plays by their card's
    :attr:`~game.core.cards.Card.display` rank, then the rest by notation (every play sorts
    before every move without a card). Anything else (a ``give``, a jump-in) takes the full
    :func:`move_key` sort. Same order either way; docs/performance.md says what it saves.
    """
    listed = moves if isinstance(moves, (list, tuple)) else list(moves)
    if len(listed) < 2:
        return tuple(listed)
    plays: list[Move] = []
    rest: list[Move] = []
    for move in listed:
        if type(move) is PlayMove and move.by is None:
            plays.append(move)
        elif getattr(move, "card", None) is None:
            rest.append(move)
        else:  # a give, a jump-in: the full sort
            return tuple(sorted(listed, key=move_key))
    plays.sort(key=_BY_DISPLAY)
    if len(rest) > 1:
        rest.sort(key=str)
    return (*plays, *rest)


_BY_DISPLAY = attrgetter("card.display")
# module names: an enum member read off its class is slow in CPython 3.11 (docs/performance.md)
_PRESS, _DRAWN, _PLAY = Decision.PRESS, Decision.DRAWN, MoveKind.PLAY
_DISPLAY = attrgetter("display")


def display_order(cards: Iterable[Card]) -> tuple[Card, ...]:
    """``cards`` sorted for display (:func:`~game.core.cards.sort_key`), as a tuple.

    The key is the card's :attr:`~game.core.cards.Card.display` rank, read in C: sorting a
    hand makes no Python call per card.
    """
    return tuple(sorted(cards, key=_DISPLAY))


@dataclass(slots=True, eq=False)
class Observation:
    """Everything ``seat`` may know now; nothing about the other hands but their sizes.

    The seat's own copy: nothing in it is shared with the game but immutable values and
    the seat's own redacted log, so changing it changes nothing at the table (it is not
    frozen because a frozen dataclass of this size took longer to build than the rule bot
    takes to decide; docs/performance.md). The text forms (:attr:`hand`,
    :attr:`legal_moves`, :attr:`top_card`, :attr:`active_color`, :attr:`pending`) are
    rendered when read.
    """

    seat: int
    cards: tuple[Card, ...]  #: the seat's hand, in display order (:func:`display_order`)
    hand_sizes: tuple[int, ...]
    top: Card  #: the top card of the discard pile
    color: Color | None  #: the active colour (None before the first card's colour is chosen)
    direction: int
    decision: Decision  #: what :attr:`decider` is asked
    decider: int
    #: The legal moves (what a bot returns): empty unless ``seat`` decides; in
    #: :func:`move_key` order.
    moves: tuple[Move, ...]
    scores: tuple[int, ...]
    pile_size: int
    seats_in_play: tuple[int, ...]  #: seats not eliminated
    actor: int  #: the seat whose card is being resolved (who hit, who played a Wild Draw)
    stacked: int  #: presses waiting on a stack or a challenge
    uno_pending: int | None  #: a seat down to one card that has not called UNO
    drawn_card: Card | None  #: the card this seat's DRAWN decision is about
    round_number: int
    total_turns: int
    ruleset: Ruleset | None = None  #: the rules (public: everyone knows what is played)
    #: The events as this seat saw them, already redacted (shared with later observations of
    #: the same game, which only append): nothing in an observation holds what the seat may
    #: not know, not even in a private field.
    _seen: Sequence[dict[str, Any]] = field(default=(), repr=False)
    #: How many of them this observation covers; None when it was made without its history.
    _length: int | None = field(default=None, repr=False)

    @property
    def history(self) -> tuple[dict[str, Any], ...]:
        """Every event so far as this seat saw it (:func:`redact`).

        Raises ValueError for an observation made with ``history=False``.
        """
        if self._length is None:
            raise ValueError(
                "this observation was made without its history: "
                "use game.observation(seat) (history=True)"
            )
        return tuple(self._seen[: self._length])

    @property
    def has_history(self) -> bool:
        """Was the history recorded (``history=True``)?"""
        return self._length is not None

    @property
    def hand(self) -> tuple[str, ...]:
        """The seat's hand as card codes, in display order."""
        return tuple(card.code for card in self.cards)

    @property
    def legal_moves(self) -> tuple[str, ...]:
        """:attr:`moves` in notation (``docs/notation.md``), in the same order."""
        return tuple(map(str, self.moves))

    @property
    def top_card(self) -> str:
        """The top card's code."""
        return self.top.code

    @property
    def active_color(self) -> str | None:
        """The active colour's letter (``R``, ``B``, ``G``, ``Y``) or None."""
        return None if self.color is None else self.color.value

    @property
    def pending(self) -> str:
        """:attr:`decision` as its logged name (``turn``, ``color``, ...)."""
        return self.decision.value

    @property
    def num_players(self) -> int:
        return len(self.hand_sizes)

    @property
    def in_play(self) -> tuple[int, ...]:
        """:attr:`seats_in_play` by the name the engine's plain attribute has (``Game.in_play``)."""
        return self.seats_in_play

    def hand_size(self, seat: int) -> int:
        """Cards in ``seat``'s hand, as ``Game.hand_size`` (the rule bot reads either)."""
        return self.hand_sizes[seat]

    def next_seat(self, seat: int) -> int:
        """The next seat in play after ``seat`` in the direction of play."""
        n = len(self.hand_sizes)
        seat = (seat + self.direction) % n
        while seat not in self.seats_in_play:
            seat = (seat + self.direction) % n
        return seat

    def _key(self) -> tuple[Any, ...]:
        return (
            self.seat, self.cards, self.hand_sizes, self.top, self.color, self.direction,
            self.decision, self.decider, self.legal_moves, self.scores, self.pile_size,
            self.seats_in_play, self.actor, self.stacked, self.uno_pending, self.drawn_card,
            self.round_number, self.total_turns, self.has_history,
        )  # fmt: skip

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Observation):
            return NotImplemented
        if self._key() != other._key():
            return False
        return not self.has_history or self.history == other.history

    def __hash__(self) -> int:
        return hash(self._key())


def redact(event: dict[str, Any], seat: int) -> dict[str, Any]:
    """``event`` as ``seat`` saw it (``NOBODY``: the table screen).

    Other seats' dealt hands become sizes, the launcher's loaded order a count, the seed
    goes, and cards only some seats were shown go from everyone else's copy.
    """
    kind = event["type"]
    if kind == "deal":  # (a redacted event stays as it is: sizes are already counts)
        hands = [hand if i == seat else _count(hand) for i, hand in enumerate(event["hands"])]
        return {**event, "hands": hands, "loaded": _count(event["loaded"])}
    if kind == "game_start":
        return {k: v for k, v in event.items() if k not in _SECRET_START}
    if kind == "reload":  # which cards went in is public, their shuffled order never
        return {**event, "cards": sorted(event["cards"], key=_CARD_ORDER.__getitem__)}
    private = _PRIVATE.get(kind)
    if private is None or private[0] not in event:
        return event
    name, viewers = private
    if not any(event.get(viewer) == seat for viewer in viewers):
        return {k: v for k, v in event.items() if k != name}
    if kind == "decision":  # the moves offered, in the order the seat may know
        return {**event, "moves": sorted(event["moves"], key=_NOTATION_ORDER.__getitem__)}
    return event


class _CardOrder(dict[str, tuple[tuple[int, int, int], str]]):
    """The canonical order of a card code: its card's :func:`sort_key`, then the code."""

    def __missing__(self, code: str) -> tuple[tuple[int, int, int], str]:
        self[code] = key = (sort_key(Card.parse(code)), code)
        return key


class _NotationOrder(dict[str, MoveKey]):
    """:func:`move_key` of a move's notation (a bounded set: a ruleset's cards and moves)."""

    def __missing__(self, text: str) -> MoveKey:
        self[text] = key = move_key(Move.parse(text))
        return key


_CARD_ORDER = _CardOrder()
_NOTATION_ORDER = _NotationOrder()


def _count(cards: list[str] | int) -> int:
    return cards if isinstance(cards, int) else len(cards)


#: The event types :func:`redact` may change; every other event is the same for every seat.
_SEAT_DEPENDENT = frozenset({"deal", "game_start", "reload", *_PRIVATE})


class _SeatLog:
    """One seat's redacted copy of a game's log, kept up to date a few events at a time.

    ``sources`` are the game's own event objects already redacted: a log that no longer
    starts with them (after ``pop``, or in a copy that went another way) is redacted afresh
    into new lists, so observations already made keep theirs.
    """

    __slots__ = ("sources", "seen")

    def __init__(
        self, sources: list[dict[str, Any]] | None = None, seen: list[dict[str, Any]] | None = None
    ) -> None:
        self.sources: list[dict[str, Any]] = sources or []
        self.seen: list[dict[str, Any]] = seen or []

    def copy(self) -> _SeatLog:
        """For a copy of the game: the same events so far, lists of its own to grow."""
        return _SeatLog(list(self.sources), list(self.seen))


def copied_seat_logs(logs: dict[int, _SeatLog]) -> dict[int, _SeatLog]:
    """The seat logs of a copied game (:meth:`game.core.history.History.copy`)."""
    return {seat: log.copy() for seat, log in logs.items()}


def seen_by(game: Engine, seat: int) -> list[dict[str, Any]]:
    """``game.events`` as ``seat`` saw them, each event redacted once (not at every decision)."""
    logs: dict[int, _SeatLog] = game.__dict__.setdefault("_seat_logs", {})
    log = logs.get(seat)
    events, done = game.events, len(log.sources) if log is not None else 0
    if log is None or done > len(events) or (done and events[done - 1] is not log.sources[-1]):
        log = logs[seat] = _SeatLog()
        done = 0
    new = events[done:]
    log.sources += new
    seen, dependent = log.seen, _SEAT_DEPENDENT
    for event in new:
        seen.append(redact(event, seat) if event["type"] in dependent else event)
    return seen


def observe(game: Engine, seat: int, *, history: bool = True) -> Observation:
    """What ``seat`` may see of ``game`` now (:meth:`game.core.engine.Game.observation`).

    ``history=False`` leaves the history out (:attr:`Observation.history` then raises):
    a bot that never reads it does not pay for redacting the log.
    """
    pending, decider, hands = game.pending, game.decider, game.hands
    mine = seat == decider and pending is not _PRESS
    return Observation(
        seat,
        display_order(hands[seat]),
        tuple(map(len, hands)),
        game.discard[-1],
        game.active_color,
        game.direction,
        pending,
        decider,
        canonical(_offer(game)) if mine else (),
        tuple(game.scores),
        len(game.pile),
        _in_play(game.eliminated),
        game.actor,
        game.stack,
        game.uno_pending if game.uno_open is not None else None,
        game.drawn if mine and pending is _DRAWN else None,
        game.round_number,
        game.total_turns,
        game.ruleset,
        seen_by(game, seat) if history else (),
        len(game.events) if history else None,
    )


def _offer(game: Engine) -> list[Move]:
    """The decider's legal moves: the engine's cached list when there is one (only read here)."""
    offered = game.legal
    return offered if offered is not None else game.legal_moves()


class _AllSeats(dict[int, tuple[int, ...]]):
    def __missing__(self, n: int) -> tuple[int, ...]:
        self[n] = seats = tuple(range(n))
        return seats


#: ``(0, 1, ..., n - 1)``: every seat in play, the common case.
_ALL = _AllSeats()


def _in_play(eliminated: Sequence[bool]) -> tuple[int, ...]:
    """The seats not eliminated."""
    if not any(eliminated):
        return _ALL[len(eliminated)]
    return tuple(seat for seat, out in enumerate(eliminated) if not out)


def seat_table_moves(game: Engine, seat: int, moves: Iterable[Move]) -> tuple[Move, ...]:
    """``seat``'s own out-of-turn moves among ``moves``, in canonical order."""
    return canonical([m for m in moves if game.seat_of(m) == seat])
