"""Candidate models for a session, compared by AIC (Akaike's information criterion).

Two questions, answered separately:

* **count models** -- the distribution of cards per press: empirical
  (categorical), Poisson, zero-inflated Poisson, negative binomial and
  zero-inflated negative binomial, all from ``scipy.stats``;
* **structure models** -- what decides whether a press fires: independent
  presses, a fixed pattern by press number since reload (the 1999 launcher),
  an escalating chance by empty presses in a row, or a chance that depends on
  the load.

AIC is the criterion because a profile's job is to *predict* presses (AIC
targets predictive accuracy); BIC is shown beside it for readers who prefer a
stricter penalty.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from launcher.calibration._scipy import optimize, stats

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
TAIL = 1e-4
#: The least probability a fitted model gives any count up to the hopper size: never an
#: impossibility (``compare`` would call a later count impossible), never a bump.
FLOOR = 1e-300


@dataclass(frozen=True)
class ModelFit:
    """One fitted model: its log-likelihood, parameter count and the pmf it implies."""

    name: str
    log_likelihood: float
    parameters: int
    observations: int
    pmf: FloatArray = field(default_factory=lambda: np.zeros(0))
    detail: str = ""

    @property
    def parametric(self) -> bool:
        """A fitted law (its pmf already covers every count up to the hopper size)."""
        return self.name != "empirical"

    @property
    def mean(self) -> float:
        return float(np.arange(len(self.pmf)) @ self.pmf)

    @property
    def aic(self) -> float:
        return 2 * self.parameters - 2 * self.log_likelihood

    @property
    def bic(self) -> float:
        return self.parameters * math.log(max(self.observations, 1)) - 2 * self.log_likelihood


def _loglik_of_cells(cells: npt.ArrayLike, pmf: FloatArray) -> float:
    counts = np.asarray(cells, dtype=float)
    used = counts > 0
    with np.errstate(divide="ignore"):
        return float(np.sum(counts[used] * np.log(pmf[: len(counts)][used])))


# -- count models ---------------------------------------------------------------------
def _categorical(data: IntArray) -> ModelFit:
    cells = np.bincount(data)
    pmf = cells / cells.sum()
    used = int(np.count_nonzero(cells))
    return ModelFit(
        "empirical", _loglik_of_cells(cells, pmf), max(used - 1, 0), len(data), pmf.astype(float)
    )


def _zero_inflated(
    logpmf: Callable[[IntArray, FloatArray], FloatArray],
) -> Callable[[IntArray, FloatArray], FloatArray]:
    def inflated(k: IntArray, params: FloatArray) -> FloatArray:
        pi = 1.0 / (1.0 + math.exp(-params[0]))
        base = np.exp(logpmf(k, params[1:]))
        return np.log(np.where(k == 0, pi + (1 - pi) * base, (1 - pi) * base) + 1e-300)

    return inflated


def _poisson(k: IntArray, p: FloatArray) -> FloatArray:
    return np.asarray(stats.poisson.logpmf(k, math.exp(p[0])), dtype=float)


def _negbin(k: IntArray, p: FloatArray) -> FloatArray:
    size, mean = math.exp(p[0]), math.exp(p[1])
    return np.asarray(stats.nbinom.logpmf(k, size, size / (size + mean)), dtype=float)


_PARAMETRIC: dict[str, tuple[Callable[[IntArray, FloatArray], FloatArray], int]] = {
    "Poisson": (_poisson, 1),
    "zero-inflated Poisson": (_zero_inflated(_poisson), 2),
    "negative binomial": (_negbin, 2),
    "zero-inflated negative binomial": (_zero_inflated(_negbin), 3),
}


def _starts(name: str, data: IntArray) -> list[list[float]]:
    """Where the optimiser starts: a plain guess, and one from the moments and the zeros.

    One start alone can stall (a zero-inflated Poisson started at half zeros
    stopped at a mean of 3.1 for data of mean 5.1); the better optimum wins.
    """
    mean = max(float(data.mean()), 1e-3)
    spread = float(data.var())
    size = mean**2 / (spread - mean) if spread > mean * 1.01 else 1e3
    zeros = float(np.mean(data == 0))
    inflation = float(
        np.clip((zeros - math.exp(-mean)) / max(1 - math.exp(-mean), 1e-9), 0.01, 0.95)
    )
    logit = math.log(inflation / (1 - inflation))
    positive = math.log(mean / (1 - inflation))
    plain = {1: [math.log(mean)], 2: [0.0, math.log(mean)], 3: [0.0, 0.0, math.log(mean)]}
    moments = {
        "Poisson": [math.log(mean)],
        "zero-inflated Poisson": [logit, positive],
        "negative binomial": [math.log(size), math.log(mean)],
        "zero-inflated negative binomial": [logit, math.log(size), positive],
    }
    return [plain[_PARAMETRIC[name][1]], moments[name]]


def _fit_parametric(name: str, data: IntArray, cap: int | None) -> ModelFit | None:
    logpmf, size = _PARAMETRIC[name]
    values, weights = np.unique(data, return_counts=True)

    def negative(params: FloatArray) -> float:
        return -float(np.sum(weights * logpmf(values, params)))

    # Bounds keep the optimiser out of flat regions (a negative binomial tending to a Poisson).
    bounds = {1: [(-10, 5)], 2: [(-10, 10), (-10, 5)], 3: [(-20, 20), (-10, 10), (-10, 5)]}[size]
    if name == "zero-inflated Poisson":
        bounds = [(-20, 20), (-10, 5)]
    results = [
        optimize.minimize(
            negative,
            np.clip(start, [b[0] for b in bounds], [b[1] for b in bounds]),
            method="Nelder-Mead",
            bounds=bounds,
            options={"maxiter": 2000, "xatol": 1e-5, "fatol": 1e-7},
        )
        for start in _starts(name, data)
    ]
    result = min(results, key=lambda r: r.fun if np.isfinite(r.fun) else math.inf)
    if not np.isfinite(result.fun):
        return None
    pmf = truncated_pmf(lambda k: np.exp(logpmf(k, result.x)), int(data.max()), cap)
    return ModelFit(name, -float(result.fun), size, len(data), pmf)


def truncated_pmf(law: Callable[[IntArray], FloatArray], top: int, cap: int | None) -> FloatArray:
    """The law's P(k) for k = 0..cap, renormalised: the model given that the hopper held ``cap``.

    The law's own tail is kept count by count (so past its mode the pmf only
    falls) and what lies beyond the hopper is shared out in proportion, never
    piled on one count. Each P(k) is at least :data:`FLOOR`, so every count up
    to ``cap`` stays possible. With ``cap`` None the pmf stops where the law's
    mass above is below :data:`TAIL` (at least at ``top``, the largest count seen).
    """
    if cap is None:
        grid = np.arange(0, max(200, top + 1))
        cumulative = np.cumsum(law(grid))
        cap = max(top, int(np.searchsorted(cumulative, 1 - TAIL)))
    pmf = np.asarray(law(np.arange(0, max(cap, top) + 1)), dtype=float)
    pmf = np.maximum(pmf / pmf.sum(), FLOOR)
    return pmf / pmf.sum()


def count_models(values: npt.ArrayLike, *, cap: int | None = None) -> list[ModelFit]:
    """Every candidate count model fitted to ``values``, best AIC first.

    ``cap`` is the largest count a press could give (the fullest hopper): each
    parametric model's pmf then runs from 0 to ``cap`` (:func:`truncated_pmf`).
    """
    data = np.asarray(values, dtype=np.int64)
    fits = [_categorical(data)]
    if data.any():
        fits += [f for name in _PARAMETRIC if (f := _fit_parametric(name, data, cap)) is not None]
    return sorted(fits, key=lambda f: f.aic)


# -- structure models (what decides whether a press fires) -------------------------------
def _bernoulli_at(hits: FloatArray, trials: FloatArray, rates: FloatArray) -> float:
    """Log-likelihood of ``hits`` out of ``trials`` at chance ``rates`` (0 log 0 counts as 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = hits * np.log(rates) + (trials - hits) * np.log(1 - rates)
    return float(np.nansum(np.where(trials > 0, terms, 0.0)))


def _bernoulli_loglik(hits: FloatArray, trials: FloatArray) -> float:
    return _bernoulli_at(hits, trials, _share(hits, trials))


def grouped_rates(groups: IntArray, fired: npt.NDArray[np.bool_]) -> tuple[FloatArray, FloatArray]:
    """Per group index: presses that fired, and presses."""
    size = int(groups.max()) + 1 if len(groups) else 1
    trials = np.bincount(groups, minlength=size).astype(float)
    hits = np.bincount(groups, weights=fired.astype(float), minlength=size).astype(float)
    return hits, trials


def misses_before(fired: npt.NDArray[np.bool_], since_reload: IntArray) -> IntArray:
    """Empty presses in a row before each press (restarting at every reload)."""
    out = np.zeros(len(fired), dtype=np.int64)
    run = 0
    for index, (hit, position) in enumerate(zip(fired, since_reload, strict=True)):
        if position == 1:
            run = 0
        out[index] = run
        run = 0 if hit else run + 1
    return out


def isotonic_increasing(rates: FloatArray, weights: FloatArray) -> FloatArray:
    """Pool-adjacent-violators: the best non-decreasing fit (the chance can only escalate)."""
    blocks: list[list[float]] = []
    for rate, weight in zip(rates, weights, strict=True):
        blocks.append([rate * weight, weight, 1])
        while len(blocks) > 1 and blocks[-2][0] / max(blocks[-2][1], 1e-12) > blocks[-1][0] / max(
            blocks[-1][1], 1e-12
        ):
            top = blocks.pop()
            blocks[-1] = [blocks[-1][0] + top[0], blocks[-1][1] + top[1], blocks[-1][2] + top[2]]
    out: list[float] = []
    for total, weight, length in blocks:
        out += [total / weight if weight else 0.0] * int(length)
    return np.array(out)


@dataclass(frozen=True)
class StructureFit:
    """A structure model; ``rates`` is P(fire) per group (position, misses or load band)."""

    model: ModelFit
    rates: FloatArray
    trials: FloatArray


def structure_models(
    fired: npt.NDArray[np.bool_], since_reload: IntArray, loads: IntArray, *, min_visits: int = 3
) -> dict[str, StructureFit]:
    """The four structure models fitted to one fire/no-fire sequence."""
    n = len(fired)
    total = float(fired.sum())
    iid = ModelFit("independent", _bernoulli_loglik(np.array([total]), np.array([float(n)])), 1, n)
    fits = {"iid": StructureFit(iid, np.array([total / max(n, 1)]), np.array([float(n)]))}
    hits, trials = grouped_rates(since_reload - 1, fired)
    fits["pattern"] = StructureFit(
        ModelFit(
            "fixed pattern by press since reload",
            _bernoulli_loglik(hits, trials),
            int(np.count_nonzero(trials)),
            n,
        ),
        _share(hits, trials),
        trials,
    )
    fits["escalating"] = _escalating_fit(fired, since_reload, min_visits)
    fits["load-dependent"] = _load_fit(fired, loads)
    return fits


def _share(hits: FloatArray, trials: FloatArray) -> FloatArray:
    return np.divide(hits, trials, out=np.zeros_like(hits), where=trials > 0)


def _escalating_fit(
    fired: npt.NDArray[np.bool_], since_reload: IntArray, min_visits: int
) -> StructureFit:
    misses = misses_before(fired, since_reload)
    hits, trials = grouped_rates(misses, fired)
    cap = len(trials) - 1  # pool rarely seen droughts into the last state
    while cap > 0 and trials[cap:].sum() < min_visits:
        cap -= 1
    hits = np.concatenate([hits[:cap], [hits[cap:].sum()]])
    trials = np.concatenate([trials[:cap], [trials[cap:].sum()]])
    rates = isotonic_increasing(_share(hits, trials), trials)
    loglik = _bernoulli_at(hits, trials, rates)
    model = ModelFit(
        "escalating by empty presses in a row", loglik, len(np.unique(rates)), len(fired)
    )
    return StructureFit(model, rates, trials)


def load_bands(loads: IntArray) -> IntArray:
    """Band boundaries: the load thirds of the session (at least 0, increasing)."""
    cuts = (
        np.unique(np.quantile(loads, [1 / 3, 2 / 3]).astype(np.int64) + 1)
        if len(loads)
        else np.zeros(0, np.int64)
    )
    return np.concatenate([[0], cuts[cuts > 0]]).astype(np.int64)


def _load_fit(fired: npt.NDArray[np.bool_], loads: IntArray) -> StructureFit:
    band = np.searchsorted(load_bands(loads), loads, side="right") - 1
    hits, trials = grouped_rates(band.astype(np.int64), fired)
    model = ModelFit(
        "chance depends on load (thirds)",
        _bernoulli_loglik(hits, trials),
        int(np.count_nonzero(trials)),
        len(fired),
    )
    return StructureFit(model, _share(hits, trials), trials)
