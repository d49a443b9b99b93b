"""The real firmware logic on an emulated board: emulated pins driven by the mechanism model.

:class:`EmulatedHal` is the CPython twin of ``firmware/hal_rp2.py``: the motor pin
drives :class:`hardware.mechanism.Mechanism`, the beam pin reads it, the flash is a
dict that survives reboots, and the ticks are whole milliseconds of model time, as
``time.ticks_ms()`` is on the Pico.

:class:`EmulatedBoard` is one Pico wired to one launcher: it owns the mechanism, the
HAL and the :class:`~firmware_bridge.firmware.logic.Firmware` of the current boot,
and moves model time forward *event by event* (:meth:`EmulatedBoard.advance_to`):
each beam edge reaches the firmware at the moment it happens and each firmware timer
fires at its deadline, so a motor stop lands on the exact model millisecond however
late the caller's thread runs. Nothing here knows about wall clocks, threads or
ptys: the :mod:`firmware_bridge.emulator` adds those, and tests drive a board
directly with virtual time.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from firmware_bridge.firmware import logic
from hardware.mechanism import Mechanism

PROFILE_FILE = "profile.txt"
#: How long one USB CDC write blocks when the host has the port open but does not read
#: (MicroPython's stdout waits this long for room, then drops the bytes).
WRITE_BLOCK_MS = 500
#: The Pico's watchdog timeout (``hal_rp2.WATCHDOG_MS``): a loop pass longer than this resets it.
WATCHDOG_MS = 2000


class EmulatedHal:
    """The HAL ``logic.Firmware`` expects, on emulated pins (see ``logic`` for the contract)."""

    def __init__(
        self,
        mechanism: Mechanism,
        *,
        rng: random.Random,
        flash: dict[str, str],
        write: Callable[[bytes], None],
        reset_cause: str = "power",
    ) -> None:
        self.mechanism = mechanism
        self.flash = flash
        self.now_ms = 0
        self.beam_stuck = False
        self.button_down = False
        self.watchdog = False  # armed (the emulator models no timeout: its loop never hangs)
        #: Every motor change as (model ms, duty percent); starts with the boot's "off".
        self.motor_history: list[tuple[int, int]] = []
        self._rng = rng
        self._write = write
        self._reset_cause = reset_cause
        self._gate = logic.WriteGate(self.ticks_diff, self.ticks_add)

    def set_motor(self, duty: int) -> None:
        self.mechanism.set_duty(max(0, min(100, duty)) / 100.0)
        if not self.motor_history or self.motor_history[-1][1] != duty:
            self.motor_history.append((self.now_ms, duty))

    def beam_blocked(self) -> bool:
        return self.beam_stuck or self.mechanism.beam_blocked

    def write(self, frame: bytes) -> None:
        """Send a frame through the Pico's bounded-write policy (``logic.WriteGate``)."""
        started = self.now_ms
        if not self._gate.open(started):
            return  # dropped, as the Pico drops it
        self._write(frame)  # may advance now_ms: a host that does not read blocks the write
        self._gate.wrote(started, self.now_ms)

    def button_pressed(self) -> bool:
        return self.button_down

    def arm_watchdog(self) -> None:
        self.watchdog = True

    def watchdog_armed(self) -> bool:
        return self.watchdog

    def load_profile(self) -> str | None:
        return self.flash.get(PROFILE_FILE)

    def save_profile(self, text: str) -> None:
        self.flash[PROFILE_FILE] = text

    def random32(self) -> int:
        return self._rng.getrandbits(32)

    def reset_cause(self) -> str:
        return self._reset_cause

    @staticmethod
    def ticks_diff(a: int, b: int) -> int:
        return a - b

    @staticmethod
    def ticks_add(a: int, b: int) -> int:
        return a + b


