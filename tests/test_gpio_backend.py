"""The ``gpio://`` backend: specs, TOML configs, presses through the Launcher API, accounting."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hardware.errors import ConfigError, LauncherJam
from hardware.pinmap import load_pinmap
from launcher.gpio import GpioLauncher
from launcher.spec import open_launcher


def _open(spec: str, seed: int | None = 1) -> GpioLauncher[Any]:
    launcher = open_launcher(spec, default_seed=seed)
    assert isinstance(launcher, GpioLauncher)
    return launcher


def test_mock_spec_builds_a_gpio_launcher_on_mock_pins() -> None:
    with _open("gpio://?mock=1&profile=web-game&seed=4") as launcher:
        assert launcher.backend == "gpio" and launcher.identities_known is False
        assert launcher.rig is not None and launcher.seed == 4
        assert "motor_a=17" in repr(launcher) and "mock" in repr(launcher)


def test_a_press_reports_count_requested_and_motor_time() -> None:
    with _open("gpio://?mock=1&profile=irc-bot&sounds=0") as launcher:
        launcher.load(range(60))
        volley = next(v for v in (launcher.hit() for _ in range(20)) if v.counted)
        assert volley.meta["requested"] == volley.counted
        assert volley.meta["motor_ms"] == 250.0 * volley.counted + 1.0  # + the 1 ms glitch filter
        assert volley.meta["stopped"] == "count"
        assert volley.cards == tuple(
            range(volley.counted)
        )  # dealt from the hopper model, bottom first
        assert rig_history(launcher)[-1] == 0.0


def rig_history(launcher: GpioLauncher[Any]) -> list[float]:
    assert launcher.rig is not None
    return launcher.rig.motor_history()


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), cards=st.integers(0, 90))
def test_a_loop_of_hits_accounts_for_every_card(seed: int, cards: int) -> None:
    with _open("gpio://?mock=1&sounds=0", seed=seed) as launcher:
        launcher.load(range(cards))
        dealt: list[int] = []
        for _ in range(150):
            dealt.extend(launcher.hit().cards)
        assert sorted(dealt + list(launcher.peek_hopper())) == list(range(cards))
        assert launcher.rig is not None
        launcher.rig.clock.advance(1.0)
        assert launcher.rig.mechanism.ejected == len(dealt)  # the physical world agrees
        assert launcher.rig.mechanism.hopper == launcher.remaining


def test_same_seed_same_game_on_the_mock_rig() -> None:
    def run() -> list[int]:
        with _open("gpio://?mock=1&slip=0.1&sounds=0", seed=9) as launcher:
            launcher.load(range(80))
            return [launcher.hit().counted for _ in range(30)]

    assert run() == run()


def test_a_jam_mid_press_hands_out_the_counted_cards_on_the_error_and_latches() -> None:
    with _open("gpio://?mock=1&catch=1&profile=irc-bot&sounds=0", seed=3) as launcher:
        launcher.load(range(30))
        with pytest.raises(LauncherJam) as caught:
            while True:
                launcher.hit()
        error: Any = caught.value
        assert error.volley.cards == (0,) and error.volley.meta["stopped"] == "beam_blocked"
        assert launcher.remaining == 29
        assert launcher.fault is not None
        with pytest.raises(LauncherJam):
            launcher.hit()
        assert launcher.clear_fault() is True  # on the mock rig this pulls the stuck card out
        assert launcher.rig is not None and not launcher.rig.mechanism.jammed


def test_tuning_contract_ms_per_card_and_run_motor() -> None:
    with _open("gpio://?mock=1&cards=40&sounds=0") as launcher:
        launcher.ms_per_card = 180.0
        assert launcher.driver.pinmap.ms_per_card == 180.0
        assert launcher.run_motor(1100.0) == 4  # cards at 0.25, 0.5, 0.75, 1.0 s
        with pytest.raises(ConfigError):
            launcher.ms_per_card = 0.0


def test_open_loop_launcher_uses_ms_per_card() -> None:
    with _open("gpio://?mock=1&beam=none&ms_per_card=260&profile=irc-bot&sounds=0") as launcher:
        launcher.load(range(50))
        volley = next(v for v in (launcher.hit() for _ in range(10)) if v.counted)
        assert volley.meta["closed_loop"] is False
        assert volley.meta["motor_ms"] == 260.0 * volley.counted
        with pytest.raises(ConfigError, match="beam"):
            launcher.run_motor(500)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("gpio://?mock=1&motor=17,17", "pin 17 is used twice"),
        ("gpio://?mock=1&beam=17", "pin 17 is used twice"),
        ("gpio://?mock=1&motor=17,99", "out of range"),
        ("gpio://?mock=1&motor=17", "two pins"),
        ("gpio://?mock=1&duty=0.5&pwm=0", "pwm is off"),
        ("gpio://?mock=1&beam_active=sideways", "beam_active"),
        ("gpio://?mock=1&jam_ms=-5", "jam_ms"),
        ("gpio://?mock=1&colour=red", "unknown option"),
        ("gpio://?mock=1&slip=2", "slip_rate"),
        ("gpio://?slip=0.1&motor=17,18", "only apply with mock=1"),
        ("gpio://?beam=27", "motor is missing"),
        ("gpio://?mock=1&closed_loop=1&beam=none", "needs a beam"),
    ],
)
def test_bad_specs_say_what_is_wrong(spec: str, expected: str) -> None:
    with pytest.raises(ConfigError, match=expected) as caught:
        open_launcher(spec)
    assert spec.split("?")[0] in str(caught.value) or "gpio://" in str(caught.value)


def test_toml_config_file_with_spec_overrides(tmp_path: Path) -> None:
    config = tmp_path / "launcher.toml"
    config.write_text(
        'motor = [5, 6]\nmotor_kind = "phase_enable"\nbeam = 13\nbutton = 19\n'
        'beam_active = "high"\nms_per_card = 220.0\n',
        encoding="utf-8",
    )
    with _open(f"gpio://?mock=1&config={config}&button=26&sounds=0") as launcher:
        pinmap = launcher.driver.pinmap
        assert (pinmap.motor, pinmap.motor_kind, pinmap.beam, pinmap.button) == (
            (5, 6),
            "phase_enable",
            13,
            26,
        )
        launcher.load(range(10))
        launcher.run_motor(600.0)
        assert launcher.rig is not None
        assert launcher.rig.motor_history() == [0.0, 1.0, 0.0]  # the enable pin carries the duty


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("motor = [17, 18]\nbeem = 27\n", "unknown key"),
        ("motor = [17, 18]\n[pins]\nbeam = 27\n", "unexpected table"),
        ("motor = [17, 18\n", "not valid TOML"),
        ("motor = [17, 18]\nbutton = 17\n", "used twice"),
        ("motor = [17, 18]\nled = 3.5\n", "whole BCM pin"),
        ("motor = [17, 18]\nsounds = 'maybe'\n", "true or false"),
    ],
)
def test_bad_config_files_name_the_file_and_the_key(
    tmp_path: Path, text: str, expected: str
) -> None:
    config = tmp_path / "launcher.toml"
    config.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=expected) as caught:
        load_pinmap(config)
    assert str(config) in str(caught.value)


def test_missing_config_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        open_launcher(f"gpio://?config={tmp_path / 'nope.toml'}")


@pytest.mark.skipif(Path("/proc/device-tree/model").exists(), reason="real GPIO pins exist here")
def test_real_pins_without_a_pi_are_unavailable_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from gpiozero import Device

    from hardware.errors import LauncherUnavailable

    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    monkeypatch.setattr(Device, "pin_factory", None)
    with pytest.raises(LauncherUnavailable, match="cannot open the GPIO pins"):
        open_launcher("gpio://?motor=17,18&beam=27")


def test_attendant_clears_faults_so_long_simulations_with_failures_keep_going() -> None:
    spec = "gpio://?mock=1&slip=0.05&double=0.05&catch=0.05&attendant=1&double_ms=40&sounds=0"
    with _open(spec, seed=11) as launcher:
        launcher.load(range(90))
        dealt: list[int] = []
        for _ in range(200):
            dealt.extend(launcher.hit().cards)
        assert launcher.attended  # some presses jammed and were cleared by the simulated person
        assert sorted(dealt + list(launcher.peek_hopper())) == list(range(90))


def test_attendant_needs_the_mock_rig() -> None:
    with pytest.raises(ConfigError, match="attendant"):
        open_launcher("gpio://?motor=17,18&attendant=1")


def test_simulate_plays_whole_games_on_the_mock_gpio_launcher(
    capsys: pytest.CaptureFixture[str],
) -> None:
    pytest.importorskip("game.cli.simulate")
    from game.cli import main

    spec = "gpio://?mock=1&slip=0.05&catch=0.01&double=0.02&attendant=1&double_ms=40"
    argv = ["simulate", "--ruleset", "attack", "--players", "3", "--games", "1", "--seed", "5"]
    assert main([*argv, "--launcher", spec, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["games"] == 1
