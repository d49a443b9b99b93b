"""Motor-off guarantees: exceptions, Ctrl-C, SIGTERM, dying threads, callbacks on other threads."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from hardware import safety
from hardware.clock import MonotonicClock
from hardware.errors import LauncherFault
from hardware.gpio_driver import GpioDriver
from hardware.mock_rig import MockRig
from hardware.pinmap import DEFAULT_PINS, PinMap, pinmap_from_mapping

ROOT = Path(__file__).resolve().parent.parent
ON_OFF = [0.0, 1.0, 0.0]


def _pinmap(**keys: object) -> PinMap:
    return pinmap_from_mapping({"sounds": False, **keys}, "test", defaults=DEFAULT_PINS)


@pytest.fixture
def rig() -> Iterator[MockRig]:
    rig = MockRig(_pinmap(), seed=1, cards=50)
    yield rig
    rig.close()


@pytest.fixture
def driver(rig: MockRig) -> Iterator[GpioDriver]:
    driver = GpioDriver(rig.pinmap, pin_factory=rig.factory, clock=rig.clock)
    yield driver
    driver.close()


class Boom(Exception):
    pass


def _raise(exc: BaseException) -> None:
    raise exc


def test_motor_is_off_after_an_exception_in_the_middle_of_a_job(
    rig: MockRig, driver: GpioDriver
) -> None:
    rig.clock.call_at(0.3, lambda: _raise(Boom("callback blew up")))
    with pytest.raises(Boom):
        driver.feed(10)
    assert rig.motor_history() == ON_OFF
    assert not driver.motor_running


def test_motor_is_off_after_ctrl_c_in_the_middle_of_a_job(rig: MockRig, driver: GpioDriver) -> None:
    rig.clock.call_at(0.6, lambda: _raise(KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        driver.feed(10)
    assert rig.motor_history() == ON_OFF
    rig.clock.advance(5.0)
    assert rig.mechanism.ejected == 2  # the two cards counted before Ctrl-C, nothing after


def test_sigterm_handler_stops_every_registered_motor_then_exits(
    rig: MockRig, driver: GpioDriver
) -> None:
    driver.start_motor()
    with pytest.raises(SystemExit) as caught:
        safety._on_sigterm(signal.SIGTERM, None)
    assert caught.value.code == 128 + signal.SIGTERM
    assert rig.motor_history() == ON_OFF
    assert driver.fault is not None and driver.fault.fault == "sigterm"


SIGNAL_CHILD = textwrap.dedent(
    """
    import json, sys
    from gpiozero.pins.mock import MockFactory, MockPWMPin
    from hardware.clock import MonotonicClock
    from hardware.gpio_driver import GpioDriver
    from hardware.pinmap import DEFAULT_PINS, pinmap_from_mapping

    class AnnouncingClock(MonotonicClock):
        def wait(self, event, timeout):
            print("motor running", flush=True)
            return super().wait(event, timeout)

    # no handler installed here: opening the driver is enough (every command is covered)
    factory = MockFactory(pin_class=MockPWMPin)
    pinmap = pinmap_from_mapping(
        {"sounds": False, "jam_ms": 5000, "blocked_ms": 2000, "max_run_ms": 30000},
        "child", defaults=DEFAULT_PINS)
    driver = GpioDriver(pinmap, pin_factory=factory, clock=AnnouncingClock())
    pin = factory.pin(17)
    try:
        driver.feed(5)  # no cards ever come: waits (really) until the signal
    finally:
        fault = driver.fault.fault if driver.fault else None
        print(json.dumps([[float(s.state) for s in pin.states], fault]), flush=True)
    """
)


@pytest.mark.parametrize(
    ("signum", "returncode"),
    [
        (signal.SIGTERM, 128 + signal.SIGTERM),
        (signal.SIGHUP, 128 + signal.SIGHUP),
        (signal.SIGINT, -signal.SIGINT),  # KeyboardInterrupt, as Ctrl-C always ends Python
    ],
    ids=["SIGTERM", "SIGHUP", "SIGINT"],
)
def test_each_stop_signal_to_a_process_with_the_motor_running_stops_it(
    signum: signal.Signals, returncode: int
) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen(
        [sys.executable, "-c", SIGNAL_CHILD],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "motor running"
    child.send_signal(signum)
    rest, _ = child.communicate(timeout=30)
    assert child.returncode == returncode
    states, fault = json.loads(rest.strip().splitlines()[-1])
    assert states == ON_OFF
    assert fault == safety.STOP_SIGNALS[signum]


def test_a_handler_installed_before_the_driver_is_still_called_after_the_motor_stops(
    rig: MockRig,
) -> None:
    calls: list[bool] = []
    original = signal.getsignal(signal.SIGHUP)
    saved = dict(safety._previous_handlers)
    try:
        signal.signal(signal.SIGHUP, lambda signum, frame: calls.append(driver.motor_running))
        driver = GpioDriver(rig.pinmap, pin_factory=rig.factory, clock=rig.clock)
        driver.start_motor()
        handler = signal.getsignal(signal.SIGHUP)
        assert callable(handler)
        handler(signal.SIGHUP, None)
        assert calls == [False]  # the server's handler ran, and the motor was already off
        assert driver.fault is not None and driver.fault.fault == "sighup"
        driver.close()
    finally:
        signal.signal(signal.SIGHUP, original)
        safety._previous_handlers.clear()
        safety._previous_handlers.update(saved)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_thread_that_dies_with_its_motor_on_gets_it_stopped(
    rig: MockRig, driver: GpioDriver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(threading, "excepthook", threading.excepthook)  # restored afterwards
    safety.install_thread_death_hook()
    died = threading.Event()

    def careless() -> None:
        driver.start_motor()
        died.set()
        raise Boom("thread crashed with the motor on")

    thread = threading.Thread(target=careless)
    thread.start()
    thread.join(timeout=30)
    assert died.is_set() and not thread.is_alive()
    assert rig.motor_history() == ON_OFF
    assert driver.fault is not None and driver.fault.fault == "thread_died"
    with pytest.raises(LauncherFault, match="thread"):
        driver.feed(1)


def test_a_thread_that_returned_with_its_motor_on_is_caught_by_check_owner(
    rig: MockRig, driver: GpioDriver
) -> None:
    thread = threading.Thread(target=driver.start_motor)
    thread.start()
    thread.join(timeout=30)
    assert driver.motor_running
    assert driver.check_owner() is True
    assert rig.motor_history() == ON_OFF
    assert driver.check_owner() is False


def test_beam_edges_from_another_thread_are_counted_and_stop_the_motor() -> None:
    """On a Pi, lgpio delivers edges on its own thread; the driver must be thread-safe."""
    factory = MockFactory(pin_class=MockPWMPin)
    waiting = threading.Event()

    class SignallingClock(MonotonicClock):
        def wait(self, event: threading.Event, timeout: float) -> bool:
            waiting.set()
            return super().wait(event, timeout)

    driver = GpioDriver(
        # glitch_ms=0: the thread's pulses are microseconds wide (no test sleeps to widen them)
        _pinmap(jam_ms=5_000, blocked_ms=2_000, max_run_ms=30_000, glitch_ms=0),
        pin_factory=factory,
        clock=SignallingClock(),
    )
    beam, motor = factory.pin(27), factory.pin(17)

    def sensor_thread() -> None:
        for _ in range(3):
            assert waiting.wait(30)
            waiting.clear()
            beam.drive_low()
            beam.drive_high()

    sensor = threading.Thread(target=sensor_thread)
    sensor.start()
    try:
        result = driver.feed(3)
    finally:
        sensor.join(timeout=30)
        driver.close()
        factory.reset()
    assert (result.counted, result.stopped) == (3, "count")
    assert driver.total_counted == 3
    assert [s.state for s in motor.states] == ON_OFF


def test_close_turns_the_motor_off_and_is_idempotent(rig: MockRig) -> None:
    driver = GpioDriver(rig.pinmap, pin_factory=rig.factory, clock=rig.clock)
    driver.start_motor()
    driver.close()
    driver.close()
    assert rig.motor_history() == ON_OFF


def test_watchdog_stops_an_unsupervised_motor_after_the_maximum_run_time() -> None:
    """Real clock: start_motor with nobody supervising; the watchdog enforces max_run_ms."""
    factory = MockFactory(pin_class=MockPWMPin)
    pinmap = _pinmap(max_run_ms=200, jam_ms=100, blocked_ms=100)
    driver = GpioDriver(pinmap, pin_factory=factory, clock=MonotonicClock())
    motor = factory.pin(17)
    try:
        watchdog = driver.start_motor()
        assert watchdog is not None
        watchdog.join(timeout=30)
        assert not watchdog.is_alive()
        assert not driver.motor_running
    finally:
        driver.close()
        factory.reset()
    assert [s.state for s in motor.states] == ON_OFF
    assert driver.fault is not None and driver.fault.fault == "max_time"
