"""The ``pico-sim://`` launcher: our real firmware on an emulated Pico, the mechanism on its pins.

Specs::

    pico-sim://                                    an emulated Pico of its own (firmware cached)
    pico-sim://?seed=3&profile=irc-bot&cps=20&catch=0.01
    pico-sim://?drop=0.02&corrupt=0.01&fseed=5     the bridge drops/corrupts whole serial lines
    pico-sim://127.0.0.1:5556?serial=5555          a board already running (its control port)

The board is rp2040js running the real MicroPython v1.27.0 rp2 build with our firmware
installed by mpremote (:func:`firmware_bridge.pico_board.prepared_flash`, done once and
cached). The host talks to it with the same :class:`FirmwareClient` a Pico on USB gets,
over the emulated USB CDC serial. The mechanism model (:mod:`hardware.mechanism`) is the
launcher's hardware: a thread reads the motor pins' PWM duty (GP16 minus GP17) and drives
the break-beam input (GP15, low = blocked) through the emulator's control port.

Time: the thread runs the board in lockstep (``docs/firmware.md``): emulated time only
moves when the thread grants a step (2 ms while the roller turns, 10 ms otherwise), and
the mechanism's clock *is* the emulated clock, so a slow or loaded host can never make a
card pass the beam unseen. Emulated time also never runs ahead of the wall clock, so the
firmware's host-silence and watchdog timers never fire earlier than the host expects.
The emulated core runs at 0.1-0.3x real time, so the host's link timers are relaxed
(:data:`PICO_TIMING`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from firmware_bridge.client import FirmwareClient, Timing
from firmware_bridge.pico_board import BoardUnavailable, PicoBoard, prepared_flash
from firmware_bridge.session import RetryPolicy
from hardware.mechanism import Mechanism, MechanismParams
from launcher.base import T
from launcher.emu import EmulatedHopperLauncher, mechanism_params
from launcher.errors import BadSpec
from launcher.profiles import DEFAULT_PROFILE, Profile, load_profile
from launcher.serial import FeedSettings, feed_settings, link_timing

if TYPE_CHECKING:
    from launcher.spec import ParsedSpec

SPEC_FORM = (
    "pico-sim://[127.0.0.1:CTLPORT?serial=PORT&]seed=N&profile=NAME&mseed=N&drop=P&corrupt=P"
    "&fseed=N&flash=IMAGE&cps=N&transit_ms=MS&slip=P&double=P&catch=P&battery=0..1"
    " (plus serial:// options such as duty=, jam_ms=, ms_per_card=)"
)
MOTOR_PIN, DIRECTION_PIN, BEAM_PIN = 16, 17, 15  # firmware_bridge/firmware/hal_rp2.py
#: A quick roller (a real one does ~4 cards/s) whose cards still block the beam for 8 ms,
#: four steps of the 2 ms lockstep: the firmware sees every edge.
PICO_MECHANISM = {"cards_per_second": 50.0, "card_transit_ms": 8.0}
PICO_FEED = FeedSettings(ms_per_card=40.0, jam_ms=400, block_ms=200)
#: The emulated core answers a command in 0.05-0.5 s of wall time (it runs at 0.1-0.3x).
PICO_TIMING = Timing(
    retry=RetryPolicy.doubling(0.5, 4),
    keepalive=0.3,
    quiet=1.0,
    connect_timeout=60.0,
    job_slack=30.0,
)
STEP_MS, IDLE_STEP_MS = 2.0, 10.0


class MechanismDriver:
    """Runs the board in lockstep and plays the launcher's physics on its pins."""

    def __init__(self, board: PicoBoard, mechanism: Mechanism) -> None:
        self.board = board
        self.mechanism = mechanism
        self.lock = threading.Lock()
        self.error: BaseException | None = None
        self.steps = 0
        #: Called in the driver's thread after every step (tests use it to act at a moment
        #: of emulated time, e.g. cut the power in the middle of a job).
        self.on_step: Callable[[MechanismDriver], None] | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="pico-sim-mechanism", daemon=True)

    def start(self) -> None:
        self.board.drive(BEAM_PIN, 1)  # the receiver sees light: beam clear
        with self.lock:
            self.mechanism.advance_to(self.board.hold())
        self._thread.start()

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                self._one_step()
        except BaseException as error:  # the board died: the client's link reports it
            self.error = error

    def _one_step(self) -> None:
        moving = self.mechanism.duty > 0 or self.mechanism.beam_blocked
        step = self.board.step(STEP_MS if moving else IDLE_STEP_MS, (MOTOR_PIN, DIRECTION_PIN))
        with self.lock:
            transitions = self.mechanism.advance_to(step.t)
            duty = step.duty.get(MOTOR_PIN, 0.0) - step.duty.get(DIRECTION_PIN, 0.0)
            self.mechanism.set_duty(min(1.0, max(0.0, duty)))
        for index, (_, blocked) in enumerate(transitions):
            if index:
                self.board.step(0.5)  # two edges in one step: let the firmware see each
            self.board.drive(BEAM_PIN, 0 if blocked else 1)
        self.steps += 1
        if self.on_step is not None:
            self.on_step(self)

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(30)
        try:
            self.board.free()
        except (BoardUnavailable, OSError):
            pass


