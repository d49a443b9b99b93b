"""Confidence intervals for a count distribution, and how many presses a precision needs.

**Simultaneous intervals** for every P(k) shown, k = 0..largest count seen, and an
upper bound for the counts never seen, P(count > largest) -- all at once, 95 % of
the time. Each P(k) gets a *randomized* Clopper-Pearson interval (Stevens 1950: the
exact binomial interval that splits the probability of the observed count at a
uniform tie-break u, see :func:`randomized_bounds`) and the tail the exact one-sided
bound ``1 - level ** (1 / n)``, valid even though "largest count seen" is itself
random (all n presses must fall at or below the largest count), all at one
per-interval ``level``:

* *Why randomized.* Counts are whole numbers, so a deterministic interval's
  coverage moves in steps: for irc-bot's 11 equal counts at 30 presses, mid-p
  intervals (u = 0.5 for every count) cover jointly 98.6 % for every level up to
  0.00541 and 95.0 % just above it (a count seen 8 times out of 30; 200,000 simulated
  sessions), so no level reaches the 95-97 % band, and the band was met in only 8
  of 12 cells of the study. A uniform tie-break makes each interval miss at exactly its level, so
  joint coverage moves smoothly with the level. The tie-breaks come from
  :func:`tie_breaks`, a generator seeded by the counts: the same session always
  prints the same intervals, and nobody can pick a seed that suits them.
* :func:`simultaneous_level` measures what is spent: it draws
  :data:`CALIBRATION_DRAWS` sessions (fixed seed) from :func:`smoothed_shares` --
  the observed counts plus half a count each, and half a count one beyond the
  largest seen, so that counts seen 0 times and the tail can fail in the
  simulation as in reality -- each with its own tie-breaks, and takes the level at
  which all their intervals hold at once in ``1 - SHARE * alpha`` of them: a
  simulated critical value of the smallest tail (a smoothed parametric bootstrap of
  the max-type statistic). :data:`SHARE` (0.75) is calibrated on four presets by a
  sweep over sessions not used for the figures of docs/calibration-methods.md (section 9).
* The level never goes below :data:`FLOOR_SHARE` (0.75) of Bonferroni's
  ``alpha / shares`` (counts shown + the tail + one spare share), and ``plan``
  plans at that floor with the widest interval any tie-break gives, so its
  promise still holds.

Measured by ``bench/calibration_study.py`` (docs/calibration-methods.md, section 9).
Goodman's large-sample intervals cover only 87-94 % where data are thin.

**The mean** gets Hall's (1992) skewness-corrected t interval, cut at 0: counts are
never negative, so the true mean is never below 0 and cutting there never loses
coverage. Student t covered only 92.7-93.9 % at 30 presses of skewed counts: a short
session rarely sees the rare large counts, so it misses high. Hall's transformation
moves the interval up by the sample's skewness, and the t quantile is taken at 96 %
for the skewness a short session cannot see (web-game, whose rare 5-9 card presses
make it the hardest preset, still covered only 94.3-94.8 % with Hall at 95 %);
measured 95.2-97.3 % at 30, 100 and 300 presses.

**Plan** promises a precision P in the sense fit reports it: in at least 95 % of
sessions, every interval fit prints has half-width ``(high - low) / 2 <= P``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from launcher.calibration._scipy import special, stats

FloatArray = npt.NDArray[np.float64]
#: How each interval splits the probability of the observed count (see :func:`tie_breaks`).
TIES = ("randomized", "mid-p")
#: Short names of the interval methods, as reports print them; docs/calibration-methods.md
#: section 4 says what each does (a simulated simultaneous level, never below 0.75 of
#: Bonferroni's; tie-breaks seeded by the counts).
METHODS = {
    "randomized": "randomized Clopper-Pearson, simultaneous; joint coverage 95-97 %",
    "mid-p": "mid-p Clopper-Pearson, simultaneous; joint coverage 95-98 %",
}
METHOD = METHODS["randomized"]
MEAN_METHOD = "Hall's skewness-corrected t, cut at 0"
#: The mean's interval spends this share of the error rate (0.8: 96 % for a 95 % interval).
MEAN_MISS_SHARE = 0.8
#: Simulated sessions behind :func:`simultaneous_level`, and their fixed seed (same data,
#: same intervals).
CALIBRATION_DRAWS = 4000
CALIBRATION_SEED = 18
#: The simulated critical value spends this share of alpha (0.75: joint coverage aimed at
#: 96.25 % of the sessions drawn from the smoothed shares; see the module docstring).
SHARE = 0.75
#: With ``ties="mid-p"`` the share of alpha grows with the session (sessions drawn from a
#: short session's shares are too kind to mid-p intervals): 0.5 at 30 presses, 0.8 from
#: 100, log-linear between (see :func:`alpha_share`).
MID_P_SHARE_SHORT, MID_P_SHARE_LONG = 0.5, 0.8
SHORT_PRESSES, LONG_PRESSES = 30, 100
#: Seeds the tie-breaks of :func:`tie_breaks`, together with the counts themselves.
TIE_BREAK_SEED = 1950
#: Pseudo-count added to every count shown and to one count beyond the largest seen before
#: simulating: a count seen 0 times may still fail, and so may the tail.
PSEUDO_COUNT = 0.5
#: The simulated level never goes below this share of Bonferroni's, the level ``plan``
#: plans at (in the study the simulated level went to 0.55 of Bonferroni's at the lowest,
#: and under 0.75 in 1 % of sessions, nearly all at 30 presses).
FLOOR_SHARE = 0.75
#: Beyond this many presses ``plan`` warns that the answer is not a practical session.
PRACTICAL_PRESSES = 5_000
_BISECTIONS = 40


@dataclass(frozen=True)
class Estimate:
    """Estimated P(k) for k = first..first+len-1 with simultaneous ``low``/``high`` bounds.

    ``tail_high`` bounds P(count > last shown), simultaneously with the rest.
    """

    counts: npt.NDArray[np.int64]
    probabilities: FloatArray
    low: FloatArray
    high: FloatArray
    first: int = 0
    confidence: float = 0.95
    tail_high: float = 1.0
    method: str = METHOD

    @property
    def total(self) -> int:
        return int(self.counts.sum())

    @property
    def values(self) -> range:
        return range(self.first, self.first + len(self.counts))

    @property
    def tail_from(self) -> int:
        """The smallest count never seen above the last one shown."""
        return self.first + len(self.counts)


def shares(cells: int) -> int:
    """Bonferroni shares of alpha: every count shown, the tail, and one spare."""
    return cells + 2


def _bisect(too_low: Any, size: int) -> FloatArray:
    """Per element, the p in [0, 1] where ``too_low(p)`` flips from True to False."""
    low, high = np.zeros(size), np.ones(size)
    for _ in range(_BISECTIONS):
        middle = (low + high) / 2
        below = too_low(middle)
        low, high = np.where(below, middle, low), np.where(below, high, middle)
    return np.asarray((low + high) / 2, dtype=float)


def _binom_cdf(k: npt.NDArray[Any], n: float, p: npt.NDArray[Any]) -> FloatArray:
    """P(X <= k) for X ~ Binomial(n, p), 0 below k = 0 (scipy.special: little overhead)."""
    return np.asarray(
        np.where(k < 0, 0.0, special.bdtr(np.maximum(k, 0).astype(np.int64), round(n), p)),
        dtype=float,
    )


def _binom_sf(k: npt.NDArray[Any], n: float, p: npt.NDArray[Any]) -> FloatArray:
    """P(X > k) for X ~ Binomial(n, p)."""
    tail = special.bdtrc(np.minimum(k, n).astype(np.int64), round(n), p)
    return np.asarray(np.where(k >= n, 0.0, tail), dtype=float)


def _binom_pmf(k: npt.NDArray[Any], n: float, p: npt.NDArray[Any]) -> FloatArray:
    """P(X = k) for X ~ Binomial(n, p), through logs (exact at p = 0 and p = 1)."""
    log_choose = special.gammaln(n + 1) - special.gammaln(k + 1) - special.gammaln(n - k + 1)
    return np.asarray(
        np.exp(log_choose + special.xlogy(k, p) + special.xlog1py(n - k, -p)), dtype=float
    )


def randomized_bounds(
    x: npt.ArrayLike, n: float, level: float, tie_break: npt.ArrayLike = 0.5
) -> tuple[FloatArray, FloatArray]:
    """Two-sided randomized (Stevens 1950) Clopper-Pearson bounds at ``level`` (alpha).

    The upper bound solves P(X < x) + u P(X = x) = level / 2 and the lower bound
    P(X > x) + (1 - u) P(X = x) = level / 2, with one ``tie_break`` u in [0, 1] per
    count. With u uniform the interval misses exactly ``level`` of the time, where a
    deterministic interval for a count misses less (discreteness); u = 0.5 is the mid-p
    interval (Clopper-Pearson's is the upper bound at u = 1 with the lower at u = 0,
    wider than any one tie-break gives). A count of 0 keeps the lower bound 0 and a
    count of n the upper bound 1, as a user expects; and neither collapses to a point:
    a count of 0 takes its upper bound at a tie-break of at least ``level`` (below
    level / 2 the equation has no solution above 0, and "P(k) in [0, 0]" reads as
    "impossible"), a count of n its lower bound at most 1 - ``level``. That only
    widens an interval, in fewer than ``level`` of sessions.
    """
    k = np.asarray(x, dtype=float)
    u = np.broadcast_to(np.asarray(tie_break, dtype=float), k.shape)
    u_high = np.where(k <= 0, np.maximum(u, level), u)
    u_low = np.where(k >= n, np.minimum(u, 1 - level), u)
    half = level / 2

    def upper_too_low(p: FloatArray) -> npt.NDArray[np.bool_]:
        return np.asarray(_binom_cdf(k - 1, n, p) + u_high * _binom_pmf(k, n, p) > half)

    def lower_too_low(p: FloatArray) -> npt.NDArray[np.bool_]:
        return np.asarray(_binom_sf(k, n, p) + (1 - u_low) * _binom_pmf(k, n, p) < half)

    high = np.where(k >= n, 1.0, _bisect(upper_too_low, len(k)))
    low = np.where(k <= 0, 0.0, _bisect(lower_too_low, len(k)))
    share = k / n if n > 0 else np.full(k.shape, 0.5)
    return np.asarray(np.minimum(low, share), dtype=float), np.asarray(
        np.maximum(high, share), dtype=float
    )


def mid_p_bounds(x: npt.ArrayLike, n: float, level: float) -> tuple[FloatArray, FloatArray]:
    """Two-sided mid-p Clopper-Pearson bounds (Lancaster 1961): tie-break 0.5 for every count."""
    return randomized_bounds(x, n, level, 0.5)


def widest_bounds(x: npt.ArrayLike, n: float, level: float) -> tuple[FloatArray, FloatArray]:
    """The widest bounds :func:`randomized_bounds` can give, whatever the tie-break.

    The lower bound at tie-break 0, the upper at 1: Clopper-Pearson's interval, wider
    than any one tie-break gives; what ``plan`` promises from.
    """
    low, _ = randomized_bounds(x, n, level, 0.0)
    _, high = randomized_bounds(x, n, level, 1.0)
    return low, high


def tie_breaks(counts: npt.ArrayLike, ties: str = "randomized") -> FloatArray:
    """One uniform tie-break per count, from a generator seeded by the counts themselves.

    Same data, same intervals (fit is reproducible and no seed can be shopped for),
    while across sessions the tie-breaks behave as independent uniforms, which is
    what makes the randomized intervals miss at their nominal rate. ``ties="mid-p"``:
    0.5 for every count (deterministic, a little narrower, coverage in steps).
    """
    cells = [int(c) for c in np.asarray(counts, dtype=np.int64).ravel()]
    if _checked(ties) == "mid-p":
        return np.full(len(cells), 0.5)
    return np.random.default_rng([TIE_BREAK_SEED, *cells]).random(len(cells))


def tail_bound(n: int, level: float) -> float:
    """Exact upper bound for P(count > largest seen) when all ``n`` presses fell at or below it."""
    return 1.0 - level ** (1.0 / n) if n > 0 else 1.0


def _worst_tails(draws: npt.NDArray[np.int64], n: int, p: FloatArray, u: FloatArray) -> FloatArray:
    """Per simulated session, the smallest tail over its shown cells and its never-seen bound.

    A session shows cells 0..largest seen; its tail bound at level g holds the true
    P(count > largest) = q iff (1 - q)^n >= g, i.e. (1 - q)^n / 2 >= g / 2. The binomial
    terms are computed once per distinct (count, cell) pair, the tie-breaks ``u`` per
    session and cell. Duality of :func:`randomized_bounds`: the upper bound is >= p iff
    P(X < x) + u P(X = x) >= g / 2 (always when x = n), the lower bound <= p iff
    P(X > x) + (1 - u) P(X = x) >= g / 2 (always when x = 0).
    """
    width = draws.shape[1]
    seen = draws > 0
    top = width - 1 - np.argmax(seen[:, ::-1], axis=1)
    shown = np.arange(width)[None, :] <= top[:, None]
    column = np.broadcast_to(np.arange(width), draws.shape)
    pairs, where = np.unique(draws * width + column, return_inverse=True)
    x, at = pairs // width, p[pairs % width]
    pmf = _binom_pmf(x, n, at)[where].reshape(draws.shape)
    below = np.where(draws >= n, np.inf, _binom_cdf(x - 1, n, at)[where].reshape(draws.shape))
    above = np.where(draws <= 0, np.inf, _binom_sf(x, n, at)[where].reshape(draws.shape))
    tails = np.minimum(below + u * pmf, above + (1 - u) * pmf)
    cells = np.where(shown, tails, np.inf).min(axis=1)
    beyond = np.concatenate([np.cumsum(p[::-1])[::-1][1:], [0.0]])
    return np.asarray(np.minimum(cells, (1.0 - beyond[top]) ** n / 2), dtype=float)


def smoothed_shares(counts: npt.ArrayLike) -> FloatArray:
    """The observed counts plus :data:`PSEUDO_COUNT` each, and one more count beyond, as shares."""
    cells = np.asarray(counts, dtype=float)
    padded = np.concatenate([cells, [0.0]]) + PSEUDO_COUNT
    return np.asarray(padded / padded.sum(), dtype=float)


def _checked(ties: str) -> str:
    if ties not in TIES:
        raise ValueError(f"ties {ties!r}: expected one of {', '.join(TIES)}")
    return ties


def alpha_share(presses: int, ties: str = "randomized") -> float:
    """The share of alpha the simulated critical value spends at ``presses`` presses."""
    if _checked(ties) == "randomized":
        return SHARE
    if presses <= SHORT_PRESSES:
        return MID_P_SHARE_SHORT
    if presses >= LONG_PRESSES:
        return MID_P_SHARE_LONG
    step = math.log(presses / SHORT_PRESSES) / math.log(LONG_PRESSES / SHORT_PRESSES)
    return MID_P_SHARE_SHORT + step * (MID_P_SHARE_LONG - MID_P_SHARE_SHORT)


def simultaneous_level(
    counts: npt.ArrayLike, confidence: float = 0.95, ties: str = "randomized"
) -> float:
    """The per-interval level: a seeded simulated critical value of the smallest tail.

    :data:`CALIBRATION_DRAWS` sessions drawn (seeded) from :func:`smoothed_shares`,
    each with its own uniform tie-breaks, give the distribution of the smallest
    randomized tail over the intervals; the level whose intervals hold all at once
    in ``1 - alpha_share(n, ties) * alpha`` of them, between :func:`floor_level` and
    alpha (``ties="mid-p"``: every tie-break 0.5).
    """
    cells = np.asarray(counts, dtype=np.int64)
    alpha, n = 1.0 - confidence, int(cells.sum())
    if n == 0:
        return alpha / shares(len(cells))
    rng = np.random.default_rng(CALIBRATION_SEED)
    smoothed = smoothed_shares(cells)
    draws = rng.multinomial(n, smoothed, size=CALIBRATION_DRAWS)
    ties_drawn = rng.random(draws.shape) if ties == "randomized" else 0.5
    tails = np.sort(_worst_tails(draws, n, smoothed, np.broadcast_to(ties_drawn, draws.shape)))
    simulated = 2 * float(tails[int(alpha_share(n, ties) * alpha * CALIBRATION_DRAWS)])
    return float(np.clip(simulated, floor_level(len(cells), confidence), alpha))


def floor_level(cells: int, confidence: float = 0.95) -> float:
    """The lowest level :func:`simultaneous_level` returns: :data:`FLOOR_SHARE` of Bonferroni's."""
    return FLOOR_SHARE * (1.0 - confidence) / shares(cells)


