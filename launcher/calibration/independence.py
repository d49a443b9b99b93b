"""Are the presses independent, and does output depend on the load?

A fixed firing pattern (the 1999 launcher) or an escalating launcher makes
presses depend on earlier presses, which breaks the i.i.d. assumption behind
the count intervals. Three classic checks on the fire / no-fire sequence and
the counts: the Wald-Wolfowitz runs test, lag-1..k autocorrelations against
Bartlett's bound, and the Ljung-Box portmanteau test. Load dependence: Spearman
rank correlation of count against cards loaded, and a Kruskal-Wallis test
across load thirds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from launcher.calibration._scipy import stats

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class TestResult:
    name: str
    statistic: float
    p_value: float
    detail: str = ""


def runs_test(fired: npt.ArrayLike) -> TestResult:
    """Wald-Wolfowitz runs test (normal approximation) on a yes/no sequence."""
    seq = np.asarray(fired, dtype=bool)
    n, yes = len(seq), int(seq.sum())
    no = n - yes
    if yes == 0 or no == 0:
        return TestResult("runs test (fire/no-fire)", math.nan, 1.0, "every press alike")
    runs = 1 + int(np.count_nonzero(seq[1:] != seq[:-1]))
    expected = 2.0 * yes * no / n + 1
    variance = 2.0 * yes * no * (2.0 * yes * no - n) / (n * n * (n - 1))
    z = (runs - expected) / math.sqrt(variance) if variance > 0 else 0.0
    detail = f"{runs} runs, {expected:.1f} expected if independent"
    return TestResult("runs test (fire/no-fire)", z, float(2 * stats.norm.sf(abs(z))), detail)


def autocorrelations(values: npt.ArrayLike, lags: int) -> FloatArray:
    """Sample autocorrelation r_1..r_lags (the usual biased estimator)."""
    data = np.asarray(values, dtype=float)
    centred = data - data.mean()
    denominator = float(centred @ centred)
    if denominator == 0:
        return np.zeros(lags)
    return np.array([float(centred[:-k] @ centred[k:]) / denominator for k in range(1, lags + 1)])


def ljung_box(values: npt.ArrayLike, lags: int, label: str) -> TestResult:
    """Ljung-Box Q over lags 1..``lags``, chi-square with ``lags`` degrees of freedom."""
    data = np.asarray(values, dtype=float)
    n = len(data)
    lags = max(1, min(lags, n - 2))
    r = autocorrelations(data, lags)
    q = float(n * (n + 2) * np.sum(r**2 / (n - np.arange(1, lags + 1))))
    bound = 1.96 / math.sqrt(n)
    strong = [f"lag {k}: {v:+.2f}" for k, v in enumerate(r, start=1) if abs(v) > bound][:4]
    detail = (
        (", ".join(strong) + f" (beyond +-{bound:.2f})")
        if strong
        else f"all |r| within +-{bound:.2f}"
    )
    return TestResult(
        f"Ljung-Box, lags 1-{lags} ({label})", q, float(stats.chi2.sf(q, lags)), detail
    )


def independence_checks(counts: npt.ArrayLike, lags: int = 10) -> list[TestResult]:
    data = np.asarray(counts)
    fired = data > 0
    return [
        runs_test(fired),
        ljung_box(fired, lags, "fire/no-fire"),
        ljung_box(data, lags, "counts"),
    ]


def looks_independent(results: Sequence[TestResult], alpha: float = 0.05) -> bool:
    """No check rejects at ``alpha`` split over the checks (Bonferroni)."""
    return all(r.p_value >= alpha / len(results) for r in results)


def load_checks(counts: npt.ArrayLike, loads: npt.ArrayLike) -> list[TestResult]:
    """Does the count move with the load? Empty when the load never varied."""
    data, load = np.asarray(counts, dtype=float), np.asarray(loads, dtype=float)
    if len(np.unique(load)) < 3 or len(np.unique(data)) < 2:
        return []
    rho, p_rho = stats.spearmanr(load, data)
    results = [TestResult("Spearman count vs load", float(rho), float(p_rho), f"rho = {rho:+.2f}")]
    cuts = np.quantile(load, [1 / 3, 2 / 3])
    groups = [
        data[load <= cuts[0]],
        data[(load > cuts[0]) & (load <= cuts[1])],
        data[load > cuts[1]],
    ]
    groups = [g for g in groups if len(g)]
    if len(groups) >= 2:
        h, p_h = stats.kruskal(*groups)
        means = ", ".join(f"{g.mean():.2f}" for g in groups)
        results.append(
            TestResult("Kruskal-Wallis across load thirds", float(h), float(p_h), f"means {means}")
        )
    return results
