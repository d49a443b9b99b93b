"""``uno-attack launcher …`` in-process, the table-mode loop on the mock rig, serve as a process."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from game.cli import main
from game.cli.launcher_serve import ButtonPresses, LinePresses, serve
from launcher.calibration.session import SessionHeader, SessionWriter, read_session
from launcher.gpio import GpioLauncher
from launcher.spec import open_launcher

ROOT = Path(__file__).resolve().parent.parent


def test_fire_on_the_mock_gpio_launcher_prints_each_press(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert (
        main(
            ["launcher", "fire", "--launcher", "gpio://?mock=1", "--cards", "30", "--presses", "3"]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert out.count("press ") == 3 and "motor_ms=" in out and "GpioLauncher" in out


def test_fire_works_with_the_simulated_launcher_too(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["launcher", "fire", "--launcher", "sim://", "--cards", "10", "--presses", "2"]) == 0
    )
    assert capsys.readouterr().out.count("press ") == 2


def test_bad_spec_is_one_error_line_with_a_hint(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["launcher", "fire", "--launcher", "gpio://?mock=1&motor=4,4"]) == 2
    err = capsys.readouterr().err
    assert "uno-attack: error: gpio://?mock=1&motor=4,4: pin 4 is used twice" in err
    assert "Traceback" not in err


def test_bring_up_test_spins_the_motor_and_the_mock_rig_presses_the_button(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["launcher", "test", "--launcher", "gpio://?mock=1&cards=10", "--spin-ms", "600"])
    out = capsys.readouterr().out
    assert "beam before spin: clear" in out
    assert "ran 600 ms, beam counted 2 card(s) -- ok" in out
    assert "button: press it now" in out
    assert "button: pressed -- ok (the mock rig pressed it)" in out
    assert code == 0


def test_bring_up_test_without_a_button_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["launcher", "test", "--launcher", "gpio://?mock=1&cards=10&button=none"]) == 0
    assert "button: none configured -- skipped" in capsys.readouterr().out


def test_bring_up_test_catches_a_stuck_beam(capsys: pytest.CaptureFixture[str]) -> None:
    spec = "gpio://?mock=1&cards=10&catch=1&button=none&sounds=0"
    assert main(["launcher", "test", "--launcher", spec]) == 1
    assert "FAILED" in capsys.readouterr().out


def test_test_and_clear_on_sim(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["launcher", "test", "--launcher", "sim://"]) == 0
    assert main(["launcher", "clear", "--launcher", "sim://"]) == 0
    assert "no fault latched" in capsys.readouterr().out


def test_ports_lists_serial_ports_or_says_there_are_none(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from serial.tools import list_ports

    assert main(["launcher", "ports"]) == 0
    out = capsys.readouterr().out
    devices = [port.device for port in list_ports.comports()]
    assert all(device in out for device in devices) if devices else "no serial ports" in out


def test_clear_with_a_stale_pid_file_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pid_file = tmp_path / "serve.pid"
    pid_file.write_text("not a pid\n")
    assert main(["launcher", "clear", "--pid-file", str(pid_file)]) == 2
    assert "not a pid file" in capsys.readouterr().err


# -- the table-mode loop --------------------------------------------------------------
def _mock(spec_extra: str = "", seed: int = 2) -> GpioLauncher[Any]:
    launcher = open_launcher(
        f"gpio://?mock=1&profile=irc-bot&sounds=0{spec_extra}", default_seed=seed
    )
    assert isinstance(launcher, GpioLauncher) and launcher.rig is not None
    return launcher


def _writer(path: Path) -> SessionWriter:
    return SessionWriter.create(path, SessionHeader("gpio://?mock=1", 0, 0, 0))


def test_serve_fires_on_each_button_press_and_logs_it(tmp_path: Path) -> None:
    with _mock("&cards=90") as launcher:
        rig = launcher.rig
        assert rig is not None
        for at in (1.0, 5.0, 9.0):
            rig.press_button(at=at)
        out = io.StringIO()
        with _writer(tmp_path / "table.jsonl") as writer:
            stats = serve(launcher, ButtonPresses(launcher.driver), writer, out=out, idle_s=20.0)
        assert stats.presses == 3 and stats.faults == 0
        rig.clock.advance(1.0)
        assert stats.cards == rig.mechanism.ejected
    session = read_session(tmp_path / "table.jsonl")
    assert [p.n for p in session.presses] == [1, 2, 3]
    assert sum(p.count for p in session.presses) == stats.cards
    assert out.getvalue().count("press ") == 3


def test_serve_survives_a_jam_waits_for_a_long_press_then_fires_again(tmp_path: Path) -> None:
    with _mock("&cards=90&catch=1&hold_clear_ms=2000") as launcher:
        rig = launcher.rig
        assert rig is not None
        rig.press_button(at=1.0)  # jams
        rig.press_button(at=5.0)  # a short press while faulted: refused
        rig.press_button(at=8.0, hold_s=2.5)  # long press: clears
        out = io.StringIO()
        log = tmp_path / "table.jsonl"
        with _writer(log) as writer:
            stats = serve(launcher, ButtonPresses(launcher.driver), writer, out=out, idle_s=20.0)
        text = out.getvalue()
        assert "FAULT beam_blocked" in text
        assert text.count("fault still latched") == 1  # only the short press at 5 s
        assert "fault cleared; ready" in text
        assert (stats.presses, stats.faults, stats.clears) == (1, 1, 1)
        assert launcher.fault is None and not rig.mechanism.jammed
        assert rig.motor_history() == [0.0, 1.0, 0.0]  # the motor ran once and never by itself
    kinds = [json.loads(line)["type"] for line in log.read_text().splitlines()]
    assert kinds == ["session", "press", "fault", "clear"]


def test_serve_stops_after_max_presses() -> None:
    with _mock("&cards=90") as launcher:
        rig = launcher.rig
        assert rig is not None
        for at in range(1, 10):
            rig.press_button(at=float(at))
        stats = serve(
            launcher, ButtonPresses(launcher.driver), None, out=io.StringIO(), max_presses=4
        )
        assert stats.presses == 4


def test_serve_with_stdin_presses_for_any_backend() -> None:
    with open_launcher("sim://?profile=irc-bot", default_seed=1) as launcher:
        launcher.load(range(100))
        out = io.StringIO()
        stats = serve(launcher, LinePresses(io.StringIO("\n\nclear\n\nquit\n\n")), None, out=out)
    assert stats.presses == 3
    assert "nothing to clear" in out.getvalue()


def _start_server(tmp_path: Path, *extra: str) -> tuple[subprocess.Popen[str], Path]:
    pid_file = tmp_path / "serve.pid"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    command = [
        sys.executable,
        "-m",
        "game",
        "launcher",
        "serve",
        "--launcher",
        "gpio://?mock=1&sounds=0",
    ]
    child = subprocess.Popen(
        [*command, "--pid-file", str(pid_file), *extra], stdout=subprocess.PIPE, text=True, env=env
    )
    assert child.stdout is not None
    first = child.stdout.readline()
    assert first.startswith("loaded 90 cards into the simulated hopper")
    assert child.stdout.readline().startswith("serving <GpioLauncher")
    return child, pid_file


def test_serve_process_clears_on_sigusr1_and_exits_cleanly_on_sigterm(tmp_path: Path) -> None:
    child, pid_file = _start_server(tmp_path)
    try:
        assert pid_file.read_text().strip() == str(child.pid)
        assert main(["launcher", "clear", "--pid-file", str(pid_file)]) == 0
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "nothing to clear; ready"
        child.send_signal(signal.SIGTERM)
        child.communicate(timeout=30)
    finally:
        child.kill() if child.poll() is None else None
    assert child.returncode == 128 + signal.SIGTERM
    assert not pid_file.exists()  # cleanup ran: the launcher (motor first) was closed too


# -- `launcher clear` where the fault lives ---------------------------------------------
def test_clear_on_gpio_without_a_pid_file_opens_nothing_and_says_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["launcher", "clear", "--launcher", "gpio://?mock=1"]) == 2
    err = capsys.readouterr().err
    assert "nothing cleared (and no pin opened)" in err and "--pid-file" in err
    assert "Traceback" not in err


def test_clear_sends_clear_to_the_firmware_of_a_serial_launcher(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The fault is latched on the board, so a second connection can clear it."""
    from firmware_bridge.emulator import Emulator
    from hardware.errors import LauncherJam
    from hardware.mechanism import MechanismParams

    fast = MechanismParams(cards_per_second=2000.0, card_transit_ms=0.2)
    emulator = Emulator(seed=1, mechanism=fast, cards=50)
    port = emulator.start()
    try:
        with open_launcher(
            f"serial://{port}?profile=irc-bot&seed=1&jam_ms=100&block_ms=50"
        ) as first:
            first.load(range(20))
            emulator.jam()  # the next card catches in the mouth
            with pytest.raises(LauncherJam):
                for _ in range(10):
                    first.hit()
        assert main(["launcher", "clear", "--launcher", f"serial://{port}"]) == 0
        assert main(["launcher", "clear", "--launcher", f"serial://{port}"]) == 0
    finally:
        emulator.stop()
    cleared, again = capsys.readouterr().out.splitlines()
    assert (
        cleared.startswith("sent CLEAR to <SerialLauncher")
        and "fault beam_blocked cleared" in cleared
    )
    assert again.endswith("no fault was latched")


def test_serve_reading_stdin_clears_on_sigusr1_instead_of_dying(tmp_path: Path) -> None:
    """`launcher clear --pid-file` against a serial/emu server: SIGUSR1 must clear, not kill."""
    pid_file = tmp_path / "serve.pid"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    spec = "emu://?fast=1&catch=1&profile=irc-bot&seed=1"
    command = [sys.executable, "-m", "game", "launcher", "serve", "--launcher", spec]
    child = subprocess.Popen(
        [*command, "--cards", "20", "--pid-file", str(pid_file)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert child.stdin is not None and child.stdout is not None
    try:
        assert child.stdout.readline().startswith("serving <EmuLauncher")
        for _ in range(5):  # Enter until a press jams (the first card always catches)
            child.stdin.write("\n")
            child.stdin.flush()
            if "FAULT" in child.stdout.readline():
                break
        assert "hold the button to clear" in child.stdout.readline()
        assert main(["launcher", "clear", "--pid-file", str(pid_file)]) == 0
        assert child.stdout.readline().strip() == "fault cleared; ready"
        out, _ = child.communicate("quit\n", timeout=30)
    finally:
        child.kill() if child.poll() is None else None
    assert child.returncode == 0 and "stopped: " in out
