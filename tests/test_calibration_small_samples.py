"""Issue 18: statistics that hold at every session size and never contradict what they print.

Each test here failed before the fix it names:

* an i.i.d. launcher was called "NOT independent" in 8.5 % of 30-press sessions;
* counts never seen had no bound, and fitted profiles called them impossible;
* the mean's interval of the session (0, 3) went down to -17.6;
* compare printed "Cohen's w = 0.00" next to a total variation of 0.5 or more;
* a verdict could read "DIFFERENT: p = 0.05 < 0.05";
* compare rejected a multi-variant-server session against web-game 60 % of the time;
* plan's "+-P" was kept in as few as 81 % of sessions, and never for P(0) = 1.
"""

from __future__ import annotations

import io
import math
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from launcher import open_launcher
from launcher.analysis import analyse
from launcher.calibration.compare import Side, compare, format_p
from launcher.calibration.fit import fit_sessions, with_tail
from launcher.calibration.histogram import histogram
from launcher.calibration.independence import (
    independence_checks,
    load_checks,
    looks_independent,
    replay_loads,
)
from launcher.calibration.intervals import (
    estimate,
    mean_interval,
    mid_p_bounds,
    presses_needed,
    simultaneous_intervals,
    simultaneous_level,
)
from launcher.calibration.record import Recorder
from launcher.calibration.session import Press, Session, SessionHeader, SessionWriter
from launcher.profiles import load_profile


def _truth(name: str) -> np.ndarray:
    return np.asarray(analyse(load_profile(name)).probabilities)


def _draw(p: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    return rng.choice(len(p), size=n, p=p).astype(np.int64)


def _session(counts: list[int] | np.ndarray, loaded: int = 90) -> Session:
    header = SessionHeader("sim://", loaded, 10, len(counts))
    presses = [Press(i + 1, int(c), loaded, i + 1) for i, c in enumerate(counts)]
    return Session(Path("s.jsonl"), header, presses)


# -- structure checks -------------------------------------------------------------------
def test_iid_30_press_sessions_are_rarely_called_dependent() -> None:
    p, rng, sessions = _truth("web-game"), np.random.default_rng(30), 600
    alarms = [
        not looks_independent(independence_checks(_draw(p, 30, rng), seed=i))
        for i in range(sessions)
    ]
    rate = float(np.mean(alarms))
    assert rate <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / sessions), rate


def test_the_method_is_picked_by_session_size_and_named() -> None:
    rng = np.random.default_rng(1)
    small = independence_checks(_draw(_truth("web-game"), 30, rng))
    large = independence_checks(_draw(_truth("web-game"), 2000, rng))
    assert all(t.method == "permutation, 999 shuffles" for t in small)
    assert all(t.method.startswith("asymptotic") for t in large)
    loads = np.arange(30, 0, -1)
    assert all(
        t.method.startswith("permutation")
        for t in load_checks(_draw(_truth("web-game"), 30, rng), loads)
    )


def test_too_few_presses_make_no_check_and_no_nan() -> None:
    assert independence_checks([3]) == [] and load_checks([3], [90]) == []
    report = fit_sessions([_session([3])])
    assert report.independent and report.independence == []
    assert math.isnan(report.mean.low) and report.mean.mean == 3
    assert any("below the minimum" in note for note in report.notes)


# -- counts never seen --------------------------------------------------------------------
def test_counts_never_seen_get_a_simultaneous_upper_bound() -> None:
    est = estimate([0, 0, 1, 2, 0, 1] * 5)
    assert est.tail_from == 3 and 0 < est.tail_high < 0.3
    # exact: all 30 presses at or below 2 happens with probability "level" at the bound
    assert (1 - est.tail_high) ** 30 == pytest.approx(simultaneous_level(est.counts))


def test_a_fitted_profile_never_calls_an_unseen_count_impossible() -> None:
    counts = _draw(np.array([0.5, 0.3, 0.2]), 40, np.random.default_rng(4))  # never 3 or more
    profile = fit_sessions([_session(counts)]).profile
    assert np.all(analyse(profile).probabilities[:91] > 0)
    later = Side.of_counts("later", [*counts.tolist(), 7])
    result = compare(later, Side.of_profile(profile), draws=199)
    assert not any("never happen" in t.name for t in result.tests)


def test_the_tail_fills_gaps_and_decays_above_the_largest_count() -> None:
    pmf = with_tail([0.5, 0.0, 0.5], presses=9, cap=5)
    assert len(pmf) == 6 and sum(pmf) == pytest.approx(1)
    assert pmf[1] == pytest.approx(pmf[3]) and pmf[4] == pytest.approx(pmf[3] / 2)
    assert sum(pmf[i] for i in (1, 3, 4, 5)) == pytest.approx(0.5 / 10)


# -- the mean ------------------------------------------------------------------------------
def test_the_mean_interval_never_goes_below_zero() -> None:
    interval = mean_interval([0, 3])
    assert interval.low == 0.0 and interval.high > 3  # was [-17.559, 20.559]


