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

gpiozero's mock pins are clean: no bounce, no glitches, edges delivered at once,
and a pin's level is whatever the test drives. A real bench is not, so the rig
extends them (still gpiozero's own pin classes, two methods changed):

* :class:`RigPin` timestamps every change on the *rig's clock* (gpiozero's
  ``ticks``), can deliver edge callbacks late (``edge_jitter_s``, like lgpio's
  callback thread), and resolves its level physically: what the outside world
  forces on the line (the IR receiver, the button contact) or, when released,
  the pull resistor gpiozero configured. A driver that sets the wrong pull reads
  the wrong level, as it would on a Pi.
* :class:`BeamSensor` is the receiver's output stage (open collector, open
  emitter or push-pull), fixed by the *physical* wiring, not by what the driver
  believes about it.
* :meth:`MockRig.press_button` bounces the contact (``bounce``), and
  :meth:`MockRig.glitch_beam` puts a noise pulse on the beam line.
* With an ``enable`` pin in the pin map, the H-bridge sleeps unless that pin rose within
  the monostable's hold time (:mod:`hardware.enable_line`): the roller turns only while
  the driver keeps toggling it, and braking (both inputs high) stops it without coasting.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gpiozero.pins.mock import MockFactory, MockPWMPin, PinState
from gpiozero.pins.pi import PiPin

from hardware.clock import VirtualClock
from hardware.enable_line import EnableMonostable
from hardware.mechanism import Mechanism, MechanismParams
from hardware.pinmap import PinMap

#: A realistic tactile-switch bounce: the contact flips at these offsets (s) after the press
#: or release before it settles (four extra edges over 1.6 ms; GUESS from typical datasheets
#: that quote "bounce < 5 ms").
DEFAULT_BOUNCE_S = (0.0002, 0.0005, 0.0009, 0.0016)


class RigFactory(MockFactory):
    """gpiozero's MockFactory whose ``ticks`` are the rig's model time (not real time)."""

    def __init__(self, clock: VirtualClock, pin_class: type[Any] | None = None) -> None:
        self.clock = clock
        super().__init__(pin_class=pin_class or RigPin)

    def ticks(self) -> float:
        return self.clock.now()


class RigPin(MockPWMPin):
    """gpiozero's MockPWMPin with model-time stamps, late edge delivery and a physical level."""

    def __init__(self, factory: Any, info: Any) -> None:
        #: The level the outside world forces on the line, or None when it releases it.
        self.external: bool | None = None
        #: A resistor on the board ("up"/"down"), or None: then the pin's own pull decides.
        self.board_pull: str | None = None
        #: Edge callbacks arrive this much later (s), drawn per edge; (0, 0) = at once.
        self.edge_jitter_s: tuple[float, float] = (0.0, 0.0)
        self._jitter_rng = random.Random(0)
        self._delivered_until = float("-inf")
        #: Told of every change of the line as (level, model time): the enable monostable.
        self.on_change: Callable[[bool, float], None] | None = None
        super().__init__(factory, info)

    # -- model time instead of time.monotonic ------------------------------------------
    def _change_state(self, value: bool) -> bool:
        state: Any = self.__dict__  # gpiozero's MockPin sets these attributes untyped
        if state["_state"] == value:
            return False
        t = self._factory.ticks()
        state["states"].append(PinState(t - state["_last_change"], value))
        state["_state"], state["_last_change"] = value, t
        hook = state.get("on_change")
        if hook is not None:
            hook(bool(value), t)
        return True

    def clear_states(self) -> None:
        self._last_change = self._factory.ticks()
        self.states = [PinState(0.0, self._state)]

    def _call_when_changed(self, ticks: float | None = None, state: bool | None = None) -> None:
        ticks = self._last_change if ticks is None else ticks
        state = self._state if state is None else state
        low, high = self.edge_jitter_s
        if high <= 0:
            PiPin._call_when_changed(self, ticks, state)  # deliver now
            return
        at = max(ticks + self._jitter_rng.uniform(low, high), self._delivered_until)
        self._delivered_until = at  # lgpio queues its alerts: late, but in order
        self._factory.clock.call_at(at, lambda: PiPin._call_when_changed(self, ticks, state))

    # -- the physical level ---------------------------------------------------------------
    def _set_pull(self, value: str) -> None:
        if self.function != "input":
            super()._set_pull(value)  # gpiozero's own error
        self._pull = value
        self.resolve()

    def drive(self, level: bool | None) -> None:
        """The outside world forces ``level`` on the line (None: it lets go)."""
        self.external = level
        self.resolve()

    def resolve(self) -> None:
        """Put the line at its physical level: forced, else pulled, else left floating."""
        if self._function != "input":
            return
        level = self.external
        pull = self.board_pull or self._pull
        if level is None and pull != "floating":
            level = pull == "up"
        if level is True:
            self.drive_high()
        elif level is False:
            self.drive_low()


