"""``uno-attack launcher acceptance`` end to end, with scripted answers on stdin.

On ``gpio://?mock=1`` the mock rig plays the person (bouncy presses, a card held in
the beam, an emptied hopper); the answers are the multimeter readings and the hand
count. On ``emu://`` the Pico path checks the BOOT line for a fault.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from game.cli import main

#: pins at boot (y), pins after stop (y), the hand count (9 cards from 3 volleys of 3).
MOCK_ANSWERS = "y\ny\n9\n"


def _run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, spec: str, answers: str
) -> tuple[int, dict, str]:
    report = tmp_path / "report.json"
    monkeypatch.setattr("sys.stdin", io.StringIO(answers))
    out = io.StringIO()
    monkeypatch.setattr("sys.stdout", out)
    code = main(["launcher", "acceptance", "--launcher", spec, "--report", str(report)])
    return code, json.loads(report.read_text()), out.getvalue()


def test_a_good_mock_build_passes_every_check_it_can_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    code, report, out = _run(monkeypatch, tmp_path, "gpio://?mock=1&sounds=0", MOCK_ANSWERS)
    results = {c["id"]: c["result"] for c in report["checks"]}
    assert results == {
        "pico_boot": "skip",
        "pins_low_at_boot": "pass",
        "kernel_releases_outputs": "skip",
        "pins_low_after_stop": "pass",
        "beam_one_card": "pass",
        "button_ten_presses": "pass",
        "hold_to_clear_no_fire": "pass",
        "empty_hopper_counts_0": "pass",
        "count_vs_hand": "pass",
        "jam_detection": "pass",
        "pins_low_after_kill": "skip",
    }
    assert code == 0
    checks = {c["id"]: c for c in report["checks"]}
    assert checks["button_ten_presses"]["details"]["presses"] == 10
    assert checks["hold_to_clear_no_fire"]["details"]["fired"] == 0
    assert report["summary"] == {"pass": 8, "fail": 0, "skip": 3}
    assert report["environment"]["pin_factory"] == "RigFactory"
    assert report["environment"]["gpiozero"]
    assert "attach it to your bug report" in out


def test_a_wrong_answer_fails_its_check_and_the_exit_code(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # IN1/IN2 measured high at boot; the hand count disagrees with the beam
    code, report, _ = _run(monkeypatch, tmp_path, "gpio://?mock=1&sounds=0", "n\ny\n11\n")
    results = {c["id"]: c["result"] for c in report["checks"]}
    assert results["pins_low_at_boot"] == "fail" and results["count_vs_hand"] == "fail"
    checks = {c["id"]: c for c in report["checks"]}
    assert checks["count_vs_hand"]["details"] == {"counted": 9, "by_hand": 11}
    assert code == 1


def test_no_answers_skip_the_questions_and_still_write_the_report(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    code, report, out = _run(monkeypatch, tmp_path, "gpio://?mock=1&sounds=0", "")
    results = {c["id"]: c["result"] for c in report["checks"]}
    assert results["pins_low_at_boot"] == "skip" and results["count_vs_hand"] == "skip"
    assert results["button_ten_presses"] == "pass"  # the rig needs no answer
    assert code == 0 and "(no answer)" in out


@pytest.mark.slow
def test_the_pico_path_checks_the_boot_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    code, report, _ = _run(monkeypatch, tmp_path, "emu://?fast=1", "y\ny\n3\n")
    checks = {c["id"]: c for c in report["checks"]}
    boot = checks["pico_boot"]
    assert boot["result"] == "pass"
    assert boot["details"]["fault"] == "none" and boot["details"]["boot"]
    assert checks["button_ten_presses"]["result"] == "skip"
    assert report["environment"]["backend"] == "emu"


def test_pins_that_cannot_be_opened_still_give_a_report_to_attach(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from gpiozero import Device

    from hardware.pin_factory import lgpio_problem

    if lgpio_problem() is None:
        pytest.skip("lgpio is installed here")
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    monkeypatch.setattr(Device, "pin_factory", None)
    code, report, out = _run(monkeypatch, tmp_path, "gpio://?motor=17,18&beam=27", "y\n")
    opened = report["checks"][-1]
    assert (opened["id"], opened["result"]) == ("open_launcher", "fail")
    assert "lgpio is not installed" in opened["details"]["error"]
    assert "python3-lgpio" in opened["details"]["hint"]
    assert code == 1 and "attach it to your bug report" in out


def test_a_stock_pi_kernel_that_keeps_released_outputs_fails_acceptance(tmp_path: Path) -> None:
    from game.cli.acceptance import Session, check_kernel_releases_outputs

    (tmp_path / "proc/device-tree").mkdir(parents=True)
    (tmp_path / "proc/device-tree/model").write_bytes(b"Raspberry Pi 5 Model B Rev 1.0\0")
    params = tmp_path / "sys/module/pinctrl_rp1/parameters"
    params.mkdir(parents=True)
    (params / "persist_gpio_outputs").write_text("Y\n")
    out = io.StringIO()
    session = Session(
        "gpio://?config=/etc/uno-attack/launcher.toml",
        None,
        io.StringIO(),
        out,
        tmp_path / "report.json",
    )
    session.sys_root = tmp_path
    check = check_kernel_releases_outputs(session)
    assert check.result == "fail"
    assert check.details["parameters"] == {"pinctrl_rp1.persist_gpio_outputs": "Y"}
    assert "dtparam=strict_gpiod" in out.getvalue()
    (params / "persist_gpio_outputs").write_text("N\n")
    assert check_kernel_releases_outputs(session).result == "pass"
