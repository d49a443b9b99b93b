"""The gpiozero driver: motor, break-beam card counting, button, LED, buzzer, jam safety.

:class:`GpioDriver` owns the devices of one launcher (:class:`~hardware.pinmap.PinMap`)
and runs *jobs*: feed ``n`` cards closed loop (motor on until the beam counted
``n``), open loop (motor on for ``ms``), both bounded by the same safety rules:

* the motor is off when a job ends, whatever ends it (``try/finally``), including
  Ctrl-C and exceptions; SIGTERM and dying threads are covered by
  :mod:`hardware.safety`;
* no card within ``jam_ms`` while running (closed loop), the beam blocked for
  longer than ``blocked_ms``, or a run longer than ``max_run_ms`` stop the motor,
  **latch** a fault, beep, and raise :class:`~hardware.errors.LauncherJam`
  (or :class:`~hardware.errors.LauncherFault` for ``max_time``); every later job
  raises it again until :meth:`GpioDriver.clear_fault`. Nothing restarts by itself.

Cards are counted on the beam's *leading* edge (blocked), so the motor stops the
moment the last wanted card reaches the mouth; a card already in the mouth still
leaves. Inputs are believed only once steady (:mod:`hardware.inputs`): the beam
for ``glitch_ms`` (motor noise is not a card), the button for ``debounce_ms`` and
no closer than ``lockout_ms`` to the last press (a bouncy press fires once). Every
edge is dated by its own timestamp (gpiozero's ``active_time``, which lgpio fills
from the kernel's event), not by when the callback happened to run.

Beam and button callbacks arrive on gpiozero's thread on a Pi (lgpio) and
synchronously on the mock: all shared state is guarded by one lock and waits are
``Clock.wait`` on an Event, so the same code runs on a real or a virtual clock.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from hardware import safety
from hardware.clock import Clock, MonotonicClock
from hardware.errors import ConfigError, LauncherFault, LauncherJam
from hardware.inputs import SettleFilter
from hardware.pin_factory import make_motor
from hardware.pinmap import PinMap, check_beam_polarity

_EPS = 1e-9
#: An edge older than this when its callback runs is taken as a clock mismatch, not a delay.
MAX_EDGE_AGE_S = 1.0
#: How often the watchdog of an unsupervised motor (start_motor) looks at it, in real time.
WATCHDOG_PERIOD_S = 0.05
#: A job loop with a heartbeat hook (the systemd watchdog) passes at least this often (s).
HEARTBEAT_PERIOD_S = 1.0
#: Buzzer patterns as (on s, off s) pairs: the toy's ready beep, its ding, and the jam alarm.
READY_BEEP = ((0.15, 0.0),)
DING = ((0.04, 0.0),)
JAM_ALARM = ((0.3, 0.15), (0.3, 0.15), (0.3, 0.0))
#: LED patterns as (on s, off s) for gpiozero's ``LED.blink``: a quick flicker while the motor
#: runs (with ``sounds``), a slow blink while a fault is latched (always: it is a status light).
LED_PATTERNS = {"firing": (0.1, 0.1), "fault": (0.5, 0.5)}

_FAULT_TEXT = {
    "jam": "no card reached the beam within {jam_ms:.0f} ms while the motor ran "
    "(hopper empty, roller slipping, or a card stuck before the beam)",
    "beam_blocked": "the beam stayed blocked for more than {blocked_ms:.0f} ms "
    "(a card is stuck in the mouth)",
    "max_time": "the motor ran for the maximum of {max_run_ms:.0f} ms",
    "thread_died": "the thread that started the motor died while it was running",
    "sigterm": "the process was told to stop (SIGTERM) while the motor ran",
    "sighup": "the terminal hung up (SIGHUP) while the motor ran",
    "sigint": "Ctrl-C (SIGINT) while the motor ran",
}
#: Said when a job is refused because the mouth was blocked before the motor started.
BLOCKED_AT_START = (
    "launcher fault: the beam reads blocked before the motor started, so nothing was run "
    "(a card in the mouth, an unpowered IR emitter, or the wrong beam_active)"
)


@dataclass
class FeedResult:
    """What one job did: cards the beam counted, how long the motor ran, and why it stopped."""

    requested: int
    counted: int
    motor_ms: float
    stopped: str  # "count", "time", "nothing", or a fault code
    closed_loop: bool = True
    doubles: int = 0  # passages long enough to be two cards stuck together (double_ms)


@dataclass
class _Job:
    target: int | None  # cards to count (None: run for a time)
    started: float
    run_until: float | None = None
    counted: int = 0
    doubles: int = 0
    last_card: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


class GpioDriver:
    """The devices of one GPIO launcher and the jobs that run them.

    ``pin_factory`` is passed to every device (tests give gpiozero's
    ``MockFactory(pin_class=MockPWMPin)``; None means gpiozero's default, chosen
    by ``GPIOZERO_PIN_FACTORY``). ``clock`` defaults to real monotonic time.
    """

    def __init__(
        self, pinmap: PinMap, *, pin_factory: Any = None, clock: Clock | None = None
    ) -> None:
        self.pinmap = pinmap
        self.clock = clock or MonotonicClock()
        self._lock = threading.RLock()
        self._changed = threading.Event()
        self._job: _Job | None = None
        self._owner: threading.Thread | None = None
        self._fault: LauncherFault | None = None
        self._blocked_since: float | None = None
        self._pressed_at: float | None = None
        self._stopped_at: float | None = None
        self._brake_until: float | None = None  # both inputs high (braking) until then
        self._enable_level = False
        self._settling: _Job | None = None  # the job whose last card is still in the mouth
        self.total_counted = 0
        #: How long each recent passage blocked the beam, in ms (to choose ``double_ms``).
        self.passages_ms: deque[float] = deque(maxlen=200)
        #: Debounced button events: ("press", 0.0) or ("release", seconds held).
        self.button_events: deque[tuple[str, float]] = deque()
        #: Set on every raw button edge and every debounced event (a wake-up, not a press).
        self.button_changed = threading.Event()
        self._beam_filter = SettleFilter(pinmap.glitch_ms / 1000.0, initial=False)
        self._button_filter = SettleFilter(pinmap.debounce_ms / 1000.0, initial=False)
        self._last_press: float | None = None
        self._press_locked = False  # the current press fell in the lockout: ignore its release
        self._edge_ages = False  # may edges be dated from gpiozero's ticks? (set with the pins)
        #: The LED's blink timings by pattern name (a copy of :data:`LED_PATTERNS` to tune).
        self.led_patterns = dict(LED_PATTERNS)
        #: Called on every pass of the job loop (``launcher serve``: the systemd watchdog).
        self.on_heartbeat: Callable[[], object] | None = None
        self._led_pattern = "off"
        self._devices: list[Any] = []
        try:
            self._open_devices(pin_factory)
        except Exception:
            self._close_devices()
            raise
        safety.register(self)
        safety.install_stop_handlers()  # on the main thread: SIGTERM/SIGHUP/SIGINT stop it
        safety.install_thread_death_hook()

    # -- devices ----------------------------------------------------------------------
    def _open_devices(self, pin_factory: Any) -> None:
        from gpiozero import LED, Button, Buzzer, DigitalInputDevice, Motor, PhaseEnableMotor

        p = self.pinmap
        check_beam_polarity(p, "pin map")
        motor_class = Motor if p.motor_kind == "dual" else PhaseEnableMotor
        self.motor = self._add(make_motor(motor_class, p, pin_factory))
        self.beam = None
        if p.beam is not None:
            pull_up = {"up": True, "down": False, "none": None}[p.beam_pull_resolved]
            active = None if pull_up is not None else p.beam_active == "high"
            self.beam = self._add(
                DigitalInputDevice(
                    p.beam, pull_up=pull_up, active_state=active, pin_factory=pin_factory
                )
            )
            self._beam_filter.reset(self.beam.is_active, self.clock.now())
            self.beam.when_activated = lambda: self._on_beam_edge(True)
            self.beam.when_deactivated = lambda: self._on_beam_edge(False)
        self.button = None
        if p.button is not None:
            # bounce_time: lgpio's own debounce on a Pi (ignored by the mock); ours runs anyway
            bounce = p.debounce_ms / 1000.0 or None
            self.button = self._add(Button(p.button, bounce_time=bounce, pin_factory=pin_factory))
            self._button_filter.reset(self.button.is_pressed, self.clock.now())
            self.button.when_pressed = lambda: self._on_button_edge(True)
            self.button.when_released = lambda: self._on_button_edge(False)
        self._edge_ages = isinstance(self.clock, MonotonicClock) or (
            getattr(self.motor.pin_factory, "clock", None) is self.clock
        )
        self.led = self._add(LED(p.led, pin_factory=pin_factory)) if p.led is not None else None
        self.buzzer = (
            self._add(Buzzer(p.buzzer, pin_factory=pin_factory)) if p.buzzer is not None else None
        )
        self.enable = None
        if p.enable is not None:
            from gpiozero import DigitalOutputDevice

            self.enable = self._add(
                DigitalOutputDevice(p.enable, initial_value=False, pin_factory=pin_factory)
            )

    def _add(self, device: Any) -> Any:
        self._devices.append(device)
        return device

    def close(self) -> None:
        """Motor off, then release every device. Idempotent."""
        safety.unregister(self)
        self._motor_off()
        self._close_devices()  # closing the LED stops any blink
        self._led_pattern = "off"

    def _close_devices(self) -> None:
        while self._devices:
            self._devices.pop().close()

    # -- the motor --------------------------------------------------------------------
    @property
    def motor_running(self) -> bool:
        motor = getattr(self, "motor", None)
        return bool(motor is not None and not motor.closed and motor.value != 0)

    def _motor_on(self) -> None:
        self._release_brake()
        self._owner = threading.current_thread()
        self.toggle_enable()  # the monostable powers the H-bridge from this edge on
        self.motor.forward(self.pinmap.duty if self.pinmap.pwm else 1)
        if self.pinmap.sounds:
            self._show("firing")

    def _motor_off(self, *, brake: bool = False) -> None:
        """Motor off: coast (both inputs low), or brake first when asked and ``brake_ms`` is set."""
        with self._lock:
            motor = getattr(self, "motor", None)
            if motor is not None and not motor.closed and motor.value != 0:
                if brake and self.pinmap.brake_ms > 0 and self.pinmap.motor_kind == "dual":
                    motor.forward_device.value = 1  # both high: the bridge shorts the motor
                    motor.backward_device.value = 1
                    self._brake_until = self.clock.now() + self.pinmap.brake_ms / 1000.0
                    self._kick_enable()  # a sleeping bridge would coast: keep it awake to brake
                else:
                    motor.stop()
                self._stopped_at = self.clock.now()
            if not brake:
                self._release_brake()
            if self._brake_until is None:
                self._set_enable(False)
            self._owner = None
            if self._led_pattern == "firing":
                self._show("off")  # a fault blink, if any, stays on until the fault is cleared

    def _release_brake(self) -> None:
        """Both inputs low again after braking (the H-bridge lets the stopped motor go)."""
        with self._lock:
            motor = getattr(self, "motor", None)
            if self._brake_until is not None and motor is not None and not motor.closed:
                motor.stop()
                self._set_enable(False)
            self._brake_until = None

    def _end_brake(self) -> None:
        """Wait out ``brake_ms`` after a braked stop, then release the brake."""
        until = self._brake_until
        if until is not None:
            self.clock.wait(threading.Event(), max(0.0, until - self.clock.now()))
            self._release_brake()

    @property
    def braking(self) -> bool:
        return self._brake_until is not None

    # -- the enable line ----------------------------------------------------------------
    def toggle_enable(self) -> None:
        """One edge on the enable line (called from the loop that supervises the motor).

        A retriggerable monostable on the line keeps nSLEEP/STBY high for
        ``enable_hold_ms`` after each rising edge; toggling at a quarter of that from the
        supervising loop, and from nowhere else, means the H-bridge sleeps whenever that
        loop stops running: process killed, frozen or hung.
        """
        self._set_enable(not self._enable_level)

    def _kick_enable(self) -> None:
        """A rising edge now: the monostable holds the bridge awake a full hold time from here."""
        self._set_enable(False)
        self._set_enable(True)

    def _set_enable(self, level: bool) -> None:
        enable = getattr(self, "enable", None)
        if enable is None or enable.closed or level == self._enable_level:
            return
        self._enable_level = level
        enable.value = level

    def _enable_period_s(self) -> float | None:
        """How often the supervising loop must toggle the enable line (None: none wired)."""
        if self.pinmap.enable is None:
            return None
        return self.pinmap.enable_hold_ms / 4000.0

    def start_motor(self) -> threading.Thread | None:
        """Bring-up only: motor on, no job supervising it; prefer :meth:`feed` / :meth:`run_for`.

        Still covered by the last-resort nets: SIGTERM, the death of this thread
        (:mod:`hardware.safety`, :meth:`check_owner`), :meth:`close`, and on a real
        clock a watchdog thread (returned, so it can be joined) that enforces
        ``max_run_ms`` and watches the owner thread.
        """
        self.check_fault()
        self._refuse_blocked_start()
        with self._lock:
            self._motor_on()
            started = self.clock.now()
        if not isinstance(self.clock, MonotonicClock):
            return None  # a virtual clock only moves when someone waits: nothing to watch
        watchdog = threading.Thread(target=self._watch, args=(started,), daemon=True)
        watchdog.start()
        return watchdog

    def _watch(self, started: float) -> None:
        """Real time only: stop an unsupervised motor whose thread died or that ran too long."""
        limit = started + self.pinmap.max_run_ms / 1000.0
        tick = threading.Event()
        period = min(WATCHDOG_PERIOD_S, self._enable_period_s() or WATCHDOG_PERIOD_S)
        while self.motor_running and not self.check_owner():
            if self.clock.now() >= limit:
                self.emergency_stop("max_time")
                return
            self.toggle_enable()
            self.clock.wait(tick, period)

    def stop_motor(self) -> None:
        self._motor_off()

    def emergency_stop(self, reason: str) -> None:
        """Motor off from any thread or a signal handler; latch a fault if it was running."""
        with self._lock:
            was_running = self.motor_running
            self._motor_off()
            if was_running:
                self._latch(reason)
            self._changed.set()

    def owned_by(self, thread: threading.Thread) -> bool:
        return self._owner is thread and self.motor_running

    def check_owner(self) -> bool:
        """Stop the motor if the thread that started it is gone; True if it had to."""
        owner = self._owner
        if owner is not None and not owner.is_alive() and self.motor_running:
            self.emergency_stop("thread_died")
            return True
        return False

    # -- faults -----------------------------------------------------------------------
    @property
    def fault(self) -> LauncherFault | None:
        return self._fault

    def _latch(self, code: str) -> LauncherFault:
        message = "launcher fault: " + _FAULT_TEXT.get(code, code).format(**vars(self.pinmap))
        error_class = LauncherJam if code in ("jam", "beam_blocked") else LauncherFault
        fault = error_class(message, fault=code)
        if self._fault is None:
            self._fault = fault
            self._show("fault")
        return self._fault

    def latch_fault(self, code: str) -> LauncherFault:
        """Latch a fault as if the motor had tripped (the acceptance check of hold-to-clear)."""
        with self._lock:
            self._motor_off()
            return self._latch(code)

    def check_fault(self) -> None:
        """Raise the latched fault, if any (nothing ran: ``counted`` is 0)."""
        if self._fault is not None:
            raise self._fault_error(self._fault, requested=0, counted=0, motor_ms=0.0)

    @staticmethod
    def _fault_error(
        fault: LauncherFault, *, requested: int, counted: int, motor_ms: float
    ) -> LauncherFault:
        """A fresh exception for the latched fault, carrying what this job did before it stopped."""
        error = type(fault)(str(fault), fault=fault.fault)
        error.requested = requested
        error.counted = counted
        error.motor_ms = motor_ms
        return error

    def clear_fault(self) -> bool:
        """A person fixed the launcher: allow jobs again (restarts nothing); True if one was set."""
        with self._lock:
            had = self._fault is not None
            self._fault = None
            if had:
                self._show("off")
            if self.beam is not None:
                now = self.clock.now()
                self._beam_filter.reset(self.beam.is_active, now)
                self._blocked_since = now if self.beam.is_active else None
            return had

    # -- callbacks (any thread) -------------------------------------------------------
    def _edge_time(self, device: Any, active: bool) -> float:
        """When the edge that fired this callback happened, on the driver's clock."""
        now = self.clock.now()
        if not self._edge_ages:
            return now
        age = device.active_time if active else device.inactive_time
        if age is None or not 0.0 <= age <= MAX_EDGE_AGE_S:
            return now  # a pin factory whose ticks are not on our clock: the best we know
        return now - age

    def _on_beam_edge(self, blocked: bool) -> None:
        with self._lock:
            when = self._edge_time(self.beam, blocked)
            for level, at in self._beam_filter.edge(blocked, when):
                self._apply_beam(level, at)
            self._poll_beam()
            self._changed.set()  # a waiting loop must look again: a change is pending

    def poll_inputs(self) -> None:
        """Act on input changes that have settled by now (called by every waiting loop)."""
        with self._lock:
            self._poll_beam()
            self._poll_button()

    def inputs_due(self) -> float | None:
        """When a pending input change will have settled (None: nothing pending)."""
        dues = [d for d in (self._beam_filter.due(), self._button_filter.due()) if d is not None]
        return min(dues) if dues else None

    def _poll_beam(self) -> None:
        for level, at in self._beam_filter.poll(self.clock.now()):
            self._apply_beam(level, at)

    def _apply_beam(self, blocked: bool, when: float) -> None:
        if blocked:
            self._on_beam_blocked(when)
        else:
            self._on_beam_clear(when)

    def _on_beam_blocked(self, when: float) -> None:
        with self._lock:
            self._blocked_since = when
            self.total_counted += 1
            job = self._job or self._settling  # a card that coasts out after the stop is the job's
            if job is not None:
                job.counted += 1
                job.last_card = when
                if job is self._job and job.target is not None and job.counted >= job.target:
                    self._motor_off(brake=True)  # stop at once: the card in the mouth still leaves
            self._changed.set()

    def _on_beam_clear(self, when: float) -> None:
        with self._lock:
            since, self._blocked_since = self._blocked_since, None
            if since is not None:
                blocked_ms = (when - since) * 1000.0
                self.passages_ms.append(round(blocked_ms, 3))
                double_ms = self.pinmap.double_ms
                if double_ms is not None and blocked_ms >= double_ms - _EPS:
                    self._count_double()
            self._changed.set()

    def _count_double(self) -> None:
        """The passage that just ended was two cards stuck together: count the second one."""
        self.total_counted += 1
        job = self._job or self._settling
        if job is not None:
            job.counted += 1
            job.doubles += 1

    def _on_button_edge(self, pressed: bool) -> None:
        with self._lock:
            when = self._edge_time(self.button, pressed)
            for level, at in self._button_filter.edge(pressed, when):
                self._apply_button(level, at)
            self._poll_button()
            self.button_changed.set()

    def _poll_button(self) -> None:
        for level, at in self._button_filter.poll(self.clock.now()):
            self._apply_button(level, at)

    def _apply_button(self, pressed: bool, when: float) -> None:
        """A debounced press or release; a press inside the lockout is ignored, with its release."""
        if pressed:
            lockout = self.pinmap.lockout_ms / 1000.0
            self._press_locked = self._last_press is not None and when - self._last_press < lockout
            if self._press_locked:
                return
            self._last_press = self._pressed_at = when
            self.button_events.append(("press", 0.0))
        elif not self._press_locked and self._pressed_at is not None:
            self.button_events.append(("release", when - self._pressed_at))
            self._pressed_at = None
        self._press_locked = False
        self.button_changed.set()

    def drop_button_events(self) -> int:
        """Forget queued button events (after a fire or a clear); the press in progress too."""
        with self._lock:
            self._poll_button()
            dropped = len(self.button_events)
            self.button_events.clear()
            if self._button_filter.level:
                self._press_locked = True  # still held: its release is not a new action
            return dropped

    @property
    def beam_blocked(self) -> bool:
        """The beam's settled state (a glitch shorter than ``glitch_ms`` does not count)."""
        if self.beam is None:
            return False
        with self._lock:
            self._poll_beam()
            return self._beam_filter.level

    def _settled(self) -> bool:
        """Motor off: wait for the last card to leave the mouth, at most until the blocked limit."""
        self._end_brake()
        if self.pinmap.coast_ms > 0 and self._stopped_at is not None:
            coasted = self._stopped_at + self.pinmap.coast_ms / 1000.0
            self.clock.wait(threading.Event(), max(0.0, coasted - self.clock.now()))
        due = self._beam_filter.due()
        if due is not None:  # a card reached the beam as the motor stopped: let it register
            self.clock.wait(threading.Event(), max(0.0, due - self.clock.now()))
            self.poll_inputs()
        since = self._blocked_since
        if since is None:
            return True
        limit = since + self.pinmap.blocked_ms / 1000.0
        return self.wait_beam_clear(max(0.0, limit - self.clock.now()))

    def wait_beam_clear(self, timeout_s: float) -> bool:
        """Wait (on the driver's clock) until no card is in the mouth; True if the beam is clear."""
        deadline = self.clock.now() + timeout_s
        while self.beam_blocked:
            self._changed.clear()
            remaining = deadline - self.clock.now()
            if remaining <= 0 or not self.beam_blocked:
                break
            self.clock.wait(self._changed, self._until_due(remaining))
        return not self.beam_blocked

    # -- jobs -------------------------------------------------------------------------
    def feed(self, n: int, *, closed_loop: bool | None = None) -> FeedResult:
        """Shoot ``n`` cards: closed loop counts with the beam, open loop runs n x ms_per_card."""
        self.check_fault()
        closed = self.pinmap.uses_closed_loop if closed_loop is None else closed_loop
        if closed and self.beam is None:
            raise ConfigError("closed-loop feeding needs a beam sensor (key beam)")
        if n <= 0:
            return FeedResult(n, 0, 0.0, "nothing", closed)
        if closed:
            return self._run(_Job(target=n, started=0.0), n, closed=True)
        result = self.run_for(self.pinmap.ms_per_card * n, requested=n)
        result.closed_loop = False
        if self.beam is None:
            result.counted = n  # no sensor: assume the calibrated time shot what was asked
        return result

    def run_for(self, ms: float, *, requested: int = 0) -> FeedResult:
        """Run the motor open loop for ``ms`` (at most ``max_run_ms``); count what the beam saw."""
        self.check_fault()
        if ms <= 0:
            return FeedResult(requested, 0, 0.0, "nothing", False)
        ms = min(ms, self.pinmap.max_run_ms)
        return self._run(
            _Job(target=None, started=0.0, run_until=ms / 1000.0), requested, closed=False
        )

    def _refuse_blocked_start(self) -> None:
        """Never start the motor into a blocked mouth (like the firmware): latch beam_blocked.

        A card still leaving from the last job gets ``blocked_ms`` to clear first.
        """
        if self.beam is None or self.wait_beam_clear(self.pinmap.blocked_ms / 1000.0):
            return
        with self._lock:
            fault = self._latch("beam_blocked")
        self.signal(JAM_ALARM)
        error = self._fault_error(fault, requested=0, counted=0, motor_ms=0.0)
        error.args = (BLOCKED_AT_START,)
        raise error

    def _run(self, job: _Job, requested: int, *, closed: bool) -> FeedResult:
        self._refuse_blocked_start()
        with self._running(job):
            stopped = self._supervise(job, closed)
        motor_ms = job.extra["motor_ms"]
        self._settling = job  # a card still in the mouth, or coasting out, is this job's
        try:
            settled = self._settled()
        finally:
            self._settling = None
        if stopped in ("count", "time") and not settled:
            stopped = "beam_blocked"
        if stopped not in ("count", "time"):
            fault = self._latch(stopped)
            self.signal(JAM_ALARM)
            raise self._fault_error(
                fault, requested=requested, counted=job.counted, motor_ms=motor_ms
            )
        return FeedResult(requested, job.counted, motor_ms, stopped, closed, job.doubles)

    @contextmanager
    def _running(self, job: _Job) -> Iterator[None]:
        """Motor on for the job; off on the way out, whatever the way out is."""
        with self._lock:
            job.started = job.last_card = self.clock.now()
            if job.run_until is not None:
                job.run_until += job.started
            self._job = job
            self._stopped_at = None
            self._motor_on()
        try:
            yield
        except BaseException:
            self._motor_off()  # an error or a signal: off at once, no braking pause
            raise
        finally:
            with self._lock:
                self._motor_off(brake=True)
                self._job = None
                stopped_at = self._stopped_at if self._stopped_at is not None else self.clock.now()
                job.extra["motor_ms"] = round((stopped_at - job.started) * 1000.0, 3)

    def _until_due(self, timeout: float) -> float:
        """``timeout``, shortened so that a pending input change is acted on when it settles."""
        self.poll_inputs()
        due = self.inputs_due()
        return timeout if due is None else max(0.0, min(timeout, due - self.clock.now()))

    def _supervise(self, job: _Job, closed: bool) -> str:
        """Wait for the job to end; returns why it ended. Toggles the enable line meanwhile."""
        period = self._enable_period_s()
        while True:
            self._changed.clear()
            with self._lock:
                self.poll_inputs()
                reason, wake = self._verdict(job, closed)
            if reason is not None:
                return reason
            if period is not None and self.motor_running:
                self.toggle_enable()
                wake = min(wake, self.clock.now() + period)
            if self.on_heartbeat is not None:
                self.on_heartbeat()
                wake = min(wake, self.clock.now() + HEARTBEAT_PERIOD_S)
            self.clock.wait(self._changed, self._until_due(max(0.0, wake - self.clock.now())))

    def _verdict(self, job: _Job, closed: bool) -> tuple[str | None, float]:
        """(why the job must end now or None, when to look again)."""
        p, now = self.pinmap, self.clock.now()
        if self._fault is not None:
            return self._fault.fault, now
        if job.target is not None and job.counted >= job.target:
            return "count", now
        deadlines = {"max_time": job.started + p.max_run_ms / 1000.0}
        if job.run_until is not None:
            deadlines["time"] = job.run_until
        if closed:
            deadlines["jam"] = job.last_card + p.jam_ms / 1000.0
        if self._blocked_since is not None:
            deadlines["beam_blocked"] = self._blocked_since + p.blocked_ms / 1000.0
        for reason in ("beam_blocked", "jam", "time", "max_time"):
            if reason in deadlines and now >= deadlines[reason] - _EPS:
                return reason, now
        return None, min(deadlines.values())

    # -- the toy's feel ---------------------------------------------------------------
    @property
    def led_pattern(self) -> str:
        """What the LED shows: ``off``, ``firing`` (motor running) or ``fault`` (latched)."""
        return self._led_pattern

    def _show(self, pattern: str) -> None:
        """Put the LED in ``pattern``: lit at once, then blinked by gpiozero's own thread."""
        self._led_pattern = pattern
        led = getattr(self, "led", None)
        if led is None or led.closed:
            return
        if pattern == "off":
            led.off()  # stops the blink thread first
            return
        on_s, off_s = self.led_patterns[pattern]
        led.on()
        if safety.in_signal_handler():
            return  # no new thread inside a signal handler: the process is ending, stay lit
        try:
            led.blink(on_s, off_s)
        except RuntimeError:  # no new threads at interpreter shutdown: stay lit instead
            led.on()

    def signal(self, pattern: tuple[tuple[float, float], ...]) -> None:
        """Play a buzzer pattern (blocking, on the driver's clock); silent with sounds off."""
        if self.buzzer is None or not self.pinmap.sounds or self.buzzer.closed:
            return
        for on_s, off_s in pattern:
            self.buzzer.on()
            self.clock.sleep(on_s)
            self.buzzer.off()
            if off_s:
                self.clock.sleep(off_s)

    def __repr__(self) -> str:
        pins = " ".join(f"{role}={pin}" for role, pin in self.pinmap.pins().items())
        state = f"fault={self._fault.fault}" if self._fault else "ok"
        return f"<GpioDriver {pins} {self.pinmap.motor_kind} {state} counted={self.total_counted}>"
