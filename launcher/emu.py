"""The ``emu://`` launcher: the firmware emulator started in-process, driven through ``serial://``.

Specs::

    emu://                                  a launcher with the default (slow, realistic) mechanism
    emu://?fast=1&seed=3                    a fast mechanism: whole games in seconds (CI, demos)
    emu://?fast=1&faults=drop:0.02,corrupt:0.01,dup:0.01&profile=original-1999
    emu://?cps=8&transit_ms=25&slip=0.05&double=0.02&catch=0.01&battery=0.8

It starts :class:`firmware_bridge.emulator.Emulator` (the real firmware logic on a
pseudo-terminal, with the mechanism model and the fault plan) and opens its pty
with the very same :class:`~firmware_bridge.client.FirmwareClient` a Pico gets, so
everything ``serial://`` does -- handshake, retransmission, event repair, reconnects
-- is exercised for real. Loading the launcher also loads the emulated hopper, so
the cards the game loads are the cards the mechanism can shoot.

Options: those of ``serial://`` (minus the port), plus ``faults=`` (the emulator's
fault plan, ``docs/firmware.md``), ``mseed=`` (mechanism and board seed, default
``seed``), the mechanism's ``cps``, ``transit_ms``, ``slip``, ``double``, ``catch``,
``battery``, ``stall``, and ``fast=1``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from firmware_bridge.client import FirmwareClient, Timing
from firmware_bridge.session import RetryPolicy
from hardware.errors import ConfigError
from hardware.mechanism import OPTION_FIELDS, MechanismParams
from launcher.base import T
from launcher.errors import BadSpec
from launcher.profiles import DEFAULT_PROFILE, Profile, load_profile
from launcher.serial import FeedSettings, SerialLauncher, feed_settings, link_timing

if TYPE_CHECKING:
    from firmware_bridge.emulator import Emulator
    from launcher.spec import ParsedSpec, SpecOptions

SPEC_FORM = (
    "emu://?fast=1&seed=N&profile=NAME&faults=PLAN&mseed=N&cps=N&transit_ms=MS&slip=P&double=P"
    "&catch=P&battery=0..1&stall=0..1 (plus serial:// options such as duty=, jam_ms=, ms_per_card=)"
)


#: ``fast=1``: 2000 cards/s (a real roller does ~4), short jam timers, link timers to match.
FAST_MECHANISM = {"cards_per_second": 2000.0, "card_transit_ms": 0.2}
FAST_FEED = FeedSettings(ms_per_card=10.0, jam_ms=100, block_ms=50)
FAST_TIMING = Timing(retry=RetryPolicy((0.05, 0.1, 0.2, 0.4)), keepalive=0.1, quiet=0.1)


class EmulatedHopperLauncher(SerialLauncher[T]):
    """A serial launcher whose far end is emulated hardware, so the host also plays the person.

    Loading the launcher puts the same cards in the emulated hopper; :attr:`cards_fed` is what
    a perfect sensor would have counted; clearing a fault first pulls out a stuck card. The
    emulation itself (the in-process emulator, an emulated Pico) is the subclass's: it says
    how to fill and empty its hopper and how to pull a stuck card.
    """

    def __init__(
        self,
        client: FirmwareClient,
        profile: Profile | str = DEFAULT_PROFILE,
        *,
        seed: int | None = None,
        settings: FeedSettings | None = None,
    ) -> None:
        super().__init__(client, profile, seed=seed, settings=settings)
        #: Cards put into the emulated hopper so far (for card accounting in tests).
        self.cards_loaded = 0

    def _fill_hopper(self, n: int) -> None:
        raise NotImplementedError

    def _empty_hopper(self) -> int:
        raise NotImplementedError

    def _hopper_left(self) -> int:
        raise NotImplementedError

    def _pull_stuck_card(self) -> None:
        raise NotImplementedError

    @property
    def physical_hopper(self) -> int:
        """Cards in the emulated hopper now (what a person would see in it)."""
        return self._hopper_left()

    @property
    def cards_fed(self) -> int:
        """Cards that left the emulated hopper: what a perfect sensor would have counted."""
        return self.cards_loaded - self._hopper_left()

    def load(self, cards: Iterable[T]) -> None:
        cards = list(cards)
        super().load(cards)
        self.fill(len(cards))

    def fill(self, n: int) -> None:
        """Put ``n`` cards in the emulated hopper (behind the host's model, like a person)."""
        self._fill_hopper(n)
        self.cards_loaded += n

    def unload(self) -> list[T]:
        cards = super().unload()
        self.cards_loaded -= self._empty_hopper()
        return cards

    def clear_fault(self) -> bool:
        """Clear the firmware fault; like a person, first pull out a stuck card."""
        self._pull_stuck_card()
        return super().clear_fault()


class EmuLauncher(EmulatedHopperLauncher[T]):
    """A serial launcher whose far end is an in-process :class:`Emulator` (stopped on close)."""

    backend = "emu"

    def __init__(
        self,
        emulator: Emulator,
        client: FirmwareClient,
        profile: Profile | str = DEFAULT_PROFILE,
        *,
        seed: int | None = None,
        settings: FeedSettings | None = None,
    ) -> None:
        super().__init__(client, profile, seed=seed, settings=settings)
        self.emulator = emulator

    def _fill_hopper(self, n: int) -> None:
        self.emulator.load(n)

    def _empty_hopper(self) -> int:
        return self.emulator.mechanism.unload()

    def _hopper_left(self) -> int:
        return self.emulator.mechanism.hopper

    def _pull_stuck_card(self) -> None:
        if self.emulator.mechanism.jammed:
            self.emulator.clear_jam()

    def _close(self) -> None:
        try:
            super()._close()
        finally:
            self.emulator.stop()

    def describe(self) -> str:
        return f"port={self.emulator.port} profile={self.profile.name} seed={self.seed}"


def mechanism_params(
    options: SpecOptions, base: Mapping[str, Any] | None = None
) -> MechanismParams:
    """The mechanism: ``base`` (e.g. ``fast=1``'s), each parameter overridable in the spec."""
    values: dict[str, Any] = dict(base or {})
    for key, name in OPTION_FIELDS.items():
        value = options.number(key)
        if value is not None:
            values[name] = value
    try:
        return MechanismParams(**values)
    except (ConfigError, ValueError) as error:
        raise BadSpec(f"{options.spec}: {error}") from None


def open_spec(parsed: ParsedSpec, default_seed: int | None) -> EmuLauncher[object]:
    """Handler for ``emu://``: starts the emulator, then opens it like a serial launcher."""
    options = parsed.options
    if parsed.path:
        raise BadSpec(f"{parsed.spec}: emu:// takes no path", hint=f"expected {SPEC_FORM}")
    fast = options.flag("fast")
    profile = load_profile(options.text("profile", DEFAULT_PROFILE) or DEFAULT_PROFILE)
    seed = options.integer("seed", default_seed)
    mseed = options.integer("mseed", seed if seed is not None else 0)
    faults = options.text("faults")
    mechanism = mechanism_params(options, FAST_MECHANISM if fast else None)
    settings = feed_settings(options, base=FAST_FEED if fast else None)
    timing = link_timing(options, base=FAST_TIMING if fast else None)
    options.finish(SPEC_FORM)
    return open_emulated(
        profile,
        seed=seed,
        mseed=mseed,
        faults=faults,
        mechanism=mechanism,
        settings=settings,
        timing=timing,
    )


def open_emulated(
    profile: Profile | str = DEFAULT_PROFILE,
    *,
    seed: int | None = None,
    mseed: int | None = 0,
    faults: str | None = None,
    mechanism: MechanismParams | None = None,
    settings: FeedSettings | None = None,
    timing: Timing | None = None,
) -> EmuLauncher[object]:
    """Start an emulator (empty hopper) and connect a launcher to it."""
    from firmware_bridge.emulator import Emulator

    try:
        emulator = Emulator(seed=mseed, faults=faults, mechanism=mechanism, cards=0)
    except ConfigError as error:
        raise BadSpec(f"emu://: {error}", hint=error.hint) from None
    port = emulator.start()
    client = FirmwareClient(port, timing=timing, relocate=lambda: emulator.port or port)
    try:
        client.connect()
    except BaseException:
        client.close()
        emulator.stop()
        raise
    return EmuLauncher(emulator, client, profile, seed=seed, settings=settings)
