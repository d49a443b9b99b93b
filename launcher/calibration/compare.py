"""Are two sessions, or a session and a profile, the same distribution?

Two complementary statistics on the same Monte-Carlo draws, combined honestly:

* an ordered **Cramer-von Mises** statistic on the cumulative distributions
  (Choulakian, Lockhart and Stephens' discrete form): a launcher that shoots
  more or fewer cards (a shift in P(nothing), a weaker motor) moves the whole
  cumulative curve, which this statistic sees best;
* **Pearson's chi-square** on every count, unmerged, for any change of shape:
  a rare count seen too often (a launcher with a longer tail) weighs heavily
  here and barely moves the cumulative curve.

Both p-values are Monte-Carlo, valid at any session size: session vs profile
draws sessions of the same size from the profile; session vs session
reshuffles the presses between the two sessions (tables with the same margins,
from numpy's multivariate hypergeometric sampler). The **combined** p-value
is the Monte-Carlo p-value of the smaller of the two, computed on the same
draws (a min-p test): it is exact for the pair, where Bonferroni's ``2 * min``
would throw power away because the two statistics are correlated.

Effect sizes, which agree with each other by construction: the total variation
distance (TV, the share of presses whose count would have to change) and
Cohen's w = sqrt(sum (p_A - p_B)^2 / p_B) on the same unmerged counts (for two
sessions, against the average of the two distributions, so it does not depend
on how many presses each has). By Cauchy-Schwarz w >= 2 TV, so a large TV
never sits beside w = 0. The tests assume independent presses; a patterned launcher
compares by marginals. :func:`format_p` prints a p-value with as many digits as
it takes to sit on the same side of alpha as the verdict.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from launcher.analysis import analyse
from launcher.profiles import Profile

FloatArray = npt.NDArray[np.float64]
MC_DRAWS = 10_000


@dataclass(frozen=True)
class Side:
    """One side of a comparison: observed counts (a session) or exact probabilities (a profile)."""

    label: str
    cells: FloatArray
    is_session: bool

    @classmethod
    def of_counts(cls, label: str, values: npt.ArrayLike) -> Side:
        return cls(label, np.bincount(np.asarray(values, dtype=np.int64)).astype(float), True)

    @classmethod
    def of_profile(cls, profile: Profile) -> Side:
        return cls(f"profile {profile.name}", analyse(profile).probabilities, False)

    def padded(self, width: int) -> FloatArray:
        cells = np.zeros(width)
        cells[: len(self.cells)] = self.cells
        return cells

    def distribution(self, width: int) -> FloatArray:
        cells = self.padded(width)
        return cells / cells.sum()


@dataclass(frozen=True)
class TestOutcome:
    name: str
    statistic: float
    p_value: float


@dataclass(frozen=True)
class Comparison:
    a: Side
    b: Side
    tests: tuple[TestOutcome, ...]
    total_variation: float
    effect: str
    alpha: float
    note: str = ""
    p_combined: float = 1.0

    @property
    def p_value(self) -> float:
        """The combined (min-p, Monte-Carlo) p-value of the tests; 1 when nothing was tested."""
        return self.p_combined if self.tests else 1.0

    @property
    def is_sampled(self) -> bool:
        """False when both sides are profiles (nothing random to test)."""
        return self.a.is_session or self.b.is_session

    @property
    def differ(self) -> bool:
        if not self.is_sampled:
            return self.total_variation > 1e-9
        return self.p_value < self.alpha

    @property
    def verdict(self) -> str:
        return verdict(self)


def format_p(p: float, alpha: float | None = None) -> str:
    """``p`` to 3 significant digits, or more until it reads on the same side of ``alpha``.

    So a verdict never prints "p = 0.05 < 0.05": 0.04996 becomes "0.04996".
    """
    if not math.isfinite(p):
        return "nan"
    for digits in range(3, 12):
        text = f"{p:.{digits}g}"
        if alpha is None or (float(text) < alpha) == (p < alpha):
            return text
    return repr(p)


def total_variation(p: FloatArray, q: FloatArray) -> float:
    return float(0.5 * np.abs(p - q).sum())


def _pearson(observed: FloatArray, expected: FloatArray) -> FloatArray:
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(expected > 0, (observed - expected) ** 2 / expected, 0.0)
    return np.asarray(terms.sum(axis=-1), dtype=float)


def _mc_p(simulated: FloatArray, observed: float) -> float:
    return (int(np.count_nonzero(simulated >= observed - 1e-9)) + 1) / (len(simulated) + 1)


def _p_among(statistics: FloatArray) -> FloatArray:
    """Each statistic's Monte-Carlo p-value among all of them: share at least as large."""
    order = np.sort(statistics)
    at_least = len(order) - np.searchsorted(order, statistics - 1e-9, side="left")
    return np.asarray(at_least / len(order), dtype=float)


