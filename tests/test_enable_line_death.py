"""The enable line stops the motor when the driving process is really frozen or killed (issue 29).

The driving process is a real child Python running a GpioDriver on gpiozero mock pins that
send their output levels over a Unix socket (:mod:`hardware.rig_link`); the H-bridge model
(pin levels as a stock Raspberry Pi OS kernel keeps them, and the enable line's retriggerable
monostable) runs here, in the test process. The child is sent SIGKILL or SIGSTOP while its
motor runs. Verdicts are taken at CLOCK_MONOTONIC times stamped by the sender, so they do not
depend on how loaded the machine is; only "the child got going" waits on wall time (30 s).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hardware.rig_link import BridgeRig

ROOT = Path(__file__).resolve().parent.parent
MOTOR, ENABLE, HOLD_MS = (17, 18), 5, 200.0
STARTUP_S = 30.0  # generous: the child must import gpiozero on a loaded machine

CHILD = textwrap.dedent(
    """
    import sys
    from hardware.gpio_driver import GpioDriver
    from hardware.pinmap import pinmap_from_mapping
    from hardware.rig_link import RigLinkFactory

    wiring = {"motor": "17,18", "sounds": False, "max_run_ms": 30000, "jam_ms": 5000,
              "blocked_ms": 2000}
    if sys.argv[2] == "enable":
        wiring.update(enable=5, enable_hold_ms=200)
    factory = RigLinkFactory(sys.argv[1])
    driver = GpioDriver(pinmap_from_mapping(wiring, "child"), pin_factory=factory)
    print("running", flush=True)
    driver.run_for(25000)  # open loop, 25 s: it is killed long before
    """
)


@pytest.fixture
def socket_path(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    # a short directory: AF_UNIX paths are limited to 108 bytes
    directory = Path(os.environ.get("XDG_RUNTIME_DIR") or "/tmp")
    path = directory / f"uno-rig-{os.getpid()}-{time.monotonic_ns()}.sock"
    yield str(path)
    path.unlink(missing_ok=True)


def _start(socket_path: str, wiring: str) -> tuple[BridgeRig, subprocess.Popen[str]]:
    rig = BridgeRig(
        socket_path,
        motor=MOTOR,
        enable=ENABLE if wiring == "enable" else None,
        hold_s=HOLD_MS / 1000.0,
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, socket_path, wiring],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "running"
    deadline = time.monotonic() + STARTUP_S
    while not _running_steadily(rig):
        assert time.monotonic() < deadline, f"the child never ran its motor: {rig.changes}"
        rig.drain(timeout_s=0.5)
    return rig, child


def _running_steadily(rig: BridgeRig) -> bool:
    if rig.line is None:
        return rig.driven()
    return rig.driven() and rig.line.rises >= 3


def _freeze_or_kill(child: subprocess.Popen[str], signum: int) -> float:
    """Send the signal; return the CLOCK_MONOTONIC time by which it had surely taken effect.

    That is the moment waitpid reports the child stopped or dead: every pin change it sent
    is stamped before it.
    """
    os.kill(child.pid, signum)
    if signum == signal.SIGSTOP:
        _, status = os.waitpid(child.pid, os.WUNTRACED)
        assert os.WIFSTOPPED(status)
    else:
        child.wait(timeout=STARTUP_S)
    return time.monotonic()


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGSTOP], ids=["SIGKILL", "SIGSTOP"])
def test_the_enable_line_stops_the_motor_within_its_hold_time_of_the_death(
    socket_path: str, signum: int
) -> None:
    rig, child = _start(socket_path, "enable")
    try:
        dead = _freeze_or_kill(child, signum)
        rig.drain()
        assert rig.line is not None and rig.line.last_rise is not None
        assert rig.line.last_rise <= dead  # nothing toggled after the signal
        assert rig.driven()  # IN1 is still high: the kernel kept the output's level
        assert not rig.powered(dead + HOLD_MS / 1000.0)  # yet the bridge sleeps by then
        assert rig.line.off_at() - dead <= HOLD_MS / 1000.0
        assert rig.powered(rig.line.last_rise)  # it was running until the toggling stopped
    finally:
        child.kill()
        child.wait(timeout=STARTUP_S)
        rig.close()


def test_without_the_enable_line_a_killed_process_leaves_the_motor_running(
    socket_path: str,
) -> None:
    rig, child = _start(socket_path, "plain")
    try:
        dead = _freeze_or_kill(child, signal.SIGKILL)
        rig.drain()
        assert rig.powered(dead + 3600.0)  # an hour later: still on (what finding 1 found)
    finally:
        rig.close()
