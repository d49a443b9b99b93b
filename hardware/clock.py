"""Clocks: real monotonic time on a Pi, virtual model time in tests and simulations.

Controller code never calls ``time.monotonic`` or ``time.sleep`` directly; it asks a
:class:`Clock` for :meth:`~Clock.now` and waits with :meth:`~Clock.wait`, which
returns as soon as an :class:`threading.Event` is set or the timeout passes.

* :class:`MonotonicClock` waits on the event with a real timeout (callbacks
  arrive on another thread, e.g. lgpio's).
* :class:`VirtualClock` never sleeps: waiting *moves model time forward*, one
  event at a time, through every registered :class:`Timeline` (the mock rig's
  mechanism, scheduled button presses...). A whole game of presses runs in
  milliseconds and is bit-for-bit repeatable.
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Protocol


class Timeline(Protocol):
    """Something that lives in model time: it says when it next acts and acts when told."""

    def next_event_s(self) -> float | None:
        """Absolute model time of this timeline's next event, or None if it has none."""

    def run_until(self, t_s: float) -> None:
        """Bring this timeline up to absolute time ``t_s``, acting on every event up to it."""


class Clock(ABC):
    """Time as controller code sees it."""

    @abstractmethod
    def now(self) -> float:
        """Seconds on a monotonic scale (arbitrary origin)."""

    @abstractmethod
    def wait(self, event: threading.Event, timeout: float) -> bool:
        """Wait until ``event`` is set or ``timeout`` seconds pass; True if the event was set."""

    def sleep(self, seconds: float) -> None:
        """Let ``seconds`` pass (used for beep patterns; never for waiting on hardware)."""
        self.wait(threading.Event(), seconds)


class MonotonicClock(Clock):
    """Real time: ``time.monotonic`` and :meth:`threading.Event.wait`."""

    def now(self) -> float:
        return time.monotonic()

    def wait(self, event: threading.Event, timeout: float) -> bool:
        return event.wait(max(0.0, timeout))


class VirtualClock(Clock):
    """Model time that moves only when someone waits; never sleeps.

    ``wait`` steps from event to event: it asks every timeline (and the queue of
    scheduled calls) for its next event, moves time to the earliest one (or to
    the deadline), lets that timeline act, and checks the event again. Callbacks
    fired by timelines (e.g. a mock pin's edge handler) run synchronously and may
    set the event, which ends the wait at exactly the model time they fired.
    """

    def __init__(self, start: float = 0.0, *, pace: float | None = None) -> None:
        self._now = start
        #: None: never sleep (tests, simulations). 1.0: model time follows real time, for
        #: interactive use of a mock launcher (e.g. ``launcher serve`` on ``gpio://?mock=1``).
        self.pace = pace
        self._timelines: list[Timeline] = []
        self._scheduled: list[tuple[float, int, Callable[[], None]]] = []
        self._order = itertools.count()
        self._lock = threading.RLock()

    def now(self) -> float:
        return self._now

    def add_timeline(self, timeline: Timeline) -> None:
        self._timelines.append(timeline)

    def call_at(self, t_s: float, func: Callable[[], None]) -> None:
        """Run ``func`` when model time reaches ``t_s`` (e.g. a scripted button press)."""
        with self._lock:
            heapq.heappush(self._scheduled, (t_s, next(self._order), func))

    def call_later(self, delay_s: float, func: Callable[[], None]) -> None:
        self.call_at(self._now + delay_s, func)

    def wait(self, event: threading.Event, timeout: float) -> bool:
        deadline = self._now + max(0.0, timeout)
        with self._lock:
            while not event.is_set():
                step = self._paced(event, self._next_event_before(deadline))
                self._advance_to(step)
                if step >= deadline and not event.is_set():
                    self._run_due()
                    return event.is_set()
            return True

    def advance(self, seconds: float) -> None:
        """Let ``seconds`` of model time pass, acting on every event on the way."""
        self.wait(threading.Event(), seconds)

    def _paced(self, event: threading.Event, step: float) -> float:
        """With a pace, let the matching real time pass first; an early wake-up ends the step."""
        if self.pace is None or step <= self._now:
            return step
        started = time.monotonic()
        if event.wait((step - self._now) * self.pace):
            return min(step, self._now + (time.monotonic() - started) / self.pace)
        return step

    def _next_event_before(self, deadline: float) -> float:
        times = [t for t in (tl.next_event_s() for tl in self._timelines) if t is not None]
        if self._scheduled:
            times.append(self._scheduled[0][0])
        due = [max(t, self._now) for t in times if t <= deadline]
        return min(due) if due else deadline

    def _advance_to(self, t_s: float) -> None:
        self._now = max(self._now, t_s)
        for timeline in self._timelines:
            timeline.run_until(self._now)
        self._run_due()

    def _run_due(self) -> None:
        while self._scheduled and self._scheduled[0][0] <= self._now:
            _, _, func = heapq.heappop(self._scheduled)
            func()
