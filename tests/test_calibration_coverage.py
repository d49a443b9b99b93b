"""Issue 18's "Done when": intervals that cover 95-97 % (simultaneous) and >= 95 % (the mean).

Each test failed before its fix:

* Bonferroni-level mid-p intervals covered 98.2 % jointly at 30 presses (600 sessions of
  irc-bot and web-game): width paid for errors that cannot
  happen; the simulated critical value of :func:`simultaneous_level` wins it back;
* from 100 presses that simulated level was pinned at Bonferroni's floor (bookmarklet at
  100 presses: 98.1 %); smoothed shares, a share of alpha that grows with the session and
  a floor at 0.75 of Bonferroni's let it rise (median 1.23 x Bonferroni's there, 96.6 %);
* mid-p intervals (one tie-break, 0.5, for every count) move in steps: for irc-bot at
  30 presses joint coverage is 98.6 % up to one level and 95.0 % just above it, and the
  study measured 98.0 % there (3 of 12 cells above the 95-97 % band); randomized
  (Stevens) intervals miss at exactly their level, so coverage moves smoothly with it;
* Student t covered the mean of web-game only 93.7 % of the time at 30 presses; Hall's
  skewness-corrected t at 96 % covers 96.5 % (2,000 sessions).

The full figures (4 presets x 30, 100, 300 presses, 1,000 sessions each) are in
docs/calibration-methods.md, from bench/calibration_study.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from launcher.analysis import analyse
from launcher.calibration.intervals import (
    estimate,
    floor_level,
    mean_interval,
    mid_p_bounds,
    presses_needed,
    randomized_bounds,
    shares,
    simultaneous_level,
    tie_breaks,
    widest_bounds,
)
from launcher.profiles import load_profile


def _truth(name: str) -> np.ndarray:
    return np.asarray(analyse(load_profile(name)).probabilities)


def _sessions(name: str, presses: int, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    p = _truth(name)
    return p, np.random.default_rng(seed).choice(len(p), size=(count, presses), p=p)


def _jointly_covered(values: np.ndarray, p: np.ndarray) -> bool:
    est = estimate(values)
    shown = np.pad(p, (0, len(est.counts)))[: len(est.counts)]
    inside = np.all((est.low <= shown + 1e-12) & (shown <= est.high + 1e-12))
    return bool(inside and p[est.tail_from :].sum() <= est.tail_high + 1e-12)


def test_simultaneous_coverage_is_not_wasted_at_30_presses() -> None:
    hits = []
    for name, seed in (("irc-bot", 1), ("web-game", 2)):
        p, sessions = _sessions(name, 30, 300, seed)
        hits += [_jointly_covered(s, p) for s in sessions]
    coverage = float(np.mean(hits))
    assert 0.95 - 0.009 <= coverage <= 0.98, coverage  # Bonferroni: 98.2 %; simulated: 96.5 %


def test_the_simulated_level_stays_between_its_floor_and_alpha() -> None:
    for cells in ([30], [15, 10, 5], [0, 3, 0, 27], [40, 30, 20, 5, 3, 1, 1], [0, 0, 0, 0, 0, 9]):
        assert floor_level(len(cells)) - 1e-15 <= simultaneous_level(cells) <= 0.05 + 1e-15


def test_plan_without_a_guess_holds_at_the_lowest_level_fit_can_use() -> None:
    """plan's "every session" promise: the widest interval (half the presses in one count)."""
    needed = presses_needed(0.1, None, cells=11)
    low, high = widest_bounds([needed // 2], needed, floor_level(11))
    assert (high - low)[0] / 2 <= 0.1


def test_long_sessions_are_narrower_than_clopper_pearson_without_losing_coverage() -> None:
    """At 100 presses of bookmarklet the level was once pinned at Bonferroni's (98.1 %).

    The simulated level now follows the data (median 0.97 of Bonferroni's, from 0.92 to
    1.04 over 80 % of sessions); the randomized intervals are narrower on average than
    Clopper-Pearson's at Bonferroni's level, the textbook simultaneous interval, and
    joint coverage stays >= 95 % (within Monte-Carlo error).
    """
    p, sessions = _sessions("bookmarklet", 100, 200, 100)
    widths, textbook = [], []
    for s in sessions:
        cells, est = np.bincount(s), estimate(s)
        low, high = widest_bounds(cells, 100, 0.05 / shares(len(cells)))
        widths.append(np.mean(est.high - est.low))
        textbook.append(np.mean(high - low))
    coverage = float(np.mean([_jointly_covered(s, p) for s in sessions]))
    assert np.mean(widths) < 0.98 * np.mean(textbook)  # 0.96
    assert coverage >= 0.95 - 2 * math.sqrt(0.95 * 0.05 / len(sessions)), coverage


def _miss_rate(bounds: tuple[np.ndarray, np.ndarray], p: float, weights: np.ndarray) -> float:
    low, high = bounds
    return float(np.sum(weights * ((low > p) | (high < p))))


def test_a_randomized_interval_misses_at_exactly_its_level() -> None:
    """One count of irc-bot at 30 presses (p = 1/11): the step that kept coverage at 98 %."""
    p, n, level = 1 / 11, 30, 0.006
    counts = np.arange(n + 1)
    chance = stats.binom.pmf(counts, n, p)
    mid_p = _miss_rate(mid_p_bounds(counts, n, level), p, chance)
    grid = (np.arange(400) + 0.5) / 400  # tie-breaks spread evenly over [0, 1]
    x, u = np.repeat(counts, len(grid)), np.tile(grid, len(counts))
    randomized = _miss_rate(randomized_bounds(x, n, level, u), p, np.repeat(chance, len(grid)))
    assert randomized / len(grid) == pytest.approx(level, rel=0.02)
    assert abs(mid_p - level) > 0.25 * level  # 0.0044 for 0.006: a step, not a slope


def test_tie_breaks_replay_and_follow_the_counts() -> None:
    ties = tie_breaks([14, 5, 5, 3, 2, 1])
    assert np.array_equal(ties, tie_breaks([14, 5, 5, 3, 2, 1]))
    assert not np.array_equal(ties, tie_breaks([14, 5, 5, 3, 1, 2]))
    assert np.all((ties >= 0) & (ties <= 1))


def test_randomized_bounds_solve_their_definition_and_hold_the_share() -> None:
    low, high = randomized_bounds([4, 0, 30], 30, 0.05, [0.3, 0.9, 0.2])
    upper_tail = stats.binom.cdf(3, 30, high[0]) + 0.3 * stats.binom.pmf(4, 30, high[0])
    lower_tail = stats.binom.sf(4, 30, low[0]) + 0.7 * stats.binom.pmf(4, 30, low[0])
    assert upper_tail == pytest.approx(0.025, abs=1e-6)
    assert lower_tail == pytest.approx(0.025, abs=1e-6)
    assert low[1] == 0 and high[2] == 1  # never seen: from 0; always seen: up to 1
    assert low[2] <= 1 and high[1] >= 0


def test_the_simulated_level_replays_exactly() -> None:
    cells = [14, 5, 5, 3, 2, 1]
    assert simultaneous_level(cells) == simultaneous_level(cells)
    est = estimate(np.repeat(np.arange(6), cells))
    low, high = randomized_bounds(cells, 30, simultaneous_level(cells), tie_breaks(cells))
    assert np.allclose(est.low, low) and np.allclose(est.high, high)


def test_the_never_seen_bound_is_exact_at_the_simultaneous_level() -> None:
    est = estimate([0, 0, 1, 2, 0, 1] * 5)
    assert (1 - est.tail_high) ** 30 == pytest.approx(simultaneous_level(est.counts))


def test_the_mean_interval_covers_skewed_counts_at_30_presses() -> None:
    p, sessions = _sessions("web-game", 30, 2000, 7)
    true_mean = float(p @ np.arange(len(p)))
    intervals = [mean_interval(s) for s in sessions]
    coverage = np.mean([i.low <= true_mean <= i.high for i in intervals])
    error = math.sqrt(0.95 * 0.05 / len(sessions))
    assert coverage >= 0.95 - error, coverage  # Student t: 93.7 %; Hall at 96 %: 96.5 %
    assert all(i.low >= 0 for i in intervals)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["web-game", "multi-variant-server", "bookmarklet", "irc-bot"])
@pytest.mark.parametrize("presses", [30, 100, 300])
def test_coverage_holds_for_every_preset_and_size(name: str, presses: int) -> None:
    p, sessions = _sessions(name, presses, 1000, presses)
    true_mean = float(p @ np.arange(len(p)))
    joint = np.mean([_jointly_covered(s, p) for s in sessions])
    mean = np.mean([(lambda i: i.low <= true_mean <= i.high)(mean_interval(s)) for s in sessions])
    # the 95-97 % band, within twice the Monte-Carlo error (docs/calibration-methods.md, section 9)
    assert 0.95 - 0.014 <= joint <= 0.97 + 0.011, joint
    assert mean >= 0.95 - 0.014, mean


def test_mid_p_ties_are_the_deterministic_intervals_of_before() -> None:
    """``ties="mid-p"`` gives the intervals of commit 33374f9 exactly (its figures still hold)."""
    est = estimate(np.repeat(np.arange(6), [14, 5, 5, 3, 2, 1]), ties="mid-p")
    before_low = [0.24141165, 0.04050017, 0.04050017, 0.01319912, 0.00431851, 0.00025954]
    before_high = [0.70236303, 0.39735563, 0.39735563, 0.31235065, 0.26509788, 0.21252211]
    assert np.allclose(est.low, before_low, atol=1e-8)
    assert np.allclose(est.high, before_high, atol=1e-8)
    assert est.tail_high == pytest.approx(0.14942923096106242)
    assert est.method.startswith("mid-p")
    with pytest.raises(ValueError, match="expected one of randomized, mid-p"):
        estimate([0, 1], ties="fuzzy")


def test_no_interval_collapses_to_a_point() -> None:
    """An outside reviewer's sessions: a tie-break under level / 2 printed "1 [0.000, 0.000]".

    (64 presses of 0 and 22 of 2: count 1 never seen; 40 presses of 0: P(0) in [1.000, 1.000].)
    A count of 0 now takes its upper bound at a tie-break of at least the level, a count of
    all presses its lower bound at most 1 - level: wider only, in fewer than level of sessions.
    """
    gap = estimate(np.repeat([0, 2], [64, 22]))
    assert gap.low[1] == 0 < gap.high[1]
    zeros = estimate(np.zeros(40, dtype=np.int64))
    assert zeros.low[0] < 1 == zeros.high[0]
    ties = tie_breaks(gap.counts)
    level = simultaneous_level(gap.counts)
    assert ties[1] < level / 2  # the case that used to collapse
