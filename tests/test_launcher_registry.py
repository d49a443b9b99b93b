"""The launcher registry: built-in schemes, ``pile://``, run-time and entry-point backends,
and the capabilities a launcher declares instead of being probed with ``getattr``.

The entry-point tests put a real ``*.dist-info`` folder on ``sys.path``, which is how
``importlib.metadata`` finds every installed distribution; tests/test_packaging.py does
the same with a real package installed by pip into a fresh venv.
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from game.cli import main
from launcher.base import Capability, DrawPile, Launcher, ScriptedLauncher, UnsupportedCapability
from launcher.errors import BadSpec, LauncherUnavailable
from launcher.spec import (
    ParsedSpec,
    open_launcher,
    register_scheme,
    registered_schemes,
    unregister_scheme,
)


def _open_scripted(parsed: ParsedSpec, default_seed: int | None) -> Launcher[Any]:
    counts = parsed.options.int_list("counts") or [2]
    parsed.options.finish("scripted://?counts=N,N,…")
    return ScriptedLauncher(counts)


@pytest.fixture
def scripted_scheme() -> Iterator[str]:
    register_scheme("scripted", _open_scripted)
    yield "scripted"
    unregister_scheme("scripted")


def test_pile_spec_opens_a_draw_pile_that_yields_one_card_per_press() -> None:
    with open_launcher("pile://") as pile:
        assert isinstance(pile, DrawPile)
        pile.load(["a", "b"])
        assert [pile.hit().cards, pile.hit().cards, pile.hit().cards] == [("a",), ("b",), ()]


def test_pile_spec_rejects_options() -> None:
    with pytest.raises(BadSpec, match="unknown option"):
        open_launcher("pile://?seed=3")


def test_a_runtime_scheme_opens_through_open_launcher(scripted_scheme: str) -> None:
    with open_launcher("scripted://?counts=3,0") as launcher:
        launcher.load(range(10))
        assert [launcher.hit().counted for _ in range(3)] == [3, 0, 3]


def test_a_runtime_scheme_works_with_the_cli_launcher_option(
    scripted_scheme: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["launcher", "fire", "--launcher", "scripted://?counts=4", "--cards", "9"]) == 0
    assert "press 1: 4 card(s)" in capsys.readouterr().out


def test_built_in_schemes_cannot_be_taken_over() -> None:
    with pytest.raises(BadSpec, match="built-in"):
        register_scheme("sim", _open_scripted)


def test_registering_a_scheme_twice_needs_replace(scripted_scheme: str) -> None:
    with pytest.raises(BadSpec, match="already registered"):
        register_scheme("scripted", _open_scripted)
    register_scheme("scripted", _open_scripted, replace=True)


def test_unknown_scheme_error_lists_every_registered_scheme(scripted_scheme: str) -> None:
    with pytest.raises(BadSpec) as caught:
        open_launcher("nope://")
    assert "scripted://" in caught.value.hint and "pile://" in caught.value.hint


def test_a_handler_that_returns_no_launcher_is_refused() -> None:
    register_scheme("broken", lambda parsed, seed: object())
    try:
        with pytest.raises(LauncherUnavailable, match="not a Launcher"):
            open_launcher("broken://")
    finally:
        unregister_scheme("broken")


def _install_dist_info(root: Path, module_source: str, entry: str) -> None:
    """A distribution on ``root`` the way pip leaves one: its module plus a dist-info folder."""
    (root / "tablebot_backend.py").write_text(textwrap.dedent(module_source), encoding="utf-8")
    info = root / "tablebot-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: tablebot\nVersion: 1.0\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(f"[uno_attack.launchers]\n{entry}\n", encoding="utf-8")


BACKEND = """
    from launcher.base import ScriptedLauncher

    def open_spec(parsed, default_seed):
        parsed.options.finish("tablebot://")
        return ScriptedLauncher([5])
"""


@pytest.fixture
def on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "tablebot_backend", raising=False)
    return tmp_path


def test_an_entry_point_backend_is_found_without_importing_it_first(on_path: Path) -> None:
    _install_dist_info(on_path, BACKEND, "tablebot = tablebot_backend:open_spec")
    listed = {info.scheme: info for info in registered_schemes()}
    assert listed["tablebot"].source == "tablebot"
    with open_launcher("tablebot://") as launcher:
        launcher.load(range(7))
        assert launcher.hit().counted == 5


def test_a_broken_entry_point_names_its_distribution(on_path: Path) -> None:
    _install_dist_info(
        on_path, "raise RuntimeError('no motor driver')\n", "tablebot = tablebot_backend:open_spec"
    )
    with pytest.raises(LauncherUnavailable, match="from tablebot failed to load") as caught:
        open_launcher("tablebot://")
    assert "no motor driver" in str(caught.value)


def test_an_entry_point_cannot_shadow_a_built_in(on_path: Path) -> None:
    _install_dist_info(on_path, BACKEND, "sim = tablebot_backend:open_spec")
    with open_launcher("sim://?seed=1") as launcher:
        assert launcher.backend == "sim"


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("sim://", set()),
        ("pile://", set()),
        ("gpio://?mock=1", {Capability.CLEAR_FAULT, Capability.RUN_MOTOR}),
        (
            "emu://?fast=1",
            {
                Capability.CLEAR_FAULT,
                Capability.RUN_MOTOR,
                Capability.STATUS,
                Capability.SELF_TEST,
            },
        ),
    ],
)
def test_each_backend_declares_its_capabilities(spec: str, expected: set[Capability]) -> None:
    with open_launcher(spec) as launcher:
        assert launcher.capabilities == expected
        assert all(launcher.supports(c) for c in expected)


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda launcher: launcher.run_motor(100), "cannot run the motor"),
        (lambda launcher: launcher.clear_fault(), "cannot clear a fault"),
        (lambda launcher: launcher.status(), "cannot report a device status"),
    ],
)
def test_an_unsupported_capability_raises_a_clear_error(call: Any, words: str) -> None:
    with open_launcher("sim://") as launcher, pytest.raises(UnsupportedCapability) as caught:
        call(launcher)
    assert words in str(caught.value) and "sim://" in str(caught.value)
    assert caught.value.hint
    assert isinstance(caught.value, NotImplementedError)


def test_status_of_an_emulated_launcher_reports_the_firmware_state() -> None:
    with open_launcher("emu://?fast=1") as launcher:
        assert launcher.status().state == "idle"
        assert launcher.fault is None
