"""The ``uno-attack`` command: a thin dispatcher over one module per command group.

Each module in :data:`COMMAND_MODULES` exposes ``register(subparsers)``, which
adds its sub-command(s) and sets ``func(args) -> int`` as the parser default.
Errors from the one hierarchy are printed as ``uno-attack: error: …`` with a
hint and exit status 2; a traceback only with ``--traceback`` (anywhere on the
line) or ``UNO_ATTACK_DEBUG=1``. A refusal of the system (``OSError``: disk full, no
permission) is printed the same way; anything else is a bug, and says so. The user's
config file fills in settings no flag or environment variable gave (:mod:`game.cli.config`).
A command whose optional packages are missing (numpy and scipy for ``profile`` and
``calibrate``) still shows in ``--help`` and says which extra to install. :func:`main` takes
``argv`` so tests call it in-process.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from game.cli.common import harden
from hardware.errors import UnoAttackError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up time)
if TYPE_CHECKING:  # annotations only: ``--help`` imports nothing it does not run
    from collections.abc import Sequence
    from types import ModuleType
    from typing import Any

PROG = "uno-attack"
EXIT_ERROR = 2
EXIT_INTERRUPTED = 130

#: Each command module, with the command it registers and that command's one-line help
#: (shown by ``uno-attack --help`` without importing the module; tests/test_cli_lazy.py
#: checks both against what the module registers).
COMMANDS = (
    ("game.cli.simulate", "simulate", "play complete games with bots and summarise them"),
    (
        "game.cli.experiment",
        "experiment",
        "run grids of simulated games: lengths, hits, win rates, with CIs; tune a profile",
    ),
    ("game.cli.play", "play", "play at the terminal: people (hot-seat) and bots"),
    (
        "game.cli.referee",
        "referee",
        "referee a game played with real cards: turns, hand sizes, launcher presses, scores",
    ),
    ("game.cli.replay", "replay", "replay a journaled game (play or referee) move by move"),
    ("game.cli.rules", "rules", "list the rulesets or show one"),
    ("game.cli.profile", "profile", "list, show and sample spit-out profiles"),
    ("game.cli.calibrate", "calibrate", "measure a launcher, fit a profile, compare, plan, tune"),
    ("game.cli.launcher_cmd", "launcher", "bring up, test and serve a launcher"),
    ("game.cli.firmware", "firmware", "build the Pico firmware or install it on a Pico"),
    (
        "game.cli.table",
        "table",
        "serve the table in a browser: phones as hands, a shared table screen",
    ),
    ("game.cli.emulate", "emulate", "serve an emulated Pico launcher on a pseudo-terminal"),
    (
        "game.cli.config",
        "config",
        "show the settings and where each comes from (flag > env > config file > default)",
    ),
    ("game.cli.completion", "completion", "print a shell completion script (bash, zsh or fish)"),
)
COMMAND_MODULES = tuple(module for module, _, _ in COMMANDS)

#: Optional packages -> the extra that installs them (``pip install 'uno-attack[EXTRA]'``).
EXTRAS = {
    "numpy": "analysis",
    "scipy": "analysis",
    "matplotlib": "plot",
    "starlette": "web",
    "uvicorn": "web",
}
TRACEBACK_FLAG = "--traceback"


def version() -> str:
    """The installed distribution's version (``unknown`` when run from a bare source tree)."""
    from importlib import metadata  # 40 ms: only when the version is asked for

    try:
        return metadata.version("uno-attack")
    except metadata.PackageNotFoundError:
        return "unknown (not installed)"


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line: every command module's parsers under one ``uno-attack``.

    ``only``: import and register just that command in full (the one on the command
    line); the others get a placeholder with the same name and help, which is all
    ``uno-attack --help`` shows. Without it (completion scripts, tests) every module
    is imported and the tree is complete.
    """
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Drive, emulate and calibrate the UNO Attack card launcher, and play with it.",
        epilog="Settings: flag, then environment, then ~/.config/uno-attack/config.toml, then "
        "the default (`uno-attack config` shows them).",
    )
    parser.add_argument("--version", action=_VersionAction, help="print the version")
    parser.add_argument(
        TRACEBACK_FLAG,
        action="store_true",
        help="show a Python traceback on errors (accepted anywhere on the line)",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, command, summary in COMMANDS:
        if only is not None and command != only:
            subparsers.add_parser(command, help=summary, add_help=False)
            continue
        try:
            module = _import_command(name)
        except ModuleNotFoundError as error:
            _register_unavailable(subparsers, name, error)
            continue
        if module is not None:
            module.register(subparsers)
    harden(parser)
    return parser


def command_word(words: Sequence[str]) -> str:
    """The command named on the line: the first word that is not a top-level option.

    The top-level options take no value, so the first other word is the command (or a
    typo, which argparse reports against the full list of names). ``""``: none given.
    """
    for word in words:
        if word == "--":
            break
        if not word.startswith("-"):
            return word
    return ""


class _VersionAction(argparse.Action):
    """``--version``: like argparse's, but looks the version up only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest=argparse.SUPPRESS, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        print(f"{PROG} {version()}")
        parser.exit()


