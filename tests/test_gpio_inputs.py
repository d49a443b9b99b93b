"""The inputs a real build gets wrong and clean mock pins hide: bounce, glitches, late edges, pulls.

The rig's pins (:class:`hardware.mock_rig.RigPin`, gpiozero's MockPWMPin with model-time
stamps) bounce, glitch, deliver edges late and resolve their level from the receiver's
output stage and the pull resistor, so each test here failed before its fix.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import pytest

from game.cli.launcher_serve import ButtonPresses, serve
from hardware.errors import ConfigError
from hardware.gpio_driver import GpioDriver
from hardware.mechanism import MechanismParams
from hardware.mock_rig import BeamSensor, MockRig
from hardware.pinmap import DEFAULT_PINS, PinMap, pinmap_from_mapping
from launcher.gpio import GpioLauncher
from launcher.spec import open_launcher


@pytest.fixture
def built() -> Iterator[list[tuple[MockRig, GpioDriver]]]:
    made: list[tuple[MockRig, GpioDriver]] = []
    yield made
    for rig, driver in made:
        driver.close()
        rig.close()


def _rig(made: list[Any], pinmap: PinMap | None = None, **kw: Any) -> tuple[MockRig, GpioDriver]:
    pinmap = pinmap or pinmap_from_mapping({"sounds": False}, "test", defaults=DEFAULT_PINS)
    rig = MockRig(pinmap, kw.pop("params", None), seed=1, cards=kw.pop("cards", 20), **kw)
    driver = GpioDriver(pinmap, pin_factory=rig.factory, clock=rig.clock)
    made.append((rig, driver))
    return rig, driver


def _table(extra: str = "") -> GpioLauncher[Any]:
    launcher = open_launcher(
        f"gpio://?mock=1&profile=irc-bot&sounds=0&cards=90{extra}", default_seed=2
    )
    assert isinstance(launcher, GpioLauncher) and launcher.rig is not None
    return launcher


# -- the button --------------------------------------------------------------------------
def test_one_bouncy_press_is_one_press() -> None:
    with _table() as launcher:
        rig = launcher.rig
        assert rig is not None and rig.bounce  # the rig's default switch bounces
        rig.press_button(at=1.0)
        stats = serve(launcher, ButtonPresses(launcher.driver), None, out=io.StringIO(), idle_s=8)
        assert stats.presses == 1
        assert rig.motor_history() == [0.0, 1.0, 0.0]


def test_ten_single_presses_give_ten_presses() -> None:
    with _table() as launcher:
        rig = launcher.rig
        assert rig is not None
        for n in range(10):
            rig.press_button(at=1.0 + 4.0 * n, hold_s=0.15)
        stats = serve(launcher, ButtonPresses(launcher.driver), None, out=io.StringIO(), idle_s=8)
        assert stats.presses == 10


def test_the_release_of_a_hold_to_clear_never_fires() -> None:
    with _table("&catch=1&hold_clear_ms=3000") as launcher:
        rig = launcher.rig
        assert rig is not None
        rig.press_button(at=1.0)  # jams
        rig.press_button(at=5.0, hold_s=3.5)  # hold to clear; its release bounces
        out = io.StringIO()
        stats = serve(launcher, ButtonPresses(launcher.driver), None, out=out, idle_s=10)
        assert (stats.presses, stats.faults, stats.clears) == (1, 1, 1)
        assert launcher.fault is None
        assert rig.motor_history() == [0.0, 1.0, 0.0]  # the jam's run, and nothing after


def test_presses_made_while_it_fires_are_not_replayed() -> None:
    with _table() as launcher:
        rig = launcher.rig
        assert rig is not None
        rig.press_button(at=1.0)
        rig.press_button(at=1.6)  # impatient: the motor is still shooting the first volley
        stats = serve(launcher, ButtonPresses(launcher.driver), None, out=io.StringIO(), idle_s=8)
        assert stats.presses == 1


def test_a_press_inside_the_lockout_is_ignored_with_its_release(built: list[Any]) -> None:
    rig, driver = _rig(built)
    rig.press_button(at=1.0, hold_s=0.05)
    rig.press_button(at=1.12, hold_s=0.05)  # a double click, 120 ms < lockout_ms (200)
    rig.clock.advance(2.0)
    driver.poll_inputs()
    assert list(driver.button_events) == [("press", 0.0), ("release", pytest.approx(0.05))]


# -- the beam ----------------------------------------------------------------------------
@pytest.mark.parametrize(("pull", "active"), [("up", "high"), ("down", "low")])
def test_a_pull_that_inverts_the_beam_is_refused(pull: str, active: str) -> None:
    with pytest.raises(ConfigError, match="not supported") as caught:
        pinmap_from_mapping({"beam_pull": pull, "beam_active": active}, "t", defaults=DEFAULT_PINS)
    assert "external 10 kOhm" in caught.value.hint and "beam_pull=none" in caught.value.hint


def test_the_driver_refuses_an_inverting_pin_map_even_unvalidated(built: list[Any]) -> None:
    """Physically: an open-collector receiver that releases the line when blocked, pull-up on."""
    pinmap = PinMap(motor=(17, 18), beam=27, beam_active="high", beam_pull="up", sounds=False)
    rig = MockRig(pinmap, seed=1, cards=5, sensor=BeamSensor("sink", "high"))
    try:
        with pytest.raises(ConfigError, match="not supported"):
            GpioDriver(pinmap, pin_factory=rig.factory, clock=rig.clock)
    finally:
        rig.close()


@pytest.mark.parametrize(
    ("keys", "sensor", "board_pull"),
    [
        ({}, BeamSensor("sink", "low"), None),  # the usual receiver, internal pull-up
        ({"beam_active": "high"}, BeamSensor("source", "high"), None),  # internal pull-down
        ({"beam_pull": "none"}, BeamSensor("push_pull", "low"), None),
        # the receiver the refused combination meant, wired as docs/hardware.md says:
        ({"beam_pull": "none", "beam_active": "high"}, BeamSensor("sink", "high"), "up"),
    ],
)
def test_every_accepted_beam_wiring_counts_what_physically_came_out(
    built: list[Any], keys: dict[str, str], sensor: BeamSensor, board_pull: str | None
) -> None:
    pinmap = pinmap_from_mapping({"sounds": False, **keys}, "t", defaults=DEFAULT_PINS)
    rig = MockRig(pinmap, seed=1, cards=20, sensor=sensor)
    rig.beam_pin.board_pull = board_pull
    driver = GpioDriver(pinmap, pin_factory=rig.factory, clock=rig.clock)
    built.append((rig, driver))
    assert not driver.beam_blocked
    result = driver.feed(3)
    rig.clock.advance(1.0)
    assert (result.counted, rig.mechanism.ejected) == (3, 3)


def test_a_noise_spike_on_the_beam_is_not_a_card(built: list[Any]) -> None:
    rig, driver = _rig(built)
    rig.glitch_beam(at=0.1, width_s=0.0002)  # motor noise, 100 ms before the first card
    rig.glitch_beam(at=0.26, width_s=0.0002)  # and a flicker in the middle of a card
    result = driver.feed(3)
    rig.clock.advance(1.0)
    assert (result.counted, rig.mechanism.ejected) == (3, 3)
    assert list(driver.passages_ms) == [30.0, 30.0, 30.0]


def test_passages_are_timed_by_the_edges_not_by_late_callbacks(built: list[Any]) -> None:
    rig, driver = _rig(built, cards=40)
    rig.set_edge_jitter(0.0, 0.012, seed=3)  # lgpio's callback thread, busy or descheduled
    result = driver.feed(10)
    assert result.counted == 10
    assert list(driver.passages_ms) == [30.0] * 10  # card_transit_ms, exactly


def test_a_card_that_reaches_the_beam_as_the_motor_stops_is_counted(built: list[Any]) -> None:
    rig, driver = _rig(built, params=MechanismParams(cards_per_second=4.0), cards=10)
    result = driver.run_for(1000.0)  # cards reach the beam at 250, 500, 750 and 1000 ms
    rig.clock.advance(1.0)
    assert result.counted == rig.mechanism.ejected == 4


# -- lgpio missing -----------------------------------------------------------------------
def test_without_lgpio_the_error_says_so_not_cannot_do_pwm(monkeypatch: pytest.MonkeyPatch) -> None:
    """gpiozero falls back from lgpio to a factory without PWM (native on a Pi; here its mock)."""
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory

    from hardware.errors import LauncherUnavailable
    from hardware.pin_factory import lgpio_problem

    if lgpio_problem() is None:
        pytest.skip("lgpio is installed here")
    fallback = MockFactory()  # MockPin: no PWM, like gpiozero's NativeFactory
    monkeypatch.setattr(Device, "pin_factory", fallback)
    try:
        with pytest.raises(LauncherUnavailable, match="lgpio is not installed") as caught:
            open_launcher("gpio://?motor=17,18&beam=27")
        assert "cannot do PWM" in str(caught.value)
        assert (
            "python3-lgpio" in caught.value.hint and "--system-site-packages" in caught.value.hint
        )
    finally:
        fallback.reset()


def test_without_a_pi_the_error_names_lgpio_first(monkeypatch: pytest.MonkeyPatch) -> None:
    from gpiozero import Device

    from hardware.errors import LauncherUnavailable
    from hardware.pin_factory import lgpio_problem

    if lgpio_problem() is None:
        pytest.skip("lgpio is installed here")
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    monkeypatch.setattr(Device, "pin_factory", None)
    with pytest.raises(LauncherUnavailable, match="lgpio is not installed"):
        open_launcher("gpio://?motor=17,18&beam=27")


# -- docs/hardware.md quotes the real messages ---------------------------------------------
@pytest.mark.parametrize(
    "argv",
    [
        ["launcher", "fire", "--launcher", "gpio://?mock=1&beam_pull=up&beam_active=high"],
        ["launcher", "test", "--launcher", "gpio://?motor=17,18&beam=27"],
    ],
)
def test_the_errors_quoted_in_the_hardware_docs_are_the_real_ones(
    argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from pathlib import Path

    from gpiozero import Device

    from game.cli import main
    from hardware.pin_factory import lgpio_problem

    if "mock=1" not in argv[-1] and lgpio_problem() is None:
        pytest.skip("lgpio is installed here: the quoted output is that of a machine without it")
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    monkeypatch.setattr(Device, "pin_factory", None)
    assert main(argv) == 2
    docs = (Path(__file__).resolve().parent.parent / "docs" / "hardware.md").read_text()
    for line in capsys.readouterr().err.splitlines():
        assert line in docs, f"docs/hardware.md should quote: {line}"


# -- roller coast ------------------------------------------------------------------------
def test_a_card_the_roller_pushes_out_after_the_stop_is_counted_in_the_job(
    built: list[Any],
) -> None:
    pinmap = pinmap_from_mapping({"sounds": False, "coast_ms": 300.0}, "t", defaults=DEFAULT_PINS)
    rig, driver = _rig(built, pinmap, params=MechanismParams(coast_ms=300.0))
    result = driver.feed(2)
    rig.clock.advance(2.0)
    # asked for 2, the roller coasted a third one out: the job says so, none is lost
    assert (result.counted, rig.mechanism.ejected) == (3, 3)
    assert driver.total_counted == 3
