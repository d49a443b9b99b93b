"""Tune a launcher's open-loop motor time so its output matches a target profile.

Contract with the GPIO and serial backends: a tunable launcher has a settable
``ms_per_card: float`` (open-loop motor milliseconds per requested card) and
``run_motor(ms) -> int`` (run the motor open loop for ``ms``, return the cards
counted). Presses made through ``hit()`` report ``motor_ms`` in ``Volley.meta``,
so recorded sessions can feed the fit too.

The cards-vs-motor-time law is fitted by maximum likelihood as
``cards ~ Poisson(rate * max(ms - dead_ms, 0))`` (``scipy.stats.poisson``): a
roller feeding at a steady rate after a spin-up delay, with Poisson scatter.
Given the law, a press that asks for ``n`` cards yields Poisson(rate * (n *
ms_per_card - dead_ms)), so the predicted output distribution is a mixture over
the target's requests; the chosen ``ms_per_card`` minimises its total variation
distance to the target. Then the launcher is measured with that setting, and
the report gives the predicted and the measured distance.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from hardware.errors import ConfigError
from launcher.analysis import analyse, sample
from launcher.base import Launcher
from launcher.calibration._scipy import optimize, stats
from launcher.calibration.compare import total_variation
from launcher.profiles import Profile

FloatArray = npt.NDArray[np.float64]


@runtime_checkable
class Tunable(Protocol):
    ms_per_card: float

    def run_motor(self, ms: float) -> int: ...


def require_tunable(launcher: Launcher[Any]) -> Tunable:
    if not isinstance(launcher, Tunable):
        raise ConfigError(
            f"{launcher!r} has no adjustable motor time (ms_per_card and run_motor)",
            hint="tune needs a motor-driven launcher such as gpio:// or serial://; sim:// has none",
        )
    return launcher


@dataclass(frozen=True)
class MotorLaw:
    """``cards ~ Poisson(rate * max(ms - dead_ms, 0))``; ``rate`` in cards per millisecond."""

    rate: float
    dead_ms: float

    def mean(self, ms: npt.ArrayLike) -> FloatArray:
        return self.rate * np.maximum(np.asarray(ms, dtype=float) - self.dead_ms, 0.0)

    def pmf(self, ms: float, width: int) -> FloatArray:
        probabilities = stats.poisson.pmf(np.arange(width), float(self.mean(ms)))
        probabilities[-1] += max(0.0, 1.0 - probabilities.sum())
        return np.asarray(probabilities, dtype=float)


def fit_motor_law(ms: npt.ArrayLike, cards: npt.ArrayLike) -> MotorLaw:
    """Maximum-likelihood Poisson law with a dead time, from (motor ms, cards) pairs."""
    times, counts = np.asarray(ms, dtype=float), np.asarray(cards, dtype=float)
    keep = times > 0
    times, counts = times[keep], counts[keep]
    if len(times) < 3 or counts.sum() == 0:
        raise ConfigError("need at least 3 motor runs with some cards to fit cards-vs-motor-time")

    def negative(params: FloatArray) -> float:
        law = MotorLaw(math.exp(params[0]), max(params[1], 0.0))
        return -float(np.sum(stats.poisson.logpmf(counts, law.mean(times) + 1e-12)))

    start = np.array([math.log(counts.sum() / times.sum()), 0.0])
    best = min(
        (
            optimize.minimize(negative, start + [0.0, dead], method="Nelder-Mead")
            for dead in (0.0, times.min() / 2)
        ),
        key=lambda r: r.fun,
    )
    return MotorLaw(math.exp(best.x[0]), max(float(best.x[1]), 0.0))


def predicted_output(law: MotorLaw, target: FloatArray, ms_per_card: float) -> FloatArray:
    """Output distribution when requests follow ``target`` and each request runs n * ms_per_card."""
    width = len(target) + 8
    out = np.zeros(width)
    out[0] += target[0]
    for requested in range(1, len(target)):
        out += target[requested] * law.pmf(requested * ms_per_card, width)
    return out


def _distance(law: MotorLaw, target: FloatArray, ms_per_card: float) -> float:
    predicted = predicted_output(law, target, ms_per_card)
    return total_variation(predicted, np.pad(target, (0, len(predicted) - len(target))))


def best_ms_per_card(law: MotorLaw, target: FloatArray) -> tuple[float, float]:
    """The ``ms_per_card`` with the smallest predicted distance, and that distance."""
    nominal = 1.0 / law.rate + law.dead_ms
    grid = np.linspace(0.25 * nominal, 3.0 * nominal, 221)
    scores = [_distance(law, target, ms) for ms in grid]
    index = int(np.argmin(scores))
    low, high = grid[max(index - 1, 0)], grid[min(index + 1, len(grid) - 1)]
    refined = optimize.minimize_scalar(
        lambda ms: _distance(law, target, ms), bounds=(low, high), method="bounded"
    )
    if refined.fun < scores[index]:
        return float(refined.x), float(refined.fun)
    return float(grid[index]), float(scores[index])


# -- talking to the launcher --------------------------------------------------------------
@dataclass
class MotorRunner:
    """Runs the motor, reloading the hopper model now and then so the rig never runs dry."""

    launcher: Launcher[Any]
    cards: int = 90
    reload_below: int = 20
    _out_since_load: int = 0

    def __post_init__(self) -> None:
        self._reload()

    def _reload(self) -> None:
        self.launcher.unload()
        self.launcher.load(range(self.cards))
        self._out_since_load = 0

    def run(self, ms: float) -> int:
        if self.cards - self._out_since_load < self.reload_below:
            self._reload()
        counted = require_tunable(self.launcher).run_motor(ms) if ms > 0 else 0
        self._out_since_load += counted
        return counted


def probe(runner: MotorRunner, times: npt.ArrayLike, repeats: int) -> tuple[FloatArray, FloatArray]:
    """Run the motor ``repeats`` times at each of ``times``; returns (ms, cards) pairs."""
    ms = np.repeat(np.asarray(times, dtype=float), repeats)
    return ms, np.array([runner.run(float(t)) for t in ms], dtype=float)


def probe_times(ms_per_card: float, requests: int) -> FloatArray:
    """Motor times that span what the target will ask for at roughly the current setting."""
    return np.linspace(0.5, max(requests, 2) * 1.5, 8) * ms_per_card


def measure(
    runner: MotorRunner, target: Profile, ms_per_card: float, presses: int, seed: int | None
) -> FloatArray:
    """Output counts of ``presses`` open-loop presses whose requests follow ``target``."""
    requested = sample(target, presses, seed)
    return np.array([runner.run(int(n) * ms_per_card) for n in requested], dtype=float)


@dataclass(frozen=True)
class TuneResult:
    law: MotorLaw
    ms_before: float
    ms_per_card: float
    predicted: FloatArray
    predicted_distance: float
    measured: FloatArray
    measured_distance: float
    target: FloatArray
    probes: int
    predicted_before: float
    measured_presses: int


def _padded_distance(measured: FloatArray, target: FloatArray) -> float:
    width = max(len(measured), len(target))
    return total_variation(
        np.pad(measured, (0, width - len(measured))), np.pad(target, (0, width - len(target)))
    )


def _motor_runs(
    runner: MotorRunner,
    requests: int,
    probe_repeats: int,
    recorded: tuple[FloatArray, FloatArray] | None,
    say: Callable[[str], None],
) -> tuple[FloatArray, FloatArray]:
    """Recorded (ms, cards) pairs, topped up by probing when there are fewer than 20."""
    ms, cards = recorded if recorded is not None else (np.zeros(0), np.zeros(0))
    if len(ms) >= 20:
        return ms, cards
    say(f"probing the motor: {probe_repeats} runs at each of 8 motor times")
    setting = float(require_tunable(runner.launcher).ms_per_card)
    more_ms, more_cards = probe(runner, probe_times(setting, requests), probe_repeats)
    return np.concatenate([ms, more_ms]), np.concatenate([cards, more_cards])


def tune(
    launcher: Launcher[Any],
    target: Profile,
    *,
    probe_repeats: int = 12,
    verify_presses: int = 300,
    seed: int | None = 0,
    recorded: tuple[FloatArray, FloatArray] | None = None,
    progress: Callable[[str], None] | None = None,
) -> TuneResult:
    """Fit the motor law (from ``recorded`` pairs and/or probing), set the best timing, measure."""
    tunable = require_tunable(launcher)
    target_p = analyse(target).probabilities
    runner = MotorRunner(launcher)
    before = float(tunable.ms_per_card)
    say = progress or (lambda _text: None)
    ms, cards = _motor_runs(runner, len(target_p) - 1, probe_repeats, recorded, say)
    law = fit_motor_law(ms, cards)
    chosen, predicted_distance = best_ms_per_card(law, target_p)
    tunable.ms_per_card = chosen
    counts = measure(runner, target, chosen, verify_presses, seed).astype(np.int64)
    measured = np.bincount(counts).astype(float) / max(len(counts), 1)
    return TuneResult(
        law=law,
        ms_before=before,
        ms_per_card=chosen,
        predicted=predicted_output(law, target_p, chosen),
        predicted_distance=predicted_distance,
        measured=measured,
        measured_distance=_padded_distance(measured, target_p),
        target=target_p,
        probes=len(ms),
        predicted_before=_distance(law, target_p, before),
        measured_presses=verify_presses,
    )
