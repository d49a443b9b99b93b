"""An emulated Raspberry Pi Pico running real MicroPython: ``pico_sim/pico-sim.mjs`` as an object.

The board is the npm package ``rp2040js`` (an RP2040 emulator) driven by our Node bridge
``pico-sim.mjs``, booting the real MicroPython v1.27.0 rp2 UF2 (``pico_sim/BUILD.md``).
Its USB CDC serial is on TCP (pyserial ``socket://`` URL, :attr:`PicoBoard.serial_url`)
and, with ``pty=True``, on a pseudo-terminal made by socat (:attr:`PicoBoard.pty`);
its GPIO pins and clock are reached through the bridge's control port.

Emulated time is not wall time (``docs/firmware.md``): the emulated core runs at about
0.3x real time when busy, and skips ahead while it sleeps. ``realtime=True`` (the default)
never lets emulated time run ahead of the wall clock, so a firmware timer (the host-silence
fault, the watchdog) never fires early compared with the host's wall-clock timers.
:meth:`PicoBoard.hold` stops emulated time at a horizon that :meth:`PicoBoard.step` moves on
(lockstep): an outside model of the launcher sees every step and cannot fall behind.

Nothing here sleeps blindly: :meth:`PicoBoard.start` returns when the bridge's log says its
ports listen, :meth:`PicoBoard.read_until` returns when the expected bytes arrive.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hardware.errors import LauncherUnavailable

SIM_DIR = Path(__file__).resolve().parent / "pico_sim"
SCRIPT = SIM_DIR / "pico-sim.mjs"
UF2 = SIM_DIR / "micropython-rp2-pico-v1.27.0.uf2"
RP2040JS = SIM_DIR / "node_modules" / "rp2040js"
INSTALL_HINT = f"install the emulator: npm install --prefix {SIM_DIR} (needs Node.js >= 18)"
READY_MARKS = ("USB CDC serial bridged", "control port on", "USB CDC connected")
START_TIMEOUT = 30.0


class BoardUnavailable(LauncherUnavailable):
    """Node.js, rp2040js or socat is missing, or the emulator did not start."""

    hint = INSTALL_HINT


@dataclass(frozen=True)
class Step:
    """Where a lockstep step ended: emulated seconds since the first boot, resets, pin duties."""

    t: float
    resets: int
    duty: dict[int, float]


@dataclass(frozen=True)
class ExactStep:
    """Where an exact lockstep step ended (ns of emulated time) and the pins' on/off edges."""

    t_ns: int
    resets: int
    #: ``(t_ns, pin, on)``: a recorded output pin turned on, or off (low for 1 ms; PWM is one run)
    edges: tuple[tuple[int, int, bool], ...]
    rebooted: bool


