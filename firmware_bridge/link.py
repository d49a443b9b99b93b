"""The framed serial link: one pyserial port, a reader thread, replies and events apart.

This is the transport half of the host client (style G10: framing apart from the
port). :func:`open_port` opens any pyserial port or URL with ``exclusive=True``
and turns pyserial's ``SerialException`` into errors from our hierarchy (a
missing port lists the ports that do exist). :class:`FrameLink` runs pyserial's
own :class:`serial.threaded.ReaderThread`; the reader decodes every complete
line with the shared codec (:mod:`firmware_bridge.protocol`), drops frames that
fail their CRC, puts replies (``R``) in a slot keyed by sequence number and
events (``E``) in a queue, and records an unplug (``SerialException`` in
``read``) so every waiter wakes at once instead of waiting out its timeout.
"""

from __future__ import annotations

import fcntl
import termios
import threading
import time
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import serial
import serial.threaded
from serial.tools import list_ports

from firmware_bridge import protocol
from firmware_bridge.errors import LinkLost, PortNotFound
from hardware.errors import LauncherUnavailable

#: Events kept while nobody reads them; older ones fall off (the event counter shows the gap).
EVENT_BACKLOG = 256


class Frame(NamedTuple):
    """One decoded frame: kind ``C``/``R``/``E``, sequence or event counter, verb, fields.

    ``at`` is when the reader thread received it (``time.monotonic()``), so two frames'
    times differ by what happened on the board between them (e.g. a job's motor time).
    """

    kind: str
    seq: int
    verb: str
    fields: dict[str, str]
    at: float = 0.0

    def integer(self, key: str, default: int = 0) -> int:
        """A decimal field, or ``default`` when absent or not a number."""
        try:
            return int(self.fields[key])
        except (KeyError, ValueError):
            return default

    def text(self, key: str, default: str = "") -> str:
        return self.fields.get(key, default)


@dataclass
class LinkStats:
    """What the reader saw; tests and ``launcher status`` use it to show link quality."""

    frames_in: int = 0
    frames_out: int = 0
    bad_frames: int = 0
    bad_reasons: dict[str, int] = field(default_factory=dict)

    def reject(self, reason: str) -> None:
        self.bad_frames += 1
        key = " ".join(reason.split()[:3])
        self.bad_reasons[key] = self.bad_reasons.get(key, 0) + 1


# -- opening ports ---------------------------------------------------------------------
def available_ports() -> list[str]:
    """Device paths of the serial ports that exist now, by-id links first when present."""
    ports = sorted(port.device for port in list_ports.comports())
    try:
        by_id = sorted(str(p) for p in _by_id_folder().iterdir())
    except OSError:
        by_id = []
    return by_id + ports


def _by_id_folder() -> Path:
    return Path("/dev/serial/by-id")


def open_port(path: str, *, baud: int = 115200, exclusive: bool = True) -> serial.SerialBase:
    """Open ``path`` (a device or a pyserial URL) or raise a clear error from the hierarchy.

    ``exclusive`` takes pyserial's advisory ``flock`` (other pyserial users with
    ``exclusive=True`` are refused) AND sets the tty's ``TIOCEXCL`` flag, so the kernel
    refuses every later ``open()`` of the device by a program that does not cooperate (a
    terminal, ``cat``, ModemManager) with EBUSY. Root (CAP_SYS_ADMIN) is exempt.
    """
    try:
        port = serial.serial_for_url(path, baudrate=baud, timeout=None, exclusive=exclusive)
    except serial.SerialException as error:
        raise _open_error(path, error) from None
    except ValueError as error:
        raise LauncherUnavailable(f"cannot open serial port {path}: {error}") from None
    if exclusive:
        _set_tty_exclusive(port, True)
    return port


def _set_tty_exclusive(port: serial.SerialBase, on: bool) -> None:
    """TIOCEXCL / TIOCNXCL on a tty port; other ports (``socket://``, ``loop://``) have none."""
    fileno = getattr(port, "fileno", None)
    if fileno is None:
        return
    try:
        fcntl.ioctl(fileno(), termios.TIOCEXCL if on else termios.TIOCNXCL)
    except (OSError, ValueError, serial.SerialException):
        pass  # not a tty, or already closed


def _open_error(path: str, error: serial.SerialException) -> LauncherUnavailable:
    text = str(error)
    if "exclusively lock" in text or "Errno 16]" in text or "Device or resource busy" in text:
        return LauncherUnavailable(
            f"serial port {path} is in use by another program",
            hint="close the other program (a terminal, ModemManager...); see docs/serial.md",
        )
    if "No such file" in text or "Errno 2]" in text:
        return missing_port(path)
    return LauncherUnavailable(
        f"cannot open serial port {path}: {text}", hint=_permission_hint(text)
    )


def missing_port(path: str) -> PortNotFound:
    ports = available_ports()
    listing = ", ".join(ports) if ports else "none"
    return PortNotFound(f"serial port {path} does not exist (ports present: {listing})")


def _permission_hint(text: str) -> str:
    if "Permission denied" in text or "Errno 13" in text:
        return (
            "add yourself to the dialout group (sudo usermod -aG dialout $USER), then log in again"
        )
    return "check the cable and the port name; docs/serial.md lists common causes"


