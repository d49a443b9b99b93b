"""A rig in another process: mock pins whose output levels travel over a Unix socket.

To show that the enable line stops the motor when the *driving process itself* dies,
the model of the H-bridge cannot live in that process. Here it does not:

* the driving process builds its :class:`~hardware.gpio_driver.GpioDriver` on a
  :class:`RigLinkFactory`: gpiozero's own ``MockFactory`` whose pins
  (:class:`LinkedPin`, gpiozero's ``MockPWMPin``) send every change of an *output* level
  as one datagram ``"<bcm> <level> <CLOCK_MONOTONIC seconds>"`` to a Unix socket, at the
  moment gpiozero sets it, from whatever thread sets it;
* the rig (:class:`BridgeRig`, in the test process or any other) owns the model: the
  levels of IN1/IN2 as the kernel holds them (a released output keeps its level, as on a
  stock Raspberry Pi OS without ``strict_gpiod``) and the enable line's monostable
  (:class:`~hardware.enable_line.EnableMonostable`).

What is real: the death (SIGKILL, SIGSTOP of a real process), gpiozero's device and pin
code, the datagrams. What is modelled: the kernel's pin levels and the H-bridge. Each
change is stamped by the sender with ``time.monotonic()`` (CLOCK_MONOTONIC, one clock for
every process of the machine), so the rig's verdict ("powered at time t?") does not depend
on when a loaded machine gets round to delivering the datagram. Inputs (beam, button)
stay local to the driving process: what matters here is what it drives.
"""

from __future__ import annotations

import socket
import time
from typing import Any

from gpiozero.pins.mock import MockFactory, MockPWMPin

from hardware.enable_line import EnableMonostable

MAX_DATAGRAM = 128


class RigLinkFactory(MockFactory):
    """gpiozero's MockFactory whose output pins report each level change to ``address``."""

    def __init__(self, address: str) -> None:
        self.link = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.link.connect(address)
        super().__init__(pin_class=LinkedPin)

    def send(self, bcm: int, level: float) -> None:
        self.link.send(f"{bcm} {level:g} {time.monotonic()!r}".encode("ascii"))

    def close(self) -> None:
        super().close()
        self.link.close()


class LinkedPin(MockPWMPin):
    """A MockPWMPin that tells the rig every level it drives as an output."""

    def _change_state(self, value: Any) -> bool:
        changed = bool(super()._change_state(value))
        if changed and self._function == "output":
            self._factory.send(int(self.info.name.removeprefix("GPIO")), float(value))
        return changed


class BridgeRig:
    """The H-bridge outside the driving process: the kernel's pin levels and the monostable."""

    def __init__(
        self, address: str, *, motor: tuple[int, int], enable: int | None, hold_s: float
    ) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(address)
        self.motor, self.enable = motor, enable
        self.levels: dict[int, float] = {}
        self.line = EnableMonostable(hold_s) if enable is not None else None
        self.changes: list[tuple[float, int, float]] = []

    def drain(self, timeout_s: float = 0.0) -> int:
        """Read the pin changes that have arrived (waiting up to ``timeout_s`` for the first)."""
        read = 0
        self.sock.settimeout(timeout_s if timeout_s > 0 else None)
        self.sock.setblocking(timeout_s > 0)
        try:
            while True:
                data = self.sock.recv(MAX_DATAGRAM)
                self._apply(data.decode("ascii"))
                read += 1
                self.sock.setblocking(False)
        except (BlockingIOError, TimeoutError):
            return read

    def _apply(self, message: str) -> None:
        bcm_text, level_text, when_text = message.split()
        bcm, level, when = int(bcm_text), float(level_text), float(when_text)
        previous = self.levels.get(bcm, 0.0)
        self.levels[bcm] = level
        self.changes.append((when, bcm, level))
        if self.line is not None and bcm == self.enable and level > 0 and previous == 0:
            self.line.rise(when)

    def driven(self) -> bool:
        """IN1 high and IN2 low: what the GPIOs ask of the bridge (persisting after a death)."""
        forward, backward = (self.levels.get(pin, 0.0) for pin in self.motor)
        return forward > 0 and backward == 0

    def powered(self, at: float) -> bool:
        """Is the motor turning at ``at`` (CLOCK_MONOTONIC)? Driven, and the bridge awake."""
        return self.driven() and (self.line is None or self.line.powered(at))

    def close(self) -> None:
        self.sock.close()
