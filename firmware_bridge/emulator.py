"""The launcher firmware on a pseudo-terminal: a Pico you can open with ``serial.Serial``.

:class:`Emulator` runs the real firmware logic (``firmware/logic.py``) on an
:class:`~firmware_bridge.emulated_hal.EmulatedBoard` in a background thread and serves it
on the master side of an ``os.openpty()`` pair; the host opens the slave path like a USB
serial device. Firmware timers and the mechanism run on real monotonic time (the host's
retry timers are real time too), but every beam edge and timer is delivered at its exact
model millisecond, so a late thread never lets the motor run long.

Between the board and the pty sits a :class:`~firmware_bridge.faults.FaultPlan`:
dropped, corrupted, duplicated and delayed frames or bytes in either direction, and a
schedule of silences, unplugs, reboots, jams and stuck beams.

Unplug and replug (:meth:`Emulator.unplug`, :meth:`Emulator.replug`): unplugging closes
the pty master, which the host sees exactly as a USB unplug (``SerialException``). By
default the Pico is bus-powered, so it loses power with the cable: motor off, state gone;
``replug`` powers it up again (``reset=power``, a new boot id). With ``powered=True`` the
firmware keeps running unplugged (host silence stops a job). A replug makes a **new**
pty, so the slave path changes; give ``link=PATH`` to get a stable symlink that follows
it, as ``/dev/serial/by-id/...`` does on a real machine.

    >>> from firmware_bridge.emulator import Emulator
    >>> with Emulator(seed=1) as emu:            # doctest: +SKIP
    ...     port = emu.start()                    # '/dev/pts/7'
    ...     serial.Serial(port, 115200, timeout=1)
"""

from __future__ import annotations

import fcntl
import heapq
import itertools
import os
import select
import termios
import threading
import time
import tty
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from firmware_bridge import protocol
from firmware_bridge.emulated_hal import EmulatedBoard
from firmware_bridge.faults import FaultPlan, LinkFaulter, Scheduled, faulters
from hardware.errors import LauncherError
from hardware.mechanism import Mechanism, MechanismParams

#: The longest the emulator thread sleeps when nothing is due (seconds).
IDLE_WAIT_S = 0.05
#: Model time given to cards still in the mouth when the emulator stops (seconds).
LANDING_S = 1.0
#: A host silent this long may be dead (kill -9): the emulator clears the pty's TIOCEXCL,
#: which the kernel does for a real USB tty on its last close but not for a pty we hold.
EXCLUSIVE_RELEASE_MS = 2000.0


