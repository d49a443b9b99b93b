"""``launcher test``, ``status``, ``doctor`` and ``off`` on gpio://.

Issue 29, findings 1 and 7; issue 28, finding 4.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from game.cli import main
from hardware import pin_factory
from hardware.kernel_gpio import check_output_release

ROOT = Path(__file__).resolve().parent.parent


def _json(capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    return json.loads(capsys.readouterr().out)


# -- launcher test ----------------------------------------------------------------------------
def test_a_motor_that_never_turns_with_ten_cards_loaded_fails(
    capsys: pytest.CaptureFixture[str],
) -> None:
    spec = "gpio://?mock=1&cards=10&battery=0.1&sounds=0"  # the roller stalls: nothing moves
    assert main(["launcher", "test", "--launcher", spec, "--no-button", "--json"]) == 1
    report = _json(capsys)
    assert report["ok"] is False and report["checks"] == {"motor": False}
    assert any(
        "10 card(s) loaded and the beam counted none -- FAILED" in line for line in report["output"]
    )  # type: ignore[union-attr]


def test_cards_given_on_the_command_line_count_as_loaded(
    capsys: pytest.CaptureFixture[str],
) -> None:
    spec = "gpio://?mock=1&battery=0.1&sounds=0"
    assert main(["launcher", "test", "--launcher", spec, "--no-button", "--cards", "10"]) == 1
    assert "with 10 card(s) loaded" in capsys.readouterr().out


def test_a_pass_lists_what_it_could_not_check(capsys: pytest.CaptureFixture[str]) -> None:
    spec = "gpio://?mock=1&sounds=0"  # nothing loaded: the spin proves nothing about feeding
    assert main(["launcher", "test", "--launcher", spec, "--no-button", "--json"]) == 0
    report = _json(capsys)
    assert report["ok"] is True
    unchecked = report["unchecked"]
    assert isinstance(unchecked, list) and len(unchecked) == 2
    assert "none loaded" in unchecked[0] and "--no-button" in unchecked[1]


def test_the_mock_rig_presses_the_button_so_a_mock_bring_up_can_pass(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["launcher", "test", "--launcher", "gpio://?mock=1&cards=10&sounds=0"]) == 0
    out = capsys.readouterr().out
    assert "button: pressed -- ok (the mock rig pressed it)" in out


# -- launcher status ---------------------------------------------------------------------------
def _serve(spec: str, pid_file: Path) -> subprocess.Popen[str]:
    """`launcher serve` as a real process with presses on its stdin, once it says "serving"."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    command = [sys.executable, "-c", "from game.cli import main; raise SystemExit(main())"]
    child = subprocess.Popen(
        [*command, "launcher", "serve", "--launcher", spec, "--pid-file", str(pid_file)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert child.stdout is not None
    while not (line := child.stdout.readline()).startswith("serving"):
        assert line, "serve ended before it was serving"
    return child


def test_status_shows_the_motor_settings_in_force(capsys: pytest.CaptureFixture[str]) -> None:
    spec = "gpio://?mock=1&ms_per_card=236.5&max_run_ms=8000"
    assert main(["launcher", "status", "--launcher", spec, "--json"]) == 0
    settings = _json(capsys)["settings"]
    assert isinstance(settings, dict)
    assert settings["ms_per_card"] == 236.5 and settings["max_run_ms"] == 8000.0


def test_status_reports_the_fault_latched_in_a_running_server(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pid_file = tmp_path / "serve.pid"
    spec = "gpio://?mock=1&button=none&sounds=0&catch=1"  # the first card catches in the mouth
    child = _serve(spec, pid_file)
    try:
        assert child.stdin is not None and child.stdout is not None
        for _ in range(50):  # press until one draws a card: it catches, beam_blocked latches
            child.stdin.write("\n")
            child.stdin.flush()
            line = child.stdout.readline()
            if "FAULT" in line:
                break
        assert "FAULT beam_blocked" in line
        child.stdout.readline()  # its hint
        child.stdin.write("\n")  # answered on the next pass, after the state was written
        child.stdin.flush()
        assert "fault still latched" in child.stdout.readline()
        code = main(
            ["launcher", "status", "--launcher", spec, "--pid-file", str(pid_file), "--json"]
        )
        report = _json(capsys)
        assert code == 1
        assert report["fault"] == "beam_blocked" and report["served_by"] == child.pid
        assert report["settings"]["ms_per_card"] == 250.0  # type: ignore[index]
        child.stdin.write("quit\n")
        child.stdin.flush()
        child.communicate(timeout=30)
    finally:
        child.kill() if child.poll() is None else None
    assert child.returncode == 0
    assert not pid_file.with_suffix(".json").exists()  # removed with the pid file


def test_status_with_a_pid_file_nobody_holds_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pid_file = tmp_path / "serve.pid"
    pid_file.write_text("12345\n")
    assert (
        main(["launcher", "status", "--launcher", "gpio://?mock=1", "--pid-file", str(pid_file)])
        == 2
    )
    assert "no `launcher serve` holds this pid file" in capsys.readouterr().err


# -- launcher doctor ------------------------------------------------------------------------------
def _board(root: Path, model: str, **parameters: str) -> Path:
    (root / "proc/device-tree").mkdir(parents=True)
    (root / "proc/device-tree/model").write_bytes(model.encode() + b"\0")
    for dotted, value in parameters.items():
        driver, name = dotted.split("__")
        folder = root / "sys/module" / driver / "parameters"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(value + "\n")
    return root


@pytest.fixture
def lgpio_present(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pin_factory, "lgpio_problem", lambda: None)


def test_doctor_fails_on_a_stock_pi_that_keeps_released_outputs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lgpio_present: None
) -> None:
    root = _board(
        tmp_path, "Raspberry Pi 4 Model B Rev 1.5", pinctrl_bcm2835__persist_gpio_outputs="Y"
    )
    assert main(["launcher", "doctor", "--sys-root", str(root)]) == 1
    out = capsys.readouterr().out
    assert "pinctrl_bcm2835.persist_gpio_outputs=Y" in out and "FAILED" in out
    assert "dtparam=strict_gpiod" in out and "config.txt" in out


def test_doctor_passes_once_strict_gpiod_is_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lgpio_present: None
) -> None:
    root = _board(
        tmp_path, "Raspberry Pi 4 Model B Rev 1.5", pinctrl_bcm2835__persist_gpio_outputs="N"
    )
    assert main(["launcher", "doctor", "--sys-root", str(root)]) == 0
    assert "released outputs return to inputs" in capsys.readouterr().out


def test_doctor_reads_the_rp1_driver_on_a_pi_5(tmp_path: Path) -> None:
    root = _board(
        tmp_path,
        "Raspberry Pi 5 Model B Rev 1.0",
        pinctrl_rp1__persist_gpio_outputs="Y",
        pinctrl_bcm2835__persist_gpio_outputs="N",
    )
    check = check_output_release(root)
    assert (check.result, check.driver) == ("fail", "pinctrl_rp1")


def test_doctor_understands_the_2024_parameter_name(tmp_path: Path) -> None:
    root = _board(
        tmp_path, "Raspberry Pi 3 Model B Plus Rev 1.3", pinctrl_bcm2835__strict_gpiod="Y"
    )
    assert check_output_release(root).result == "ok"


def test_doctor_fails_on_a_kernel_without_the_switch(tmp_path: Path) -> None:
    check = check_output_release(_board(tmp_path, "Raspberry Pi 4 Model B Rev 1.1"))
    assert check.result == "fail" and "update the kernel" in check.hint


def test_doctor_off_a_pi_checks_nothing_and_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["launcher", "doctor", "--sys-root", str(tmp_path), "--json"]) == 0
    report = _json(capsys)
    assert report["checks"]["released_outputs"]["result"] == "not_a_pi"  # type: ignore[index]


# -- launcher off ------------------------------------------------------------------------
def test_off_drives_the_motor_pins_low(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["launcher", "off", "--launcher", "gpio://?mock=1&enable=5"]) == 0
    assert "motor pins GPIO 17, 18 and the enable line GPIO 5 driven low" in capsys.readouterr().out


def test_off_refuses_a_launcher_without_gpio_pins(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["launcher", "off", "--launcher", "sim://"]) == 2
    assert "other launchers stop their own motor" in capsys.readouterr().err


def test_serve_stops_cleanly_on_sighup_when_its_ssh_session_drops(tmp_path: Path) -> None:
    import signal

    pid_file = tmp_path / "serve.pid"
    child = _serve("gpio://?mock=1&button=none&sounds=0", pid_file)
    try:
        assert pid_file.with_suffix(".json").exists()
        child.send_signal(signal.SIGHUP)
        child.communicate(timeout=30)
    finally:
        child.kill() if child.poll() is None else None
    assert child.returncode == 128 + signal.SIGHUP  # not killed by it: motor off, clean exit
    assert not pid_file.exists() and not pid_file.with_suffix(".json").exists()
