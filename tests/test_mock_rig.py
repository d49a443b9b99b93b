"""The mock rig couples gpiozero's own mock pins to the mechanism model on a virtual clock."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from gpiozero import Button, DigitalInputDevice, Motor, PhaseEnableMotor

from hardware.clock import MonotonicClock, VirtualClock
from hardware.mechanism import MechanismParams
from hardware.mock_rig import MockRig
from hardware.pinmap import DEFAULT_PINS, PinMap, pinmap_from_mapping


@pytest.fixture
def pinmap() -> PinMap:
    return pinmap_from_mapping({}, "test", defaults=DEFAULT_PINS)


@pytest.fixture
def rig(pinmap: PinMap) -> Iterator[MockRig]:
    rig = MockRig(pinmap, seed=1, cards=10)
    yield rig
    rig.close()


def test_driving_the_motor_pin_makes_cards_cross_the_beam_pin(rig: MockRig) -> None:
    motor = Motor(17, 18, pin_factory=rig.factory)
    beam = DigitalInputDevice(27, pull_up=True, pin_factory=rig.factory)
    edges: list[tuple[float, bool]] = []
    beam.when_activated = lambda: edges.append((rig.clock.now(), True))
    beam.when_deactivated = lambda: edges.append((rig.clock.now(), False))
    try:
        motor.forward()
        rig.clock.advance(0.6)
        motor.stop()
        rig.clock.advance(1.0)
        assert rig.beam_pin is not None
        beam_history = [s.state for s in rig.beam_pin.states]
    finally:
        beam.close()
        motor.close()
    assert edges == [(0.25, True), (0.28, False), (0.5, True), (0.53, False)]
    # floating, pulled up by the device, then low while each card blocks the beam
    assert beam_history == [False, True, False, True, False, True]
    assert [s.state for s in rig.motor_pin.states] == [0.0, 1.0, 0.0]
    assert rig.mechanism.ejected == 2


def test_half_duty_pwm_turns_the_roller_slower(rig: MockRig) -> None:
    motor = Motor(17, 18, pin_factory=rig.factory)
    try:
        motor.forward(0.625)  # (0.625 - 0.25) / 0.75 = half speed: a card every 0.5 s
        rig.clock.advance(0.9)
    finally:
        motor.close()
    assert rig.mechanism.ejected == 1 and rig.mechanism.beam_blocked is False


def test_running_backwards_feeds_nothing(rig: MockRig) -> None:
    motor = Motor(17, 18, pin_factory=rig.factory)
    try:
        motor.backward()
        rig.clock.advance(5.0)
    finally:
        motor.close()
    assert rig.mechanism.ejected == 0


def test_phase_enable_h_bridge_drives_the_roller_through_the_enable_pin() -> None:
    pinmap = pinmap_from_mapping({"motor_kind": "phase_enable"}, "test", defaults=DEFAULT_PINS)
    rig = MockRig(pinmap, seed=1, cards=3)
    motor = PhaseEnableMotor(17, 18, pin_factory=rig.factory)
    try:
        motor.forward()
        rig.clock.advance(1.0)
        motor.stop()
    finally:
        motor.close()
        rig.close()
    assert rig.mechanism.ejected == 3
    assert [s.state for s in rig.motor_pin.states] == [0.0, 1.0, 0.0]


def test_active_high_beam_is_driven_high_when_blocked() -> None:
    pinmap = pinmap_from_mapping({"beam_active": "high"}, "test", defaults=DEFAULT_PINS)
    rig = MockRig(pinmap, MechanismParams(catch_rate=1.0), seed=1, cards=3)
    motor = Motor(17, 18, pin_factory=rig.factory)
    beam = DigitalInputDevice(27, pull_up=False, pin_factory=rig.factory)
    try:
        motor.forward()
        rig.clock.advance(1.0)
        assert beam.is_active and rig.beam_pin is not None and rig.beam_pin.state
        rig.clear_jam()
        assert not beam.is_active
    finally:
        beam.close()
        motor.close()
        rig.close()


def test_scheduled_button_press_happens_at_its_model_time(rig: MockRig) -> None:
    button = Button(22, pin_factory=rig.factory)
    presses: list[float] = []
    button.when_pressed = lambda: presses.append(rig.clock.now())
    try:
        rig.press_button(at=2.0, hold_s=0.5, bounce=())  # a clean switch
        rig.clock.advance(1.9)
        assert not button.is_pressed
        rig.clock.advance(0.2)
        assert button.is_pressed
        rig.clock.advance(0.5)
        assert not button.is_pressed
    finally:
        button.close()
    assert presses == [2.0]


def test_virtual_clock_wait_returns_at_the_moment_the_event_is_set() -> None:
    clock = VirtualClock()
    event = threading.Event()
    clock.call_at(3.25, event.set)
    assert clock.wait(event, 10.0) is True
    assert clock.now() == 3.25
    assert clock.wait(threading.Event(), 1.5) is False
    assert clock.now() == 4.75


def test_virtual_clock_runs_scheduled_calls_in_time_order() -> None:
    clock = VirtualClock()
    seen: list[str] = []
    clock.call_at(2.0, lambda: seen.append("b"))
    clock.call_at(1.0, lambda: seen.append("a"))
    clock.call_later(2.0, lambda: seen.append("c"))
    clock.advance(5.0)
    assert seen == ["a", "b", "c"]


def test_monotonic_clock_wait_returns_true_as_soon_as_another_thread_sets_the_event() -> None:
    clock = MonotonicClock()
    event = threading.Event()
    setter = threading.Thread(target=event.set)
    setter.start()
    assert clock.wait(event, 30.0) is True
    setter.join()


def test_paced_virtual_clock_wakes_early_when_another_thread_sets_the_event() -> None:
    clock = VirtualClock(pace=1.0)
    event = threading.Event()
    setter = threading.Thread(target=event.set)
    setter.start()
    assert clock.wait(event, 60.0) is True  # returns at once, not after a minute
    setter.join()
    assert 0.0 <= clock.now() < 60.0
