"""The real firmware on an emulated RP2040: install, the watchdog, restarts (issue #11, #17).

Each test boots the real MicroPython v1.27.0 rp2 UF2 on rp2040js (``firmware_bridge/pico_sim``),
installs our firmware with ``uno-attack firmware install`` (mpremote over the emulated USB
serial) and talks to it with the same FirmwareClient a real Pico gets. The board runs with
``realtime=True``: emulated time never runs ahead of the wall clock, so the firmware's
2 s watchdog and 0.5 s host-silence timers never fire before the host's wall-clock timers
would expect them (docs/firmware.md, "Emulated time").
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from firmware_bridge.client import FirmwareClient
from firmware_bridge.installer import find_tool
from firmware_bridge.pico_board import PicoBoard, SerialTap, emulator_missing, prepared_flash
from game.cli import main
from launcher.pico_sim import PICO_TIMING

pytestmark = pytest.mark.skipif(  # in CI (CI=true) a missing emulator fails instead
    (emulator_missing() is not None or shutil.which("socat") is None) and not os.environ.get("CI"),
    reason=f"the emulated Pico needs Node.js, rp2040js and socat: {emulator_missing()}",
)
BOOT = re.compile(rb"E\w\w BOOT ([^*\r\n]*)")


def boot_fields(tap: SerialTap, start: int = 0) -> dict[str, str]:
    """The fields of the first BOOT frame the board printed after ``start``."""
    line = tap.wait_for_line(b" BOOT ", 60, start=start)
    match = BOOT.search(line)
    assert match is not None, line
    return dict(part.split("=", 1) for part in match.group(1).decode().split())


@pytest.fixture(scope="session")
def installed_image() -> Path:
    """Our firmware installed by mpremote on a fresh board, once per firmware version (cached)."""
    return prepared_flash()


@pytest.fixture
def installed_board(installed_image: Path, tmp_path: Path) -> Iterator[PicoBoard]:
    """A board that already runs our firmware (a copy of the installed image), on a pty."""
    image = tmp_path / "flash.bin"
    shutil.copyfile(installed_image, image)
    with PicoBoard(flash=image, pty=True, workdir=tmp_path) as board:
        yield board


def run_a_job(board: PicoBoard) -> None:
    """One RUN job: the firmware arms its watchdog when a job starts."""
    with FirmwareClient(board.serial_url, timing=PICO_TIMING) as client:
        assert client.connect().fault == "none"
        assert client.run(50, duty=40).reason == "time"


def test_install_boots_our_firmware_with_no_watchdog_fault(tmp_path: Path) -> None:
    """`firmware install` ends with mpremote `reset` (a watchdog reboot): not a fault."""
    with PicoBoard(pty=True, workdir=tmp_path) as board, board.tap() as tap:
        assert board.pty is not None
        assert main(["firmware", "install", "--port", board.pty]) == 0
        boot = boot_fields(tap)
        assert boot["reset"] == "requested" and boot["fault"] == "none", boot
        run_a_job(board)  # the first FEED/RUN after an install is accepted


def test_reinstall_after_a_job_is_not_cut_by_the_armed_watchdog(
    installed_board: PicoBoard,
) -> None:
    run_a_job(installed_board)
    resets = installed_board.clock()["resets"]
    with installed_board.tap() as tap:
        assert installed_board.pty is not None
        assert main(["firmware", "install", "--port", installed_board.pty]) == 0
        boot = boot_fields(tap)
    assert boot["fault"] == "none", boot
    assert installed_board.clock()["resets"] == resets + 1  # only the install's own reset


def test_a_real_watchdog_timeout_still_latches_the_fault(installed_board: PicoBoard) -> None:
    """A hung loop (here: a WDT armed and never fed) must still be reported as a fault."""
    run_a_job(installed_board)
    with installed_board.tap() as tap:
        start = len(tap.data)
        hang = "import machine; machine.WDT(timeout=1000)"
        subprocess.run(
            [find_tool("mpremote"), "connect", installed_board.serial_url, "exec", hang],
            check=True,
            capture_output=True,
            timeout=120,
        )
        boot = boot_fields(tap, start)
    assert boot["reset"] == "wdt" and boot["fault"] == "watchdog", boot


def test_a_soft_reboot_after_a_job_is_not_a_watchdog_fault(installed_board: PicoBoard) -> None:
    """Finding 8: Ctrl-C then Ctrl-D at the REPL after a job booted `reset=wdt fault=watchdog`."""
    with installed_board.tap() as tap:  # as after `firmware install`: a requested reset first
        boot_fields(tap)  # the firmware runs (a Ctrl-C while MicroPython compiles main.py is a
        start = len(tap.data)  # plain byte: its interrupt character is set after that)
        tap.send(b"\x03")
        tap.wait_for(b">>> ", 60, start=start)
        start = len(tap.data)
        tap.send(b"import machine; machine.reset()\r")
        assert boot_fields(tap, start)["reset"] == "requested"
    run_a_job(installed_board)  # arms the watchdog (scratch 4 = the pico-sdk's magic)
    with installed_board.tap() as tap:
        start = len(tap.data)
        tap.send(b"\x03")  # mpremote's way in: KeyboardInterrupt, the watchdog is paused
        tap.wait_for(b">>> ", 60, start=start)
        start = len(tap.data)
        tap.send(b"\x04")  # soft reboot: main.py runs again, no hardware reset
        boot = boot_fields(tap, start)
    assert (boot["reset"], boot["fault"]) == ("soft", "none"), boot
    run_a_job(installed_board)  # and it takes jobs
