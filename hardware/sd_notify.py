"""systemd's notify protocol, for ``Type=notify`` and ``WatchdogSec=`` (no libsystemd needed).

The protocol is one datagram of ``KEY=VALUE`` lines sent to the ``AF_UNIX`` socket named by
``$NOTIFY_SOCKET`` (a leading ``@`` means Linux's abstract namespace), see sd_notify(3):
``READY=1`` once serving, ``WATCHDOG=1`` at least every ``$WATCHDOG_USEC`` (we send at a
quarter of it), ``STATUS=...`` for ``systemctl status``, ``STOPPING=1`` on the way out.
If the loop that sends ``WATCHDOG=1`` hangs, systemd kills the service (SIGABRT) and its
``ExecStopPost=`` drives the motor pins low.

Outside systemd (no ``$NOTIFY_SOCKET``) every call is a no-op; a send that fails never
stops the launcher (it returns False).
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable, Mapping


class Notifier:
    """Talk to the service manager that started this process, if any."""

    def __init__(
        self,
        environ: Mapping[str, str] | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        pid: int | None = None,
    ) -> None:
        env = os.environ if environ is None else environ
        self.address = _address(env.get("NOTIFY_SOCKET", ""))
        self.clock = clock
        self.watchdog_s = _watchdog_s(env, os.getpid() if pid is None else pid)
        self._last_ping: float | None = None
        self.sent: list[str] = []  # what was sent, for `launcher serve`'s log and the tests

    @property
    def enabled(self) -> bool:
        return self.address is not None

    def send(self, message: str) -> bool:
        """One notification (KEY=VALUE lines); False when there is nobody to tell or it failed."""
        if self.address is None:
            return False
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
                sock.sendto(message.encode("utf-8"), self.address)
        except OSError:
            return False
        self.sent.append(message)
        return True

    def ready(self, status: str = "") -> bool:
        return self.send("READY=1" + (f"\nSTATUS={status}" if status else ""))

    def status(self, text: str) -> bool:
        return self.send(f"STATUS={text}")

    def stopping(self) -> bool:
        return self.send("STOPPING=1")

    def watchdog(self) -> bool:
        """``WATCHDOG=1``, at most every quarter of the watchdog interval (cheap to repeat)."""
        if self.watchdog_s is None:
            return False
        now = self.clock()
        if self._last_ping is not None and now - self._last_ping < self.watchdog_s / 4:
            return False
        self._last_ping = now
        return self.send("WATCHDOG=1")


def _address(raw: str) -> str | None:
    if not raw or raw[0] not in "/@":
        return None  # unset, or a vsock address we do not speak
    return "\0" + raw[1:] if raw[0] == "@" else raw


def _watchdog_s(env: Mapping[str, str], pid: int) -> float | None:
    """The watchdog interval in seconds, if systemd asked *this* process for pings."""
    usec, owner = env.get("WATCHDOG_USEC", ""), env.get("WATCHDOG_PID", "")
    if not usec.isdigit() or int(usec) == 0:
        return None
    if owner and (not owner.isdigit() or int(owner) != pid):
        return None
    return int(usec) / 1_000_000
