"""The uno-attack pytest plugin: launchers and seeded games as fixtures, for any test suite.

Installed with the package and loaded by pytest through the ``pytest11`` entry point, the
way pytest-mock provides ``mocker``; nothing to import or list in ``conftest.py``.

Fixtures (``docs/pytest.md`` has recipes):

* ``launcher``            the launcher ``--uno-launcher`` names, ``sim://`` by default;
  parametrise it over specs with ``@pytest.mark.parametrize("launcher", [...], indirect=True)``;
* ``launcher_spec``       the spec ``launcher`` opens (override it in a ``conftest.py``);
* ``make_launcher``       ``make_launcher(spec)`` opens any spec and closes it after the test;
* ``scripted_launcher``   ``scripted_launcher([3, 0, 1])``: exactly these counts, cycling;
* ``mock_gpio_launcher``  ``gpio://?mock=1``: the GPIO driver on gpiozero's MockFactory with
  the mechanism rig (``.rig``, ``.driver``) on a virtual clock;
* ``emulated_launcher``   ``emu://?fast=1``: the real firmware logic on a pseudo-terminal,
  reached through the real serial client;
* ``uno_game``            ``uno_game("attack", players=3)``: a seeded :class:`game.Table`;
* ``uno_seed``            the seed every fixture uses (``--uno-seed``, default 1).

Every fixture closes what it opened when the test ends, failed or not, and closing a
launcher stops its motor first. Tests marked ``@pytest.mark.uno_hardware`` run only when
``--uno-launcher`` names real hardware (``gpio://`` without ``mock=1``, ``serial://``, or a
third-party scheme); elsewhere they are skipped with the reason.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from game.play.driver import Table
    from launcher.base import Launcher, ScriptedLauncher

#: The spec the ``launcher`` fixture opens when neither a parameter nor an option names one.
DEFAULT_SPEC = "sim://"
#: Schemes that never reach real hardware (``gpio://`` counts only with ``mock=1``).
SIMULATED_SCHEMES = frozenset({"sim", "pile", "emu", "pico-sim", "scripted"})
HARDWARE_MARKER = "uno_hardware"

MakeLauncher = Callable[..., "Launcher[Any]"]


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--uno-launcher SPEC`` and ``--uno-seed N``, also settable in the ini file."""
    group = parser.getgroup("uno-attack", "uno-attack launcher fixtures")
    group.addoption(
        "--uno-launcher",
        metavar="SPEC",
        default=None,
        help="launcher spec for the `launcher` fixture and `uno_game` (default: ini "
        "uno_launcher, else sim://); a real gpio:// or serial:// spec also runs "
        "tests marked uno_hardware",
    )
    group.addoption(
        "--uno-seed", type=int, default=None, help="seed for launchers and games (default 1)"
    )
    parser.addini("uno_launcher", "default launcher spec of the uno-attack fixtures", default="")


def pytest_configure(config: pytest.Config) -> None:
    """Register the hardware marker, so ``--strict-markers`` suites accept it."""
    config.addinivalue_line(
        "markers",
        f"{HARDWARE_MARKER}: needs a real launcher; runs only when --uno-launcher names "
        "real hardware (gpio:// without mock=1, serial://, or a third-party scheme)",
    )
    spec = configured_spec(config)
    if spec is not None:
        _check_spec(spec)


def _check_spec(spec: str) -> None:
    """Open the spec once and close it: any mistake in it stops the run as one usage error.

    Only opening tells a wrong option (``emu://?fsat=1``) from a right one (each scheme's
    handler takes the options it knows), so the plugin does it here, once, instead of
    every test that uses a launcher failing on its own with the same traceback. The
    error names the spec, the reason, its hint and the schemes there are.
    """
    from hardware.errors import UnoAttackError
    from launcher.spec import known_schemes, open_launcher, parse_spec, registered_schemes

    schemes = known_schemes()
    try:
        scheme = parse_spec(spec).scheme
        if scheme not in [info.scheme for info in registered_schemes()]:
            raise pytest.UsageError(
                f"--uno-launcher {spec}: unknown scheme {scheme}://; use {schemes}"
            )
        with open_launcher(spec, default_seed=1):
            pass
    except UnoAttackError as error:
        hint = f" ({error.hint})" if error.hint else ""
        raise pytest.UsageError(
            f"--uno-launcher {spec}: {error}{hint}; the schemes are {schemes}"
        ) from None


def configured_spec(config: pytest.Config) -> str | None:
    """The spec from ``--uno-launcher``, else the ini option ``uno_launcher``, else None."""
    option = config.getoption("--uno-launcher")
    ini = str(config.getini("uno_launcher") or "")
    return option or ini or None


