"""Are two sessions, or a session and a profile, the same distribution?

Two complementary tests, combined with a Bonferroni correction (the verdict
says "different" when either p-value is below alpha / 2, and the reported
p-value is ``min(1, 2 * min(p1, p2))``):

* an ordered **Cramer-von Mises** test on the cumulative distributions
  (Choulakian, Lockhart and Stephens' discrete form): counts are ordered, and a
  launcher that shoots more or fewer cards (a shift in P(nothing), a weaker
  motor) moves the whole cumulative curve, which this test sees best;
* **Pearson's chi-square** for any change of shape, with sparse neighbouring
  counts merged until each cell expects at least 5 presses (Cochran's rule).

The p-values are Monte-Carlo -- valid for any session size, small counts
included: session vs profile draws sessions of the same size from the profile;
session vs session reshuffles presses between the two sessions (tables with the
same margins, from numpy's multivariate hypergeometric sampler). When every
merged cell expects at least 5 presses the chi-square p-value is the classic
asymptotic one from ``scipy.stats``. The effect size is the total variation
distance -- the share of presses whose count would have to change to turn one
distribution into the other -- with Cohen's w or Cramer's V beside it. The
tests assume independent presses; a patterned launcher compares by marginals.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from launcher.analysis import analyse
from launcher.calibration._scipy import stats
from launcher.profiles import Profile

FloatArray = npt.NDArray[np.float64]
MIN_EXPECTED = 5.0
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

    @property
    def p_value(self) -> float:
        """Bonferroni-combined p-value of the tests (1 when nothing was tested)."""
        if not self.tests:
            return 1.0
        return min(1.0, len(self.tests) * min(t.p_value for t in self.tests))

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


def total_variation(p: FloatArray, q: FloatArray) -> float:
    return float(0.5 * np.abs(p - q).sum())


def pool_cells(weights: FloatArray, minimum: float = MIN_EXPECTED) -> list[list[int]]:
    """Groups of adjacent counts, merged from the top down until each expects >= ``minimum``.

    Merging sparse neighbouring counts (Cochran's rule) keeps the chi-square
    valid and spends its degrees of freedom where the data are; a launcher's
    rare large counts become one "k or more" cell.
    """
    groups: list[list[int]] = []
    current: list[int] = []
    total = 0.0
    for index in range(len(weights) - 1, -1, -1):
        current.insert(0, index)
        total += float(weights[index])
        if total >= minimum:
            groups.insert(0, current)
            current, total = [], 0.0
    if current:
        groups = [current + groups[0], *groups[1:]] if groups else [current]
    return groups


def _merge(cells: FloatArray, groups: list[list[int]]) -> FloatArray:
    return np.stack([cells[..., g].sum(axis=-1) for g in groups], axis=-1)


def _pearson(observed: FloatArray, expected: FloatArray) -> FloatArray:
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(expected > 0, (observed - expected) ** 2 / expected, 0.0)
    return np.asarray(terms.sum(axis=-1), dtype=float)


def _mc_p(simulated: FloatArray, observed: float) -> float:
    return (int(np.count_nonzero(simulated >= observed - 1e-9)) + 1) / (len(simulated) + 1)


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
    tv = total_variation(observed / n, p)
    impossible = np.flatnonzero((p == 0) & (observed > 0)).tolist()
    if impossible:
        test = TestOutcome(f"counts {impossible} never happen under the profile", math.inf, 0.0)
        return Comparison(session, profile, (test,), tv, "", alpha)
    simulated = rng.multinomial(int(n), p, size=draws).astype(float)
    cvm = float(_cvm_fit(observed, p))
    tests = [
        TestOutcome(
            "Cramer-von Mises (ordered), Monte-Carlo", cvm, _mc_p(_cvm_fit(simulated, p), cvm)
        )
    ]
    groups = pool_cells(n * p)
    merged_obs, merged_p = _merge(observed, groups), _merge(p, groups)
    chi = float(_pearson(merged_obs, n * merged_p))
    if len(groups) > 1:
        simulated_chi = _pearson(_merge(simulated, groups), n * merged_p)
        tests.append(_chi_outcome(chi, merged_p * n, len(groups), simulated_chi))
    effect = f"Cohen's w = {math.sqrt(chi / n):.2f}"
    return Comparison(session, profile, tuple(tests), tv, effect, alpha)


def _chi_outcome(
    statistic: float, expected: FloatArray, cells: int, simulated: FloatArray
) -> TestOutcome:
    if np.all(expected >= MIN_EXPECTED):
        p_value = float(stats.chi2.sf(statistic, cells - 1))
        return TestOutcome(f"chi-square, {cells} cells, {cells - 1} df", statistic, p_value)
    return TestOutcome(
        f"chi-square, {cells} cells, Monte-Carlo", statistic, _mc_p(simulated, statistic)
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


def _two_sessions(
    a: Side, b: Side, alpha: float, rng: np.random.Generator, draws: int
) -> Comparison:
    width = max(len(a.cells), len(b.cells))
    first, second = a.padded(width), b.padded(width)
    columns = first + second
    tv = total_variation(a.distribution(width), b.distribution(width))
    drawn = rng.multivariate_hypergeometric(columns.astype(np.int64), int(first.sum()), size=draws)
    shuffled = drawn.astype(np.float64)
    cvm = float(_cvm_two(first, columns))
    tests = [
        TestOutcome(
            "Cramer-von Mises (ordered), Monte-Carlo", cvm, _mc_p(_cvm_two(shuffled, columns), cvm)
        )
    ]
    share = min(first.sum(), second.sum()) / columns.sum()
    groups = pool_cells(columns * share)
    table = np.stack([_merge(first, groups), _merge(second, groups)])
    expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / table.sum()
    chi = float(_pearson(table.ravel(), expected.ravel()))
    if len(groups) > 1:
        sim = np.concatenate([_merge(shuffled, groups), _merge(columns - shuffled, groups)], axis=1)
        tests.append(
            _chi_outcome(chi, expected.ravel(), len(groups), _pearson(sim, expected.ravel()))
        )
    effect = f"Cramer's V = {math.sqrt(chi / table.sum()):.2f}"
    return Comparison(a, b, tuple(tests), tv, effect, alpha)


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
        return Comparison(a, b, result.tests, result.total_variation, result.effect, alpha)
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
            f"DIFFERENT: p = {result.p_value:.3g} < {result.alpha}; {gap}; {nothing}; "
            f"the biggest gap is at {worst} card(s): {pa[worst]:.2f} vs {pb[worst]:.2f}."
        )
    return (
        f"No evidence of a difference: p = {result.p_value:.3g} >= {result.alpha}; "
        f"{gap}; {nothing}. "
        "Small differences may still exist; more presses would show them."
    )
