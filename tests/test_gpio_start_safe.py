"""Start safe on the Pi: issue 29, findings 4 and 8, and the enable line (finding 1) on mock pins.

* the motor never starts into a blocked mouth: ``beam_blocked`` before any card moves;
* every motor limit has the Pico's ceiling (30 s, 5 s, 2 s);
* with an enable line through a retriggerable monostable, the roller turns only while the
  driver's job loop keeps toggling it; an unsupervised motor stops after the hold time;
* braking: both inputs high for ``brake_ms``, and the roller does not coast on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from firmware_bridge.protocol import LIMITS
from hardware.errors import ConfigError, LauncherJam
from hardware.gpio_driver import GpioDriver
from hardware.mechanism import MechanismParams
from hardware.mock_rig import MockRig
from hardware.pinmap import CEILINGS_MS, DEFAULT_PINS, pinmap_from_mapping

Make = Callable[..., tuple[MockRig, GpioDriver]]
ENABLE_PIN = 5


@pytest.fixture
def make() -> Iterator[Make]:
    built: list[tuple[MockRig, GpioDriver]] = []

    def _make(
        params: MechanismParams | None = None,
        *,
        cards: int = 20,
        before_open: Callable[[MockRig], None] | None = None,
        **keys: Any,
    ) -> tuple[MockRig, GpioDriver]:
        pinmap = pinmap_from_mapping({"sounds": False, **keys}, "test", defaults=DEFAULT_PINS)
        rig = MockRig(pinmap, params, seed=1, cards=cards)
        if before_open is not None:
            before_open(rig)
        driver = GpioDriver(pinmap, pin_factory=rig.factory, clock=rig.clock)
        built.append((rig, driver))
        return rig, driver

    yield _make
    for rig, driver in built:
        driver.close()
        rig.close()


# -- a blocked mouth ---------------------------------------------------------------------
def test_a_beam_blocked_before_the_pins_open_is_refused_before_any_card_moves(make: Make) -> None:
    rig, driver = make(before_open=lambda rig: rig.hold_card(True))  # emitter dead, card stuck
    with pytest.raises(LauncherJam) as caught:
        driver.feed(3)
    assert caught.value.fault == "beam_blocked"
    assert (caught.value.counted, caught.value.motor_ms) == (0, 0.0)
    assert "before the motor started" in str(caught.value)
    assert rig.motor_history() == [0.0]  # the motor was never switched on
    assert rig.mechanism.ejected == 0 and rig.mechanism.hopper == 20
    with pytest.raises(LauncherJam):  # latched, like any jam, until a person clears it
        driver.feed(1)


def test_open_loop_runs_and_unsupervised_starts_are_refused_too(make: Make) -> None:
    rig, driver = make(before_open=lambda rig: rig.hold_card(True))
    with pytest.raises(LauncherJam):
        driver.run_for(500.0)
    rig.hold_card(False)
    driver.clear_fault()
    rig.hold_card(True)
    rig.clock.advance(0.01)  # past the glitch filter
    with pytest.raises(LauncherJam):
        driver.start_motor()
    assert rig.motor_history() == [0.0]


def test_a_card_that_clears_the_mouth_within_blocked_ms_lets_the_job_start(make: Make) -> None:
    rig, driver = make(before_open=lambda rig: rig.hold_card(True))
    rig.clock.call_at(0.2, lambda: rig.hold_card(False))  # the last card leaves, 200 ms later
    assert driver.feed(2).counted == 2


# -- ceilings --------------------------------------------------------------------------------
def test_the_ceilings_are_the_pico_firmwares() -> None:
    assert CEILINGS_MS == {
        "max_run_ms": float(LIMITS["max_ms"][1]),
        "jam_ms": float(LIMITS["jam_ms"][1]),
        "blocked_ms": float(LIMITS["block_ms"][1]),
    }


@pytest.mark.parametrize(
    ("key", "value"), [("max_run_ms", 86_400_000), ("jam_ms", 5_001), ("blocked_ms", 2_500)]
)
def test_a_limit_above_its_ceiling_is_refused_with_the_ceiling_named(key: str, value: int) -> None:
    with pytest.raises(ConfigError) as caught:
        pinmap_from_mapping({key: value}, "launcher.toml", defaults=DEFAULT_PINS)
    assert f"key {key}={value}" in str(caught.value)
    assert f"ceiling of {CEILINGS_MS[key]:.0f} ms" in str(caught.value)
    assert "at most" in caught.value.hint


def test_limits_at_their_ceilings_are_accepted() -> None:
    pinmap = pinmap_from_mapping(dict(CEILINGS_MS), "launcher.toml", defaults=DEFAULT_PINS)
    assert pinmap.max_run_ms == 30_000.0


# -- the enable line ------------------------------------------------------------------------
def test_with_an_enable_line_a_job_keeps_the_bridge_awake_and_feeds_normally(make: Make) -> None:
    rig, driver = make(enable=ENABLE_PIN, enable_hold_ms=50)
    result = driver.feed(5)
    assert (result.counted, result.stopped) == (5, "count")
    line = rig.enable_line
    assert line is not None and line.rises >= result.motor_ms / 25 - 1  # a rise every hold/2
    assert not rig.bridge_awake or rig.mechanism.duty == 0.0
    rig.clock.advance(0.1)
    assert not rig.bridge_awake  # no job, no toggling: the bridge sleeps


def test_a_motor_nobody_toggles_for_stops_after_the_hold_time_though_in1_stays_high(
    make: Make,
) -> None:
    rig, driver = make(enable=ENABLE_PIN, enable_hold_ms=50, cards=90)
    driver.start_motor()  # unsupervised: on a virtual clock no watchdog thread toggles it
    rig.clock.advance(0.049)
    assert rig.mechanism.duty == 1.0
    rig.clock.advance(0.002)
    assert rig.motor_pin.state == 1.0  # the GPIO still says "run" (a persisting output)
    assert not rig.bridge_awake and rig.mechanism.duty == 0.0
    ejected = rig.mechanism.ejected
    rig.clock.advance(10.0)
    assert rig.mechanism.ejected == ejected  # nothing more came out


def test_without_an_enable_line_the_same_motor_runs_on(make: Make) -> None:
    rig, driver = make(cards=90)
    driver.start_motor()
    rig.clock.advance(1.0)
    assert rig.mechanism.duty == 1.0 and rig.mechanism.ejected > 0


def test_an_enable_hold_out_of_range_is_refused() -> None:
    with pytest.raises(ConfigError, match="enable_hold_ms"):
        pinmap_from_mapping({"enable": 5, "enable_hold_ms": 0.5}, "t", defaults=DEFAULT_PINS)


# -- braking ---------------------------------------------------------------------------------
def test_a_braking_stop_drives_both_inputs_high_then_low(make: Make) -> None:
    rig, driver = make(brake_ms=30)
    result = driver.feed(2)
    assert result.counted == 2
    forward = [float(s.state) for s in rig.motor_pins[0].states]
    backward = [float(s.state) for s in rig.motor_pins[1].states]
    assert forward == [0.0, 1.0, 0.0] and backward == [0.0, 1.0, 0.0]
    brake_s = sum(s.timestamp for s in rig.motor_pins[1].states[2:])
    assert brake_s == pytest.approx(0.030)
    assert not driver.braking and not driver.motor_running


def test_braking_stops_a_roller_that_would_coast_one_more_card_out(make: Make) -> None:
    params = MechanismParams(coast_ms=300.0)
    coasting, coast_driver = make(params, cards=20)
    coast_driver.feed(2)
    coasting.clock.advance(2.0)
    braked, brake_driver = make(params, cards=20, brake_ms=30)
    brake_driver.feed(2)
    braked.clock.advance(2.0)
    assert braked.mechanism.ejected == 2
    assert coasting.mechanism.ejected > braked.mechanism.ejected


def test_brake_ms_needs_dual_inputs() -> None:
    with pytest.raises(ConfigError, match="brake_ms"):
        pinmap_from_mapping(
            {"brake_ms": 20, "motor_kind": "phase_enable"}, "t", defaults=DEFAULT_PINS
        )
