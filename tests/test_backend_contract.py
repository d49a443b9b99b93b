"""One behavioural contract, every launcher backend.

The rules engine only ever sees :class:`launcher.base.Launcher`: it loads cards, presses,
reads the :class:`~launcher.base.Volley` and unloads at the end of a round. Each test here
states one promise it relies on and runs it against every backend opened by
``open_launcher(spec)``, the way gpiozero runs one suite over every pin factory:

* ``sim``        ``sim://`` -- the hopper model is the hopper;
* ``gpio-mock``  ``gpio://?mock=1`` -- gpiozero's MockFactory + the mechanism model, virtual clock;
* ``emu``        ``emu://?fast=1`` -- the firmware logic on a pty, through the real serial client;
* ``pico-sim``   ``pico-sim://`` -- the real firmware under real MicroPython on an emulated RP2040
  (rp2040js), one board shared by the module (each launcher attaches to it), few examples;
* ``gpio``       real pins, only with ``UNO_ATTACK_TEST_GPIO=1`` (+ ``UNO_ATTACK_TEST_GPIO_SPEC``);
* ``serial``     a real Pico, only with ``UNO_ATTACK_TEST_SERIAL=/dev/ttyACM0``.

The two hardware backends are skipped, with the reason, unless their variable is set;
that is the only skip in this file (besides ``pico-sim`` outside CI when Node.js or rp2040js
is missing). docs/testing.md says how to run them on a Pi / Pico.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_bridge.pico_board import PicoBoard, emulator_missing, prepared_flash
from hardware.errors import LauncherError, LauncherFault, LauncherJam
from launcher.base import Launcher, Volley
from launcher.errors import BadSpec
from launcher.spec import open_launcher

#: A profile that fires on most presses, so a dozen presses move plenty of cards.
PROFILE = "irc-bot"
GPIO_ENV, GPIO_SPEC_ENV, SERIAL_ENV = (
    "UNO_ATTACK_TEST_GPIO",
    "UNO_ATTACK_TEST_GPIO_SPEC",
    "UNO_ATTACK_TEST_SERIAL",
)
DEFAULT_GPIO_SPEC = "gpio://?config=/etc/uno-attack/launcher.toml"

Fill = Callable[[Launcher[Any], int], None]


def with_options(spec: str, **options: object) -> str:
    """``spec`` with ``&key=value`` appended (``?`` first if it has no options yet)."""
    extra = "&".join(f"{key}={value}" for key, value in options.items())
    return f"{spec}{'&' if '?' in spec else '?'}{extra}"


@dataclass(frozen=True)
class Backend:
    """One backend under test and what the contract may expect of it."""

    name: str
    base: str  # the spec without seed/profile
    backend: str  # Launcher.backend
    deterministic: bool  # same seed => same counts (no real mechanism in the loop)
    motor: bool  # a motor runs, so volleys report motor_ms
    identities_known: bool
    fill: Fill | None = None  # put cards in the physical hopper behind the model's back
    hardware: bool = False
    max_examples: int = 60  # hypothesis examples for the accounting property
    max_load: int = 12

    def spec(self, seed: int = 7, **options: object) -> str:
        return with_options(self.base, seed=seed, profile=PROFILE, **options)


def _fill_rig(launcher: Launcher[Any], n: int) -> None:
    launcher.rig.load(n)  # type: ignore[attr-defined]


def _fill_emulator(launcher: Launcher[Any], n: int) -> None:
    launcher.emulator.load(n)  # type: ignore[attr-defined]


def _fill_pico(launcher: Launcher[Any], n: int) -> None:
    launcher.fill(n)  # type: ignore[attr-defined]


class SharedPico:
    """One emulated Pico for the whole module: booting one costs seconds, attaching none."""

    board: PicoBoard | None = None

    @classmethod
    def base(cls) -> str:
        if cls.board is None:
            image = prepared_flash()
            board = PicoBoard()
            board.flash.write_bytes(image.read_bytes())
            cls.board = board.start()
        return f"pico-sim://127.0.0.1:{cls.board.ctl_port}?serial={cls.board.port}"

    @classmethod
    def stop(cls) -> None:
        if cls.board is not None:
            cls.board.stop()
            cls.board = None


@dataclass(frozen=True)
class PicoBackend(Backend):
    """The emulated Pico: its spec names the shared board, started on first use."""

    def spec(self, seed: int = 7, **options: object) -> str:
        return with_options(SharedPico.base(), seed=seed, profile=PROFILE, **options)


@pytest.fixture(scope="module", autouse=True)
def _stop_the_shared_pico() -> Iterator[None]:
    yield
    SharedPico.stop()


SIM = Backend("sim", "sim://", "sim", deterministic=True, motor=False, identities_known=True)
GPIO_MOCK = Backend(
    "gpio-mock",
    "gpio://?mock=1",
    "gpio",
    deterministic=True,
    motor=True,
    identities_known=False,
    fill=_fill_rig,
)
EMU = Backend(
    "emu",
    "emu://?fast=1",
    "emu",
    deterministic=True,
    motor=True,
    identities_known=False,
    fill=_fill_emulator,
)
PICO = PicoBackend(
    "pico-sim",
    "pico-sim://",
    "pico-sim",
    deterministic=True,
    motor=True,
    identities_known=False,
    fill=_fill_pico,
    max_examples=4,
    max_load=5,
)
_NO_PICO = pytest.mark.skipif(  # in CI a missing emulator fails instead (the board won't start)
    emulator_missing() is not None and not os.environ.get("CI"),
    reason=f"the emulated Pico: {emulator_missing()}",
)
#: Real hardware: counts come from a real roller; a person filled the hopper beforehand.
REAL_GPIO = Backend(
    "gpio",
    os.environ.get(GPIO_SPEC_ENV, DEFAULT_GPIO_SPEC),
    "gpio",
    deterministic=False,
    motor=True,
    identities_known=False,
    hardware=True,
    max_examples=3,
    max_load=4,
)
REAL_SERIAL = Backend(
    "serial",
    f"serial://{os.environ.get(SERIAL_ENV, '')}",
    "serial",
    deterministic=False,
    motor=True,
    identities_known=False,
    hardware=True,
    max_examples=3,
    max_load=4,
)

_NO_GPIO = pytest.mark.skipif(
    os.environ.get(GPIO_ENV) != "1",
    reason=f"real GPIO pins: set {GPIO_ENV}=1 (and {GPIO_SPEC_ENV}) on a wired Pi",
)
_NO_SERIAL = pytest.mark.skipif(
    not os.environ.get(SERIAL_ENV),
    reason=f"a real Pico: set {SERIAL_ENV}=/dev/ttyACM0 (or any serial port)",
)
ALL = [
    pytest.param(SIM, id="sim"),
    pytest.param(GPIO_MOCK, id="gpio-mock"),
    pytest.param(EMU, id="emu"),
    pytest.param(PICO, id="pico-sim", marks=_NO_PICO),
    pytest.param(REAL_GPIO, id="gpio", marks=_NO_GPIO),
    pytest.param(REAL_SERIAL, id="serial", marks=_NO_SERIAL),
]
#: Backends that count cards with a sensor behind a physical hopper the model only mirrors.
SENSOR = [param for param in ALL if param.values[0] is not SIM]


@pytest.fixture(params=ALL)
def backend(request: pytest.FixtureRequest) -> Backend:
    chosen: Backend = request.param
    return chosen


@pytest.fixture
def launcher(backend: Backend) -> Iterator[Launcher[Any]]:
    with open_launcher(backend.spec()) as opened:
        if isinstance(backend, PicoBackend):  # one board for the module: a test that failed
            opened.clear_fault()  # with a latched fault must not fail every test after it
        yield opened


def press_until_empty(launcher: Launcher[Any], limit: int = 100) -> list[Volley[Any]]:
    volleys: list[Volley[Any]] = []
    while launcher.remaining and len(volleys) < limit:
        volleys.append(launcher.hit())
    return volleys


# -- identity and repr ---------------------------------------------------------------------
def test_repr_names_the_backend_and_the_hopper(backend: Backend, launcher: Launcher[Any]) -> None:
    assert launcher.backend == backend.backend
    assert f"<{type(launcher).__name__} backend={backend.backend} " in repr(launcher)
    launcher.load(range(3))
    assert repr(launcher).endswith("loaded=3>")


# -- the hopper model ----------------------------------------------------------------------
def test_cards_come_out_bottom_first_and_loads_go_on_top(launcher: Launcher[Any]) -> None:
    first, second = [f"a{i}" for i in range(6)], [f"b{i}" for i in range(6)]
    launcher.load(first)
    launcher.load(second)  # on top of what is there
    assert launcher.peek_hopper() == tuple(first + second) and launcher.remaining == 12
    volleys = press_until_empty(launcher)
    assert [card for volley in volleys for card in volley.cards] == first + second
    assert launcher.remaining == 0 and launcher.is_empty and launcher.unload() == []


def test_remaining_falls_by_exactly_the_cards_handed_out(launcher: Launcher[Any]) -> None:
    launcher.load(range(20))
    for _ in range(8):
        before = launcher.peek_hopper()
        volley = launcher.hit()
        assert before[: volley.count] == volley.cards
        assert launcher.remaining == len(before) - volley.count
        assert launcher.peek_hopper() == before[volley.count :]
    assert launcher.presses == 8


def test_unload_returns_what_is_left_bottom_first(launcher: Launcher[Any]) -> None:
    launcher.load(range(15))
    handed = [card for volley in (launcher.hit(), launcher.hit()) for card in volley.cards]
    left = launcher.unload()
    assert handed + left == list(range(15))
    assert launcher.remaining == 0 and launcher.peek_hopper() == ()


# -- volleys -------------------------------------------------------------------------------
def test_volley_counted_cards_and_shortfall_agree(
    backend: Backend, launcher: Launcher[Any]
) -> None:
    launcher.load(range(25))
    for _ in range(10):
        before = launcher.remaining
        volley = launcher.hit()
        assert volley.count == len(volley.cards) == len(volley)
        assert volley.shortfall == max(0, volley.counted - volley.count)
        assert volley.count == min(volley.counted, before)  # never more than counted or loaded
        if not backend.hardware:  # a perfect mechanism: what was counted is what the model held
            assert volley.shortfall == 0 and volley.counted == volley.meta["requested"]


@pytest.mark.parametrize("backend", SENSOR)
def test_a_count_beyond_the_hopper_model_is_a_shortfall_never_an_invented_card(
    backend: Backend, launcher: Launcher[Any]
) -> None:
    """Never loaded through us (cards put in by hand): every counted card is a shortfall."""
    if backend.fill is not None:
        backend.fill(launcher, 40)  # on real hardware a person filled the hopper
    volleys = [launcher.hit() for _ in range(6)]
    assert all(v.cards == () and v.shortfall == v.counted for v in volleys)
    assert sum(v.counted for v in volleys) > 0 and launcher.remaining == 0


def test_an_empty_simulated_hopper_yields_nothing() -> None:
    with open_launcher(SIM.spec()) as launcher:
        volleys = [launcher.hit() for _ in range(6)]
    assert all(v.counted == v.count == v.shortfall == 0 for v in volleys)


def test_identities_known_says_whether_cards_were_seen_or_dealt_from_the_model(
    backend: Backend, launcher: Launcher[Any]
) -> None:
    assert launcher.identities_known is backend.identities_known
    launcher.load(range(10))
    volleys = [launcher.hit() for _ in range(4)]
    assert {v.identities_known for v in volleys} == {backend.identities_known}


def test_volley_meta_carries_requested_and_motor_time(
    backend: Backend, launcher: Launcher[Any]
) -> None:
    launcher.load(range(30))
    requested = motor_ms = 0.0
    for _ in range(10):
        before = launcher.remaining
        meta = launcher.hit().meta
        assert isinstance(meta["requested"], int) and 0 <= meta["requested"] <= before
        assert meta["wanted"] >= meta["requested"]  # the profile's wish, capped by the hopper
        requested += meta["requested"]
        if backend.motor:
            assert float(meta["motor_ms"]) >= 0.0
            assert meta["requested"] > 0 or float(meta["motor_ms"]) == 0.0
            motor_ms += float(meta["motor_ms"])
        else:
            assert "motor_ms" not in meta  # no motor, no made-up motor time
    # Host-timed, from the OK to the DONE as received: a card that comes out at once can end
    # a job whose DONE arrives in the same read as its OK (0.0 ms), never every job.
    assert not backend.motor or requested == 0 or motor_ms > 0.0


def test_when_fired_sees_every_volley(launcher: Launcher[Any]) -> None:
    seen: list[Volley[Any]] = []
    launcher.when_fired = seen.append
    launcher.load(range(10))
    returned = [launcher.hit() for _ in range(4)]
    assert len(seen) == 4 and all(a is b for a, b in zip(seen, returned, strict=True))


# -- determinism -----------------------------------------------------------------------------
def _presses(backend: Backend, seed: int) -> list[tuple[int, int]]:
    with open_launcher(backend.spec(seed)) as launcher:
        launcher.load(range(40))
        volleys = [launcher.hit() for _ in range(12)]
    return [(v.meta["requested"], v.counted) for v in volleys]


def test_same_seed_same_presses(backend: Backend) -> None:
    first, again, other = _presses(backend, 11), _presses(backend, 11), _presses(backend, 12)
    requested = [[r for r, _ in run] for run in (first, again, other)]
    assert requested[0] == requested[1] != requested[2]  # the profile is sampled host-side
    if backend.deterministic:
        assert first == again  # and the counts too, with no real mechanism in the loop


# -- lifecycle -------------------------------------------------------------------------------
def test_close_is_idempotent_and_a_closed_launcher_refuses_presses(backend: Backend) -> None:
    with open_launcher(backend.spec()) as launcher:
        assert not launcher.closed
        launcher.load(range(5))
    assert launcher.closed
    launcher.close()
    launcher.close()
    with pytest.raises(LauncherError, match="closed"):
        launcher.hit()
    with pytest.raises(LauncherError, match="closed"):
        launcher.load(["late"])
    assert launcher.presses == 0 and f"backend={backend.backend}" in repr(launcher)
    assert launcher.unload() == list(range(5))  # closing the hardware loses no card


def test_the_context_manager_closes_on_an_error_too(backend: Backend) -> None:
    with pytest.raises(RuntimeError, match="boom"):
        with open_launcher(backend.spec()) as launcher:
            raise RuntimeError("boom")
    assert launcher.closed


# -- the accounting property -----------------------------------------------------------------
def _ops(max_load: int) -> st.SearchStrategy[list[tuple[str, int]]]:
    op = st.one_of(
        st.tuples(st.just("load"), st.integers(0, max_load)),
        st.just(("hit", 0)),
        st.just(("unload", 0)),
    )
    return st.lists(op, max_size=30)


def _hit(launcher: Launcher[Any]) -> Volley[Any]:
    """A press; a fault mid-press still hands out its counted cards (on ``error.volley``)."""
    try:
        return launcher.hit()
    except LauncherFault as error:
        assert isinstance(error.volley, Volley)
        launcher.clear_fault()  # type: ignore[attr-defined]
        return error.volley


def test_no_sequence_of_loads_hits_and_unloads_creates_or_loses_a_card(backend: Backend) -> None:
    serial_numbers = itertools.count()  # unique cards across examples: leftovers would show
    with open_launcher(backend.spec(3)) as launcher:

        @settings(
            max_examples=backend.max_examples,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
        )
        @given(first=st.integers(0, backend.max_load), ops=_ops(backend.max_load))
        def run(first: int, ops: list[tuple[str, int]]) -> None:
            launcher.unload()
            loaded: list[int] = []
            out: list[int] = []
            for kind, n in [("load", first), *ops]:
                if kind == "load":
                    cards = [next(serial_numbers) for _ in range(n)]
                    launcher.load(cards)
                    loaded += cards
                elif kind == "hit":
                    out += _hit(launcher).cards
                else:
                    out += launcher.unload()
                # a queue: everything out, then everything still in, is exactly what went in
                assert out + list(launcher.peek_hopper()) == loaded
                assert launcher.remaining == len(loaded) - len(out)

        run()


# -- faults ----------------------------------------------------------------------------------
FAULTY = [
    pytest.param(GPIO_MOCK, "&catch=1&sounds=0", id="gpio-mock"),
    pytest.param(EMU, "&catch=1", id="emu"),
    pytest.param(PICO, "&catch=1", id="pico-sim", marks=_NO_PICO),
]


@pytest.mark.parametrize(("backend", "jam"), FAULTY)
def test_a_jam_hands_out_the_counted_cards_latches_and_clears(backend: Backend, jam: str) -> None:
    with open_launcher(backend.spec() + jam) as launcher:
        launcher.load(range(10))
        handed: list[object] = []
        with pytest.raises(LauncherJam) as caught:
            for _ in range(30):
                handed += launcher.hit().cards
        error = caught.value
        assert isinstance(error.volley, Volley) and error.volley.counted == error.counted
        handed += error.volley.cards  # the cards counted before the jam are not lost
        assert handed + list(launcher.peek_hopper()) == list(range(10))
        with pytest.raises(LauncherFault):
            launcher.hit()  # latched: nothing runs until a person clears it
        clear = launcher.clear_fault
        assert clear() is True and clear() is False


# -- bad specs -------------------------------------------------------------------------------
#: Every scheme, real hardware included: options are checked before any port or pin is opened.
SPEC_BASES = [
    pytest.param("sim://", id="sim"),
    pytest.param("gpio://?mock=1", id="gpio-mock"),
    pytest.param("emu://?fast=1", id="emu"),
    pytest.param("pico-sim://", id="pico-sim"),
    pytest.param("gpio://?motor=17,18&beam=27", id="gpio"),
    pytest.param("serial:///dev/uno-attack-no-such-port", id="serial"),
]


@pytest.mark.parametrize("base", SPEC_BASES)
def test_an_unknown_option_is_bad_spec_naming_it_and_the_expected_form(base: str) -> None:
    with pytest.raises(BadSpec, match="unknown option.*bogus") as caught:
        open_launcher(with_options(base, bogus=1))
    scheme = base.split(":")[0]
    assert caught.value.hint.startswith(f"expected {scheme}://")


@pytest.mark.parametrize("base", SPEC_BASES)
@pytest.mark.parametrize(
    ("option", "value", "expected"),
    [("seed", "abc", "not a whole number"), ("profile", "no-such-profile", "no-such-profile")],
)
def test_a_bad_option_value_is_bad_config_naming_the_option(
    base: str, option: str, value: str, expected: str
) -> None:
    with pytest.raises(ValueError, match=expected) as caught:  # ConfigError is a ValueError
        open_launcher(with_options(base, **{option: value}))
    assert option in str(caught.value) or value in str(caught.value)
