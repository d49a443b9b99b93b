"""Errors of the host <-> firmware link; leaves of :mod:`hardware.errors`."""

from __future__ import annotations

from hardware.errors import LauncherError, LauncherUnavailable


class ProtocolError(LauncherError):
    """The peer spoke something we cannot accept (bad version, malformed reply)."""

    hint = "update the firmware with `uno-attack firmware install --port PORT`"


class LinkLost(LauncherError, ConnectionError):
    """The serial link stopped answering or was unplugged; the motor is assumed stopped."""

    hint = "check the USB cable and power, then retry"


class PortNotFound(LauncherUnavailable, FileNotFoundError):
    """The serial port named in the spec does not exist."""

    hint = "plug the launcher in; `uno-attack launcher ports` lists the serial ports"
