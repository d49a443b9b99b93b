"""Shared fixtures. Every test here runs without hardware; nothing sleeps to wait."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

#: pytester runs the uno-attack pytest plugin in-process (tests/test_pytest_plugin.py).
pytest_plugins = ["pytester"]
#: A separate project, run in its own venv by tests/test_downstream.py, never collected here.
collect_ignore = ["downstream"]

ROOT = Path(__file__).resolve().parent.parent
MICROPYTHON_DIR = ROOT / "tests" / "micropython"
MICROPYTHON_PKG = (
    MICROPYTHON_DIR / "node_modules" / "@micropython" / "micropython-webassembly-pyscript"
)


@pytest.fixture(scope="session")
def micropython_dir() -> Path:
    """Folder with the npm MicroPython interpreter installed; installs it on first use.

    In CI (``CI=true``) a missing Node or package is a failure, never a skip.
    """
    if not MICROPYTHON_PKG.exists() and shutil.which("npm"):
        subprocess.run(
            [
                "npm",
                "install",
                "--silent",
                "--no-audit",
                "--no-fund",
                "--prefix",
                str(MICROPYTHON_DIR),
            ],
            check=False,
        )
    if not MICROPYTHON_PKG.exists() or not shutil.which("node"):
        if os.environ.get("CI"):
            pytest.fail(
                "MicroPython (npm @micropython/micropython-webassembly-pyscript) is not installed"
            )
        pytest.skip("Node.js or the MicroPython npm package is not available")
    return MICROPYTHON_DIR


@pytest.fixture(scope="session", autouse=True)
def no_user_config(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The suite never reads the developer's ~/.config/uno-attack/config.toml (docs/config.md)."""
    saved = {name: os.environ.get(name) for name in ("XDG_CONFIG_HOME", "UNO_ATTACK_CONFIG")}
    os.environ["XDG_CONFIG_HOME"] = str(tmp_path_factory.mktemp("xdg-config"))
    os.environ.pop("UNO_ATTACK_CONFIG", None)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
