"""The launcher abstraction every backend implements and the rules engine presses.

A :class:`Launcher` keeps a model of its hopper: the ordered list of cards
loaded into it, bottom card first. A press asks the backend how many cards
physically came out (:meth:`Launcher._press`) and hands out that many cards
from the bottom of the hopper model. On a simulated launcher the model *is*
the hopper; on real hardware the sensor only counts, so card identities are
dealt from the model (see ``docs/launchers.md``, "Card identities"). One code
path serves both, and the rules engine never needs to know which it has.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Generic, TypeVar

from hardware.errors import LauncherError, LauncherFault

T = TypeVar("T")


class Capability(StrEnum):
    """An optional thing a launcher can do beyond load and press, named after its method.

    A backend has a capability when it overrides the method of that name; the base
    class's method raises :class:`UnsupportedCapability`. Ask first with
    :meth:`Launcher.supports` rather than probing with ``getattr``.
    """

    #: :meth:`Launcher.clear_fault`: allow firing again after a latched fault (a jam).
    CLEAR_FAULT = "clear_fault"
    #: :meth:`Launcher.run_motor`: run the motor open loop for tuning (``calibrate tune``).
    RUN_MOTOR = "run_motor"
    #: :meth:`Launcher.status`: ask the device for its state (firmware state, fault, counters).
    STATUS = "status"
    #: :meth:`Launcher.self_test`: a bring-up check of the device's pins, beam and motor.
    SELF_TEST = "self_test"


class UnsupportedCapability(LauncherError, NotImplementedError):
    """The launcher's backend cannot do this (e.g. ``run_motor`` on ``sim://``)."""

    def __init__(self, launcher: Launcher[Any], capability: Capability) -> None:
        has = ", ".join(c.value for c in launcher.capabilities) or "none"
        super().__init__(
            f"{launcher.backend}:// launchers cannot {_CAPABILITY_WORDS[capability]} "
            f"(capabilities of {type(launcher).__name__}: {has})",
            hint=_CAPABILITY_HINTS[capability],
        )
        self.capability = capability


_CAPABILITY_WORDS = {
    Capability.CLEAR_FAULT: "clear a fault",
    Capability.RUN_MOTOR: "run the motor",
    Capability.STATUS: "report a device status",
    Capability.SELF_TEST: "run a bring-up self-test",
}
_CAPABILITY_HINTS = {
    Capability.CLEAR_FAULT: "this backend never latches a fault, so there is nothing to clear",
    Capability.RUN_MOTOR: "tuning needs a motor and a beam: use gpio://, serial:// or emu://",
    Capability.STATUS: "status comes from a device: use serial:// or emu://",
    Capability.SELF_TEST: "the self-test asks a device: use serial://, emu:// or pico-sim://",
}


@dataclass(slots=True)
class Volley(Generic[T]):
    """What one press of the launcher yielded (possibly nothing).

    ``cards`` are the cards handed out, bottom of the hopper first.
    ``counted`` is what the launcher reported coming out; it can exceed
    ``len(cards)`` only when the hopper model ran dry (a miscount on real
    hardware), in which case ``shortfall`` is positive.
    ``identities_known`` is False when a sensor counted the cards and their
    identities were dealt from the hopper model.

    A volley is a value: treat it as read-only. It is not a frozen dataclass only
    because every press of every game makes one and frozen construction costs
    three times as much (``bench/bench_engine.py``).
    """

    cards: tuple[T, ...]
    counted: int
    identities_known: bool = True
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def count(self) -> int:
        """How many cards were handed out."""
        return len(self.cards)

    @property
    def shortfall(self) -> int:
        """Cards counted beyond what the hopper model held (a miscount on real hardware)."""
        return max(0, self.counted - len(self.cards))

    def __len__(self) -> int:
        return len(self.cards)


