"""A launcher on gpiozero's own mock pins, driven by the mechanism model on a virtual clock.

:class:`MockRig` is the bench a Pi would be: gpiozero's ``MockFactory`` with
``MockPWMPin`` pins, a :class:`~hardware.mechanism.Mechanism` (hopper, roller,
mouth) and a :class:`~hardware.clock.VirtualClock`. The rig is a timeline of the
clock: whenever controller code waits, the rig reads the motor pins (the duty
the H-bridge would see), moves the mechanism to the next event, and drives the
beam pin on every transition, so gpiozero fires the driver's edge callbacks at
exactly the model time a real card would cross the beam. Nothing sleeps; a
scripted button press is a :meth:`VirtualClock.call_at`.

    rig = MockRig(pinmap, MechanismParams(slip_rate=0.05), seed=7, cards=20)
    driver = GpioDriver(pinmap, pin_factory=rig.factory, clock=rig.clock)
    driver.feed(3)
    [s.state for s in rig.motor_pin.states]   # full motor pin history
"""

from __future__ import annotations

from typing import Any

from gpiozero.pins.mock import MockFactory, MockPWMPin

from hardware.clock import VirtualClock
from hardware.mechanism import Mechanism, MechanismParams
from hardware.pinmap import PinMap


class MockRig:
    """Mechanism model + mock pins + virtual clock, coupled."""

    def __init__(
        self,
        pinmap: PinMap,
        params: MechanismParams | None = None,
        *,
        seed: int | None = None,
        cards: int = 0,
        factory: MockFactory | None = None,
        clock: VirtualClock | None = None,
    ) -> None:
        self.pinmap = pinmap
        self.factory = factory if factory is not None else MockFactory(pin_class=MockPWMPin)
        self.clock = clock if clock is not None else VirtualClock()
        self.mechanism = Mechanism(params, seed=seed, cards=cards)
        self.mechanism.advance_to(self.clock.now())
        #: The two motor pins (forward/backward or phase/enable), kept for their state history.
        self.motor_pins = (self.factory.pin(pinmap.motor[0]), self.factory.pin(pinmap.motor[1]))
        self.beam_pin = self.factory.pin(pinmap.beam) if pinmap.beam is not None else None
        self.button_pin = self.factory.pin(pinmap.button) if pinmap.button is not None else None
        self.transitions: list[tuple[float, bool]] = []
        self.clock.add_timeline(self)

    # -- the pin a test usually asserts ------------------------------------------------
    @property
    def motor_pin(self) -> Any:
        """The pin whose PWM value is the motor's duty (forward, or enable for phase/enable)."""
        return self.motor_pins[0] if self.pinmap.motor_kind == "dual" else self.motor_pins[1]

    def motor_history(self) -> list[float]:
        return [float(s.state) for s in self.motor_pin.states]

    # -- coupling: pins -> mechanism ---------------------------------------------------
    def duty(self) -> float:
        """What the H-bridge drives the roller with, read off the motor pins (reverse = no feed)."""
        a, b = (float(pin.state) for pin in self.motor_pins)
        if self.pinmap.motor_kind == "dual":
            return a if b == 0 else 0.0
        return b if a == 0 else 0.0  # phase low = forward, enable carries the duty

    def _sync_duty(self) -> None:
        duty = self.duty()
        if duty != self.mechanism.duty:
            self.mechanism.set_duty(duty)

    # -- Timeline protocol ------------------------------------------------------------
    def next_event_s(self) -> float | None:
        self._sync_duty()
        return self.mechanism.next_transition_s()

    def run_until(self, t_s: float) -> None:
        self._sync_duty()
        for when, blocked in self.mechanism.advance_to(t_s):
            self.transitions.append((when, blocked))
            self._drive_beam(blocked)

    # -- coupling: mechanism -> pins ---------------------------------------------------
    def _drive_beam(self, blocked: bool) -> None:
        if self.beam_pin is None:
            return
        high = blocked if self.pinmap.beam_active == "high" else not blocked
        if high:
            self.beam_pin.drive_high()
        else:
            self.beam_pin.drive_low()

    def sync_beam(self) -> None:
        """Put the beam pin in the state the mechanism says (after a load or a jam clear)."""
        self._drive_beam(self.mechanism.beam_blocked)

    # -- a person at the table --------------------------------------------------------
    def load(self, cards: int) -> None:
        self.mechanism.load(cards)

    def clear_jam(self) -> None:
        """Open the launcher and pull the stuck card out."""
        self.mechanism.clear_jam()
        self.sync_beam()

    def press_button(self, at: float | None = None, hold_s: float = 0.1) -> None:
        """Schedule a press of the button at model time ``at`` (default: now), held ``hold_s``."""
        if self.button_pin is None:
            raise RuntimeError("this rig has no button pin")
        pin = self.button_pin
        start = self.clock.now() if at is None else at
        self.clock.call_at(start, pin.drive_low)
        self.clock.call_at(start + hold_s, pin.drive_high)

    def close(self) -> None:
        """Forget the mock pins (histories stay readable on :attr:`motor_pins`)."""
        self.factory.reset()

    def __repr__(self) -> str:
        return f"<MockRig t={self.clock.now():.3f}s {self.mechanism!r}>"