# -- compare ------------------------------------------------------------------------------
@pytest.mark.parametrize("counts", [[3], [0, 5], [9, 9], [1, 2]])
def test_effect_sizes_agree_on_tiny_sessions(counts: list[int]) -> None:
    for other in (Side.of_profile(load_profile("web-game")), Side.of_counts("b", [0] * 30)):
        result = compare(Side.of_counts("a", counts), other, draws=99)
        w = float(re.search(r"w = ([0-9.]+|inf)", result.effect).group(1))  # type: ignore[union-attr]
        assert w >= 2 * result.total_variation - 0.01, (result.effect, result.total_variation)


@given(st.floats(0, 1), st.sampled_from([0.01, 0.05, 0.1, 0.5]))
def test_a_printed_p_value_sits_on_the_same_side_of_alpha(p: float, alpha: float) -> None:
    assert (float(format_p(p, alpha)) < alpha) == (p < alpha)


def test_the_verdict_reads_like_its_decision() -> None:
    assert format_p(0.04996, 0.05) == "0.04996"
    assert format_p(0.0500001, 0.05) == "0.05"  # "p = 0.05 >= 0.05" is true as printed


def test_compare_sees_rare_counts_that_differ() -> None:
    """multi-variant-server against web-game at 300 presses: Bonferroni CvM + chi2 had 60 %."""
    web = Side.of_profile(load_profile("web-game"))
    p, rng, sessions = _truth("multi-variant-server"), np.random.default_rng(6), 150
    power = np.mean(
        [
            compare(Side.of_counts("s", _draw(p, 300, rng)), web, seed=i, draws=499).differ
            for i in range(sessions)
        ]
    )
    assert power >= 0.68, power


# -- intervals and plan -------------------------------------------------------------------------
def test_intervals_are_tighter_than_clopper_pearson_at_the_same_level() -> None:
    cells = np.bincount(_draw(_truth("web-game"), 300, np.random.default_rng(3)))
    low, high = simultaneous_intervals(cells)
    level = 0.05 / (len(cells) + 2)
    cp_low = np.where(cells > 0, stats.beta.ppf(level / 2, cells, 300 - cells + 1), 0.0)
    cp_high = stats.beta.ppf(1 - level / 2, cells + 1, 300 - cells)
    assert np.all(high - low < cp_high - cp_low)


def test_mid_p_bounds_solve_their_definition() -> None:
    low, high = mid_p_bounds([4], 30, 0.05)
    upper_tail = stats.binom.cdf(3, 30, high[0]) + 0.5 * stats.binom.pmf(4, 30, high[0])
    lower_tail = stats.binom.sf(4, 30, low[0]) + 0.5 * stats.binom.pmf(4, 30, low[0])
    assert upper_tail == pytest.approx(0.025, abs=1e-6) and lower_tail == pytest.approx(
        0.025, abs=1e-6
    )


def _promise_kept(values: np.ndarray, precision: float) -> bool:
    est = estimate(values)
    return max(float(np.max(est.high - est.low)) / 2, est.tail_high / 2) <= precision


def test_plan_keeps_its_promise_for_a_launcher_that_never_fires() -> None:
    needed = presses_needed(0.05, [1.0])
    assert _promise_kept(np.zeros(needed, dtype=np.int64), 0.05)
    assert not _promise_kept(np.zeros(needed - 1, dtype=np.int64), 0.05)  # and no more than needed


@pytest.mark.parametrize("name, precision", [("web-game", 0.1), ("multi-variant-server", 0.08)])
def test_plan_keeps_its_promise_in_95_percent_of_sessions(name: str, precision: float) -> None:
    p = _truth(name)
    needed = presses_needed(precision, p)
    rng = np.random.default_rng(12)
    kept = np.mean([_promise_kept(_draw(p, needed, rng), precision) for _ in range(200)])
    assert kept >= 0.95, kept


def test_a_long_thin_tail_is_one_row_of_the_histogram() -> None:
    pmf = with_tail([0.5, 0.3, 0.2], presses=300, cap=90)
    rows = histogram(range(len(pmf)), pmf)
    assert len(rows) == 5 and "counts 4-90 together" in rows[-1]


def test_load_checks_replay_the_hopper_of_a_recorded_session() -> None:
    """Loads depend on earlier counts: reshuffles get their own loads, so the test is exact."""
    header = SessionHeader("sim://?profile=web-game", 30, 10, 60, seed=5)
    kept: list[Press] = []
    with (
        SessionWriter(io.StringIO(), durable=False) as writer,
        open_launcher(header.launcher, default_seed=5) as launcher,
    ):
        Recorder(launcher, writer, header, on_press=kept.append).run(60)
    session = Session(Path("s.jsonl"), header, kept)
    assert replay_loads(session.counts, [(60, 30, 10)]).tolist() == session.loads.tolist()
    report = fit_sessions([session])
    assert report.load and all(t.method.endswith("loads replayed") for t in report.load)
