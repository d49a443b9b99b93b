"""The gpiozero driver on gpiozero's own mock pins, fed by the mechanism model.

Every scenario checks what the driver reported *and* the full motor pin history
(``[s.state for s in pin.states]``, never ``assert_states``, which accepts short lists).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from hardware.errors import ConfigError, LauncherFault, LauncherJam
from hardware.gpio_driver import GpioDriver
from hardware.mechanism import MechanismParams
from hardware.mock_rig import MockRig
from hardware.pinmap import DEFAULT_PINS, pinmap_from_mapping

Make = Callable[..., tuple[MockRig, GpioDriver]]
ON_OFF = [0.0, 1.0, 0.0]
GLITCH_MS = 1.0  # the pin map's default beam glitch filter


@pytest.fixture
def make() -> Iterator[Make]:
    """Build a rig + driver; everything is closed and the mock factory reset afterwards."""
    built: list[tuple[MockRig, GpioDriver]] = []

    def _make(
        params: MechanismParams | None = None, *, cards: int = 20, seed: int = 1, **keys: Any
    ):
        pinmap = pinmap_from_mapping({"sounds": False, **keys}, "test", defaults=DEFAULT_PINS)
        rig = MockRig(pinmap, params, seed=seed, cards=cards)
        driver = GpioDriver(pinmap, pin_factory=rig.factory, clock=rig.clock)
        built.append((rig, driver))
        return rig, driver

    yield _make
    for rig, driver in built:
        driver.close()
        assert not driver.motor_running
        rig.close()


def test_closed_loop_stops_the_motor_when_the_beam_has_counted_the_cards(make: Make) -> None:
    rig, driver = make()
    result = driver.feed(3)
    # the motor stops when the third card's leading edge has held for glitch_ms (1 ms)
    assert (result.counted, result.stopped, result.motor_ms) == (3, "count", 750.0 + GLITCH_MS)
    assert rig.motor_history() == ON_OFF
    assert [s.state for s in rig.motor_pins[1].states] == [False]  # backward input never driven
    rig.clock.advance(1.0)
    assert rig.mechanism.ejected == 3 and rig.mechanism.hopper == 17


def test_consecutive_feeds_each_switch_the_motor_once(make: Make) -> None:
    rig, driver = make()
    assert [driver.feed(n).counted for n in (2, 0, 1)] == [2, 0, 1]
    assert rig.motor_history() == [0.0, 1.0, 0.0, 1.0, 0.0]


def test_pwm_duty_reaches_the_motor_pin(make: Make) -> None:
    rig, driver = make(duty=0.625)
    result = driver.feed(2)
    assert result.counted == 2 and result.motor_ms == 1000.0 + GLITCH_MS  # half speed: 2 cards/s
    assert rig.motor_history() == [0.0, 0.625, 0.0]


def test_open_loop_without_a_beam_runs_the_calibrated_time_per_card(make: Make) -> None:
    rig, driver = make(beam=None, ms_per_card=300.0)
    result = driver.feed(4)
    assert (result.counted, result.motor_ms, result.closed_loop, result.stopped) == (
        4,
        1200.0,
        False,
        "time",
    )
    assert rig.motor_history() == ON_OFF
    rig.clock.advance(1.0)
    assert rig.mechanism.ejected == 4


def test_slip_scenario_still_delivers_the_count_but_runs_longer(make: Make) -> None:
    rig, driver = make(MechanismParams(slip_rate=0.4), seed=5)
    result = driver.feed(5)
    assert result.counted == 5 and result.stopped == "count"
    assert result.motor_ms > 5 * 250.0
    assert rig.mechanism.slips > 0
    assert rig.motor_history() == ON_OFF


def test_double_feed_scenario_reports_what_the_beam_saw(make: Make) -> None:
    rig, driver = make(MechanismParams(double_feed_rate=1.0))
    result = driver.feed(2)
    rig.clock.advance(1.0)
    # two doubles went out: the beam counted 2 passages, 4 cards left the hopper
    assert result.counted == 2 and rig.mechanism.ejected == 4
    assert rig.motor_history() == ON_OFF


def test_jam_scenario_stops_latches_raises_and_never_restarts(make: Make) -> None:
    rig, driver = make(MechanismParams(catch_rate=1.0), blocked_ms=400.0)
    with pytest.raises(LauncherJam) as caught:
        driver.feed(3)
    error: Any = caught.value
    assert (error.fault, error.counted, error.motor_ms) == ("beam_blocked", 1, 650.0)
    assert "blocked for more than 400 ms" in str(error)
    with pytest.raises(LauncherJam):
        driver.feed(1)  # latched: nothing runs
    rig.clock.advance(30.0)  # time passes: nothing restarts by itself
    assert rig.motor_history() == ON_OFF
    assert driver.fault is not None and driver.fault.fault == "beam_blocked"


def test_after_a_person_clears_the_jam_the_launcher_fires_again(make: Make) -> None:
    rig, driver = make(MechanismParams(catch_rate=1.0))
    with pytest.raises(LauncherJam):
        driver.feed(1)  # the caught card is counted, then it stays blocked past blocked_ms
    rig.clear_jam()
    assert driver.clear_fault() is True
    assert driver.clear_fault() is False
    rig.mechanism.params = MechanismParams()  # the roller was cleaned: no more catches
    assert driver.feed(2).counted == 2
    assert rig.motor_history() == [0.0, 1.0, 0.0, 1.0, 0.0]


def test_empty_hopper_scenario_raises_a_no_card_jam_after_jam_ms(make: Make) -> None:
    rig, driver = make(cards=2, jam_ms=1200.0)
    with pytest.raises(LauncherJam) as caught:
        driver.feed(5)
    error: Any = caught.value
    assert (error.fault, error.counted) == ("jam", 2)
    assert error.motor_ms == 500.0 + 1200.0  # the last card at 0.5 s, then 1.2 s of nothing
    assert "hopper empty" in str(error)
    assert rig.motor_history() == ON_OFF


def test_maximum_run_time_stops_a_job_that_keeps_counting(make: Make) -> None:
    rig, driver = make(cards=200, max_run_ms=3000.0)
    with pytest.raises(LauncherFault) as caught:
        driver.feed(100)
    error: Any = caught.value
    assert not isinstance(error, LauncherJam)
    assert (error.fault, error.motor_ms, error.counted) == ("max_time", 3000.0, 12)
    assert rig.motor_history() == ON_OFF


def test_open_loop_run_is_capped_by_the_maximum_run_time(make: Make) -> None:
    rig, driver = make(max_run_ms=2000.0)
    result = driver.run_for(60_000.0)
    assert result.motor_ms == 2000.0 and result.stopped == "time"
    assert rig.motor_history() == ON_OFF


def test_open_loop_with_a_beam_still_trips_on_a_blocked_beam(make: Make) -> None:
    rig, driver = make(MechanismParams(catch_rate=1.0))
    with pytest.raises(LauncherJam, match="blocked"):
        driver.run_for(5000.0)
    assert rig.motor_history() == ON_OFF


def test_closed_loop_without_a_beam_is_a_config_error(make: Make) -> None:
    _, driver = make(beam=None)
    with pytest.raises(ConfigError, match="beam"):
        driver.feed(1, closed_loop=True)


def test_sounds_play_on_the_buzzer_pin_on_the_driver_clock(make: Make) -> None:
    rig, driver = make(MechanismParams(catch_rate=1.0), sounds=True)
    with pytest.raises(LauncherJam):
        driver.feed(1)
    buzzer = rig.factory.pin(24)
    assert [s.state for s in buzzer.states] == [False, True, False, True, False, True, False]
    led = rig.factory.pin(23)
    states = [bool(s.state) for s in led.states]
    assert states[:2] == [False, True]  # lit (flickering) while the motor ran ...
    assert driver.led_pattern == "fault" and states[-1] == bool(led.state)  # ... then blinking


# -- the LED: gpiozero's LED.blink on the injected factory ---------------------------------
class WatchedPin(MockPWMPin):
    """gpiozero's own MockPWMPin plus a Condition, so a test can wait for the blink thread."""

    changed = threading.Condition()

    def _change_state(self, value: Any) -> bool:
        with WatchedPin.changed:
            result = bool(super()._change_state(value))
            WatchedPin.changed.notify_all()
        return result