class Emulator:
    """The Pico + launcher, emulated, on a pty. Thread-safe; a context manager."""

    def __init__(
        self,
        *,
        seed: int | None = 0,
        profile: str | None = None,
        faults: FaultPlan | str | None = None,
        mechanism: MechanismParams | None = None,
        cards: int = 90,
        link: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        plan = FaultPlan.parse(faults) if isinstance(faults, str) else (faults or FaultPlan())
        self.plan = plan if plan.seed is not None or seed is None else plan.with_seed(seed)
        self.link = link
        self.mechanism = Mechanism(mechanism, seed=seed, cards=cards)
        self.board = EmulatedBoard(
            self.mechanism, output=self._from_firmware, seed=seed, profile=profile
        )
        self._to_host, self._to_mcu = faulters(self.plan)
        self._clock = clock
        self._t0 = clock()
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._schedule = sorted(self.plan.schedule, key=lambda s: s.at_ms)
        self._queue: list[tuple[float, int, str, bytes]] = []  # (due ms, order, direction, data)
        self._order = itertools.count()
        self._rx_partial = b""
        self._mcu_lines = protocol.LineBuffer()
        self._silent_until = -1.0
        self._in_order_until: dict[str, float] = {}
        self.error: BaseException | None = None  # what crashed the emulator thread, if anything
        self._restore: list[tuple[float, str]] = []  # (when ms or -1 = on next catch, what)
        self._master: int | None = None
        self._slave: int | None = None
        self._wake_r, self._wake_w = os.pipe()
        self._thread: threading.Thread | None = None
        self._stopping = False
        self.port: str | None = None
        self.stats = {"written": 0, "write_dropped": 0, "read": 0}
        self._last_read_ms = 0.0

    # -- lifecycle -----------------------------------------------------------------------
    def start(self) -> str:
        """Power the board, open the pty, start the thread; returns the slave path to open."""
        with self._lock:
            if self._thread is not None:
                raise LauncherError(f"{self!r} is already started")
            self._t0 = self._clock()
            port = self._open_pty()
            self.board.power_on("power")
            self._thread = threading.Thread(target=self._run, name="uno-attack-emu", daemon=True)
            self._thread.start()
            return port

    def stop(self) -> None:
        """Motor off, thread stopped, pty closed, link removed. Safe to call twice."""
        with self._lock:
            if not self._stopping and self._thread is not None:
                self._catch_up(self.now_ms())  # let cards already in the mouth land
            self._stopping = True
            self.board.power_off()
            self.mechanism.advance(LANDING_S)  # motor off: cards already in the mouth land
            self._wake()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        with self._lock:
            self._close_pty()
            if self.link and os.path.islink(self.link):
                os.unlink(self.link)
        for fd in (self._wake_r, self._wake_w):
            try:
                os.close(fd)
            except OSError:
                pass
        self._wake_r = self._wake_w = -1
        error, self.error = self.error, None
        if error is not None:
            raise LauncherError(f"the emulator thread crashed: {error!r}") from error

    def __enter__(self) -> Emulator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "unplugged" if self._master is None else self.port
        return f"<Emulator port={state} boots={len(self.board.boots)} ejected={self.cards_ejected}>"

    # -- what tests look at ------------------------------------------------------------------
    @property
    def motor_history(self) -> list[tuple[int, int]]:
        """Every motor change over all boots: (model ms, duty percent)."""
        with self._lock:
            return list(self.board.motor_history)

    def motor_on_spans(self) -> list[tuple[int, int]]:
        with self._lock:
            return self.board.motor_on_spans()

    @property
    def cards_ejected(self) -> int:
        with self._lock:
            return self.mechanism.ejected

    @property
    def jobs_executed(self) -> list[tuple[str, int]]:
        """Every job the firmware started, as (boot id, job id): the exactly-once proof."""
        with self._lock:
            return list(self.board.jobs_started)

    @property
    def boot_id(self) -> str | None:
        with self._lock:
            fw = self.board.firmware
            return fw.boot_id if fw is not None else None

    def fault_counts(self) -> dict[str, dict[str, int]]:
        return {"to_host": dict(self._to_host.counts), "to_mcu": dict(self._to_mcu.counts)}

    def now_ms(self) -> float:
        return (self._clock() - self._t0) * 1000.0

    def wait_until(self, predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
        """Wait (on a condition, never by sleeping) until ``predicate()`` holds; False on timeout.

        The predicate runs with the emulator's lock held, after each step of its thread.
        """
        with self._changed:
            return self._changed.wait_for(predicate, timeout)

    # -- things a person (or a test) does ---------------------------------------------------
    def _act(self, action: Callable[[], Any]) -> Any:
        with self._lock:
            self._catch_up(self.now_ms())
            result = action()
            self.board.sync_beam()
            self._flush(self.now_ms())
            self._wake()
            self._changed.notify_all()
            return result

    def load(self, cards: int) -> None:
        """Put ``cards`` more cards in the hopper."""
        self._act(lambda: self.mechanism.load(cards))

    def press_button(self) -> None:
        """Press the Pico's own button (standalone mode)."""
        self._act(self.board.press_button)

    def clear_jam(self) -> None:
        """A person pulls the stuck card out of the mouth."""
        self._act(self._clear_jam)

    def _clear_jam(self) -> None:
        # The beam clears with the card: the firmware must see that edge, as on a Pico's IRQ.
        self.mechanism.clear_jam()
        hal = self.board.hal
        self.board._beam(self.mechanism.beam_blocked or (hal is not None and hal.beam_stuck))

    def reboot(self, cause: str = "soft") -> str:
        """Restart the firmware (new boot id, motor off, BOOT event); returns the new boot id."""
        return str(self._act(lambda: self._reboot(cause)))

    def unplug(self, *, powered: bool = False) -> None:
        """Pull the USB cable: the host sees SerialException. Bus-powered unless ``powered``."""
        self._act(lambda: self._unplug(powered))

    def replug(self) -> str:
        """Plug the cable back in: a new pty (and ``link`` re-pointed); returns its path."""
        return str(self._act(self._replug))

    def silence(self, duration_ms: float) -> None:
        """Nothing crosses the link either way for ``duration_ms``."""
        self._act(lambda: self._silence(duration_ms))

    def jam(self) -> None:
        """The next card fed catches in the mouth (beam stays blocked until clear_jam)."""
        self._act(self._jam)

    def slip(self, duration_ms: float) -> None:
        """The roller slips for ``duration_ms``: no card comes out (the firmware sees a jam)."""
        self._act(lambda: self._slip(duration_ms))

    def stick_beam(self, duration_ms: float) -> None:
        """The beam sensor reads blocked for ``duration_ms``."""
        self._act(lambda: self.board.stick_beam(duration_ms))

    @property
    def scheduled(self) -> int:
        """Fault-plan events :meth:`schedule` queued that have not run yet (a soak waits for 0)."""
        with self._lock:
            return len(self._schedule)

    def schedule(self, action: str, after_ms: float, duration_ms: float = 0.0) -> None:
        """A fault-plan event (``reboot``, ``jam``, ``silence``...) ``after_ms`` from now.

        Soaks use it to count their events in jobs, not in wall-clock time: a loaded machine
        then runs the same number of restarts, only slower.
        """
        with self._lock:
            event = Scheduled(action, self.now_ms() + after_ms, duration_ms)
            self._schedule.append(event)
            self._schedule.sort(key=lambda s: s.at_ms)
            self._wake()

    # -- actions, lock held --------------------------------------------------------------------
    def _reboot(self, cause: str) -> str:
        self._mcu_lines = protocol.LineBuffer()
        return self.board.power_on(cause)

    def _unplug(self, powered: bool) -> None:
        self._close_pty()
        if not powered:
            self.board.power_off()

    def _replug(self) -> str:
        if self._master is not None:
            return self.port or ""
        port = self._open_pty()
        if not self.board.powered:
            self._reboot("power")
        return port

    def _silence(self, duration_ms: float) -> None:
        self._silent_until = max(self._silent_until, self.board.now_ms + duration_ms)

    def _jam(self) -> None:
        self._set_param("catch_rate", 1.0)
        self._restore.append((-1.0, "catch_rate"))

    def _slip(self, duration_ms: float) -> None:
        self._set_param("slip_rate", 1.0)
        self._restore.append((self.board.now_ms + duration_ms, "slip_rate"))

    def _set_param(self, name: str, value: float) -> None:
        self._base_params = getattr(self, "_base_params", self.mechanism.params)
        changes: dict[str, Any] = {name: value}
        self.mechanism.params = replace(self.mechanism.params, **changes)

    def _restore_params(self) -> None:
        base = getattr(self, "_base_params", None)
        if base is None:
            return
        keep = []
        for when, name in self._restore:
            due = self.mechanism.jammed if when < 0 else self.board.now_ms >= when
            if due:
                self._set_param(name, getattr(base, name))
            else:
                keep.append((when, name))
        self._restore = keep

    def _run_scheduled(self, event: Scheduled) -> None:
        actions: dict[str, Callable[[], Any]] = {
            "silence": lambda: self._silence(event.duration_ms),
            "unplug": lambda: self._unplug(False),
            "replug": self._replug,
            "reboot": lambda: self._reboot("soft"),
            "jam": self._jam,
            "slip": lambda: self._slip(event.duration_ms),
            "stuck": lambda: self.board.stick_beam(event.duration_ms),
        }
        actions[event.action]()

    # -- the pty ------------------------------------------------------------------------------
    def _open_pty(self) -> str:
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        self.port = os.ttyname(slave)
        self._rx_partial = b""
        if self.link:
            temporary = f"{self.link}.{os.getpid()}.tmp"
            os.symlink(self.port, temporary)
            try:
                os.replace(temporary, self.link)
            except OSError:
                os.unlink(temporary)  # never leave the temporary link behind
                raise
        return self.port

    def _close_pty(self) -> None:
        for fd in (self._master, self._slave):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._master = self._slave = None

    def _wake(self) -> None:
        try:
            os.write(self._wake_w, b"!")
        except OSError:
            pass

    # -- the thread ---------------------------------------------------------------------------
    def _run(self) -> None:
        try:
            self._serve()
        except Exception as error:  # a bug: behave like a dead board, report it at stop()
            with self._lock:
                self.error = error
                self.board.power_off()
                self._close_pty()
                self._changed.notify_all()

    def _serve(self) -> None:
        while True:
            with self._lock:
                if self._stopping:
                    return
                master = self._master
                timeout = self._timeout()
            fds = [fd for fd in (master, self._wake_r) if fd is not None and fd >= 0]
            readable = self._wait(fds, timeout)
            with self._lock:
                if self._stopping:
                    return
                if self._wake_r in readable:
                    self._drain_wake()
                self._step(master if master in readable else None)
                self._changed.notify_all()

    @staticmethod
    def _wait(fds: list[int], timeout: float) -> list[int]:
        try:
            return select.select(fds, [], [], timeout)[0]
        except (OSError, ValueError):  # a fd closed under us by unplug/stop
            return []

    def _timeout(self) -> float:
        now = self.now_ms()
        upcoming = [self.board.next_event_ms(), self._next_due()]
        soonest = min((t for t in upcoming if t is not None), default=None)
        if soonest is None:
            return IDLE_WAIT_S
        return max(0.0, min(IDLE_WAIT_S, (soonest - now) / 1000.0))

    def _next_due(self) -> float | None:
        times = [self._queue[0][0]] if self._queue else []
        if self._schedule:
            times.append(self._schedule[0].at_ms)
        times.extend(when for when, _ in self._restore if when >= 0)
        return min(times) if times else None

    def _drain_wake(self) -> None:
        try:
            os.read(self._wake_r, 4096)
        except OSError:
            pass

    def _step(self, readable_master: int | None) -> None:
        now = self.now_ms()
        self._catch_up(now)
        if readable_master is not None and readable_master == self._master:
            self._read_host(readable_master, now)
            self._last_read_ms = now
            self._catch_up(now)
        self._flush(now)
        if self._slave is not None and now - self._last_read_ms >= EXCLUSIVE_RELEASE_MS:
            try:
                fcntl.ioctl(self._slave, termios.TIOCNXCL)
            except OSError:
                pass

    def _catch_up(self, now: float) -> None:
        """Advance the board to ``now``, handling every queued delivery and event in time order."""
        while True:
            due = self._next_due()
            if due is None or due > now:
                break
            self.board.advance_to(due)
            self._due_item(due)
        self.board.advance_to(now)
        self._restore_params()

    def _due_item(self, due: float) -> None:
        if self._schedule and self._schedule[0].at_ms <= due:
            self._run_scheduled(self._schedule.pop(0))
        elif self._queue and self._queue[0][0] <= due:
            _, _, direction, data = heapq.heappop(self._queue)
            self._deliver(direction, data)
        else:
            self._restore_params()

    # -- traffic --------------------------------------------------------------------------------
    def _read_host(self, master: int, now: float) -> None:
        try:
            data = os.read(master, 4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            return
        self.stats["read"] += len(data)
        if self.board.now_ms < self._silent_until:
            return
        buffer = self._rx_partial + data
        *frames, self._rx_partial = buffer.split(b"\n")
        for frame in frames:
            self._enqueue(self._to_mcu, "mcu", frame + b"\n", now)

    def _from_firmware(self, frame: bytes) -> None:
        """The firmware wrote a frame (called inside the board, lock held)."""
        if self._master is None or self.board.now_ms < self._silent_until:
            return
        self._enqueue(self._to_host, "host", frame, self.board.now_ms)

    def _enqueue(self, faulter: LinkFaulter, direction: str, frame: bytes, now: float) -> None:
        """Schedule a frame's deliveries; in-order pieces never overtake earlier held bytes."""
        for delay, data, in_order in faulter.frame(frame):
            due = now + delay
            if in_order:
                due = max(due, self._in_order_until.get(direction, due))
                self._in_order_until[direction] = due
            if due <= now and direction == "mcu":
                self._deliver(direction, data)
            else:
                heapq.heappush(self._queue, (due, next(self._order), direction, data))

    def _deliver(self, direction: str, data: bytes) -> None:
        if direction == "mcu":
            for line in self._mcu_lines.feed(data):
                self.board.receive(line)
        else:
            self._write_host(data)

    def _flush(self, now: float) -> None:
        while self._queue and self._queue[0][0] <= now:
            _, _, direction, data = heapq.heappop(self._queue)
            self._deliver(direction, data)

    def _write_host(self, data: bytes) -> None:
        if self._master is None:
            return
        try:
            written = os.write(self._master, data)
        except (BlockingIOError, OSError):
            written = 0
        self.stats["written"] += written
        if written < len(data):
            self.stats["write_dropped"] += 1  # nobody reading: USB CDC drops too
