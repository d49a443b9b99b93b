"""Lazy command registration: ``uno-attack --help`` imports no command, yet nothing changes.

``main`` builds the parser with only the command on the line imported; these tests
check that the placeholders it shows for the others match what each module registers,
and that every command's help is the same either way (timings: bench/bench_startup.py).
"""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys

import pytest

from game.cli import COMMANDS, build_parser, main


def _subcommands(parser: argparse.ArgumentParser) -> argparse._SubParsersAction:  # type: ignore[type-arg]
    for action in parser._actions:  # noqa: SLF001 - argparse has no public walk
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            return action
    raise AssertionError("no sub-commands")


def test_the_command_table_matches_what_each_module_registers() -> None:
    full = _subcommands(build_parser())
    registered = [(c.dest, c.help) for c in full._choices_actions]  # noqa: SLF001
    assert registered == [(command, summary) for _, command, summary in COMMANDS]
    for module, command, _ in COMMANDS:
        probe = argparse.ArgumentParser()
        importlib.import_module(module).register(probe.add_subparsers())
        assert list(_subcommands(probe).choices) == [command]


def test_top_level_help_is_the_same_with_no_command_imported() -> None:
    assert build_parser(only="").format_help() == build_parser().format_help()


@pytest.mark.parametrize("command", [command for _, command, _ in COMMANDS])
def test_each_command_parses_and_helps_as_in_the_full_tree(command: str) -> None:
    lazy = _subcommands(build_parser(only=command)).choices[command]
    full = _subcommands(build_parser()).choices[command]
    assert lazy.format_help() == full.format_help()
    assert build_parser(only=command).format_help() == build_parser().format_help()


def test_an_unknown_command_is_still_reported_against_every_name(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["simulat"])
    error = capsys.readouterr().err
    assert "invalid choice: 'simulat'" in error
    assert all(repr(command) in error for _, command, _ in COMMANDS)


def test_help_imports_no_command_module_nor_numpy_nor_the_engine() -> None:
    code = (
        "import sys\n"
        "from game.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('numpy', 'game.core.engine', 'game.cli.simulate',"
        " 'game.cli.calibrate')"
        " if m in sys.modules]\n"
        "print('HEAVY', heavy)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "HEAVY []" in done.stdout
    assert "simulate" in done.stdout and "completion" in done.stdout


def _modules_after(argv: list[str]) -> set[str]:
    """The modules a fresh interpreter has imported once ``main(argv)`` has printed its help."""
    code = (
        "import sys\n"
        "from game.cli import main\n"
        f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
        "print('MODULES', ' '.join(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    line = next(x for x in done.stdout.splitlines() if x.startswith("MODULES "))
    return set(line.split()[1:])


#: What a help screen must not load: the engine and its data, the launchers, the config file's
#: readers, process pools and the installed-distribution scan (bench/bench_startup.py times it).
HEAVY = (
    "numpy",
    "game.core.engine",
    "game.core.rulesets",
    "game.play.simulate",
    "launcher",
    "multiprocessing",
    "importlib.metadata",
    "tomllib",
    "game.cli.config",
    "hardware.files",
)


@pytest.mark.parametrize("argv", [["--help"], ["simulate", "--help"]])
def test_a_help_screen_loads_neither_the_engine_nor_the_config_nor_process_pools(
    argv: list[str],
) -> None:
    loaded = _modules_after(argv)
    assert "game.cli" in loaded
    assert sorted(m for m in HEAVY if m in loaded) == []