def simultaneous_intervals(
    counts: npt.ArrayLike, confidence: float = 0.95, ties: str = "randomized"
) -> tuple[FloatArray, FloatArray]:
    """Simultaneous bounds for every cell of ``counts`` (see the module docstring)."""
    cells = np.asarray(counts, dtype=np.int64)
    level = simultaneous_level(cells, confidence, ties)
    return randomized_bounds(cells, float(cells.sum()), level, tie_breaks(cells, ties))


def estimate(
    values: npt.ArrayLike, confidence: float = 0.95, *, first: int = 0, ties: str = "randomized"
) -> Estimate:
    """The empirical distribution of observed counts ``values`` (cells first..max observed)."""
    observed = np.asarray(values, dtype=np.int64)
    top = int(observed.max()) if len(observed) else first
    cells = (
        np.bincount(observed - first, minlength=top - first + 1)
        if len(observed)
        else np.zeros(1, np.int64)
    )
    level = simultaneous_level(cells, confidence, ties)
    low, high = randomized_bounds(cells, float(cells.sum()), level, tie_breaks(cells, ties))
    share = cells / max(cells.sum(), 1)
    tail = tail_bound(int(cells.sum()), level)
    return Estimate(cells, share.astype(float), low, high, first, confidence, tail, METHODS[ties])


