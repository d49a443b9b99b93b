"""Standalone table mode: the launcher of a physical game, one press of its button at a time.

:func:`serve` is the loop behind ``uno-attack launcher serve``. Presses come from the
GPIO button (:class:`ButtonPresses`) or, for any other backend, from lines on stdin
(:class:`LinePresses`: Enter fires, ``clear`` clears a fault, ``quit`` stops). Each press
fires per the launcher's profile and is appended to a calibration session file (JSON
Lines, see docs/profiles.md), so a table evening doubles as a measurement. A fault
(jam) is announced by the buzzer, the log and a message; the loop then waits for a
clear: a long press of the button (``hold_clear_ms``), ``clear`` on stdin, SIGUSR1
(``uno-attack launcher clear --pid-file``). It never fires by itself after a fault.

A running server publishes what it is doing in a small JSON *state file* (next to its pid
file: ``serve.pid`` -> ``serve.json``): its latched fault, its counters and the motor
settings in force, so ``uno-attack launcher status`` can report a gpio:// server's fault
without opening the pins a second time. Under systemd (``Type=notify``) it says READY once
serving and pings the watchdog from this loop and from the driver's job loop
(:mod:`hardware.sd_notify`).

Everything is testable on the mock rig: the loop waits on the launcher's clock (a
virtual one with ``gpio://?mock=1``), and stops after ``max_presses`` presses, when
``stop`` is set, or after ``idle_s`` seconds without a press.
"""

from __future__ import annotations

import json
import os
import queue
import threading
from abc import ABC, abstractmethod
from collections import deque
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from hardware.clock import Clock, MonotonicClock
from hardware.errors import LauncherFault
from hardware.files import atomic_write_text
from hardware.sd_notify import Notifier
from launcher.base import Capability, Launcher
from launcher.gpio import GpioLauncher

if TYPE_CHECKING:
    from launcher.calibration.session import SessionWriter

#: Said after a press of a simulated launcher whose hopper was empty (not a jam, not a miss).
EMPTY_NOTE = " -- the hopper is empty: load cards (--cards N)"


def simulated_and_empty(launcher: Launcher[Any]) -> bool:
    """A simulated hopper (sim://, a mock rig, emu://, pico-sim://) with no card in it."""
    if launcher.remaining:
        return False
    if launcher.backend == "sim":
        return True
    emulated = getattr(launcher, "physical_hopper", None)  # emu://, pico-sim://
    if emulated is not None:
        return bool(emulated == 0)
    rig = getattr(launcher, "rig", None)
    return rig is not None and rig.mechanism.hopper == 0


@dataclass
class ServeStats:
    presses: int = 0
    cards: int = 0
    faults: int = 0
    clears: int = 0


#: The motor settings ``launcher status`` shows (those a person tunes or a safety depends on).
MOTOR_SETTINGS = (
    "ms_per_card",
    "duty",
    "jam_ms",
    "blocked_ms",
    "max_run_ms",
    "brake_ms",
    "enable",
    "enable_hold_ms",
)


def motor_settings(launcher: Launcher[Any]) -> dict[str, Any]:
    """The motor settings in force on a GPIO launcher (empty for other backends)."""
    if not isinstance(launcher, GpioLauncher):
        return {}
    pinmap = launcher.driver.pinmap
    settings = {key: getattr(pinmap, key) for key in MOTOR_SETTINGS}
    settings["closed_loop"] = pinmap.uses_closed_loop
    return settings


def state_file_for(pid_file: Path) -> Path:
    """Where the server holding ``pid_file`` publishes its state (serve.pid -> serve.json)."""
    return pid_file.with_suffix(".json")


class StateFile:
    """The JSON a running server rewrites after every action (atomically), removed at exit."""

    def __init__(self, path: Path, launcher: Launcher[Any]) -> None:
        self.path = path
        self.launcher = launcher

    def write(self, stats: ServeStats) -> None:
        fault = self.launcher.fault
        data = {
            "uno_attack_serve": 1,
            "pid": os.getpid(),
            "launcher": repr(self.launcher),
            "backend": self.launcher.backend,
            "fault": fault.fault if fault is not None else None,
            "fault_message": str(fault) if fault is not None else None,
            "stats": asdict(stats),
            "settings": motor_settings(self.launcher),
            "updated": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        atomic_write_text(self.path, json.dumps(data, indent=2) + "\n")

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)