class Launcher(ABC, Generic[T]):
    """A card launcher: load cards, press it, learn what came out.

    Subclasses must override :meth:`_press`; they may override
    :meth:`_on_load` (the hopper was opened and closed, e.g. to reset a firing
    pattern), :meth:`_close`, and :attr:`identities_known`. Every launcher is
    a context manager and ``close()`` is idempotent.

    Optional abilities (:class:`Capability`) are methods declared here that raise
    :class:`UnsupportedCapability`; a backend that can do one overrides it, and
    :attr:`capabilities` / :meth:`supports` report it without probing.
    """

    #: Short backend name shown in reprs and logs (``sim``, ``gpio``, ``serial``, ``emu``).
    backend: str = "abstract"
    #: False for backends that count cards with a sensor rather than hand out real ones.
    identities_known: bool = True

    def __init__(self) -> None:
        self._hopper: deque[T] = deque()
        self._lock = threading.RLock()
        self._closed = False
        self.presses = 0
        self.when_fired: Callable[[Volley[T]], None] | None = None
        #: Filled by backends in ``_press`` (``motor_ms``, ``requested``…); becomes ``Volley.meta``.
        self.press_meta: dict[str, Any] = {}

    # -- hopper model -------------------------------------------------------------
    def load(self, cards: Iterable[T]) -> None:
        """Open the hopper, put ``cards`` on top of what is there (first = lowest), close it."""
        with self._lock:
            self._check_open()
            self._hopper.extend(cards)
            self._on_load(len(self._hopper))

    def unload(self) -> list[T]:
        """Take every card out of the hopper (bottom first), e.g. at the end of a round."""
        with self._lock:
            cards = list(self._hopper)
            self._hopper.clear()
            return cards

    @property
    def remaining(self) -> int:
        """How many cards the hopper model holds."""
        return len(self._hopper)

    @property
    def is_empty(self) -> bool:
        """True when the hopper model holds no card."""
        return not self._hopper

    def peek_hopper(self) -> tuple[T, ...]:
        """The hopper model, bottom first (for tests, journals and card accounting)."""
        return tuple(self._hopper)

    # -- pressing -----------------------------------------------------------------
    def hit(self) -> Volley[T]:
        """Press the launcher once and return the cards that came out.

        If the press fails part-way (a jam, a lost link), the cards counted before
        the failure are handed out on ``error.volley`` and the error is raised,
        unless :meth:`_recover` clears it, in which case the volley is returned.
        """
        with self._lock:
            counted, volley = self._press_once()
            if volley is None:
                volley = self._hand_out(counted)
        if self.when_fired is not None:
            self.when_fired(volley)
        return volley

    def hit_count(self) -> int:
        """:meth:`hit`, returning only the count: the press of every hit of a simulated game.

        The same effect on the hopper model, :attr:`presses` and :attr:`press_meta` (and the
        same errors), without building a :class:`Volley` (the rules engine needs only the
        count: about 5 k instructions of a 16 k press; docs/performance.md, session
        ``bots2``). With a :attr:`when_fired` hook, which wants the volley, or on a backend
        with a :meth:`hit` of its own, it is :meth:`hit`.
        """
        if self.when_fired is not None or type(self).hit is not Launcher.hit:
            return self.hit().counted
        with self._lock:
            counted, volley = self._press_once()
            if volley is None:
                self._let_out(counted)
            return counted

    def _press_once(self) -> tuple[int, Volley[T] | None]:
        """Under the lock: one press; the count, and the volley a failed press handed out.

        A failed press hands its counted cards out on ``error.volley`` and raises, unless
        :meth:`_recover` clears it; a press that went well leaves the hopper model to the
        caller (:meth:`_hand_out` for :meth:`hit`, :meth:`_let_out` for :meth:`hit_count`).
        """
        if self._closed:
            self._check_open()
        self.press_meta = {}
        try:
            return self._press(len(self._hopper)), None
        except LauncherError as error:
            error.volley = volley = self._hand_out(error.counted)
            if not self._recover(error):
                raise
            return error.counted, volley

    def _let_out(self, counted: int) -> None:
        """:meth:`_hand_out` without the volley: the cards leave the hopper model, unseen."""
        if counted < 0:
            raise ValueError(f"{self!r}: backend reported {counted} cards")
        hopper = self._hopper
        for _ in range(min(counted, len(hopper))):
            hopper.popleft()
        self.presses += 1

    def _hand_out(self, counted: int) -> Volley[T]:
        """Take ``counted`` cards from the bottom of the hopper model (as many as it holds)."""
        if counted < 0:
            raise ValueError(f"{self!r}: backend reported {counted} cards")
        hopper = self._hopper
        take = min(counted, len(hopper))
        if take == 1:  # the usual press of a game: one card (a draw pile's only kind)
            cards: tuple[T, ...] = (hopper.popleft(),)
        else:
            cards = tuple([hopper.popleft() for _ in range(take)]) if take else ()
        self.presses += 1
        return Volley(cards, counted, self.identities_known, self.press_meta)

    def _recover(self, error: LauncherError) -> bool:
        """Hook: try to clear a failed press (e.g. a simulated attendant); True to carry on."""
        return False

    @abstractmethod
    def _press(self, loaded: int) -> int:
        """Physically press once with ``loaded`` cards in the hopper; return how many came out.

        Put anything worth logging about the press (``requested``, ``motor_ms``…) in
        :attr:`press_meta`; it is copied into the returned volley's ``meta``.
        """

    def _on_load(self, loaded: int) -> None:
        """Hook: the hopper was reloaded and now holds ``loaded`` cards."""

    # -- lifecycle ----------------------------------------------------------------
    def close(self) -> None:
        """Release the hardware (motor off first). Safe to call more than once."""
        if not self._closed:
            self._closed = True
            self._close()

    def _close(self) -> None:
        """Hook: release backend resources."""

    @property
    def closed(self) -> bool:
        """True once :meth:`close` was called."""
        return self._closed

    def _check_open(self) -> None:
        if self._closed:
            raise LauncherError(f"{self!r} is closed")

    def __enter__(self: Any) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def describe(self) -> str:
        """Extra ``key=value`` text for the repr; backends add their settings."""
        return ""

    # -- capabilities ---------------------------------------------------------------
    @property
    def capabilities(self) -> frozenset[Capability]:
        """The optional methods this backend implements (those it overrides)."""
        own = type(self)
        return frozenset(
            c for c in Capability if getattr(own, c.value) is not getattr(Launcher, c.value)
        )

    def supports(self, capability: Capability | str) -> bool:
        """Whether :meth:`clear_fault`, :meth:`run_motor` or :meth:`status` will work here."""
        return Capability(capability) in self.capabilities

    @property
    def fault(self) -> LauncherFault | None:
        """The fault latched on the host side, if any (None on backends that never latch)."""
        return None

    def clear_fault(self) -> bool:
        """Allow firing again after a person fixed the launcher; True if a fault was latched.

        Raises :class:`UnsupportedCapability` on backends that never latch a fault.
        """
        raise UnsupportedCapability(self, Capability.CLEAR_FAULT)

    def run_motor(self, ms: float) -> int:
        """Run the motor open loop for ``ms`` milliseconds; return the cards the beam counted.

        The tuning hook of ``uno-attack calibrate tune``; raises
        :class:`UnsupportedCapability` on backends without a motor.
        """
        raise UnsupportedCapability(self, Capability.RUN_MOTOR)

    def status(self) -> Any:
        """The device's own report (firmware state, fault, counters) as the backend defines it.

        Raises :class:`UnsupportedCapability` on backends with no device to ask.
        """
        raise UnsupportedCapability(self, Capability.STATUS)

    def self_test(self, *, pulse_ms: float = 500.0) -> Any:
        """A bring-up check of the device (a :class:`launcher.selftest.SelfTestResult`).

        It may run the motor for about ``pulse_ms`` (a card or two can come out and are
        taken from the hopper model). Raises :class:`UnsupportedCapability` where there is
        no device to check.
        """
        raise UnsupportedCapability(self, Capability.SELF_TEST)

    def __repr__(self) -> str:
        extra = self.describe()
        extra = f" {extra}" if extra else ""
        return f"<{type(self).__name__} backend={self.backend}{extra} loaded={self.remaining}>"