@dataclass(frozen=True)
class BeamSensor:
    """The IR receiver's output stage, as wired.

    ``stage``: ``sink`` (open collector/drain: pulls the line low when it conducts, needs a
    pull-up), ``source`` (open emitter: drives it high, needs a pull-down) or ``push_pull``
    (drives both levels). ``blocked_level``: the level the line has when a card blocks the
    beam, with the pull resistor the wiring was designed for.
    """

    stage: str = "sink"
    blocked_level: str = "low"

    def output(self, blocked: bool) -> bool | None:
        """What the receiver forces on the line (None: it releases it)."""
        want = (self.blocked_level == "high") == blocked
        if self.stage == "push_pull":
            return want
        if self.stage == "sink":
            return None if want else False
        return True if want else None

    @classmethod
    def as_configured(cls, pinmap: PinMap) -> BeamSensor:
        """The receiver a pin map describes: its active level and the pull it asks for."""
        pull = pinmap.beam_pull_resolved
        stage = {"up": "sink", "down": "source"}.get(pull, "push_pull")
        return cls(stage, pinmap.beam_active)


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
        sensor: BeamSensor | None = None,
        bounce: Sequence[float] = DEFAULT_BOUNCE_S,
    ) -> None:
        self.pinmap = pinmap
        self.clock = clock if clock is not None else VirtualClock()
        self.factory = factory if factory is not None else RigFactory(self.clock)
        self.mechanism = Mechanism(params, seed=seed, cards=cards)
        self.mechanism.advance_to(self.clock.now())
        #: The receiver as physically wired (default: what the pin map says it is).
        self.sensor = sensor if sensor is not None else BeamSensor.as_configured(pinmap)
        #: Offsets (s) at which the button contact flips before settling; () = a clean switch.
        self.bounce = tuple(bounce)
        #: The two motor pins (forward/backward or phase/enable), kept for their state history.
        self.motor_pins = (self.factory.pin(pinmap.motor[0]), self.factory.pin(pinmap.motor[1]))
        self.beam_pin = self.factory.pin(pinmap.beam) if pinmap.beam is not None else None
        self.button_pin = self.factory.pin(pinmap.button) if pinmap.button is not None else None
        #: The enable line's monostable (None: nSLEEP/STBY tied high, the bridge always awake).
        self.enable_line: EnableMonostable | None = None
        self.enable_pin = None
        if pinmap.enable is not None:
            self.enable_line = EnableMonostable(pinmap.enable_hold_ms / 1000.0)
            self.enable_pin = self.factory.pin(pinmap.enable)
            if isinstance(self.enable_pin, RigPin):
                self.enable_pin.on_change = self.enable_line.edge
        self.transitions: list[tuple[float, bool]] = []
        self._glitching = False
        self._held = False  # a person holds a card in the beam
        self.sync_beam()
        self.clock.add_timeline(self)

    # -- the pin a test usually asserts ------------------------------------------------
    @property
    def motor_pin(self) -> Any:
        """The pin whose PWM value is the motor's duty (forward, or enable for phase/enable)."""
        return self.motor_pins[0] if self.pinmap.motor_kind == "dual" else self.motor_pins[1]

    def motor_history(self) -> list[float]:
        return [float(s.state) for s in self.motor_pin.states]

    # -- coupling: pins -> mechanism ---------------------------------------------------
    @property
    def bridge_awake(self) -> bool:
        """nSLEEP/STBY high: tied high, or the enable monostable still holding."""
        line = self.enable_line
        return line is None or line.powered(self.clock.now())

    @property
    def braking(self) -> bool:
        """Both inputs high on an awake dual bridge: the motor is shorted (DRV8833, TB6612)."""
        a, b = (float(pin.state) for pin in self.motor_pins)
        return self.pinmap.motor_kind == "dual" and a > 0 and b > 0 and self.bridge_awake

    def duty(self) -> float:
        """What the H-bridge drives the roller with, read off the motor pins (reverse = no feed)."""
        if not self.bridge_awake:
            return 0.0  # asleep: outputs high-impedance, whatever IN1/IN2 say
        a, b = (float(pin.state) for pin in self.motor_pins)
        if self.pinmap.motor_kind == "dual":
            return a if b == 0 else 0.0
        return b if a == 0 else 0.0  # phase low = forward, enable carries the duty

    def _sync_duty(self) -> None:
        duty = self.duty()
        if duty != self.mechanism.duty:
            self.mechanism.set_duty(duty, braked=self.braking)

    # -- Timeline protocol ------------------------------------------------------------
    def next_event_s(self) -> float | None:
        self._sync_duty()
        events = [self.mechanism.next_transition_s()]
        line = self.enable_line
        if line is not None and self.mechanism.duty > 0 and line.powered(self.clock.now()):
            events.append(line.off_at())  # the monostable times out: the roller stops then
        due = [t for t in events if t is not None]
        return min(due) if due else None

    def run_until(self, t_s: float) -> None:
        self._sync_duty()
        for when, blocked in self.mechanism.advance_to(t_s):
            self.transitions.append((when, blocked))
            self._drive_beam(blocked)

    # -- coupling: mechanism -> pins ---------------------------------------------------
    def _drive_beam(self, blocked: bool) -> None:
        if self.beam_pin is None or self._glitching:
            return
        self._drive(self.beam_pin, self.sensor.output(blocked or self._held))

    @staticmethod
    def _drive(pin: Any, level: bool | None) -> None:
        if isinstance(pin, RigPin):
            pin.drive(level)
            return
        if level is None:  # a plain MockPin: a released line follows the pin's pull
            level = {"up": True, "down": False}.get(pin.pull)
        if level is True:
            pin.drive_high()
        elif level is False:
            pin.drive_low()

    def sync_beam(self) -> None:
        """Put the beam pin in the state the mechanism says (after a load or a jam clear)."""
        self._drive_beam(self.mechanism.beam_blocked)

    def glitch_beam(self, at: float, width_s: float = 0.0001) -> None:
        """Electrical noise: the beam line flips for ``width_s`` at model time ``at``."""
        pin = self.beam_pin
        if pin is None:
            raise RuntimeError("this rig has no beam pin")

        def start() -> None:
            self._drive(pin, not pin.state)
            self._glitching = True

        def end() -> None:
            self._glitching = False
            self.sync_beam()

        self.clock.call_at(at, start)
        self.clock.call_at(at + width_s, end)

    def set_edge_jitter(self, low_s: float, high_s: float, *, seed: int = 0) -> None:
        """Deliver every beam and button edge callback late by a uniform draw in [low, high]."""
        for pin in (self.beam_pin, self.button_pin):
            if isinstance(pin, RigPin):
                pin.edge_jitter_s = (low_s, high_s)
                pin._jitter_rng = random.Random(seed)

    # -- a person at the table --------------------------------------------------------
    def load(self, cards: int) -> None:
        self.mechanism.load(cards)

    def hold_card(self, in_beam: bool) -> None:
        """A person holds a card in the beam (True) or takes it out (False)."""
        self._held = in_beam
        self.sync_beam()

    def clear_jam(self) -> None:
        """Open the launcher and pull the stuck card out."""
        self.mechanism.clear_jam()
        self.sync_beam()

    def press_button(
        self, at: float | None = None, hold_s: float = 0.1, *, bounce: Sequence[float] | None = None
    ) -> None:
        """Schedule a press of the button at model time ``at`` (default: now), held ``hold_s``.

        The contact (to ground, read with the pin's pull-up) bounces on the way down and
        on the way up at the offsets ``bounce`` (default: the rig's :attr:`bounce`).
        """
        if self.button_pin is None:
            raise RuntimeError("this rig has no button pin")
        offsets = self.bounce if bounce is None else tuple(bounce)
        start = self.clock.now() if at is None else at
        self._contact(start, closed=True, offsets=offsets)
        self._contact(start + hold_s, closed=False, offsets=offsets)

    def _contact(self, at: float, *, closed: bool, offsets: Sequence[float]) -> None:
        level = closed
        self.clock.call_at(at, self._switch(closed))
        for offset in offsets:  # each bounce flips the contact; the last one lands on `closed`
            level = not level
            self.clock.call_at(at + offset, self._switch(level))
        if level != closed:
            settle = at + (offsets[-1] if offsets else 0.0) + 0.0001
            self.clock.call_at(settle, self._switch(closed))

    def _switch(self, closed: bool) -> Callable[[], None]:
        """The button contact closing (to ground) or opening (the pull-up takes the line)."""
        pin = self.button_pin
        return lambda: self._drive(pin, False if closed else None)

    def close(self) -> None:
        """Forget the mock pins (histories stay readable on :attr:`motor_pins`)."""
        self.factory.reset()

    def __repr__(self) -> str:
        return f"<MockRig t={self.clock.now():.3f}s {self.mechanism!r}>"