def _combined(
    observed: tuple[float, float], simulated: tuple[FloatArray, FloatArray]
) -> tuple[TestOutcome, TestOutcome, float]:
    """Both tests, and the min-p combination calibrated on the same draws.

    The observed session and the draws are exchangeable under the null, so each
    of them gets its p-values among all of them (the observed one included), and
    the combined p-value is the share whose smaller p-value is at most the
    observed one's: a valid Monte-Carlo test of the min-p statistic.
    """
    cvm_all = np.concatenate([[observed[0]], simulated[0]])
    chi_all = np.concatenate([[observed[1]], simulated[1]])
    p_cvm, p_chi = _p_among(cvm_all), _p_among(chi_all)
    smallest = np.minimum(p_cvm, p_chi)
    combined = float(np.count_nonzero(smallest <= smallest[0] + 1e-12) / len(smallest))
    cvm = TestOutcome("Cramer-von Mises (ordered), Monte-Carlo", observed[0], float(p_cvm[0]))
    chi = TestOutcome("chi-square on every count, Monte-Carlo", observed[1], float(p_chi[0]))
    return cvm, chi, combined


# -- session vs profile ------------------------------------------------------------------
def _cvm_fit(cells: FloatArray, p: FloatArray) -> FloatArray:
    n = cells.sum(axis=-1, keepdims=True)
    gaps = np.cumsum(cells, axis=-1) / n - np.cumsum(p)
    return np.asarray(n[..., 0] * np.sum(gaps**2 * p, axis=-1), dtype=float)


def _against_profile(
    session: Side, profile: Side, alpha: float, rng: np.random.Generator, draws: int
) -> Comparison:
    width = max(len(session.cells), len(profile.cells))
    observed, p = session.padded(width), profile.distribution(width)
    n = observed.sum()
    share = observed / n
    tv = total_variation(share, p)
    impossible = np.flatnonzero((p == 0) & (observed > 0)).tolist()
    if impossible:
        test = TestOutcome(f"counts {impossible} never happen under the profile", math.inf, 0.0)
        return Comparison(session, profile, (test,), tv, "Cohen's w = inf", alpha, p_combined=0.0)
    simulated = rng.multinomial(int(n), p, size=draws).astype(float)
    possible = p > 0
    expected = n * p[possible]
    cvm, chi, combined = _combined(
        (float(_cvm_fit(observed, p)), float(_pearson(observed[possible], expected))),
        (_cvm_fit(simulated, p), _pearson(simulated[:, possible], expected)),
    )
    w = _cohen_w(share, p, p)
    return Comparison(
        session, profile, (cvm, chi), tv, f"Cohen's w = {w:.2f}", alpha, p_combined=combined
    )


# -- two sessions -------------------------------------------------------------------------
def _cvm_two(first: FloatArray, columns: FloatArray) -> FloatArray:
    na, total = first.sum(axis=-1), columns.sum()
    nb = total - na
    gaps = (
        np.cumsum(first, axis=-1) / na[..., None]
        - np.cumsum(columns - first, axis=-1) / nb[..., None]
    )
    return np.asarray(na * nb / total * np.sum(gaps**2 * columns / total, axis=-1), dtype=float)