class DrawPile(Launcher[T]):
    """A plain draw pile as a launcher that always yields exactly one card.

    Classic UNO and UNO Pocket use it, so drawing and hitting share one code path;
    ``open_launcher("pile://")`` opens one.
    """

    backend = "pile"

    def _press(self, loaded: int) -> int:
        return 1 if loaded else 0

    def hit_count(self, loaded: int | None = None) -> int:
        """:meth:`hit`, returning only the count: the press of every drawn card of a game.

        The same effect on the hopper model and :attr:`presses`, without building a
        :class:`Volley` (the rules engine needs only the count; a draw pile never
        faults or meters). ``loaded``: the number of cards the caller expects in the
        hopper model; when it holds another number nothing is pressed and -1 is
        returned (reload, then press again). With a :attr:`when_fired` hook, or on a
        subclass that may press differently, the press is :meth:`hit` itself.
        """
        hopper = self._hopper
        if loaded is not None and loaded != len(hopper):  # read as `remaining` reads it
            return -1
        if self.when_fired is not None or type(self) is not DrawPile:
            return self.hit().counted
        with self._lock:
            if self._closed:
                self._check_open()
            if self.press_meta:  # hit() hands out a fresh dict; nobody fills a pile's
                self.press_meta = {}
            self.presses += 1
            if hopper:
                hopper.popleft()
                return 1
            return 0


class ScriptedLauncher(Launcher[T]):
    """Yields a fixed sequence of counts, cycling; for tests and demonstrations."""

    backend = "scripted"

    def __init__(self, counts: Iterable[int]) -> None:
        super().__init__()
        self._counts = list(counts) or [0]
        self._next = 0

    def _press(self, loaded: int) -> int:
        count = self._counts[self._next % len(self._counts)]
        self._next += 1
        return count

    def describe(self) -> str:
        """The scripted counts."""
        return f"counts={self._counts!r}"
