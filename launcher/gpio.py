"""The ``gpio://`` launcher: a Raspberry Pi drives the motor and counts cards with a break-beam.

Specs::

    gpio://?motor=17,18&beam=27&button=22&led=23&buzzer=24&profile=web-game&seed=7
    gpio://?config=/etc/uno-attack/launcher.toml&profile=original-1999
    gpio://?mock=1&slip=0.05&double=0.02&catch=0.01&battery=0.8

Pin and driving keys are those of :mod:`hardware.pinmap` (a spec option wins over
the same key in ``config=``). ``mock=1`` builds the whole launcher on gpiozero's
``MockFactory`` with the mechanism model on a virtual clock (:mod:`hardware.mock_rig`),
so games and tests run without a Pi, and nothing sleeps.

Card identities: the beam only counts. The launcher's hopper model (launcher.base)
deals the identities, bottom card first, exactly as the simulated launcher does;
``Volley.identities_known`` is False so the game knows they are the model's, and a
count beyond the model shows up as ``Volley.shortfall`` (docs/hardware.md,
"Card identities").

Faults: a jam mid-press raises :class:`~hardware.errors.LauncherJam` carrying the cards
counted before it on ``error.volley`` (so none goes missing from the game) and stays
latched until :meth:`GpioLauncher.clear_fault`. On a mock rig, ``attendant=1`` adds a
simulated person who clears every fault at once, for long simulations with failures.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from hardware.errors import ConfigError, LauncherError, LauncherFault
from hardware.pinmap import (
    DEFAULT_PINS,
    KEYS,
    PinMap,
    load_pinmap,
    pinmap_from_mapping,
    with_overrides,
)
from launcher.base import Launcher, T
from launcher.errors import BadSpec
from launcher.profiles import DEFAULT_PROFILE, Profile, load_profile

if TYPE_CHECKING:
    from hardware.gpio_driver import GpioDriver
    from hardware.mock_rig import MockRig
    from launcher.spec import ParsedSpec, SpecOptions

SPEC_FORM = (
    "gpio://?motor=F,B&beam=PIN&button=PIN&led=PIN&buzzer=PIN&profile=NAME&seed=N "
    "(or config=FILE.toml; mock=1 with slip=,double=,catch=,battery=,cps=,stall=,transit_ms=,"
    "cards=,mseed=,attendant=1)"
)


class GpioLauncher(Launcher[T]):
    """A launcher on GPIO pins: the profile decides each press, the beam counts what came out.

    ``ms_per_card`` and :meth:`run_motor` are the tuning hooks `uno-attack calibrate tune`
    uses; ``rig`` is the mock rig when the pins are gpiozero mocks.
    """

    backend = "gpio"
    identities_known = False

    def __init__(
        self,
        driver: GpioDriver,
        profile: Profile | str = DEFAULT_PROFILE,
        *,
        seed: int | None = None,
        rig: MockRig | None = None,
        attendant: bool = False,
    ) -> None:
        super().__init__()
        self.driver = driver
        self.rig = rig
        if attendant and rig is None:
            raise ConfigError("attendant=1 (a simulated person who clears jams) needs mock=1")
        #: Mock rigs only: a simulated person clears every fault at once, so long simulations
        #: with failure modes keep going; each fault they cleared is kept in ``attended``.
        self.attendant = attendant
        self.attended: list[str] = []
        self.profile = load_profile(profile) if isinstance(profile, str) else profile
        self.seed = seed
        self._sampler = self.profile.sampler(seed)
        self._hopper_known = False

    # -- tuning contract --------------------------------------------------------------
    @property
    def ms_per_card(self) -> float:
        return self.driver.pinmap.ms_per_card

    @ms_per_card.setter
    def ms_per_card(self, value: float) -> None:
        if not value > 0:
            raise ConfigError(f"ms_per_card={value!r} must be a positive number of milliseconds")
        self.driver.pinmap = with_overrides(self.driver.pinmap, ms_per_card=float(value))

    def run_motor(self, ms: float) -> int:
        """Run the motor open loop for ``ms`` and return the cards the beam counted."""
        if self.driver.beam is None:
            raise ConfigError("run_motor counts cards with the beam, and no beam pin is configured")
        with self._lock:
            self._check_open()
            return self.driver.run_for(ms).counted

    def clear_fault(self) -> bool:
        """Allow firing again once a person fixed a jam (on a mock rig the rig is the person)."""
        if self.rig is not None and self.rig.mechanism.jammed:
            self.rig.clear_jam()
        return self.driver.clear_fault()

    @property
    def fault(self) -> LauncherFault | None:
        return self.driver.fault

    # -- hopper -----------------------------------------------------------------------
    def load(self, cards: Iterable[T]) -> None:
        cards = list(cards)
        super().load(cards)
        if self.rig is not None:
            self.rig.load(len(cards))

    def unload(self) -> list[T]:
        cards = super().unload()
        if self.rig is not None:
            self.rig.mechanism.unload()
        return cards

    def _on_load(self, loaded: int) -> None:
        self._sampler.reset()
        self._hopper_known = True
        from hardware.gpio_driver import READY_BEEP

        self.driver.signal(READY_BEEP)

    # -- pressing ---------------------------------------------------------------------
    def _press(self, loaded: int) -> int:
        from hardware.gpio_driver import DING

        wanted = self._sampler.next(loaded)
        requested = min(wanted, loaded) if self._hopper_known else wanted
        self.press_meta.update(wanted=wanted, requested=requested)
        self.driver.check_fault()
        self.driver.signal(DING)
        try:
            result = self.driver.feed(requested)
        except LauncherFault as error:
            self.press_meta.update(motor_ms=error.motor_ms or 0.0, stopped=error.fault)
            raise
        self.press_meta.update(
            motor_ms=result.motor_ms, stopped=result.stopped, closed_loop=result.closed_loop
        )
        return result.counted

    def _recover(self, error: LauncherError) -> bool:
        """On the mock, an attendant (``attendant=1``) clears the fault and play goes on."""
        if not self.attendant or self.rig is None or not isinstance(error, LauncherFault):
            return False
        self.attended.append(error.fault)
        self.clear_fault()
        if self.rig.mechanism.hopper != self.remaining:
            # the beam missed a double feed earlier: the person makes the hopper match the game
            self.rig.mechanism.unload()
            self.rig.load(self.remaining)
        return True

    # -- lifecycle --------------------------------------------------------------------
    def _close(self) -> None:
        self.driver.close()
        if self.rig is not None:
            self.rig.close()

    def describe(self) -> str:
        pins = ",".join(f"{role}={pin}" for role, pin in self.driver.pinmap.pins().items())
        mock = " mock" if self.rig is not None else ""
        return f"profile={self.profile.name} seed={self.seed} {pins}{mock}"


# -- spec handling ----------------------------------------------------------------------
def _pin_options(options: SpecOptions) -> dict[str, str]:
    return {key: value for key in KEYS if (value := options.text(key)) is not None}


def _mechanism_params(options: SpecOptions, mock: bool) -> Any:
    from hardware.mechanism import OPTION_FIELDS, MechanismParams

    given = {field: options.number(key) for key, field in OPTION_FIELDS.items()}
    values: dict[str, Any] = {f: value for f, value in given.items() if value is not None}
    if values and not mock:
        raise BadSpec(
            f"{options.spec}: mechanism options ({', '.join(values)}) only apply with mock=1"
        )
    try:
        return MechanismParams(**values)
    except ConfigError as error:
        raise BadSpec(f"{options.spec}: {error}") from None


def build_pinmap(options: SpecOptions, *, mock: bool) -> PinMap:
    """The pin map from ``config=`` and/or the spec's own keys (the mock rig has default pins)."""
    config = options.text("config")
    overrides = _pin_options(options)
    if config:
        return load_pinmap(config, overrides)
    return pinmap_from_mapping(overrides, options.spec, defaults=DEFAULT_PINS if mock else None)