def _chi_two(first: FloatArray, columns: FloatArray) -> FloatArray:
    """Pearson's chi-square of the 2 x k table (first row ``first``, column totals ``columns``)."""
    total = columns.sum()
    na = first.sum(axis=-1, keepdims=True)
    expected_a = na * columns / total
    expected_b = (total - na) * columns / total
    second = columns - first
    return np.asarray(
        np.sum((first - expected_a) ** 2 / expected_a, axis=-1)
        + np.sum((second - expected_b) ** 2 / expected_b, axis=-1),
        dtype=float,
    )


def _two_sessions(
    a: Side, b: Side, alpha: float, rng: np.random.Generator, draws: int
) -> Comparison:
    width = max(len(a.cells), len(b.cells))
    first, second = a.padded(width), b.padded(width)
    used = (first + second) > 0
    first, columns = first[used], (first + second)[used]
    tv = total_variation(a.distribution(width), b.distribution(width))
    drawn = rng.multivariate_hypergeometric(columns.astype(np.int64), int(first.sum()), size=draws)
    shuffled = drawn.astype(np.float64)
    chi_observed = float(_chi_two(first, columns))
    cvm, chi, combined = _combined(
        (float(_cvm_two(first, columns)), chi_observed),
        (_cvm_two(shuffled, columns), _chi_two(shuffled, columns)),
    )
    pa, pb = a.distribution(width)[used], b.distribution(width)[used]
    w = _cohen_w(pa, pb, (pa + pb) / 2)
    effect = f"Cohen's w = {w:.2f} (against the average of A and B)"
    return Comparison(a, b, (cvm, chi), tv, effect, alpha, p_combined=combined)


def _cohen_w(first: FloatArray, second: FloatArray, reference: FloatArray) -> float:
    """sqrt(sum (first - second)^2 / reference) where reference > 0; always >= 2 TV."""
    used = reference > 0
    gaps = first[used] - second[used]
    return math.sqrt(float(np.sum(gaps**2 / reference[used])))


def compare(
    a: Side, b: Side, *, alpha: float = 0.05, seed: int | None = 0, draws: int = MC_DRAWS
) -> Comparison:
    """Test whether ``a`` and ``b`` are the same distribution; two profiles compare exactly.

    ``draws`` Monte-Carlo samples set the p-values' resolution (about 1 / draws).
    """
    rng = np.random.default_rng(seed)
    if a.is_session and b.is_session:
        return _two_sessions(a, b, alpha, rng, draws)
    if a.is_session or b.is_session:
        session, profile = (a, b) if a.is_session else (b, a)
        result = _against_profile(session, profile, alpha, rng, draws)
        return replace(result, a=a, b=b)
    width = max(len(a.cells), len(b.cells))
    tv = total_variation(a.distribution(width), b.distribution(width))
    return Comparison(a, b, (), tv, "", alpha, "two profiles: exact, no sampling noise")


def verdict(result: Comparison) -> str:
    """One plain sentence a hobbyist can act on."""
    width = max(len(result.a.cells), len(result.b.cells))
    pa, pb = result.a.distribution(width), result.b.distribution(width)
    nothing = f"P(nothing) {pa[0]:.2f} vs {pb[0]:.2f}"
    gap = f"total variation distance {result.total_variation:.3f}"
    if not result.is_sampled:
        return f"Exact comparison of two profiles: {gap}; {nothing}."
    if result.differ:
        worst = int(np.argmax(np.abs(pa - pb)))
        return (
            f"DIFFERENT: p = {format_p(result.p_value, result.alpha)} < {result.alpha:g}; "
            f"{gap}; {nothing}; "
            f"the biggest gap is at {worst} card(s): {pa[worst]:.2f} vs {pb[worst]:.2f}."
        )
    return (
        f"No evidence of a difference: p = {format_p(result.p_value, result.alpha)} "
        f">= {result.alpha:g}; "
        f"{gap}; {nothing}. "
        "Small differences may still exist; more presses would show them."
    )