@dataclass(frozen=True)
class MeanInterval:
    """The mean count per press; ``low``/``high`` are NaN when fewer than 2 presses."""

    mean: float
    low: float
    high: float


def mean_interval(values: npt.ArrayLike, confidence: float = 0.95) -> MeanInterval:
    """Interval for the mean count per press, cut at 0 (valid for independent presses).

    Hall's (1992) transformation of the t statistic removes the skewness that
    makes Student t miss high on counts with rare large values, and the t
    quantile is taken at :data:`MEAN_MISS_SHARE` of the error rate (96 % for a
    95 % interval) for the large counts a short session never saw: measured
    coverage >= 95 % at 30, 100 and 300 presses (``bench/calibration_study.py``).
    Needs 2 presses (NaN bounds otherwise); with all presses equal the interval
    is that count.
    """
    data = np.asarray(values, dtype=float)
    if len(data) == 0:
        return MeanInterval(math.nan, math.nan, math.nan)
    mean = float(data.mean())
    if len(data) < 2:
        return MeanInterval(mean, math.nan, math.nan)
    if data.std() == 0:
        return MeanInterval(mean, mean, mean)
    n = len(data)
    quantile = float(stats.t.ppf(1 - MEAN_MISS_SHARE * (1 - confidence) / 2, n - 1))
    scale = float(data.std(ddof=1)) / math.sqrt(n)
    skew = _adjusted_skewness(data)
    upper = mean - scale * _hall_inverse(-quantile, skew, n)
    lower = mean - scale * _hall_inverse(quantile, skew, n)
    return MeanInterval(mean, max(0.0, lower), upper)


