"""Are the presses independent, and does output depend on the load?

A fixed firing pattern (the 1999 launcher) or an escalating launcher makes
presses depend on earlier presses, which breaks the i.i.d. assumption behind
the count intervals. Three classic checks on the fire / no-fire sequence and
the counts: the Wald-Wolfowitz runs test and the Ljung-Box portmanteau test
(with the lag-1..k autocorrelations that stand out against Bartlett's bound)
on fire / no-fire and on the counts. Load dependence: Spearman rank
correlation of count against cards loaded, and a Kruskal-Wallis test across
load thirds.

**Which p-value.** The textbook p-values are large-sample approximations
(normal, chi-square); at 30 presses the Ljung-Box one rejected 6 % of i.i.d.
sessions against 1.7 % nominal. Below :data:`PERMUTATION_BELOW` presses every
check therefore uses a *permutation* p-value: the same statistic on
:data:`PERMUTATIONS` seeded reshuffles of the presses. Under independence every
order of the presses is equally likely, so this p-value is valid at any session
size (a Monte-Carlo exact test); its resolution is 1 / (shuffles + 1). From
:data:`PERMUTATION_BELOW` presses on, the asymptotic p-values are accurate and
free. Each :class:`TestResult` names its method. Below :data:`MIN_PRESSES`
presses no check is made: there is nothing to test.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from launcher.calibration._scipy import stats

FloatArray = npt.NDArray[np.float64]
#: Fewer presses than this: no independence or load check at all (reported as such).
MIN_PRESSES = 10
#: Below this many presses the p-values are permutation p-values; from here on asymptotic.
PERMUTATION_BELOW = 1000
#: Reshuffles behind a permutation p-value (resolution 0.001, well under 0.05 / 3).
PERMUTATIONS = 999


@dataclass(frozen=True)
class TestResult:
    name: str
    statistic: float
    p_value: float
    detail: str = ""
    method: str = "asymptotic"


def _permutation_p(observed: float, shuffled: FloatArray) -> float:
    """Share of shuffles at least as extreme, counting the data itself (never 0)."""
    return (int(np.count_nonzero(shuffled >= observed - 1e-12)) + 1) / (len(shuffled) + 1)


def _shuffles(values: FloatArray, rng: np.random.Generator, times: int) -> FloatArray:
    return np.asarray(rng.permuted(np.tile(values, (times, 1)), axis=1), dtype=float)


def _permutation_method(times: int) -> str:
    return f"permutation, {times} shuffles"


# -- runs ----------------------------------------------------------------------------------
def _runs(seq: FloatArray) -> FloatArray:
    return np.asarray(1 + np.count_nonzero(np.diff(seq, axis=-1) != 0, axis=-1), dtype=float)


def runs_test(
    fired: npt.ArrayLike, *, rng: np.random.Generator | None = None, permutations: int = 0
) -> TestResult:
    """Wald-Wolfowitz runs test on a yes/no sequence: normal z, permutation p when asked."""
    name = "runs test (fire/no-fire)"
    seq = np.asarray(fired, dtype=bool).astype(float)
    n, yes = len(seq), int(seq.sum())
    no = n - yes
    if yes == 0 or no == 0:
        return TestResult(name, math.nan, 1.0, "every press alike", "nothing to test")
    runs = float(_runs(seq))
    expected = 2.0 * yes * no / n + 1
    variance = 2.0 * yes * no * (2.0 * yes * no - n) / (n * n * (n - 1))
    z = (runs - expected) / math.sqrt(variance) if variance > 0 else 0.0
    detail = f"{runs:.0f} runs, {expected:.1f} expected if independent"
    if rng is not None and permutations:
        gaps = np.abs(_runs(_shuffles(seq, rng, permutations)) - expected)
        p = _permutation_p(abs(runs - expected), gaps)
        return TestResult(name, z, p, detail, _permutation_method(permutations))
    return TestResult(name, z, float(2 * stats.norm.sf(abs(z))), detail, "asymptotic (normal)")


# -- Ljung-Box -----------------------------------------------------------------------------
def _autocorrelations(data: FloatArray, lags: int) -> FloatArray:
    """r_1..r_lags along the last axis (the usual biased estimator); rows of zeros when flat."""
    centred = data - data.mean(axis=-1, keepdims=True)
    denominator = np.sum(centred * centred, axis=-1)
    safe = np.where(denominator > 0, denominator, 1.0)
    columns = [
        np.sum(centred[..., :-k] * centred[..., k:], axis=-1) / safe for k in range(1, lags + 1)
    ]
    return np.asarray(np.stack(columns, axis=-1), dtype=float)


def autocorrelations(values: npt.ArrayLike, lags: int) -> FloatArray:
    """Sample autocorrelation r_1..r_lags (the usual biased estimator)."""
    return _autocorrelations(np.asarray(values, dtype=float), lags)


def _q(data: FloatArray, lags: int) -> FloatArray:
    n = data.shape[-1]
    r = _autocorrelations(data, lags)
    return np.asarray(
        n * (n + 2) * np.sum(r**2 / (n - np.arange(1, lags + 1)), axis=-1), dtype=float
    )


def ljung_box(
    values: npt.ArrayLike,
    lags: int,
    label: str,
    *,
    rng: np.random.Generator | None = None,
    permutations: int = 0,
) -> TestResult:
    """Ljung-Box Q over lags 1..``lags``: chi-square p, or a permutation p when asked."""
    data = np.asarray(values, dtype=float)
    n = len(data)
    lags = max(1, min(lags, n - 2))
    name = f"Ljung-Box, lags 1-{lags} ({label})"
    if n < 3 or np.all(data == data[0]):
        return TestResult(name, math.nan, 1.0, "every press alike", "nothing to test")
    r = autocorrelations(data, lags)
    q = float(_q(data, lags))
    bound = 1.96 / math.sqrt(n)
    strong = [f"lag {k}: {v:+.2f}" for k, v in enumerate(r, start=1) if abs(v) > bound][:4]
    detail = (
        (", ".join(strong) + f" (beyond +-{bound:.2f})")
        if strong
        else f"all |r| within +-{bound:.2f}"
    )
    if rng is not None and permutations:
        p = _permutation_p(q, _q(_shuffles(data, rng, permutations), lags))
        return TestResult(name, q, p, detail, _permutation_method(permutations))
    p = float(stats.chi2.sf(q, lags))
    return TestResult(name, q, p, detail, f"asymptotic (chi-square, {lags} df)")


def _permutations_for(n: int, permutations: int | None) -> int:
    """0 (asymptotic) from PERMUTATION_BELOW presses on, unless a count is forced."""
    if permutations is not None:
        return permutations
    return PERMUTATIONS if n < PERMUTATION_BELOW else 0


def independence_checks(
    counts: npt.ArrayLike, lags: int = 10, *, seed: int = 0, permutations: int | None = None
) -> list[TestResult]:
    """The three checks, each at its own p-value; empty below :data:`MIN_PRESSES` presses.

    ``permutations=None`` picks the method by session size (see the module
    docstring); 0 forces the asymptotic p-values, a number forces that many shuffles.
    """
    data = np.asarray(counts)
    if len(data) < MIN_PRESSES:
        return []
    fired = data > 0
    times = _permutations_for(len(data), permutations)
    rng = np.random.default_rng(seed)
    return [
        runs_test(fired, rng=rng, permutations=times),
        ljung_box(fired, lags, "fire/no-fire", rng=rng, permutations=times),
        ljung_box(data, lags, "counts", rng=rng, permutations=times),
    ]


def looks_independent(results: Sequence[TestResult], alpha: float = 0.05) -> bool:
    """No check rejects at ``alpha`` split over the checks (Bonferroni); True when none ran."""
    return all(r.p_value >= alpha / len(results) for r in results)


# -- load ----------------------------------------------------------------------------------
#: One recorded session's hopper rule: (presses, cards loaded, top up below).
Refill = tuple[int, int, int]


def replay_loads(counts: npt.ArrayLike, refills: Sequence[Refill]) -> npt.NDArray[np.int64]:
    """The load before each press (last axis) if the hopper follows ``refills``, as record does.

    Each session starts full, and is topped up to its ``cards`` before a press whenever
    fewer than ``reload_below`` are left. Works on many sequences at once (one per row).
    """
    data = np.asarray(counts, dtype=np.int64)
    out = np.empty_like(data)
    start = 0
    for presses, cards, reload_below in refills:
        loaded = np.full(data.shape[:-1], cards, dtype=np.int64)
        for i in range(start, start + presses):
            if i > start:
                loaded = np.where(loaded < reload_below, cards, loaded)
            out[..., i] = loaded
            loaded = loaded - np.minimum(data[..., i], loaded)
        start += presses
    return out


def _load_stats(counts: FloatArray, loads: FloatArray) -> tuple[FloatArray, FloatArray]:
    """|Spearman rho| and Kruskal-Wallis H (up to constants the shuffles share), per row."""
    count_ranks = np.asarray(stats.rankdata(counts, axis=-1), dtype=float)
    load_ranks = np.asarray(stats.rankdata(loads, axis=-1), dtype=float)
    a = load_ranks - load_ranks.mean(axis=-1, keepdims=True)
    b = count_ranks - count_ranks.mean(axis=-1, keepdims=True)
    scale = np.sqrt(np.sum(a * a, axis=-1) * np.sum(b * b, axis=-1))
    rho = np.sum(a * b, axis=-1) / np.where(scale > 0, scale, 1.0)
    h = np.zeros(rho.shape)
    for mask in _load_groups(loads):
        size = mask.sum(axis=-1)
        h += np.sum(count_ranks * mask, axis=-1) ** 2 / np.where(size > 0, size, 1)
    return np.asarray(np.abs(rho), dtype=float), np.asarray(h, dtype=float)


def _load_groups(load: FloatArray) -> list[npt.NDArray[np.bool_]]:
    """Lightest, middle and fullest thirds of the presses (per row), by load quantiles."""
    cuts = np.quantile(load, [1 / 3, 2 / 3], axis=-1)
    low, high = cuts[0][..., None], cuts[1][..., None]
    return [load <= low, (load > low) & (load <= high), load > high]


def _load_permutation(
    data: FloatArray, load: FloatArray, refills: Sequence[Refill] | None, seed: int, times: int
) -> tuple[float, float, str]:
    """Permutation p-values of Spearman and Kruskal-Wallis, and the method's name.

    When the loads follow ``refills`` exactly, each reshuffle of the counts gets the
    loads its own hopper would have had, which makes the test exact: a session's
    loads depend on the earlier counts. Otherwise the loads stay as recorded.
    """
    shuffled = _shuffles(data, np.random.default_rng(seed), times)
    method = _permutation_method(times)
    replayed = refills is not None and bool(np.array_equal(replay_loads(data, refills), load))
    if replayed and refills is not None:
        shuffled_loads = replay_loads(shuffled, refills).astype(float)
        method += ", loads replayed"
    else:
        shuffled_loads = np.tile(load, (times, 1))
    rho, h = _load_stats(data, load)
    rhos, hs = _load_stats(shuffled, shuffled_loads)
    return _permutation_p(float(rho), rhos), _permutation_p(float(h), hs), method


def load_checks(
    counts: npt.ArrayLike,
    loads: npt.ArrayLike,
    *,
    seed: int = 0,
    permutations: int | None = None,
    refills: Sequence[Refill] | None = None,
) -> list[TestResult]:
    """Does the count move with the load? Empty when the load never varied (or too few presses).

    ``refills`` (one rule per pooled session) lets the permutation test replay the
    hopper; see :func:`_load_permutation`.
    """
    data, load = np.asarray(counts, dtype=float), np.asarray(loads, dtype=float)
    if len(data) < MIN_PRESSES or len(np.unique(load)) < 3 or len(np.unique(data)) < 2:
        return []
    times = _permutations_for(len(data), permutations)
    groups = [g for g in _load_groups(load) if g.any()]
    rho = float(stats.spearmanr(load, data)[0])
    if times:
        p_rho, p_h, method = _load_permutation(data, load, refills, seed, times)
    else:
        p_rho = float(stats.spearmanr(load, data)[1])
        p_h = float(stats.kruskal(*[data[g] for g in groups])[1]) if len(groups) > 1 else 1.0
        method = "asymptotic"
    results = [TestResult("Spearman count vs load", rho, p_rho, f"rho = {rho:+.2f}", method)]
    if len(groups) >= 2:
        h = float(stats.kruskal(*[data[g] for g in groups])[0])
        means = ", ".join(f"{data[g].mean():.2f}" for g in groups)
        results.append(
            TestResult("Kruskal-Wallis across load thirds", h, p_h, f"means {means}", method)
        )
    return results
