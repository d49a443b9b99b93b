"""The CLI dispatcher: one error format, no tracebacks unless asked."""

from __future__ import annotations

import subprocess
import sys

import pytest

from game.cli import main


def test_no_command_prints_help_and_fails(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "usage: uno-attack" in capsys.readouterr().out


def test_python_dash_m_game_is_the_same_program() -> None:
    done = subprocess.run([sys.executable, "-m", "game", "--help"], capture_output=True, text=True)
    assert done.returncode == 0
    assert "uno-attack" in done.stdout