def _adjusted_skewness(data: FloatArray) -> float:
    """The adjusted Fisher-Pearson skewness G1 (0 below 3 values, where it is undefined)."""
    n = len(data)
    if n < 3:
        return 0.0
    centred = data - data.mean()
    g1 = float(np.mean(centred**3) / np.mean(centred**2) ** 1.5)
    return g1 * math.sqrt(n * (n - 1)) / (n - 2)


def _hall_inverse(quantile: float, skew: float, n: int) -> float:
    """The t value whose Hall transform g(t) = t + a t^2 + a^2 t^3 / 3 + b equals ``quantile``.

    g(t) = ((1 + a t)^3 - 1) / (3 a) + b with a = skew / (3 sqrt n), b = skew / (6 sqrt n),
    monotone for every skewness, so the inverse is a cube root.
    """
    a, b = skew / (3 * math.sqrt(n)), skew / (6 * math.sqrt(n))
    if abs(a) < 1e-12:
        return quantile - b
    return (float(np.cbrt(3 * a * (quantile - b) + 1)) - 1) / a


# -- planning ---------------------------------------------------------------------------
def _widest_plausible(presses: int, probabilities: FloatArray, level: float) -> float:
    """The widest half-width of the shown cells over the counts each cell plausibly gets.

    Each cell's count is Binomial(presses, p); with probability >= 1 - 0.05 jointly
    (Bonferroni over the cells) it lies in its central range, and a cell's
    half-width only grows as its count moves towards presses / 2.
    """
    spread = 0.05 / len(probabilities)
    low = stats.binom.ppf(spread / 2, presses, probabilities)
    high = stats.binom.isf(spread / 2, presses, probabilities)
    nearest = np.clip(presses / 2, low, high)
    candidates = np.concatenate([np.floor(nearest), np.ceil(nearest)])
    lo, hi = widest_bounds(candidates, presses, level)
    return float(np.max((hi - lo) / 2))