class EmulatedBoard:
    """A Pico running the real firmware logic, wired to a mechanism; driven in model time.

    ``output`` receives every frame the firmware sends. The board starts powered off;
    :meth:`power_on` boots it. Times are model milliseconds since the board was made.
    """

    def __init__(
        self,
        mechanism: Mechanism,
        *,
        output: Callable[[bytes], None],
        seed: int | None = None,
        profile: str | None = None,
    ) -> None:
        self.mechanism = mechanism
        self.flash: dict[str, str] = {}
        if profile:
            self.flash[PROFILE_FILE] = profile
        self.firmware: logic.Firmware | None = None
        self.hal: EmulatedHal | None = None
        #: Motor changes over every boot: (model ms, duty percent).
        self.motor_history: list[tuple[int, int]] = []
        #: Every job the firmware started: (boot id, job id); job 0 = standalone.
        self.jobs_started: list[tuple[str, int]] = []
        self.boots: list[str] = []
        self._output = output
        self._rng = random.Random(seed)
        self._stuck_until: float | None = None
        self._now = 0.0
        #: False: the host keeps the port open but stops reading, so every write the
        #: firmware makes blocks for WRITE_BLOCK_MS while the mechanism moves on.
        self.host_reading = True
        #: The longest model time one loop pass (one firmware entry: a line, a timer
        #: step, a beam edge with the edges held behind it) spent blocked in writes. The
        #: Pico's 2 s watchdog resets the board if a pass reaches ``WATCHDOG_MS``.
        self.longest_blocked_pass_ms = 0.0
        self._blocked_this_pass = 0.0
        self._pass_depth = 0
        self._held: list[tuple[float, bool]] = []  # beam edges that happened during a block
        self._button_down = False  # the button's level: kept across reboots, as a finger is
        self._release_at: float | None = None  # when press_button's finger lets go

    # -- power --------------------------------------------------------------------------
    @property
    def now_ms(self) -> float:
        return self._now

    @property
    def powered(self) -> bool:
        return self.firmware is not None

    def power_on(self, reset_cause: str = "power") -> str:
        """Boot a fresh firmware (motor pins low first, then BOOT); returns the boot id."""
        self.power_off()
        hal = EmulatedHal(
            self.mechanism,
            rng=self._rng,
            flash=self.flash,
            write=self._write,
            reset_cause=reset_cause,
        )
        hal.now_ms = self._ticks()
        hal.beam_stuck = self._stuck_until is not None
        hal.button_down = self._button_down
        hal.motor_history = self.motor_history
        self.hal, self.firmware = hal, logic.Firmware(hal)
        self.firmware.boot(hal.now_ms)
        self.boots.append(self.firmware.boot_id)
        return self.firmware.boot_id

    def power_off(self) -> None:
        """Power lost: the motor stops with it and the firmware's state is gone."""
        if self.hal is not None:
            self.hal.now_ms = self._ticks()
            self.hal.set_motor(0)
        self.mechanism.set_duty(0.0)
        self.firmware, self.hal = None, None

    def _write(self, frame: bytes) -> None:
        """The firmware writes a frame; with a host that does not read, the write blocks."""
        self._output(frame)
        if self.host_reading:
            return
        # The firmware is stuck in this write for WRITE_BLOCK_MS: the motor keeps its duty,
        # the mechanism moves on, and the beam edges wait (as a Pico's pin IRQ flags would).
        until = self._now + WRITE_BLOCK_MS
        self._blocked_this_pass += WRITE_BLOCK_MS
        self._held.extend(self.mechanism.advance_to(until / 1000.0))
        self._now = until
        if self.hal is not None:
            self.hal.now_ms = self._ticks()

    def _deliver_held(self) -> None:
        """Beam edges that happened while the firmware was blocked in a write, in order.

        Each keeps the time it happened, as the Pico's pin IRQ queues it (``hal_rp2``).
        """
        while self._held and self.firmware is not None:
            when_s, blocked = self._held.pop(0)
            if self._stuck_until is None:
                self._beam(blocked, math.floor(when_s * 1000.0))
        self._held.clear()

    # -- inputs -------------------------------------------------------------------------
    @contextmanager
    def _loop_pass(self) -> Iterator[None]:
        """One pass of the Pico's loop (nested calls are the same pass): times its writes."""
        if self._pass_depth == 0:
            self._blocked_this_pass = 0.0
        self._pass_depth += 1
        try:
            yield
        finally:
            self._pass_depth -= 1
            self.longest_blocked_pass_ms = max(
                self.longest_blocked_pass_ms, self._blocked_this_pass
            )

    def receive(self, line: bytes) -> None:
        """One line from the host reaches the firmware (at the current model time)."""
        with self._loop_pass():
            self._receive(line)

    def _receive(self, line: bytes) -> None:
        fw = self._ready()
        if fw is not None:
            starts = fw.job_starts
            fw.on_line(line, self._ticks())
            self._note_job(fw, starts)
            self._deliver_held()

    def press_button(self, hold_ms: float = 100.0) -> None:
        """Someone presses the Pico's own button and lets go ``hold_ms`` later (model time).

        The firmware debounces levels (``logic.BUTTON_DEBOUNCE_MS``): the press fires once
        the button has been down that long, as :meth:`advance_to` moves time on.
        """
        self.set_button(True)
        self._release_at = self._now + hold_ms

    def set_button(self, pressed: bool) -> None:
        """The button's level changes now (a bounce is a few quick calls)."""
        self._button_down = pressed
        if not pressed:
            self._release_at = None
        fw = self._ready()
        if fw is not None and self.hal is not None:
            self.hal.button_down = pressed
            starts = fw.job_starts
            fw.on_button(pressed, self._ticks())
            self._note_job(fw, starts)
            self._deliver_held()

    def stick_beam(self, duration_ms: float) -> None:
        """The beam sensor reads blocked for ``duration_ms`` whatever the mechanism does."""
        self._stuck_until = self._now + duration_ms
        self._set_stuck(True)

    def sync_beam(self) -> None:
        """Tell the firmware about a beam change made outside model time (a jam cleared by hand)."""
        if self.hal is not None and self.firmware is not None:
            blocked = self.hal.beam_blocked()
            if blocked != self.firmware.blocked:
                self._beam(blocked)

    def _ready(self) -> logic.Firmware | None:
        if self.hal is not None:
            self.hal.now_ms = self._ticks()
        return self.firmware

    def _note_job(self, fw: logic.Firmware, starts_before: int) -> None:
        if fw.job_starts != starts_before and fw.job is not None:
            self.jobs_started.append((fw.boot_id, fw.job.id))

    # -- time ---------------------------------------------------------------------------
    def _ticks(self) -> int:
        return math.floor(self._now)

    def next_event_ms(self) -> float | None:
        """When something next happens on the board (a beam edge, a firmware timer, ...)."""
        candidates = []
        transition = self.mechanism.next_transition_s()
        if transition is not None:
            candidates.append(transition * 1000.0)
        if self.firmware is not None:
            deadline = self.firmware.next_deadline()
            if deadline is not None:
                candidates.append(float(deadline))
        if self._stuck_until is not None:
            candidates.append(self._stuck_until)
        if self._release_at is not None:
            candidates.append(self._release_at)
        return min(candidates) if candidates else None

    def advance_to(self, t_ms: float) -> None:
        """Move model time to ``t_ms``, delivering every beam edge and timer on the way."""
        while self._now < t_ms:
            upcoming = self.next_event_ms()
            if upcoming is None or upcoming >= t_ms:
                self._step_to(t_ms)
            elif upcoming > self._now:
                self._step_to(upcoming)
            else:  # defensive: never spin on an event that does not move
                self._step_to(min(t_ms, self._now + 1.0))

    def _step_to(self, step: float) -> None:
        with self._loop_pass():
            self._step(step)

    def _step(self, step: float) -> None:
        for when_s, blocked in self.mechanism.advance_to(step / 1000.0):
            self._now = max(self._now, when_s * 1000.0)
            if self._stuck_until is None:
                self._beam(blocked)
        self._now = max(self._now, step)
        if self._stuck_until is not None and self._now >= self._stuck_until:
            self._stuck_until = None
            self._set_stuck(False)
        fw = self._ready()
        if fw is not None:
            starts = fw.job_starts
            fw.tick(self._ticks())
            self._note_job(fw, starts)
            self._deliver_held()
        if self._release_at is not None and self._now >= self._release_at:
            self.set_button(False)

    def _beam(self, blocked: bool, at_ms: int | None = None) -> None:
        fw = self._ready()
        if fw is not None and blocked != fw.blocked:
            starts = fw.job_starts
            fw.on_beam(blocked, self._ticks() if at_ms is None else at_ms)
            self._note_job(fw, starts)
            self._deliver_held()

    def _set_stuck(self, stuck: bool) -> None:
        if self.hal is not None:
            self.hal.beam_stuck = stuck
        self._beam(stuck or self.mechanism.beam_blocked)

    # -- what a test wants to know --------------------------------------------------------
    def motor_on_spans(self) -> list[tuple[int, int]]:
        """Every interval the motor ran, as (on ms, off ms); a run still going ends now."""
        spans, started = [], None
        for when, duty in self.motor_history:
            if duty > 0 and started is None:
                started = when
            elif duty == 0 and started is not None:
                spans.append((started, when))
                started = None
        if started is not None:
            spans.append((started, self._ticks()))
        return spans