# -- the link --------------------------------------------------------------------------
class _FrameProtocol(serial.threaded.Protocol):
    """Runs in pyserial's reader thread: bytes -> lines -> frames -> the link."""

    def __init__(self, link: FrameLink) -> None:
        self._link = link
        self._lines = protocol.LineBuffer()

    def data_received(self, data: bytes) -> None:
        for line in _complete_lines(self._lines, data):
            self._link._accept_line(line)

    def connection_lost(self, exc: BaseException | None) -> None:
        # The base class re-raises in the reader thread; we hand the loss to the waiters.
        self._link._mark_lost(exc)


class _ReaderThread(serial.threaded.ReaderThread):
    """pyserial's reader thread, also ending cleanly when an unplug surfaces as a bare OSError.

    On Linux ``in_waiting`` (an ioctl) raises ``OSError: [Errno 5]`` rather than
    ``SerialException`` once the device is gone (pyserial issue #401); pyserial's loop
    only catches the latter, so the thread would die with a traceback on stderr and
    never report the loss. Here the loss reaches the protocol like any other.
    """

    def run(self) -> None:
        try:
            super().run()
        except OSError as error:
            self.alive = False
            handler: Any = getattr(self, "protocol", None)  # set by pyserial's run()
            if handler is not None:
                self.protocol = None
                handler.connection_lost(error)


def _complete_lines(buffer: Any, data: bytes) -> Iterable[bytes]:
    return buffer.feed(data) or ()


class FrameLink:
    """A pyserial port carrying protocol frames, read by a background thread.

    Writes go through :meth:`send` (raises :class:`LinkLost` if the port is gone);
    :meth:`wait_reply` and :meth:`next_event` wait on one condition variable with a
    timeout, never by sleeping. The link never reconnects: the client does.
    """

    def __init__(self, port: serial.SerialBase, *, name: str = "") -> None:
        self.name = name or str(port.port)
        self.stats = LinkStats()
        self._port = port
        self._cond = threading.Condition()
        self._replies: dict[int, Frame] = {}
        self._events: deque[Frame] = deque(maxlen=EVENT_BACKLOG)
        self._lost: BaseException | None = None
        self._is_lost = False
        self._closing = False
        self._reader = _ReaderThread(port, lambda: _FrameProtocol(self))
        self._reader.name = f"uno-attack-link {self.name}"
        self._reader.start()
        self._reader.connect()

    # reader-thread side
    def _accept_line(self, line: bytes) -> None:
        try:
            kind, seq, verb, fields = protocol.decode(line)
        except ValueError as error:
            with self._cond:
                self.stats.reject(str(error))
            return
        frame = Frame(kind, seq, verb, dict(fields), time.monotonic())
        with self._cond:
            self.stats.frames_in += 1
            if kind == "R":
                self._replies[seq] = frame
            elif kind == "E":
                self._events.append(frame)
            else:
                self.stats.reject("unexpected kind " + kind)
            self._cond.notify_all()

    def _mark_lost(self, exc: BaseException | None) -> None:
        with self._cond:
            self._is_lost = True
            self._lost = exc
            self._cond.notify_all()

    # caller side
    @property
    def is_lost(self) -> bool:
        return self._is_lost

    def lost_reason(self) -> str:
        if self._closing:
            return "the link was closed"
        return str(self._lost) if self._lost else "the serial port went away"

    def wait_lost(self, timeout: float) -> bool:
        """Block until the port goes away (an unplug), at most ``timeout`` s; True if it did."""
        with self._cond:
            return self._cond.wait_for(lambda: self._is_lost, timeout)

    def send(self, frame: bytes, *, forget_replies: bool = False) -> None:
        """Write one encoded frame; ``forget_replies`` drops stale replies first (a new command)."""
        with self._cond:
            self._raise_if_lost()
            if forget_replies:
                self._replies.clear()
        try:
            self._reader.write(frame)
        except (serial.SerialException, OSError) as error:
            self._mark_lost(error)
            raise LinkLost(f"{self.name}: write failed ({error})") from None
        self.stats.frames_out += 1

    def wait_reply(self, seq: int, timeout: float) -> Frame | None:
        """The reply carrying ``seq``, or None after ``timeout`` seconds; LinkLost on unplug."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                frame = self._replies.pop(seq, None)
                if frame is not None:
                    return frame
                self._raise_if_lost()
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self._cond.wait(remaining)

    def next_event(self, timeout: float) -> Frame | None:
        """The oldest unread event, or None after ``timeout`` seconds; LinkLost on unplug."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not self._events:
                self._raise_if_lost()
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self._cond.wait(remaining)
            return self._events.popleft()

    def drain_events(self) -> list[Frame]:
        """Take every queued event at once (used after a handshake)."""
        with self._cond:
            events = list(self._events)
            self._events.clear()
            return events

    def _raise_if_lost(self) -> None:
        if self._is_lost:
            raise LinkLost(f"{self.name}: {self.lost_reason()}")

    def close(self) -> None:
        """Stop the reader and close the port; safe to call twice or after an unplug."""
        self._closing = True
        _set_tty_exclusive(self._port, False)  # a pty outlives us: leave it openable again
        try:
            self._reader.close()
        except (serial.SerialException, OSError):
            pass
        self._mark_lost(None)


def encode_command(seq: int, verb: str, fields: Sequence[tuple[str, object]] = ()) -> bytes:
    """A command frame through the shared codec."""
    return bytes(protocol.encode("C", seq, verb, list(fields)))