class PressSource(ABC):
    """Where presses come from. ``next()`` returns 'press', 'clear', 'quit' or None (timed out)."""

    @abstractmethod
    def next(self, timeout: float, *, faulted: bool) -> str | None: ...

    @abstractmethod
    def request(self, what: str) -> None:
        """From a signal handler or another thread: 'clear' or 'quit'; must never block."""

    def wake(self) -> None:  # noqa: B027 - optional hook, nothing to do by default
        """Make a pending ``next()`` return early (a signal asked for a clear or a stop)."""

    def settled(self) -> None:  # noqa: B027 - optional hook, nothing to do by default
        """The launcher finished an action; a source may drop input queued meanwhile."""


class ButtonPresses(PressSource):
    """The launcher's GPIO button: a press fires; while faulted, a long hold clears.

    The driver debounces the contact and applies a lockout (one bouncy press is one
    press); :meth:`settled` drops whatever was pressed while the launcher was busy
    firing or clearing, so nothing is replayed afterwards, and the release of a hold
    that cleared a fault is never a press.
    """

    def __init__(self, driver: Any) -> None:
        self.driver = driver
        self.clock: Clock = driver.clock
        self.hold_clear_s = driver.pinmap.hold_clear_ms / 1000.0
        #: Requests from signal handlers or other threads; a deque because its append and
        #: popleft are atomic, and a signal handler must never wait for a lock.
        self.requests: deque[str] = deque()
        self._armed = False  # a press began while faulted; its release decides: clear or refuse

    def request(self, what: str) -> None:
        """From a signal handler or another thread: 'clear' or 'quit'."""
        self.requests.append(what)
        self.driver.button_changed.set()

    def wake(self) -> None:
        self.driver.button_changed.set()

    def next(self, timeout: float, *, faulted: bool) -> str | None:
        deadline = self.clock.now() + timeout
        while True:
            found = self._pending(faulted)
            if found is not None:
                return found
            remaining = deadline - self.clock.now()
            if remaining <= 0:
                return None
            self.driver.button_changed.clear()
            if not self.driver.button_events and not self.requests:
                due = self.driver.inputs_due()  # a bouncing contact settles then
                wait = (
                    remaining if due is None else max(0.0, min(remaining, due - self.clock.now()))
                )
                self.clock.wait(self.driver.button_changed, wait)

    def settled(self) -> None:
        """The launcher finished firing or clearing: forget presses made meanwhile."""
        self.driver.drop_button_events()
        self._armed = False

    def _pending(self, faulted: bool) -> str | None:
        if self.requests:
            return self.requests.popleft()
        self.driver.poll_inputs()
        events = self.driver.button_events
        while events:
            kind, held = events.popleft()
            if not faulted:
                self._armed = False
                if kind == "press":
                    return "press"
            elif kind == "press":
                self._armed = True  # faulted: wait for the release to know how long it was held
            elif self._armed:
                self._armed = False
                return "clear" if held >= self.hold_clear_s else "press"
        return None


class LinePresses(PressSource):
    """Lines from a text stream (stdin): empty line = press, 'clear', 'quit'; EOF quits.

    A daemon thread reads the lines into a :class:`queue.SimpleQueue`, whose ``put`` is
    safe in a signal handler, so SIGUSR1 (``launcher clear --pid-file``) reaches a server
    waiting for a line at once instead of killing it.
    """

    def __init__(self, stream: TextIO) -> None:
        self._actions: queue.SimpleQueue[str] = queue.SimpleQueue()
        self._reader = threading.Thread(
            target=self._read, args=(stream,), name="uno-attack-stdin", daemon=True
        )
        self._reader.start()

    def _read(self, stream: TextIO) -> None:
        try:
            for line in stream:
                self._actions.put(_line_action(line))
        except (OSError, ValueError):  # stdin closed or unreadable (e.g. under a test runner)
            pass
        self._actions.put("quit")

    def request(self, what: str) -> None:
        self._actions.put(what)

    def next(self, timeout: float, *, faulted: bool) -> str | None:
        try:
            return self._actions.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return None


def _line_action(line: str) -> str:
    word = line.strip().lower()
    if word in ("c", "clear"):
        return "clear"
    if word in ("q", "quit", "exit"):
        return "quit"
    return "press"


def serve(
    launcher: Launcher[Any],
    source: PressSource,
    writer: SessionWriter | None,
    *,
    out: TextIO,
    stop: threading.Event | None = None,
    max_presses: int | None = None,
    idle_s: float | None = None,
    poll_s: float = 1.0,
    notifier: Notifier | None = None,
    state: StateFile | None = None,
) -> ServeStats:
    """Fire on every press until stopped; returns what happened.

    ``notifier`` (systemd): READY at the start, the watchdog pinged on every pass (at
    least every ``poll_s``) and from inside every job; ``state``: rewritten after each action.
    """
    stats = ServeStats()
    clock: Clock = launcher.driver.clock if isinstance(launcher, GpioLauncher) else MonotonicClock()
    notifier = notifier or Notifier({})
    if isinstance(launcher, GpioLauncher):
        launcher.driver.on_heartbeat = notifier.watchdog  # a long job pings from its own loop
    if state is not None:
        state.write(stats)
    notifier.ready(f"serving {launcher.backend}")
    try:
        _serve_loop(
            launcher,
            source,
            writer,
            out,
            stats,
            clock,
            stop,
            max_presses,
            idle_s,
            poll_s,
            notifier,
            state,
        )
    finally:
        notifier.stopping()
        if isinstance(launcher, GpioLauncher):
            launcher.driver.on_heartbeat = None
    return stats


