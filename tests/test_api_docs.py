"""The API reference (docs/api, Sphinx autodoc) builds with no warning, and the public names
it documents all have docstrings. CI runs only the README's test command, so the docs build
is a test, like mypy and ruff in tests/test_quality.py."""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: Modules whose every public top-level name must say what it is for.
DOCUMENTED = (
    "game",
    "launcher",
    "launcher.base",
    "launcher.spec",
    "launcher.errors",
    "launcher.profiles",
    "game.core.moves",
    "game.bots.registry",
    "game.experiment",
    "game.testing.pytest_plugin",
    "game.cli.config",
    "game.cli.completion",
)
#: Modules whose classes' public methods and properties must have docstrings too.
METHODS_DOCUMENTED = (
    "launcher.base",
    "launcher.spec",
    "game.testing.pytest_plugin",
    "game.cli.config",
)


def test_api_reference_builds_without_a_warning(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         "-d", str(tmp_path / "doctrees"), str(ROOT / "docs" / "api"), str(tmp_path / "html")],
        capture_output=True, text=True, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "html" / "launchers.html").read_text(encoding="utf-8")
    for anchor in ("launcher.spec.open_launcher", "launcher.base.Launcher", "launcher.base.Volley"):
        assert f'id="{anchor}"' in page
    science = (tmp_path / "html" / "science.html").read_text(encoding="utf-8")
    for anchor in ("game.bots.registry.make_bot", "game.bots.search.SearchBot",
                   "game.experiment.grid.Grid", "game.experiment.stats.aggregate"):  # fmt: skip
        assert f'id="{anchor}"' in science


def _public(module: object) -> list[tuple[str, object]]:
    names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
    found = []
    for name in names:
        value = getattr(module, name)
        if inspect.isclass(value) or inspect.isfunction(value):
            if getattr(value, "__module__", "").split(".")[0] in ("game", "launcher", "hardware",
                                                                "firmware_bridge"):  # fmt: skip
                found.append((name, value))
    return found


@pytest.mark.parametrize("module_name", DOCUMENTED)
def test_every_public_name_has_a_docstring(module_name: str) -> None:
    module = importlib.import_module(module_name)
    assert inspect.getdoc(module), module_name
    missing = [name for name, value in _public(module) if not (value.__doc__ or "").strip()]
    assert missing == []


@pytest.mark.parametrize("module_name", METHODS_DOCUMENTED)
def test_every_public_method_has_a_docstring(module_name: str) -> None:
    module = importlib.import_module(module_name)
    missing = []
    for class_name, cls in _public(module):
        if not inspect.isclass(cls) or cls.__module__ != module_name:
            continue
        for name, member in vars(cls).items():
            if name.startswith("_") or not callable(getattr(member, "fget", member)):
                continue
            function = getattr(member, "fget", member)
            if not (getattr(function, "__doc__", None) or "").strip():
                missing.append(f"{class_name}.{name}")
    assert missing == []


def test_readme_quick_start_runs_and_replays() -> None:
    """The README's Python quick start runs as written, and its seed makes it repeat itself."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Python quick start", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    assert len(code.strip().splitlines()) <= 12
    runs = [
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60
        )
        for _ in range(2)
    ]
    assert runs[0].returncode == 0, runs[0].stderr
    assert runs[0].stdout == runs[1].stdout
    assert len(runs[0].stdout.splitlines()) == 3 and "round_end" in runs[0].stdout