def emulator_missing() -> str | None:
    """Why the emulator cannot run here (None when it can)."""
    if shutil.which("node") is None:
        return "Node.js (node) is not installed"
    if not RP2040JS.exists():
        return f"the npm package rp2040js is not installed in {SIM_DIR}"
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class PicoBoard:
    """One emulated Pico (a Node process); use as a context manager, or call start()/stop()."""

    def __init__(
        self,
        *,
        flash: Path | str | None = None,
        realtime: bool = True,
        lockstep: bool = False,
        pty: bool = False,
        workdir: Path | str | None = None,
    ) -> None:
        """``flash`` is the 2 MB flash image (created if missing, saved at every reboot)."""
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        if workdir is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="pico-sim-")
            workdir = self._tmp.name
        self.workdir = Path(workdir)
        self.flash = Path(flash) if flash is not None else self.workdir / "flash.bin"
        self.realtime = realtime
        self.lockstep = lockstep
        self.pty: str | None = str(self.workdir / "ttyPICO") if pty else None
        self.port = 0
        self.ctl_port = 0
        self.log_path = self.workdir / "pico-sim.log"
        self._process: subprocess.Popen[bytes] | None = None
        self._ctl: socket.socket | None = None
        self._ctl_buffer = b""
        self._ctl_lock = threading.Lock()
        self._ready = threading.Event()
        self._log_lines: list[str] = []

    @classmethod
    def attach(cls, port: int, ctl_port: int) -> PicoBoard:
        """A board some other process started (``pico-sim.mjs --port P --ctl-port C``)."""
        board = cls()
        board.port, board.ctl_port = port, ctl_port
        board.clock()  # fails now, with a clear error, if nothing listens there
        return board

    # -- lifecycle --------------------------------------------------------------------------
    def command_line(self) -> list[str]:
        command = ["node", str(SCRIPT), "--uf2", str(UF2), "--flash", str(self.flash)]
        command += ["--port", str(self.port), "--ctl-port", str(self.ctl_port)]
        command.append("--exit-with-stdin")  # no orphan emulator if this process is killed
        if self.pty:
            command += ["--pty", self.pty]
        if self.realtime:
            command.append("--realtime")
        if self.lockstep:
            command.append("--lockstep")
        return command

    def start(self, timeout: float = START_TIMEOUT) -> PicoBoard:
        """Start the emulator; returns once its serial and control ports listen."""
        missing = emulator_missing() or (
            "socat is not installed" if self.pty and shutil.which("socat") is None else None
        )
        if missing:
            raise BoardUnavailable(f"cannot start the emulated Pico: {missing}")
        self.port, self.ctl_port = _free_port(), _free_port()
        self._process = subprocess.Popen(
            self.command_line(),
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        threading.Thread(target=self._pump_log, name="pico-sim-log", daemon=True).start()
        if not self._ready.wait(timeout) or self._process.poll() is not None:
            self.stop()
            raise BoardUnavailable(f"the emulated Pico did not start: {self.log_tail()}")
        if self.pty:
            self._wait_for(lambda: os.path.exists(self.pty or ""), timeout, "socat's pty")
        return self

    def _pump_log(self) -> None:
        """Copy the bridge's stderr to the log file; set ``_ready`` when both ports listen."""
        assert self._process is not None and self._process.stderr is not None
        with open(self.log_path, "a", encoding="utf-8") as log:
            for raw in self._process.stderr:
                line = raw.decode("utf-8", "replace")
                log.write(line)
                log.flush()
                self._log_lines = (self._log_lines + [line.rstrip()])[-50:]
                if all(any(mark in seen for seen in self._log_lines) for mark in READY_MARKS):
                    self._ready.set()
        self._ready.set()  # the process ended: wake start() so it can report why

    def _wait_for(self, condition: Callable[[], bool], timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        waiter = threading.Event()
        while not condition():
            if time.monotonic() > deadline or not self.running:
                raise BoardUnavailable(f"the emulated Pico's {what} did not appear")
            waiter.wait(0.01)  # polling a file that socat creates; no event to wait on

    def log_tail(self, lines: int = 8) -> str:
        return " | ".join(self._log_lines[-lines:]) or "(no output)"

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def owned(self) -> bool:
        """True when this object started the emulator (and :meth:`stop` ends it)."""
        return self._process is not None

    def stop(self) -> None:
        """End the emulator (it saves the flash image on the way out). Idempotent."""
        if self._ctl is not None:
            self._ctl.close()
            self._ctl = None
        process, self._process = self._process, None
        if process is not None:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
            for pipe in (process.stdin, process.stderr):
                if pipe is not None:
                    pipe.close()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self) -> PicoBoard:
        return self.start() if not self.running else self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the serial port ----------------------------------------------------------------------
    @property
    def serial_url(self) -> str:
        """The board's USB serial as a pyserial URL (mpremote and FirmwareClient accept it)."""
        return f"socket://127.0.0.1:{self.port}"

    def tap(self) -> SerialTap:
        """Listen to everything the board prints from now on (another client of its port)."""
        return SerialTap(self.port)

    def read_until(self, marker: bytes, timeout: float = 20.0) -> bytes:
        """Connect to the serial port and read until ``marker`` arrives; raises on timeout."""
        data = b""
        deadline = time.monotonic() + timeout
        with socket.create_connection(("127.0.0.1", self.port), timeout=timeout) as conn:
            while marker not in data:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no {marker!r} from the emulated Pico: {data[-300:]!r}")
                conn.settimeout(left)
                try:
                    chunk = conn.recv(4096)
                except TimeoutError:
                    continue
                if not chunk:
                    raise ConnectionError("the emulated Pico closed its serial port")
                data += chunk
        return data

    # -- the control port ---------------------------------------------------------------------
    def control(self, command: str) -> dict[str, Any]:
        """One control-port command and its JSON reply (``pico-sim.mjs`` lists them)."""
        with self._ctl_lock:
            if self._ctl is None:
                try:
                    self._ctl = socket.create_connection(("127.0.0.1", self.ctl_port), timeout=60)
                except OSError as error:
                    raise BoardUnavailable(
                        f"no emulated Pico on control port {self.ctl_port}: {error}"
                    ) from None
                self._ctl.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._ctl.sendall(command.encode() + b"\n")
            while b"\n" not in self._ctl_buffer:
                chunk = self._ctl.recv(65536)
                if not chunk:
                    raise BoardUnavailable(f"the emulated Pico stopped: {self.log_tail()}")
                self._ctl_buffer += chunk
            line, self._ctl_buffer = self._ctl_buffer.split(b"\n", 1)
        reply: dict[str, Any] = json.loads(line)
        if "error" in reply:
            raise BoardUnavailable(f"pico-sim {command!r}: {reply['error']}")
        return reply

    def hold(self) -> float:
        """Lockstep on: emulated time stops until :meth:`step`; returns emulated seconds."""
        return float(self.control("hold")["t"])

    def free(self) -> None:
        """Lockstep off: emulated time runs on its own again."""
        self.control("free")

    def step(self, ms: float, pins: Iterable[int] = ()) -> Step:
        """Let ``ms`` more emulated milliseconds run; then read the duty of ``pins``."""
        wanted = ",".join(str(pin) for pin in pins)
        reply = self.control(f"step {ms:g} {wanted}".strip())
        duty = {int(k): float(v) for k, v in reply["duty"].items()}
        return Step(float(reply["t"]), int(reply["resets"]), duty)

    # -- exact lockstep: the caller owns emulated time to the nanosecond ---------------------
    def exact_hold(self, pins: Iterable[int] = ()) -> int:
        """Stop emulated time; record the on/off edges of output ``pins``. Returns ns now."""
        wanted = ",".join(str(pin) for pin in pins)
        return int(self.control(f"x.hold {wanted}".strip())["t"])

    def exact_step(self, ns: int) -> ExactStep:
        """Run exactly ``ns`` more emulated nanoseconds, then return the recorded edges."""
        reply = self.control(f"x.step {int(ns)}")
        edges = tuple((int(t), int(pin), bool(on)) for t, pin, on in reply.get("ev", ()))
        rebooted = bool(reply.get("rebooted") or reply.get("rebooting"))
        return ExactStep(int(reply["t"]), int(reply["resets"]), edges, rebooted)

    def exact_input(self, pin: int, level: bool | int) -> None:
        """Drive an input at the current emulated instant (kept across reboots)."""
        self.control(f"x.in {pin} {1 if level else 0}")

    def exact_free(self) -> None:
        """Back to running on its own (the wall clock paces it again with ``realtime``)."""
        self.control("x.free")

    def drive(self, pin: int, level: bool | int) -> None:
        """Drive an input pin from outside (kept across reboots, as a circuit would)."""
        self.control(f"input {pin} {1 if level else 0}")

    def release(self, pin: int) -> None:
        self.control(f"release {pin}")

    def duty(self, pin: int) -> float:
        return float(self.control(f"duty {pin}")["duty"])

    def host_reading(self, reading: bool) -> int:
        """``False``: the USB host stops taking the board's output, as when the program that
        holds the port open hangs (the board's writes then block, up to MicroPython's 500 ms
        CDC timeout each); ``True``: it reads again. Returns the IN transfers held back."""
        return int(self.control(f"hostread {1 if reading else 0}")["held"])

    def power_cycle(self) -> None:
        """A brown-out or replug: the chip restarts with reset cause power-on, flash kept."""
        self.control("power")

    def set_faults(self, *, drop: float = 0.0, corrupt: float = 0.0, seed: int = 1) -> None:
        """Drop or corrupt whole serial lines, both ways, with these probabilities."""
        self.control(f"faults drop={drop} corrupt={corrupt} seed={seed}")

    def fault_counts(self) -> dict[str, int]:
        """Lines seen, dropped and corrupted by the bridge so far (leaves the rates alone)."""
        reply = self.control("faults keep")
        return {key: int(value) for key, value in reply.items()}

    def clock(self) -> dict[str, float]:
        """Emulated seconds (``totalSeconds``, monotonic over reboots), wall seconds, resets."""
        return {k: float(v) for k, v in self.control("time").items()}


class SerialTap:
    """A reader of the board's serial output in a thread; :meth:`wait_for` blocks on a marker.

    The bridge copies the board's output to every connected client, so a tap sees what
    mpremote or the launcher sees, without taking their place.
    """

    def __init__(self, port: int) -> None:
        self._conn = socket.create_connection(("127.0.0.1", port), timeout=10)
        self._data = b""
        self._changed = threading.Condition()
        self._closed = False
        threading.Thread(target=self._read, name="pico-sim-tap", daemon=True).start()

    def _read(self) -> None:
        self._conn.settimeout(None)
        while True:
            try:
                chunk = self._conn.recv(65536)
            except OSError:
                chunk = b""
            with self._changed:
                if not chunk:
                    self._closed = True
                else:
                    self._data += chunk
                self._changed.notify_all()
            if not chunk:
                return

    @property
    def data(self) -> bytes:
        with self._changed:
            return self._data

    def wait_for(self, marker: bytes, timeout: float = 30.0, *, start: int = 0) -> bytes:
        """Everything received once ``marker`` has appeared after offset ``start``."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while marker not in self._data[start:]:
                left = deadline - time.monotonic()
                if left <= 0 or self._closed:
                    tail = self._data[-400:]
                    raise TimeoutError(f"no {marker!r} from the emulated Pico; last: {tail!r}")
                self._changed.wait(left)
            return self._data

    def wait_for_line(self, marker: bytes, timeout: float = 30.0, *, start: int = 0) -> bytes:
        """The first complete line (no line end) containing ``marker`` after offset ``start``."""
        deadline = time.monotonic() + timeout
        data = self.wait_for(marker, timeout, start=start)
        at = data.index(marker, start)
        begin = data.rfind(b"\n", 0, at) + 1
        data = self.wait_for(b"\n", max(0.0, deadline - time.monotonic()), start=at)
        return data[begin : data.index(b"\n", at)].rstrip(b"\r")

    def send(self, data: bytes) -> None:
        """Write to the board's serial input (as a host would)."""
        self._conn.sendall(data)

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> SerialTap:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- a board with our firmware on it ------------------------------------------------------------
CACHE_ENV = "UNO_ATTACK_PICO_CACHE"


def cache_dir() -> Path:
    """Where installed flash images are kept: ``$UNO_ATTACK_PICO_CACHE`` or ~/.cache/uno-attack."""
    chosen = os.environ.get(CACHE_ENV)
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "uno-attack" / "pico-sim"


def firmware_digest() -> str:
    """Names the firmware build: the UF2 and every firmware source byte."""
    from firmware_bridge.installer import source_files

    digest = hashlib.sha256(UF2.name.encode())
    for path in source_files():
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def prepared_flash(folder: Path | None = None) -> Path:
    """A flash image with MicroPython and our firmware installed (built once, then cached).

    The install is the real one (mpy-cross, then mpremote over the emulated USB serial);
    the image is taken after the board booted the firmware, so a copy of it boots straight
    into our firmware.
    """
    target = (folder or cache_dir()) / f"flash-{firmware_digest()}.bin"
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="pico-sim-install-") as work:
        image = Path(work) / "flash.bin"
        board = PicoBoard(flash=image, realtime=False, workdir=work)
        with board, board.tap() as tap:
            install_firmware(board.serial_url, Path(work) / "build")
            tap.wait_for(b" BOOT ", 60)
        partial = target.with_suffix(".partial")
        shutil.copyfile(image, partial)
        partial.replace(target)
    return target


def install_firmware(port: str, build_dir: Path) -> None:
    """Install compiled modules when mpy-cross is there, else the sources."""
    from firmware_bridge import installer

    try:
        files = installer.build(build_dir)
    except installer.ToolMissing:
        files = installer.source_files()
    installer.install(port, files)