class PicoSimLauncher(EmulatedHopperLauncher[T]):
    """A serial launcher whose far end is the firmware on an emulated Pico (stopped on close)."""

    backend = "pico-sim"

    def __init__(
        self,
        board: PicoBoard,
        driver: MechanismDriver,
        client: FirmwareClient,
        profile: Profile | str = DEFAULT_PROFILE,
        *,
        seed: int | None = None,
        settings: FeedSettings | None = None,
    ) -> None:
        super().__init__(client, profile, seed=seed, settings=settings)
        self.board = board
        self.driver = driver
        self.mechanism = driver.mechanism

    def _fill_hopper(self, n: int) -> None:
        with self.driver.lock:
            self.mechanism.load(n)

    def _empty_hopper(self) -> int:
        with self.driver.lock:
            return self.mechanism.unload()

    def _hopper_left(self) -> int:
        with self.driver.lock:
            return self.mechanism.hopper

    def _pull_stuck_card(self) -> None:
        with self.driver.lock:
            if self.mechanism.jammed:
                self.mechanism.clear_jam()

    def _close(self) -> None:
        try:
            super()._close()
        finally:
            self.driver.stop()
            if self.board.owned:
                self.board.stop()

    def describe(self) -> str:
        return f"board={self.board.serial_url} profile={self.profile.name} seed={self.seed}"


def open_spec(parsed: ParsedSpec, default_seed: int | None) -> PicoSimLauncher[object]:
    """Handler for ``pico-sim://``: boots (or attaches to) a board, then opens it over serial."""
    options = parsed.options
    profile = load_profile(options.text("profile", DEFAULT_PROFILE) or DEFAULT_PROFILE)
    seed = options.integer("seed", default_seed)
    mseed = options.integer("mseed", seed if seed is not None else 0)
    serial_port = options.integer("serial", minimum=1)
    flash = options.text("flash")
    drop, corrupt = options.number("drop", 0.0) or 0.0, options.number("corrupt", 0.0) or 0.0
    fseed = options.integer("fseed", 1, minimum=1) or 1
    mechanism = mechanism_params(options, PICO_MECHANISM)
    settings = feed_settings(options, base=PICO_FEED)
    timing = link_timing(options, base=PICO_TIMING)
    options.finish(SPEC_FORM)
    if not 0 <= drop + corrupt <= 1:
        raise BadSpec(f"{parsed.spec}: drop + corrupt must be a probability (0..1)")
    board = _board(parsed, serial_port, flash)
    try:
        if drop or corrupt:
            board.set_faults(drop=drop, corrupt=corrupt, seed=fseed)
        return open_pico(
            board,
            profile,
            seed=seed,
            mseed=mseed,
            mechanism=mechanism,
            settings=settings,
            timing=timing,
        )
    except BaseException:
        if board.owned:
            board.stop()
        raise


def _board(parsed: ParsedSpec, serial_port: int | None, flash: str | None) -> PicoBoard:
    if parsed.path:
        host, _, ctl = parsed.path.strip("/").partition(":")
        if host not in ("127.0.0.1", "localhost") or not ctl.isdigit() or serial_port is None:
            raise BadSpec(
                f"{parsed.spec}: attach as pico-sim://127.0.0.1:CTLPORT?serial=PORT",
                hint=f"expected {SPEC_FORM}",
            )
        return PicoBoard.attach(serial_port, int(ctl))
    if flash and not Path(flash).exists():
        raise BadSpec(f"{parsed.spec}: no flash image {flash}")
    return start_board(flash)


def start_board(flash: Path | str | None = None) -> PicoBoard:
    """Boot an emulated Pico from a copy of ``flash`` (default: our firmware, installed once)."""
    image = Path(flash) if flash else prepared_flash()
    board = PicoBoard(realtime=True)
    board.flash.write_bytes(image.read_bytes())  # a private copy: the game never alters the cache
    return board.start()


def open_pico(
    board: PicoBoard,
    profile: Profile | str = DEFAULT_PROFILE,
    *,
    seed: int | None = None,
    mseed: int | None = 0,
    mechanism: MechanismParams | None = None,
    settings: FeedSettings | None = None,
    timing: Timing | None = None,
) -> PicoSimLauncher[object]:
    """Start the mechanism on ``board`` (empty hopper) and connect a launcher to its firmware."""
    params = mechanism or MechanismParams(
        cards_per_second=PICO_MECHANISM["cards_per_second"],
        card_transit_ms=PICO_MECHANISM["card_transit_ms"],
    )
    driver = MechanismDriver(board, Mechanism(params, seed=mseed, cards=0))
    driver.start()
    client = FirmwareClient(board.serial_url, timing=timing or PICO_TIMING)
    try:
        client.connect()
    except BaseException:
        client.close()
        driver.stop()
        raise
    chosen = settings or PICO_FEED
    return PicoSimLauncher(board, driver, client, profile, seed=seed, settings=chosen)