def _watched_rig(params: MechanismParams, **keys: Any) -> tuple[MockRig, GpioDriver]:
    pinmap = pinmap_from_mapping({"sounds": False, **keys}, "test", defaults=DEFAULT_PINS)
    rig = MockRig(pinmap, params, seed=1, cards=20, factory=MockFactory(pin_class=WatchedPin))
    return rig, GpioDriver(pinmap, pin_factory=rig.factory, clock=rig.clock)


def _wait_for_changes(pin: Any, n: int) -> bool:
    with WatchedPin.changed:
        return WatchedPin.changed.wait_for(lambda: len(pin.states) >= n, timeout=10.0)


def test_the_led_flickers_while_the_motor_runs_and_goes_dark_after(make: Make) -> None:
    rig, driver = make(sounds=True)
    seen: list[str] = []
    rig.clock.call_at(0.3, lambda: seen.append(driver.led_pattern))  # mid-feed, model time
    driver.feed(3)
    states = [bool(s.state) for s in rig.factory.pin(23).states]
    assert seen == ["firing"] and driver.led_pattern == "off"
    assert states[:2] == [False, True] and states[-1] is False
    assert all(a != b for a, b in zip(states, states[1:], strict=False))  # a real on/off history


def test_a_latched_fault_blinks_the_led_until_cleared_even_with_sounds_off() -> None:
    rig, driver = _watched_rig(MechanismParams(catch_rate=1.0))
    driver.led_patterns["fault"] = (0.002, 0.002)  # a fast blink, so the wait is short
    try:
        with pytest.raises(LauncherJam):
            driver.feed(1)
        led = rig.factory.pin(23)
        assert driver.led_pattern == "fault"
        assert _wait_for_changes(led, 7), "the LED should keep blinking while the fault is latched"
        assert rig.motor_history() == ON_OFF  # blinking never restarts the motor
        assert driver.clear_fault() is True
        states = [bool(s.state) for s in led.states]
        assert states[:4] == [False, True, False, True] and states[-1] is False
        assert driver.led_pattern == "off" and led.state == 0
    finally:
        driver.close()
        rig.close()


