"""The code quality gates run with the tests, so a red type check fails CI like a red test.

mypy checks the four packages with the settings in pyproject.toml; ruff checks the whole tree.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True)


def test_mypy_finds_no_type_errors() -> None:
    done = _run("mypy", "--cache-dir", str(ROOT / ".mypy_cache"))
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_finds_no_lint_errors() -> None:
    done = _run("ruff", "check", "--no-cache", ".")
    assert done.returncode == 0, done.stdout + done.stderr
