"""Packaging, checked the way a user meets it: build the wheel and sdist, install the wheel
into a fresh venv *without* the analysis extra, and use it there.

* the core install pulls neither numpy nor scipy, and play, referee, serve and simulate
  run without them; calibrate says which extra to install;
* a third-party backend (tests/packages/myscheme) declared in the ``uno_attack.launchers``
  entry-point group works with ``--launcher myscheme://``;
* the downstream project (tests/downstream) passes with only the pytest plugin, against
  ``sim://``, ``gpio://?mock=1`` and ``emu://?fast=1``.

Offline and fast: every install is ``pip install --no-index --find-links WHEELHOUSE``. The
wheelhouse holds our wheels, built here with ``python -m build --no-isolation``, and the
wheels of the core dependencies and pytest at the versions the dev venv has, which
``pip download`` takes from pip's cache. Because the index is off, a numpy requirement
would fail the install: that is the proof the core does not need it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
DOWNSTREAM = ROOT / "tests" / "downstream"
MYSCHEME = ROOT / "tests" / "packages" / "myscheme"
#: What the fresh venv needs besides our wheels.
RUNTIME_ROOTS = ("pyserial", "gpiozero", "pytest")
#: What building the sdist needs besides setuptools (pyproject.toml's build requires; the
#: runtime closure already holds setuptools): pipx builds it offline from the wheelhouse.
BUILD_ROOTS = ("Cython",)


def run(*args: str | Path, cwd: Path = ROOT, **kwargs: object) -> subprocess.CompletedProcess[str]:
    """Run a command, failing the test with its output when it fails."""
    kwargs.setdefault("timeout", 120)
    kwargs.setdefault("input", "")  # never wait on the terminal of the test run
    done = subprocess.run(
        [str(a) for a in args], cwd=cwd, capture_output=True, text=True, check=False, **kwargs
    )  # type: ignore[call-overload]
    assert done.returncode == 0, f"{args}\n{done.stdout}\n{done.stderr}"
    result: subprocess.CompletedProcess[str] = done
    return result


def closure(roots: tuple[str, ...]) -> dict[str, str]:
    """Name -> installed version of ``roots`` and everything they require (no extras)."""
    env = default_environment()
    found: dict[str, str] = {}
    todo = list(roots)
    while todo:
        name = todo.pop()
        dist = metadata.distribution(name)
        key = dist.metadata["Name"].lower()
        if key in found:
            continue
        found[key] = dist.version
        for line in dist.requires or []:
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({**env, "extra": ""}):
                todo.append(requirement.name)
    return found


@dataclass
class Wheelhouse:
    """The folder of wheels every install reads, and our own built files in it."""

    path: Path
    wheel: Path
    sdist: Path
    build_seconds: float


@pytest.fixture(scope="session")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Wheelhouse:
    house = tmp_path_factory.mktemp("wheelhouse")
    started = time.perf_counter()
    run(sys.executable, "-m", "build", "--no-isolation", "--outdir", house, ROOT)
    for project in (DOWNSTREAM, MYSCHEME):
        run(sys.executable, "-m", "build", "--no-isolation", "--wheel", "--outdir", house, project)
    built = time.perf_counter() - started
    roots = RUNTIME_ROOTS + BUILD_ROOTS
    pins = [f"{name}=={version}" for name, version in closure(roots).items()]
    # pipx upgrades pip in its shared venv: the newest pip is the one unpinned download
    run(sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
        "--dest", house, *pins, "pip")  # fmt: skip
    (wheel,) = house.glob("uno_attack-*.whl")
    (sdist,) = house.glob("uno_attack-*.tar.gz")
    return Wheelhouse(house, wheel, sdist, built)


@dataclass
class Venv:
    """A fresh virtual environment with uno-attack installed from the wheel, no extras."""

    path: Path
    install_seconds: float

    def bin(self, name: str) -> Path:
        return self.path / "bin" / name

    def run(self, *args: str | Path, **kwargs: object) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("UNO_ATTACK")}
        env.update(XDG_CONFIG_HOME=str(self.path / "config"), NO_COLOR="1")
        return run(*args, env=env, **kwargs)


@pytest.fixture(scope="session")
def venv(wheelhouse: Wheelhouse, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Venv]:
    path = tmp_path_factory.mktemp("venv")
    started = time.perf_counter()
    # no pip inside (ensurepip alone takes longer than the install): ours installs into it
    run(sys.executable, "-m", "venv", "--without-pip", path)
    pip = [sys.executable, "-m", "pip", "--python", path / "bin" / "python", "install"]
    run(*pip, "--quiet", "--no-index", "--find-links", wheelhouse.path, "uno-attack",
        "uno-attack-myscheme", "house-rules[test]")  # fmt: skip
    yield Venv(path, time.perf_counter() - started)


def test_wheel_and_sdist_carry_the_package_data_and_entry_points(wheelhouse: Wheelhouse) -> None:
    with zipfile.ZipFile(wheelhouse.wheel) as wheel:
        names = set(wheel.namelist())
        (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
        text = wheel.read(entry_points).decode()
    assert "uno-attack = game.cli:main" in text
    assert "uno_attack = game.testing.pytest_plugin" in text
    for required in (
        "game/testing/pytest_plugin.py",
        "launcher/py.typed",
        "firmware_bridge/firmware/main.py",
        "game/tables/web/static/hand.html",
        "game/tables/web/static/app.js",
    ):
        assert required in names
    assert any(n.startswith("launcher/presets/") and n.endswith(".toml") for n in names)
    assert any(n.startswith("game/rl/_tensor.") and n.endswith(".so") for n in names)
    assert "game/rl/_tensor.pyx" in names  # the compiled module's source travels with it
    assert wheelhouse.sdist.stat().st_size > 0


@pytest.mark.parametrize(
    "setting",
    [
        {"CC": "false"},  # a compiler that fails every file
        {"UNO_ATTACK_NO_COMPILE": "1"},  # a Pi that never uses the RL environment
    ],
    ids=["no-c-compiler", "no-compile-asked"],
)
def test_a_build_without_a_c_compiler_goes_on_without_the_compiled_module(
    wheelhouse: Wheelhouse, tmp_path: Path, setting: dict[str, str]
) -> None:
    """docs/install.md: where the RL tensors cannot be compiled, or the compile is turned
    off, the sdist still builds (their Python classes take over; tests/test_rl_tensor.py
    plays on them)."""
    import tarfile

    with tarfile.open(wheelhouse.sdist) as sdist:  # as pip builds it: from the sdist
        sdist.extractall(tmp_path, filter="data")
    (source,) = tmp_path.glob("uno_attack-*")
    env = {**os.environ, **setting}
    run(sys.executable, "-m", "build", "--no-isolation", "--wheel", "--outdir", tmp_path, source,
        env=env)  # fmt: skip
    (wheel,) = tmp_path.glob("uno_attack-*.whl")
    with zipfile.ZipFile(wheel) as built:
        names = set(built.namelist())
    assert "game/rl/tensor.py" in names
    assert not any(n.startswith("game/rl/_tensor.") and n.endswith(".so") for n in names)


def test_core_install_pulls_neither_numpy_nor_scipy(venv: Venv) -> None:
    code = "import importlib.metadata as m; print(*(d.metadata['Name'] for d in m.distributions()))"
    installed = set(venv.run(venv.bin("python"), "-c", code).stdout.lower().split())
    assert {"uno-attack", "gpiozero", "pyserial"} <= installed
    assert not installed & {"numpy", "scipy", "matplotlib"}
    print(f"fresh venv + install: {venv.install_seconds:.1f} s")  # shown with -s


def test_pipx_installs_from_the_source_tree(wheelhouse: Wheelhouse, tmp_path: Path) -> None:
    """``pipx install .`` in an unpacked sdist: the sdist builds, and the command runs."""
    import tarfile

    with tarfile.open(wheelhouse.sdist) as sdist:
        sdist.extractall(tmp_path, filter="data")
    (source,) = tmp_path.glob("uno_attack-*")
    home = tmp_path / "pipx"
    env = {**os.environ, "PIPX_HOME": str(home), "PIPX_BIN_DIR": str(home / "bin"),
           "PIPX_MAN_DIR": str(home / "man")}  # fmt: skip
    pip_args = f"--no-index --find-links {wheelhouse.path}"
    run(sys.executable, "-m", "pipx", "install", "--pip-args", pip_args, ".", cwd=source, env=env)
    done = run(home / "bin" / "uno-attack", "simulate", "--games", "1", "--seed", "1")
    assert "wins" in done.stdout


def test_play_simulate_referee_and_serve_work_without_the_analysis_extra(venv: Venv) -> None:
    cli = venv.bin("uno-attack")
    simulated = venv.run(cli, "simulate", "--games", "3", "--seed", "1").stdout
    assert "wins" in simulated
    played = venv.run(cli, "play", "--seats", "bot:greedy,bot:random", "--seed", "2",
                      "--rounds", "1", "--delay", "0").stdout  # fmt: skip
    assert "Final:" in played
    refereed = venv.run(cli, "referee", "--players", "Ann,Sam", "--launcher", "sim://?seed=1",
                        "--delay", "0", input="red 7\n").stdout  # fmt: skip
    assert "Sam's turn" in refereed
    served = venv.run(cli, "launcher", "serve", "--launcher", "sim://?seed=3", "--cards", "20",
                      "--max-presses", "2", "--log", venv.path / "serve.jsonl",
                      input="\n\n").stdout  # fmt: skip
    assert "stopped: 2 presses" in served and "motor off" in served
    assert len((venv.path / "serve.jsonl").read_text().splitlines()) == 3


@pytest.mark.parametrize("argv", [["calibrate", "fit", "x.jsonl"], ["profile", "list"]])
def test_analysis_commands_without_the_extra_name_the_extra(venv: Venv, argv: list[str]) -> None:
    done = subprocess.run(
        [venv.bin("uno-attack"), *argv],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert done.returncode == 2
    assert "pip install 'uno-attack[analysis]'" in done.stderr and "Traceback" not in done.stderr


def test_a_third_party_backend_works_with_the_launcher_option(venv: Venv) -> None:
    cli = venv.bin("uno-attack")
    fired = venv.run(cli, "launcher", "fire", "--launcher", "myscheme://?count=3",
                     "--cards", "10", "--presses", "2").stdout  # fmt: skip
    assert "press 1: 3 card(s)" in fired and "press 2: 3 card(s)" in fired
    simulated = venv.run(cli, "simulate", "--games", "2", "--launcher", "myscheme://").stdout
    assert "wins" in simulated
    status = venv.run(cli, "launcher", "status", "--launcher", "myscheme://").stdout
    assert "backend: myscheme" in status
    listed = venv.run(cli, "launcher", "list").stdout
    assert "myscheme://" in listed and "uno-attack-myscheme" in listed


def test_a_third_party_backend_opens_through_open_launcher(venv: Venv) -> None:
    code = (
        "from launcher import open_launcher\n"
        "with open_launcher('myscheme://?count=4') as launcher:\n"
        "    launcher.load(range(6))\n"
        "    print([launcher.hit().counted for _ in range(3)])\n"
    )
    assert venv.run(venv.bin("python"), "-c", code).stdout.strip() == "[4, 2, 0]"


@pytest.mark.parametrize("spec", ["sim://", "gpio://?mock=1", "emu://?fast=1"])
def test_the_downstream_project_passes_with_only_the_plugin(venv: Venv, spec: str) -> None:
    done = venv.run(venv.bin("python"), "-P", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                    "--uno-launcher", spec, cwd=DOWNSTREAM)  # fmt: skip
    assert "8 passed, 1 skipped" in done.stdout