def _import_command(name: str) -> ModuleType | None:
    """Import one command module; a module not written yet is skipped."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name == name:
            return None
        raise


def _register_unavailable(subparsers: Any, module: str, error: ModuleNotFoundError) -> None:
    """A command whose optional packages are missing: listed, and it says what to install."""
    missing = (error.name or "").split(".")[0]
    if missing not in EXTRAS:
        raise error
    command = module.rsplit(".", 1)[-1]
    extra = EXTRAS[missing]
    parser = subparsers.add_parser(
        command, help=f"(needs: pip install 'uno-attack[{extra}]')", add_help=False
    )
    parser.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    parser.set_defaults(func=lambda args: _raise_missing(missing, f"`{PROG} {command}`"))


class MissingExtra(UnoAttackError):
    """An optional package is not installed; the hint names the extra that installs it."""


def _raise_missing(package: str, needed_by: str) -> int:
    extra = EXTRAS[package]
    raise MissingExtra(
        f"{needed_by} needs {package}, which is not installed",
        hint=f"install the {extra} extra: pip install 'uno-attack[{extra}]'",
    )


def report_error(error: BaseException | str, hint: str = "") -> None:
    """Print ``uno-attack: error: …`` and the hint, the one error format of the CLI."""
    print(f"{PROG}: error: {error}", file=sys.stderr)
    if hint:
        print(f"{PROG}: hint: {hint}", file=sys.stderr)


def _tolerate_undecodable_names() -> None:
    """A file name that is not UTF-8 (``caf\\xe9.toml``) is printed as its bytes, never a crash."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if callable(reconfigure):
            try:
                reconfigure(errors="surrogateescape")
            except (ValueError, OSError):  # a stream that cannot change (e.g. already closed)
                pass


def split_traceback(argv: Sequence[str]) -> tuple[list[str], bool]:
    """``argv`` without ``--traceback`` wherever it stands (up to a ``--``), and whether it was."""
    words = list(argv)
    end = words.index("--") if "--" in words else len(words)
    found = TRACEBACK_FLAG in words[:end]
    return [w for i, w in enumerate(words) if i >= end or w != TRACEBACK_FLAG], found


def fitting_hint(error: UnoAttackError, args: argparse.Namespace) -> str:
    """The error's hint, unless it is its class's generic one and the message is about a flag.

    ``--games 0`` is a bad flag value, not a ruleset question: point at the command's help.
    """
    if "hint" in vars(error) or not str(error).startswith("--"):
        return error.hint
    flag = str(error).split()[0].rstrip(":,")
    return f"`{PROG} {_command_path(args)} --help` describes {flag}"


def _command_path(args: argparse.Namespace) -> str:
    words = [args.command]
    for name, value in sorted(vars(args).items()):
        if name.endswith("_command") and isinstance(value, str):
            words.append(value)
    return " ".join(w for w in words if w)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``uno-attack`` with ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    _tolerate_undecodable_names()
    words, traceback_asked = split_traceback(sys.argv[1:] if argv is None else argv)
    parser = build_parser(only=command_word(words))
    args = parser.parse_args(words)
    debug = traceback_asked or args.traceback or os.environ.get("UNO_ATTACK_DEBUG") == "1"
    if not hasattr(args, "func"):
        parser.print_help()
        return EXIT_ERROR
    from game.cli import config  # after parsing: `--help` never reads the config file

    try:
        with config.applied() as added:
            args._config_added = added
            config.fill_seats(args)
            return int(args.func(args) or 0)
    except UnoAttackError as error:
        if debug:
            raise
        report_error(error, fitting_hint(error, args))
        return EXIT_ERROR
    except ModuleNotFoundError as error:
        missing = (error.name or "").split(".")[0]
        if debug or missing not in EXTRAS:
            raise
        extra = EXTRAS[missing]
        report_error(
            MissingExtra(f"`{PROG} {_command_path(args)}` needs {missing}, which is not installed"),
            f"install the {extra} extra: pip install 'uno-attack[{extra}]'",
        )
        return EXIT_ERROR
    except KeyboardInterrupt:
        print(f"\n{PROG}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return 0
    except OSError as error:  # the system refused (disk full, permissions): not a bug of ours
        if debug:
            raise
        report_error(_describe_os_error(error), "check the path, the disk and the permissions")
        return EXIT_ERROR
    except Exception as error:
        if debug:
            raise
        report_error(
            f"internal error (a bug in uno-attack): {type(error).__name__}: {error}",
            "rerun with --traceback and report it",
        )
        return EXIT_ERROR


def _describe_os_error(error: OSError) -> str:
    where = f"{error.filename}: " if error.filename else ""
    return f"{where}{error.strerror or error}"
