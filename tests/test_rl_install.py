"""Without the ``rl`` extra, importing the RL modules says which extra to install.

Checked in a fresh interpreter where the extra's module is blocked (``sys.modules[name] =
None`` makes its import fail as if it were not installed).
"""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize(
    ("missing", "module"),
    [
        ("numpy", "game.rl.tensor"),
        ("numpy", "game.pettingzoo"),
        ("numpy", "game.openspiel"),
        ("pettingzoo", "game.pettingzoo"),
        ("gymnasium", "game.pettingzoo"),
        ("pyspiel", "game.openspiel"),
    ],
)
def test_a_missing_rl_dependency_names_the_extra(missing: str, module: str) -> None:
    code = f"import sys; sys.modules[{missing!r}] = None; import {module}"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("ModuleNotFoundError:") and missing in last
    assert "pip install 'uno-attack[rl]'" in last
