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
import tempfile
from pathlib import Path
from typing import Any

from firmware_bridge.errors import PortNotFound
from firmware_bridge.installer import (
    ENTRY,
    FIRMWARE_DIR,
    FIRMWARE_MODULES,
    MARCH,
    PACKAGE,
    WATCHDOG_OFF,
    ToolFailed,
    ToolMissing,
    build,
    clean_snippet,
    compiled_files,
    find_tool,
    install,
    install_command,
    mpy_cross_command,
    source_files,
)
from hardware.errors import ConfigError

__all__ = [
    "ENTRY",
    "FIRMWARE_DIR",
    "FIRMWARE_MODULES",
    "MARCH",
    "PACKAGE",
    "ToolFailed",
    "ToolMissing",
    "WATCHDOG_OFF",
    "build",
    "clean_snippet",
    "compiled_files",
    "find_tool",
    "install_command",
    "mpy_cross_command",
    "register",
    "source_files",
]


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


def run_build(args: argparse.Namespace) -> int:
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out} is a file, not a folder", hint="give a folder name")
    files = build(out)
    for path in files:
        print(f"{path}  {path.stat().st_size} bytes")
    return 0


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


def _install(port: str, files: list[Path], dry_run: bool) -> int:
    if dry_run:
        print(shlex.join(install_command(port, files)))
        return 0
    install(port, files)
    print(f"installed {len(files)} files on {port}; the Pico restarted")
    return 0