def _serve_loop(
    launcher: Launcher[Any],
    source: PressSource,
    writer: SessionWriter | None,
    out: TextIO,
    stats: ServeStats,
    clock: Clock,
    stop: threading.Event | None,
    max_presses: int | None,
    idle_s: float | None,
    poll_s: float,
    notifier: Notifier,
    state: StateFile | None,
) -> None:
    idle_since = clock.now()
    stop = stop or threading.Event()
    while not stop.is_set() and (max_presses is None or stats.presses < max_presses):
        notifier.watchdog()
        if idle_s is not None and clock.now() - idle_since >= idle_s:
            break
        faulted = _fault_of(launcher) is not None
        action = source.next(poll_s if idle_s is None else min(poll_s, idle_s), faulted=faulted)
        if action is None:
            continue
        idle_since = clock.now()
        if action == "quit":
            break
        _act(action, launcher, writer, out, stats, faulted=faulted)
        source.settled()  # presses made while it fired or cleared are not replayed
        if state is not None:
            state.write(stats)


def _act(
    action: str,
    launcher: Launcher[Any],
    writer: SessionWriter | None,
    out: TextIO,
    stats: ServeStats,
    *,
    faulted: bool,
) -> None:
    """One press (or clear request) at the table."""
    if action == "clear":
        _clear(launcher, writer, out, stats)
    elif faulted:
        print(
            "launcher fault still latched: hold the button or run `uno-attack launcher clear`",
            file=out,
        )
        _signal(launcher, "JAM_ALARM")
    else:
        _fire(launcher, writer, out, stats)


def _fault_of(launcher: Launcher[Any]) -> LauncherFault | None:
    return launcher.fault


def _signal(launcher: Launcher[Any], pattern_name: str) -> None:
    if isinstance(launcher, GpioLauncher):
        from hardware import gpio_driver

        launcher.driver.signal(getattr(gpio_driver, pattern_name))


def _fire(
    launcher: Launcher[Any], writer: SessionWriter | None, out: TextIO, stats: ServeStats
) -> None:
    loaded = launcher.remaining
    empty = simulated_and_empty(launcher)
    stats.presses += 1
    try:
        volley = launcher.hit()
    except LauncherFault as error:
        stats.faults += 1
        counted = int(error.counted)
        stats.cards += counted
        _log_press(writer, stats.presses, counted, loaded, error.motor_ms)
        _log_event(
            writer,
            {"type": "fault", "n": stats.presses, "fault": error.fault, "message": str(error)},
        )
        print(
            f"press {stats.presses}: {counted} card(s), then FAULT {error.fault}: {error}", file=out
        )
        print(f"  {error.hint}; then hold the button to clear", file=out)
        return
    stats.cards += volley.counted
    _log_press(writer, stats.presses, volley.counted, loaded, volley.meta.get("motor_ms"))
    note = EMPTY_NOTE if empty and not volley.counted else ""
    print(f"press {stats.presses}: {volley.counted} card(s){note}", file=out)


def _clear(
    launcher: Launcher[Any], writer: SessionWriter | None, out: TextIO, stats: ServeStats
) -> None:
    cleared = launcher.supports(Capability.CLEAR_FAULT) and launcher.clear_fault()
    if cleared:
        stats.clears += 1
        _log_event(writer, {"type": "clear", "n": stats.presses})
        _signal(launcher, "READY_BEEP")
    print("fault cleared; ready" if cleared else "nothing to clear; ready", file=out)


def _log_press(
    writer: SessionWriter | None, n: int, count: int, loaded: int, motor_ms: Any
) -> None:
    if writer is not None:
        from launcher.calibration.session import Press

        ms = float(motor_ms) if motor_ms is not None else None
        writer.append(Press(n=n, count=count, loaded=loaded, since_reload=n, motor_ms=ms))


def _log_event(writer: SessionWriter | None, record: dict[str, Any]) -> None:
    """Non-press lines (faults, clears); session readers skip types they do not know."""
    if writer is not None:
        writer._write(record)  # noqa: SLF001 - the session format allows extra record types