def promised_half_width(
    presses: int, probabilities: npt.ArrayLike | None, cells: int, confidence: float = 0.95
) -> float:
    """The half-width ``plan`` promises at ``presses`` (None: any launcher of ``cells`` counts).

    plan takes the lowest level fit can use (:func:`floor_level`), so the promise
    holds in every session without a guess, and with a guess whenever every count
    lands in its plausible range (at least 95 % of sessions). A guess with one
    count (a launcher that never fires) gives one possible session, whose level
    and tie-break fit will compute exactly.
    """
    if probabilities is not None and cells == 1:
        level = simultaneous_level([presses], confidence)
        lo, _ = randomized_bounds([presses], presses, level, tie_breaks([presses]))
        return max(float(1 - lo[0]) / 2, tail_bound(presses, level) / 2)
    level = floor_level(cells, confidence)
    tail = tail_bound(presses, level) / 2
    if probabilities is None:
        lo, hi = widest_bounds([presses // 2], presses, level)
        return max(float((hi - lo)[0] / 2), tail)
    guess = np.asarray(probabilities, dtype=float)[:cells]
    return max(_widest_plausible(presses, guess, level), tail)


def presses_needed(
    precision: float,
    probabilities: npt.ArrayLike | None = None,
    confidence: float = 0.95,
    *,
    cells: int | None = None,
) -> int:
    """Fewest presses whose every printed interval has half-width <= ``precision``, 95 % of runs.

    ``probabilities`` is a guess of the launcher's distribution; ``None`` means
    no guess, any launcher whose counts are among ``cells`` values (then the
    promise holds in every run, not only 95 %).
    """
    if not 0 < precision < 0.5:
        raise ValueError("precision must be between 0 and 0.5")
    if probabilities is not None:
        guess = np.asarray(probabilities, dtype=float)
        cells = int(np.flatnonzero(guess > 0).max()) + 1
    elif cells is None:
        raise ValueError("give probabilities or cells")

    def enough(n: int) -> bool:
        return promised_half_width(n, probabilities, int(cells), confidence) <= precision

    low, high = 1, 2
    while not enough(high):
        low, high = high, high * 2
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if enough(middle) else (middle, high)
    return high


def worst_case_distribution(cells: int) -> FloatArray:
    """No guess: one count at 1/2 (the hardest to pin down), the rest share the other half."""
    rest = np.full(cells - 1, 0.5 / max(cells - 1, 1))
    return np.concatenate([[0.5], rest])
