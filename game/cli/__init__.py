"""The ``uno-attack`` command: a thin dispatcher over one module per command group.

Each module in :data:`COMMAND_MODULES` exposes ``register(subparsers)``, which
adds its sub-command(s) and sets ``func(args) -> int`` as the parser default.
Errors from the one hierarchy are printed as ``uno-attack: error: …`` with a
hint and exit status 2; a traceback only with ``--traceback`` or
``UNO_ATTACK_DEBUG=1``. A refusal of the system (``OSError``: disk full, no permission)
is printed the same way; anything else is a bug, and says so.
:func:`main` takes ``argv`` so tests call it in-process.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from types import ModuleType

from game.cli.common import harden
from hardware.errors import UnoAttackError

PROG = "uno-attack"
EXIT_ERROR = 2
EXIT_INTERRUPTED = 130

COMMAND_MODULES = (
    "game.cli.simulate",
    "game.cli.play",
    "game.cli.referee",
    "game.cli.replay",
    "game.cli.rules",
    "game.cli.profile",
    "game.cli.calibrate",
    "game.cli.launcher_cmd",
    "game.cli.firmware",
    "game.cli.emulate",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Drive, emulate and calibrate the UNO Attack card launcher, and play with it.",
    )
    parser.add_argument(
        "--traceback", action="store_true", help="show a Python traceback on errors"
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        module = _import_command(name)
        if module is not None:
            module.register(subparsers)
    harden(parser)
    return parser


def _import_command(name: str) -> ModuleType | None:
    """Import one command module; a module not written yet is skipped."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name == name:
            return None
        raise


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


def main(argv: Sequence[str] | None = None) -> int:
    _tolerate_undecodable_names()
    parser = build_parser()
    args = parser.parse_args(argv)
    debug = args.traceback or os.environ.get("UNO_ATTACK_DEBUG") == "1"
    if not hasattr(args, "func"):
        parser.print_help()
        return EXIT_ERROR
    try:
        return int(args.func(args) or 0)
    except UnoAttackError as error:
        if debug:
            raise
        report_error(error, error.hint)
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
