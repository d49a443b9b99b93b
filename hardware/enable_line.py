"""The motor-enable line's retriggerable monostable: the H-bridge is awake only while toggled.

A hardware limit that needs no software: nSLEEP (DRV8833) or STBY (TB6612) is driven
not by a GPIO directly but by a retriggerable monostable (a 74HC123, or a 555 wired as
a missing-pulse detector) whose input is a GPIO the driver toggles from the loop that
supervises the motor (:meth:`hardware.gpio_driver.GpioDriver.toggle_enable`). Each
rising edge holds the output high for ``hold_s``; when the edges stop (the process was
killed, frozen, or its loop hung) the bridge goes to sleep ``hold_s`` after the last one
and its outputs go high-impedance: the motor stops whatever the IN1/IN2 pins still say.

:class:`EnableMonostable` is that circuit as a model, shared by the mock rig (virtual
clock) and the out-of-process rig of the tests (:mod:`hardware.rig_link`).
"""

from __future__ import annotations


class EnableMonostable:
    """Output high from each rising edge of the input until ``hold_s`` after the last one."""

    def __init__(self, hold_s: float) -> None:
        if not hold_s > 0:
            raise ValueError(f"hold_s={hold_s!r} must be positive")
        self.hold_s = hold_s
        self.last_rise: float | None = None
        self.rises = 0

    def edge(self, level: bool, when: float) -> None:
        """The input changed to ``level`` at ``when`` (only rising edges retrigger)."""
        if level:
            self.rise(when)

    def rise(self, when: float) -> None:
        if self.last_rise is None or when >= self.last_rise:
            self.last_rise = when
        self.rises += 1

    def powered(self, now: float) -> bool:
        """Is the bridge awake at ``now``?"""
        return self.last_rise is not None and self.last_rise <= now < self.off_at()

    def off_at(self) -> float:
        """When the output falls if no edge comes first (-inf: never triggered)."""
        return float("-inf") if self.last_rise is None else self.last_rise + self.hold_s

    def __repr__(self) -> str:
        return f"<EnableMonostable hold={self.hold_s * 1000:.0f}ms last_rise={self.last_rise}>"
