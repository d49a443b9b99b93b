"""The ``serial://`` launcher: a Raspberry Pi Pico running our firmware, over USB serial.

Specs::

    serial:///dev/serial/by-id/usb-MicroPython_Board_in_FS_mode_e6614c311b7e6f35-if00
    serial:///dev/ttyACM0?baud=115200&timeout=5&profile=original-1999&seed=7&duty=80

The profile decides each press on the host (as for ``sim://`` and ``gpio://``);
the firmware runs the job on its own -- motor on, count cards at the beam, stop at
the count, stop on jam, beam blocked, maximum time or host silence -- and the host
keeps the link alive while it runs (:mod:`firmware_bridge.client`). Card
identities come from the hopper model: ``Volley.identities_known`` is False.

A fault in the middle of a press still accounts for the cards that came out
before it: they are on ``error.volley`` (and ``error.counted``), exactly as with
``gpio://``. ``docs/serial.md`` is the user's guide.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any

from firmware_bridge import protocol
from firmware_bridge.client import FirmwareClient, PinReport, Status, Timing
from firmware_bridge.errors import LinkLost, ProtocolError
from firmware_bridge.session import JobResult, RetryPolicy, empty_error
from hardware.errors import ConfigError, LauncherError
from launcher.base import Launcher, T
from launcher.errors import BadSpec
from launcher.profiles import DEFAULT_PROFILE, IIDProfile, PatternProfile, Profile, load_profile
from launcher.selftest import SelfTestResult

if TYPE_CHECKING:
    from launcher.spec import ParsedSpec, SpecOptions

SPEC_FORM = (
    "serial:///dev/serial/by-id/PORT?baud=115200&timeout=SECONDS&profile=NAME&seed=N"
    "&duty=0..100&jam_ms=MS&block_ms=MS&max_ms=MS&ms_per_card=MS&sensor=1|0&retry_ms=MS&tries=N"
)


@dataclass(frozen=True)
class FeedSettings:
    """How the firmware should run a feed; the firmware clamps each to its compiled-in limits."""

    duty: int = 100
    jam_ms: int = protocol.LIMITS["jam_ms"][2]
    block_ms: int = protocol.LIMITS["block_ms"][2]
    #: Expected motor time per card: the open-loop run time, and the basis of max_ms.
    ms_per_card: float = 250.0
    #: Longest a FEED may run; None = 3 x ms_per_card per card + 1 s.
    max_ms: int | None = None
    #: False for a build without a break-beam: presses run open loop (RUN) for ms_per_card x n.
    sensor: bool = True

    def job_max_ms(self, n: int) -> int:
        if self.max_ms is not None:
            return self.max_ms
        return protocol.clamp("max_ms", int(3 * self.ms_per_card * n + 1000))


class SerialLauncher(Launcher[T]):
    """A launcher whose motor and sensor hang off a microcontroller running our firmware.

    ``ms_per_card`` and :meth:`run_motor` are the tuning hooks of ``uno-attack calibrate
    tune``; :meth:`clear_fault`, :meth:`status` and :meth:`push_profile` reach the firmware.
    """

    backend = "serial"
    identities_known = False

    def __init__(
        self,
        client: FirmwareClient,
        profile: Profile | str = DEFAULT_PROFILE,
        *,
        seed: int | None = None,
        settings: FeedSettings | None = None,
    ) -> None:
        super().__init__()
        self.client = client
        self.profile = load_profile(profile) if isinstance(profile, str) else profile
        self.seed = seed
        self.settings = settings or FeedSettings()
        self._sampler = self.profile.sampler(seed)
        #: Every finished job, oldest first (for logs, tests and calibration).
        self.jobs: list[JobResult] = []
        self._counted_at_error: dict[int, int] = {}
        self._hopper_known = False

    # -- tuning contract --------------------------------------------------------------
    @property
    def ms_per_card(self) -> float:
        return self.settings.ms_per_card

    @ms_per_card.setter
    def ms_per_card(self, value: float) -> None:
        if not value > 0:
            raise ConfigError(f"ms_per_card={value!r} must be a positive number of milliseconds")
        self.settings = replace(self.settings, ms_per_card=float(value))

    def run_motor(self, ms: float) -> int:
        """Run the motor open loop for ``ms`` (RUN) and return the cards the beam counted."""
        with self._lock:
            self._check_open()
            result = self.client.run(protocol.clamp("ms", round(ms)), duty=self.settings.duty)
            self.jobs.append(result)
            return result.counted

    def clear_fault(self) -> bool:
        """Clear a latched firmware fault (a person fixed the launcher); True if one was set."""
        with self._lock:
            had_fault = self.client.status().state == protocol.STATE_FAULT
            self.client.clear_fault()
            return had_fault

    def status(self) -> Status:
        return self.client.status()

    def push_profile(self, profile: Profile | str | None = None) -> None:
        """Store a profile on the device for standalone mode (its own button fires by it)."""
        chosen = self.profile if profile is None else profile
        self.client.push_profile(
            profile_fields(load_profile(chosen) if isinstance(chosen, str) else chosen)
        )

    # -- bring-up test ----------------------------------------------------------------
    def self_test(self, *, pulse_ms: float = 500.0) -> SelfTestResult:
        """Ask the firmware for its pins (SELFTEST), then pulse the motor and watch the beam.

        With cards in the hopper the pulse is a one-card FEED that gives up after
        ``pulse_ms`` without a card: it fails when the motor ran and no card passed. The card
        that comes out leaves the hopper model. With an empty hopper the motor runs
        ``pulse_ms`` open loop and the beam cannot be judged (``docs/serial.md``).
        """
        with self._lock:
            self._check_open()
            result = SelfTestResult()
            try:
                pins = self.client.selftest()
            except ProtocolError:
                result.add(
                    "firmware",
                    False,
                    "does not know SELFTEST (older than firmware 0.2.0): reinstall it with "
                    "`uno-attack firmware install --port PORT`",
                )
                return result
            status = self.client.status()
            result.readings = {**asdict(pins), "fault": status.fault, "total": status.total}
            if status.fault != protocol.FAULT_NONE:
                detail = f"{status.fault} is latched: fix it, then `uno-attack launcher clear`"
                result.add("fault", False, detail)
                return result
            result.add("fault", True, "none latched")
            self._check_pins(result, pins)
            if not pins.beam_blocked:
                self._pulse(result, pulse_ms)
            return result

    @staticmethod
    def _check_pins(result: SelfTestResult, pins: PinReport) -> None:
        result.add(
            "beam",
            not pins.beam_blocked,
            "blocked with the motor off: emitter unpowered or misaligned, or a card in the mouth"
            if pins.beam_blocked
            else f"clear with the motor off ({pins.glitches} glitch(es) filtered since boot)",
        )
        result.add(
            "button",
            not pins.button_pressed,
            "reads pressed while nobody presses it: shorted, or on the wrong pin"
            if pins.button_pressed
            else "released",
        )

    def _pulse(self, result: SelfTestResult, pulse_ms: float) -> None:
        ms = protocol.clamp("ms", round(pulse_ms))
        loaded = self.remaining
        try:
            if loaded == 0 or not self.settings.sensor:
                run = self.client.run(ms, duty=self.settings.duty)
                self.jobs.append(run)
                why = "no cards loaded (--cards N)" if loaded == 0 else "no beam on this build"
                detail = f"ran {ms} ms, {run.counted} card(s) passed the beam; {why}"
                result.add("motor", None, detail)
                return
            settings = self.settings
            job = self.client.feed(
                1,
                max_ms=settings.job_max_ms(1),
                jam_ms=ms,
                block_ms=settings.block_ms,
                duty=settings.duty,
            )
        except LauncherError as error:
            result.add("motor", False, str(error))
            return
        self.jobs.append(job)
        for _ in range(min(job.counted, self.remaining)):
            self._hopper.popleft()  # the card that came out is no longer in the hopper
        passed = job.counted >= 1
        detail = f"ran {job.elapsed_ms:.0f} ms with {loaded} card(s) loaded: {job.counted} passed"
        if not passed:
            detail += " the beam (motor wiring or supply, the roller, or the beam)"
        result.add("motor", passed, detail)

    # -- pressing ---------------------------------------------------------------------
    def _on_load(self, loaded: int) -> None:
        self._sampler.reset()
        self._hopper_known = True

    def _press(self, loaded: int) -> int:
        wanted = self._sampler.next(loaded)
        # Never loaded through us (e.g. `launcher fire` on a filled hopper): trust the profile.
        requested = min(wanted, loaded) if self._hopper_known else wanted
        self.press_meta.update(wanted=wanted, requested=requested, motor_ms=0.0)
        counted = 0
        if requested > 0:
            result = self._shoot_once(requested)
            self.jobs.append(result)
            if result.reason == protocol.REASON_EMPTY and self.settings.sensor:
                raise empty_error(self.client.path, result.job, jam_ms=self.settings.jam_ms)
            self.press_meta.update(
                motor_ms=round(result.elapsed_ms, 1), job=result.job, reason=result.reason
            )
            counted = requested if not self.settings.sensor else result.counted
        late = self._late_cards()
        if late:
            self.press_meta["late_cards"] = late
        return counted + late

    def _late_cards(self) -> int:
        """Cards an interrupted press shot after its LinkLost error (known once reconnected).

        They physically came out, so they leave the hopper model with this press
        (``meta["late_cards"]``) rather than go missing.
        """
        late = 0
        for result in self.client.take_late():
            late += max(0, result.counted - self._counted_at_error.pop(result.job, 0))
        return late

    def _shoot_once(self, n: int) -> JobResult:
        """One job; a lost link remembers how far it got, to account for late cards later."""
        try:
            return self._shoot(n)
        except LinkLost as error:
            job = getattr(error, "job", None)
            if job is not None:
                self._counted_at_error[job] = error.counted
            raise

    def _shoot(self, n: int) -> JobResult:
        settings = self.settings
        if not settings.sensor:
            ms = protocol.clamp("ms", round(settings.ms_per_card * n))
            return self.client.run(ms, duty=settings.duty)
        return self.client.feed(
            n,
            max_ms=settings.job_max_ms(n),
            jam_ms=settings.jam_ms,
            block_ms=settings.block_ms,
            duty=settings.duty,
        )

    # -- lifecycle --------------------------------------------------------------------
    def _close(self) -> None:
        self.client.close()

    def describe(self) -> str:
        return f"port={self.client.path} profile={self.profile.name} seed={self.seed}"


# -- profiles for standalone mode ---------------------------------------------------------
def per_mille(probabilities: Sequence[float]) -> list[int]:
    """Per-mille values summing to exactly 1000 (the codec's rounding), trailing zeros dropped."""
    values: list[int] = protocol.per_mille(list(probabilities))
    while len(values) > 1 and values[-1] == 0:
        values.pop()
    return values


def profile_fields(profile: Profile) -> list[tuple[str, object]]:
    """The PROFILE command fields for ``profile``; ConfigError if the firmware cannot hold it."""
    fields: list[tuple[str, object]]
    if isinstance(profile, IIDProfile):
        fields = [("kind", "iid"), ("p", per_mille(profile.probabilities))]
    elif isinstance(profile, PatternProfile):
        if profile.cycle > protocol.MAX_PATTERN_CYCLE:
            raise ConfigError(
                f"profile {profile.name}: cycle {profile.cycle} is longer than the firmware's "
                f"{protocol.MAX_PATTERN_CYCLE} presses"
            )
        fires = protocol.fires_mask(list(profile.fires))
        p = per_mille(profile.firing)
        fields = [("kind", "pattern"), ("cycle", profile.cycle), ("fires", fires), ("p", p)]
    else:
        raise ConfigError(
            f"profile {profile.name} is of kind {profile.kind}; the firmware's standalone mode "
            "stores iid and pattern profiles only"
        )
    _check_fits(profile, fields)
    return fields


def _check_fits(profile: Profile, fields: list[tuple[str, object]]) -> None:
    p = fields[-1][1]
    if isinstance(p, list) and len(p) > protocol.MAX_PROFILE_VALUES:
        raise ConfigError(
            f"profile {profile.name}: {len(p)} count probabilities, the firmware holds at most "
            f"{protocol.MAX_PROFILE_VALUES}"
        )
    try:
        protocol.encode("C", 0, "PROFILE", fields)
    except ValueError as error:
        raise ConfigError(
            f"profile {profile.name} does not fit one protocol frame: {error}"
        ) from None


# -- spec handling ----------------------------------------------------------------------
def feed_settings(options: SpecOptions, *, base: FeedSettings | None = None) -> FeedSettings:
    """The feed options shared by ``serial://`` and ``emu://``; ``base`` gives the defaults."""
    defaults = base or FeedSettings()
    duty = _given(options.integer("duty", defaults.duty, minimum=0), defaults.duty)
    if duty > 100:
        raise BadSpec(f"{options.spec}: option duty={duty} must be 0..100 (percent)")
    ms_per_card = _given(options.number("ms_per_card"), defaults.ms_per_card)
    if not ms_per_card > 0:
        raise BadSpec(f"{options.spec}: option ms_per_card={ms_per_card} must be a positive number")
    return FeedSettings(
        duty=duty,
        jam_ms=_given(options.integer("jam_ms", minimum=1), defaults.jam_ms),
        block_ms=_given(options.integer("block_ms", minimum=1), defaults.block_ms),
        ms_per_card=float(ms_per_card),
        max_ms=_given(options.integer("max_ms", minimum=1), defaults.max_ms),
        sensor=options.flag("sensor", defaults.sensor),
    )


def _given(value: Any, default: Any) -> Any:
    return default if value is None else value


def link_timing(options: SpecOptions, *, base: Timing | None = None) -> Timing:
    """``timeout=`` (handshake, seconds), ``retry_ms=`` (first retransmit wait) and ``tries=``."""
    base = base or Timing()
    timeout = options.number("timeout", base.connect_timeout)
    if timeout is not None and timeout < 0:
        raise BadSpec(f"{options.spec}: option timeout={timeout} must be zero or more seconds")
    first = options.integer("retry_ms", round(base.retry.timeouts[0] * 1000), minimum=1)
    tries = options.integer("tries", base.retry.tries, minimum=1)
    retry = RetryPolicy.doubling(_given(first, 100) / 1000, _given(tries, 3))
    return replace(base, retry=retry, connect_timeout=_given(timeout, base.connect_timeout))


def open_spec(parsed: ParsedSpec, default_seed: int | None) -> SerialLauncher[object]:
    """Handler for ``serial://``: opens the port and shakes hands before returning."""
    options = parsed.options
    if not parsed.path:
        raise BadSpec(f"{parsed.spec}: no serial port given", hint=f"expected {SPEC_FORM}")
    baud = _given(options.integer("baud", 115200, minimum=1), 115200)
    profile = options.text("profile", DEFAULT_PROFILE) or DEFAULT_PROFILE
    seed = options.integer("seed", default_seed)
    settings = feed_settings(options)
    timing = link_timing(options)
    options.finish(SPEC_FORM)
    return open_serial(
        parsed.path, baud=baud, profile=profile, seed=seed, settings=settings, timing=timing
    )


def open_serial(
    path: str,
    *,
    baud: int = 115200,
    profile: Profile | str = DEFAULT_PROFILE,
    seed: int | None = None,
    settings: FeedSettings | None = None,
    timing: Timing | None = None,
) -> SerialLauncher[object]:
    """Open the launcher at ``path``; the profile loads first, so a typo fails early."""
    chosen = load_profile(profile) if isinstance(profile, str) else profile
    client = FirmwareClient(path, baud=baud, timing=timing)
    try:
        client.connect()
    except BaseException:
        client.close()
        raise
    return SerialLauncher(client, chosen, seed=seed, settings=settings)
