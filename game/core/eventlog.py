"""A game's event log: compact records while the game runs, dicts when something reads them.

The engine logs about 110 events a hand of classic UNO (2.4 a turn) and, in a benchmark, a
bot table or a search, nothing reads them while the game runs. So an event is logged as a
*record*: the function that writes its dict and that function's arguments, one tuple
appended to a list (``(play_event, seat, card, reason)`` is written
``play_event(seat, card, reason)``). The dicts, in the documented format
(:mod:`game.play.events`), are written when :attr:`EventLog.events` is read: each once, in
order, and then kept, so every later read gets the same dict objects. A ``decision`` event
keeps the offered moves and renders their notation only then.

With an ``on_event`` callback every event is written at once and handed to it, as it
happens (a web table, a narrator and an experiment's tally read each one).

Measured in docs/performance.md ("A data-oriented core (issue 27)", helper ``events``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from itertools import starmap
from operator import attrgetter, call
from typing import TYPE_CHECKING, Any

from game.core.cards import Color
from game.core.moves import Decision

if TYPE_CHECKING:
    from game.core.cards import Card
    from game.core.moves import Move

Event = dict[str, Any]
EventCallback = Callable[[Event], None]
#: A logged event not yet written: its writer (a function returning the event's dict), then
#: the writer's arguments.
Record = tuple[Any, ...]

_CODE = attrgetter("code")
_DECISION_TEXT = {d: d.value for d in Decision}  # Enum.value is a Python-level property
_COLOR_TEXT = {c: c.value for c in Color}


# -- the writers of the events logged on every step (the rest go through ``fields_event``) ---
def play_event(seat: int, card: Card, reason: str) -> Event:
    return {"type": "play", "player": seat, "card": card.code, "reason": reason}


def draw_event(seat: int) -> Event:
    return {"type": "draw", "player": seat}


def hit_event(seat: int, reason: str, cards: Iterable[Card], counted: int) -> Event:
    codes = list(map(_CODE, cards))  # no comprehension's frame: most presses are one card
    return {"type": "hit", "player": seat, "reason": reason, "cards": codes, "counted": counted}


def color_event(seat: int, color: Color) -> Event:
    return {"type": "color", "player": seat, "color": _COLOR_TEXT[color]}


def decision_event(seat: int, decision: Decision, moves: Iterable[Move]) -> Event:
    """The moves offered, in notation: rendered here, when the log is read."""
    notation = list(map(str, moves))
    text = _DECISION_TEXT[decision]
    return {"type": "decision", "player": seat, "decision": text, "moves": notation}


def fields_event(kind: str, fields: Mapping[str, Any]) -> Event:
    """Any other event: its type, then ``fields`` in their order (:meth:`Game.emit`)."""
    return {"type": kind, **fields}


def written(record: Record) -> Event:
    """The event a record stands for, as its dict: ``operator.call(*record)``."""
    event: Event = call(*record)
    return event


class EventLog:
    """The events of one game, oldest first: :attr:`events` as dicts, :meth:`add` to log one.

    ``add`` is the list's own ``append`` (a C call, no Python frame) while no callback is
    set; with one it writes the event and hands it over at once.
    """

    __slots__ = ("add", "_callback", "_dicts", "_records")

    def __init__(self, on_event: EventCallback | None = None, events: list[Event] | None = None):
        """A log holding ``events`` (that very list, as ``Game.events = ...`` always did)."""
        self._dicts: list[Event] = [] if events is None else events
        self._records: list[Record] = []  # logged after the last read, not written yet
        self.add: Callable[[Record], None]
        self.on_event = on_event

    @property
    def on_event(self) -> EventCallback | None:
        """Called with each event's dict as it is logged (None: the events wait to be read)."""
        return self._callback

    @on_event.setter
    def on_event(self, callback: EventCallback | None) -> None:
        self._callback = callback
        self.add = self._records.append if callback is None else self._add_and_tell

    def _add_and_tell(self, record: Record) -> None:
        events = self.events  # the earlier records first, if the callback came late
        event = written(record)
        events.append(event)
        self._callback(event)  # type: ignore[misc]  # set: this method is add only then

    @property
    def events(self) -> list[Event]:
        """Every event as its dict: the records logged since the last read are written now."""
        records = self._records
        if records:
            self._dicts += starmap(call, records)  # written(record) for each, in C
            records.clear()
        return self._dicts

    def __len__(self) -> int:
        """How many events were logged (without writing any)."""
        return len(self._dicts) + len(self._records)

    def copy(self) -> EventLog:
        """The same events in lists of its own, with the same callback (records are immutable)."""
        twin = EventLog(self._callback, list(self._dicts))
        twin._records += self._records
        return twin

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its written events (``add`` is bound to this log's own list)."""
        return EventLog, (self._callback, self.events)