def open_spec(parsed: ParsedSpec, default_seed: int | None) -> GpioLauncher[object]:
    """Handler for ``gpio://``."""
    options = parsed.options
    mock = options.flag("mock")
    profile = options.text("profile", DEFAULT_PROFILE) or DEFAULT_PROFILE
    seed = options.integer("seed", default_seed)
    mechanism_seed = options.integer("mseed", seed)
    cards = options.integer("cards", 0, minimum=0) or 0
    params = _mechanism_params(options, mock)
    attendant = options.flag("attendant")
    pinmap = build_pinmap(options, mock=mock)
    options.finish(SPEC_FORM)
    loaded_profile = load_profile(profile)
    if mock:
        launcher = open_mock(
            pinmap,
            params,
            profile=loaded_profile,
            seed=seed,
            mechanism_seed=mechanism_seed,
            cards=cards,
        )
        launcher.attendant = attendant
        return launcher
    if attendant:
        raise BadSpec(f"{parsed.spec}: attendant=1 (a simulated person) only applies with mock=1")
    return open_real(pinmap, profile=loaded_profile, seed=seed)


def open_mock(
    pinmap: PinMap,
    params: Any = None,
    *,
    profile: Profile | str = DEFAULT_PROFILE,
    seed: int | None = None,
    mechanism_seed: int | None = None,
    cards: int = 0,
) -> GpioLauncher[object]:
    """A GPIO launcher on gpiozero mock pins with the mechanism model, on a virtual clock."""
    from hardware.gpio_driver import GpioDriver
    from hardware.mock_rig import MockRig

    rig = MockRig(pinmap, params, seed=mechanism_seed, cards=cards)
    driver = GpioDriver(pinmap, pin_factory=rig.factory, clock=rig.clock)
    return GpioLauncher(driver, profile, seed=seed, rig=rig)


def open_real(
    pinmap: PinMap, *, profile: Profile | str = DEFAULT_PROFILE, seed: int | None = None
) -> GpioLauncher[object]:
    """A GPIO launcher on the Pi's pins (gpiozero's default pin factory, e.g. lgpio)."""
    from hardware.errors import LauncherUnavailable
    from hardware.gpio_driver import GpioDriver
    from hardware.pin_factory import LGPIO_HINT, lgpio_problem

    try:
        with warnings.catch_warnings():
            warnings.simplefilter(
                "ignore"
            )  # gpiozero's PinFactoryFallback chatter; the error says it all
            driver = GpioDriver(pinmap)
    except (ConfigError, LauncherUnavailable):
        raise
    except Exception as error:  # gpiozero's BadPinFactory, PinInvalidPin, permission errors...
        missing = lgpio_problem()
        if missing is not None:
            raise LauncherUnavailable(
                f"cannot open the GPIO pins: lgpio is not installed ({missing}); "
                f"gpiozero then said {type(error).__name__}: {error}",
                hint=LGPIO_HINT + "; or use gpio://?mock=1 without a Pi",
            ) from None
        raise LauncherUnavailable(
            f"cannot open the GPIO pins ({type(error).__name__}: {error})",
            hint="run on a Raspberry Pi, as a user in the gpio group, or use gpio://?mock=1",
        ) from None
    return GpioLauncher(driver, profile, seed=seed)
