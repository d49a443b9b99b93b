"""Tuning the open-loop motor time: against our own motor launcher with a known law, and gpio://?mock=1."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hardware.errors import ConfigError
from launcher import open_launcher
from launcher.base import Launcher
from launcher.calibration.tune import MotorLaw, _distance, best_ms_per_card, fit_motor_law, tune
from launcher.profiles import load_profile

TRUE_MS_PER_CARD = 80.0
DEAD_MS = 30.0


class KnownLawMotor(Launcher[int]):
    """A real Launcher subclass whose roller feeds Poisson(max(ms - 30, 0) / 80) cards per run.

    Our own tuning interface (``ms_per_card``, ``run_motor``), not a fake of any library.
    """

    backend = "known-law-motor"
    identities_known = False

    def __init__(self, profile: str = "web-game", seed: int = 0) -> None:
        super().__init__()
        self.ms_per_card = 200.0
        self._rng = np.random.default_rng(seed)
        self._sampler = load_profile(profile).sampler(seed)
        self.motor_runs: list[float] = []

    def run_motor(self, ms: float) -> int:
        self.motor_runs.append(ms)
        return int(self._rng.poisson(max(ms - DEAD_MS, 0.0) / TRUE_MS_PER_CARD))

    def _press(self, loaded: int) -> int:
        requested = self._sampler.next(loaded)
        ms = requested * self.ms_per_card
        self.press_meta.update(requested=requested, motor_ms=ms)
        return self.run_motor(ms) if requested else 0


def test_motor_law_is_recovered_from_runs() -> None:
    rng = np.random.default_rng(1)
    ms = np.repeat(np.linspace(50, 800, 8), 40)
    cards = rng.poisson(np.maximum(ms - DEAD_MS, 0) / TRUE_MS_PER_CARD)
    law = fit_motor_law(ms, cards)
    assert 1 / law.rate == pytest.approx(TRUE_MS_PER_CARD, rel=0.1)
    assert law.dead_ms == pytest.approx(DEAD_MS, abs=25)


def test_chosen_timing_is_the_best_one_predicted() -> None:
    law = MotorLaw(rate=1 / 100, dead_ms=20.0)
    target = np.array(load_profile("web-game").probabilities)  # type: ignore[attr-defined]
    chosen, distance = best_ms_per_card(law, target)
    for factor in (0.5, 0.8, 0.95, 1.05, 1.25, 2.0):
        assert _distance(law, target, chosen * factor) >= distance - 1e-9
    assert distance == pytest.approx(_distance(law, target, chosen))


def test_tune_sets_the_timing_and_measures_what_it_predicted() -> None:
    launcher = KnownLawMotor(seed=3)
    result = tune(launcher, load_profile("web-game"), probe_repeats=20, verify_presses=400, seed=3)
    assert launcher.ms_per_card == result.ms_per_card != 200.0
    assert 1 / result.law.rate == pytest.approx(TRUE_MS_PER_CARD, rel=0.15)
    assert result.predicted_distance < result.predicted_before
    # measured distance is the prediction plus sampling noise of 400 presses
    assert abs(result.measured_distance - result.predicted_distance) < 0.08


def test_tune_can_fit_from_recorded_presses_without_probing() -> None:
    launcher = KnownLawMotor(seed=4)
    launcher.load(range(10_000))
    volleys = [launcher.hit() for _ in range(300)]
    recorded = (
        np.array([v.meta["motor_ms"] for v in volleys]),
        np.array([v.counted for v in volleys], float),
    )
    launcher.motor_runs.clear()
    result = tune(launcher, load_profile("web-game"), verify_presses=50, seed=4, recorded=recorded)
    assert result.probes == 300
    assert len(launcher.motor_runs) <= 50  # only the verification presses ran the motor


def test_launchers_without_a_motor_are_refused_clearly() -> None:
    with pytest.raises(ConfigError, match="no adjustable motor time"):
        tune(open_launcher("sim://"), load_profile("web-game"))


@pytest.mark.skipif(
    not (Path(__file__).parent.parent / "launcher" / "gpio.py").exists(),
    reason="launcher/gpio.py not written yet",
)
def test_tune_drives_the_gpio_mock_rig() -> None:
    launcher = open_launcher("gpio://?mock=1&seed=2")
    before = launcher.ms_per_card  # type: ignore[attr-defined]
    result = tune(launcher, load_profile("web-game"), probe_repeats=8, verify_presses=150, seed=2)
    assert launcher.ms_per_card == pytest.approx(result.ms_per_card)  # type: ignore[attr-defined]
    assert result.ms_before == before
    assert result.measured_distance < 0.25
