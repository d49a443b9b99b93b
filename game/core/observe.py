"""What one seat may see, and how a game ended: value types for bots, search and learning.

:meth:`game.core.engine.Game.observation` builds an :class:`Observation`: exactly the seat's
information set. That is its own hand, every hand's size, the public table, the history
as the seat saw it (:func:`redact`: other seats' hidden cards, the seed and every random
order removed; the hand a challenge shows goes to the challenger only) and, when it
decides, its legal moves. Every list in it is in a canonical order (:func:`move_key`,
cards by :func:`~game.core.cards.sort_key`), never the engine's internal order, which would
tell a seat which of its cards were dealt and which were drawn or traded.
:meth:`game.core.engine.Game.outcome` builds an :class:`Outcome`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from game.core.cards import Card, sort_key
from game.core.moves import Decision, Move

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


def move_key(move: Move) -> tuple[int, tuple[int, int, int], str]:
    """The canonical order of the moves a seat sees: card moves by card, then the rest."""
    card: Card | None = getattr(move, "card", None)
    if card is None:
        return (1, (0, 0, 0), str(move))
    return (0, sort_key(card), str(move))


def canonical(moves: Iterable[Move]) -> tuple[Move, ...]:
    """``moves`` in :func:`move_key` order: a function of the moves, not of the hand order."""
    return tuple(sorted(moves, key=move_key))


@dataclass(frozen=True, slots=True, eq=False)
class Observation:
    """Everything ``seat`` may know now; nothing about the other hands but their sizes.

    The history is redacted when it is read (:attr:`history`), so a bot deciding from
    the observation does not pay for the whole game's log at every decision.
    """

    seat: int
    hand: tuple[str, ...]
    hand_sizes: tuple[int, ...]
    top_card: str
    active_color: str | None
    direction: int
    pending: str
    decider: int
    legal_moves: tuple[str, ...]  #: empty unless ``seat`` decides; in :func:`move_key` order
    scores: tuple[int, ...]
    pile_size: int
    #: The same legal moves as :class:`~game.core.moves.Move` objects (what a bot returns).
    moves: tuple[Move, ...] = ()
    cards: tuple[Card, ...] = ()  #: the seat's hand as cards, in display order
    seats_in_play: tuple[int, ...] = ()  #: seats not eliminated
    actor: int = 0  #: the seat whose card is being resolved (who hit, who played a Wild Draw)
    stacked: int = 0  #: presses waiting on a stack or a challenge
    uno_pending: int | None = None  #: a seat down to one card that has not called UNO
    drawn_card: Card | None = None  #: the card this seat's DRAWN decision is about
    round_number: int = 0
    total_turns: int = 0
    ruleset: Ruleset | None = None  #: the rules (public: everyone knows what is played)
    #: The events as this seat saw them, already redacted (shared with later observations of
    #: the same game, which only append): nothing in an observation holds what the seat may
    #: not know, not even in a private field.
    _seen: Sequence[dict[str, Any]] = field(default=(), repr=False)
    _length: int = field(default=0, repr=False)

    @property
    def history(self) -> tuple[dict[str, Any], ...]:
        """Every event so far as this seat saw it (:func:`redact`)."""
        return tuple(self._seen[: self._length])

    @property
    def decision(self) -> Decision:
        """:attr:`pending` as a :class:`~game.core.moves.Decision`."""
        return Decision(self.pending)

    @property
    def num_players(self) -> int:
        return len(self.hand_sizes)

    def next_seat(self, seat: int) -> int:
        """The next seat in play after ``seat`` in the direction of play."""
        n = len(self.hand_sizes)
        seat = (seat + self.direction) % n
        while seat not in self.seats_in_play:
            seat = (seat + self.direction) % n
        return seat

    def _key(self) -> tuple[Any, ...]:
        return (
            self.seat, self.hand, self.hand_sizes, self.top_card, self.active_color,
            self.direction, self.pending, self.decider, self.legal_moves, self.scores,
            self.pile_size, self.seats_in_play, self.actor, self.stacked, self.uno_pending,
            self.drawn_card, self.round_number, self.total_turns,
        )  # fmt: skip

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Observation):
            return NotImplemented
        return self._key() == other._key() and self.history == other.history

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
        return {**event, "cards": sorted(event["cards"], key=_card_order)}
    private = _PRIVATE.get(kind)
    if private is None or private[0] not in event:
        return event
    name, viewers = private
    if not any(event.get(viewer) == seat for viewer in viewers):
        return {k: v for k, v in event.items() if k != name}
    if kind == "decision":  # the moves offered, in the order the seat may know
        return {**event, "moves": [str(m) for m in canonical(map(Move.parse, event["moves"]))]}
    return event


def _card_order(code: str) -> tuple[tuple[int, int, int], str]:
    return sort_key(Card.parse(code)), code


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
    for event in events[done:]:
        log.sources.append(event)
        log.seen.append(redact(event, seat) if event["type"] in _SEAT_DEPENDENT else event)
    return log.seen


def observe(game: Engine, seat: int) -> Observation:
    """What ``seat`` may see of ``game`` now (:meth:`game.core.engine.Game.observation`)."""
    mine = seat == game.decider and game.pending is not Decision.PRESS
    moves = canonical(game.legal_moves()) if mine else ()
    cards = tuple(game.hand(seat))
    drawn = game.drawn_card if mine and game.pending is Decision.DRAWN else None
    return Observation(
        seat=seat,
        hand=tuple(c.code for c in cards),
        hand_sizes=tuple(game.hand_sizes),
        top_card=game.discard[-1].code,
        active_color=game.active_color.value if game.active_color else None,
        direction=game.direction,
        pending=game.pending.value,
        decider=game.decider,
        legal_moves=tuple(map(str, moves)),
        scores=tuple(game.scores),
        pile_size=len(game.pile),
        moves=moves,
        cards=cards,
        seats_in_play=tuple(game.seats_in_play),
        actor=game.actor,
        stacked=game.stacked,
        uno_pending=game.uno_pending,
        drawn_card=drawn,
        round_number=game.round_number,
        total_turns=game.total_turns,
        ruleset=game.ruleset,
        _seen=seen_by(game, seat),
        _length=len(game.events),
    )


def seat_table_moves(game: Engine, seat: int, moves: Iterable[Move]) -> tuple[Move, ...]:
    """``seat``'s own out-of-turn moves among ``moves``, in canonical order."""
    return canonical(m for m in moves if game.seat_of(m) == seat)