def test_closing_the_driver_stops_a_fault_blink() -> None:
    rig, driver = _watched_rig(MechanismParams(catch_rate=1.0))
    with pytest.raises(LauncherJam):
        driver.feed(1)
    assert driver.led_pattern == "fault"
    driver.close()
    assert driver.led_pattern == "off" and driver.led is not None and driver.led.closed
    rig.close()


def test_repr_names_pins_and_state(make: Make) -> None:
    _, driver = make()
    assert "motor_a=17" in repr(driver) and "ok" in repr(driver)


def test_double_feeds_are_counted_as_two_when_double_ms_is_set(make: Make) -> None:
    # single cards block the beam 30 ms, doubles 48 ms (MechanismParams.double_transit_factor)
    rig, driver = make(MechanismParams(double_feed_rate=0.5), seed=4, double_ms=40.0)
    result = driver.feed(6)
    rig.clock.advance(1.0)
    assert result.doubles > 0
    assert result.counted == rig.mechanism.ejected  # the beam's count matches what came out
    assert result.counted - result.doubles == rig.mechanism.attempts - rig.mechanism.slips
    assert rig.motor_history() == ON_OFF


def test_pwm_on_pins_that_cannot_do_pwm_is_a_config_error_and_pwm_off_works() -> None:
    from gpiozero.pins.mock import MockFactory

    plain = MockFactory()  # MockPin: no PWM, like a factory without PWM support
    try:
        pinmap = pinmap_from_mapping({"sounds": False}, "test", defaults=DEFAULT_PINS)
        with pytest.raises(ConfigError, match="cannot do PWM"):
            GpioDriver(pinmap, pin_factory=plain)
        plain.reset()
        on_off = pinmap_from_mapping({"sounds": False, "pwm": False}, "test", defaults=DEFAULT_PINS)
        driver = GpioDriver(on_off, pin_factory=plain)
        motor = plain.pin(17)
        driver.start_motor()
        driver.close()
        assert [s.state for s in motor.states] == [False, True, False]
    finally:
        plain.reset()
