"""The CLI dispatcher: one error format, no tracebacks unless asked."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from game.cli import build_parser, main


def test_no_command_prints_help_and_fails(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "usage: uno-attack" in capsys.readouterr().out


def test_python_dash_m_game_is_the_same_program() -> None:
    done = subprocess.run([sys.executable, "-m", "game", "--help"], capture_output=True, text=True)
    assert done.returncode == 0
    assert "uno-attack" in done.stdout


def _command_paths(
    parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()
) -> list[tuple[str, ...]]:
    paths = [prefix]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                paths += _command_paths(sub, prefix + (name,))
    return paths


def test_every_command_has_working_help(capsys: pytest.CaptureFixture[str]) -> None:
    paths = _command_paths(build_parser())
    assert len(paths) > 20
    for path in paths:
        with pytest.raises(SystemExit) as exited:
            main([*path, "--help"])
        assert exited.value.code == 0, path
        assert "usage: uno-attack" in capsys.readouterr().out