def is_hardware_spec(spec: str) -> bool:
    """True when ``spec`` drives real pins or a real device, not a simulation or emulation."""
    from launcher.spec import parse_spec

    parsed = parse_spec(spec)
    if parsed.scheme == "gpio":
        return not parsed.options.flag("mock")
    return parsed.scheme not in SIMULATED_SCHEMES


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip ``uno_hardware`` tests, saying why, unless the configured spec is real hardware."""
    spec = configured_spec(config)
    if spec is not None and is_hardware_spec(spec):
        return
    skip = pytest.mark.skip(
        reason=f"needs a real launcher (got {spec or DEFAULT_SPEC}): run with "
        "--uno-launcher 'gpio://?config=…' or --uno-launcher serial:///dev/ttyACM0"
    )
    for item in items:
        if item.get_closest_marker(HARDWARE_MARKER) is not None:
            item.add_marker(skip)


@pytest.fixture
def uno_seed(request: pytest.FixtureRequest) -> int:
    """The seed of every launcher and game the fixtures open (``--uno-seed``, default 1)."""
    seed = request.config.getoption("--uno-seed")
    return 1 if seed is None else int(seed)


@pytest.fixture
def launcher_spec(request: pytest.FixtureRequest) -> str:
    """The spec of the ``launcher`` fixture: its parameter, ``--uno-launcher``, the ini, sim://."""
    param = getattr(request, "param", None)
    return str(param or configured_spec(request.config) or DEFAULT_SPEC)


@pytest.fixture
def make_launcher(uno_seed: int) -> Iterator[MakeLauncher]:
    """A factory ``make_launcher(spec, seed=None)``; whatever it opened is closed afterwards."""
    from launcher.spec import open_launcher

    opened: list[Launcher[Any]] = []

    def make(spec: str | None = None, *, seed: int | None = None) -> Launcher[Any]:
        device = open_launcher(
            spec or DEFAULT_SPEC, default_seed=uno_seed if seed is None else seed
        )
        opened.append(device)
        return device

    try:
        yield make
    finally:
        _close_all(opened)


def _close_all(launchers: Iterable[Launcher[Any]]) -> None:
    """Close every launcher (motor off) even if one of them fails to close."""
    errors: list[BaseException] = []
    for device in reversed(list(launchers)):
        try:
            device.close()
        except Exception as error:  # keep closing the others: a motor must never stay on
            errors.append(error)
    if errors:
        raise errors[0]


@pytest.fixture
def launcher(
    request: pytest.FixtureRequest, launcher_spec: str, make_launcher: MakeLauncher
) -> Launcher[Any]:
    """The launcher under test (``sim://`` unless a parameter or ``--uno-launcher`` says)."""
    return make_launcher(getattr(request, "param", None) or launcher_spec)


@pytest.fixture
def scripted_launcher() -> Iterator[Callable[[Iterable[int]], ScriptedLauncher[Any]]]:
    """A factory ``scripted_launcher([3, 0, 1])``: presses yield exactly these counts, cycling."""
    from launcher.base import ScriptedLauncher

    opened: list[Launcher[Any]] = []

    def make(counts: Iterable[int]) -> ScriptedLauncher[Any]:
        device: ScriptedLauncher[Any] = ScriptedLauncher(counts)
        opened.append(device)
        return device

    try:
        yield make
    finally:
        _close_all(opened)


@pytest.fixture
def mock_gpio_launcher(
    request: pytest.FixtureRequest, make_launcher: MakeLauncher
) -> Launcher[Any]:
    """``gpio://?mock=1``: the real GPIO driver on gpiozero's mock pins with the mechanism rig.

    Parametrise it (``indirect=True``) with another ``gpio://?mock=1&…`` spec for other pins
    or failure modes (``catch=1`` jams).
    """
    return make_launcher(getattr(request, "param", None) or "gpio://?mock=1")


@pytest.fixture
def emulated_launcher(request: pytest.FixtureRequest, make_launcher: MakeLauncher) -> Launcher[Any]:
    """``emu://?fast=1``: the firmware emulator on a pty, through the real serial client.

    Parametrise it (``indirect=True``) with another emulated spec, such as
    ``emu://?fast=1&faults=drop:0.05`` or an emulated-board scheme once installed.
    """
    return make_launcher(getattr(request, "param", None) or "emu://?fast=1")


@pytest.fixture
def uno_game(request: pytest.FixtureRequest, uno_seed: int) -> Iterator[Callable[..., Table]]:
    """A factory ``uno_game(ruleset="attack", players=4, *, launcher=, seed=, options=)``.

    It returns a :class:`game.play.driver.Table` (the game on its launcher). The game is
    seeded with ``uno_seed`` unless ``seed`` is given; with no ``launcher`` it plays on
    ``--uno-launcher`` when given, else on the ruleset's default (``sim://``, or a draw
    pile for classic UNO and UNO Pocket). Every game is closed after the test, and with
    it any launcher it opened.
    """
    from game.play.driver import Table

    games: list[Table] = []
    spec = configured_spec(request.config)

    def make(
        ruleset: str = "attack",
        players: int | list[str] = 4,
        *,
        launcher: Launcher[Any] | str | None = None,
        seed: int | None = None,
        options: dict[str, Any] | None = None,
    ) -> Table:
        chosen = launcher if launcher is not None else spec
        game = Table.new(
            ruleset,
            players,
            launcher=chosen,
            seed=uno_seed if seed is None else seed,
            options=options,
        )
        games.append(game)
        return game

    try:
        yield make
    finally:
        for game in reversed(games):
            game.close()
