"""Exact analysis of profiles, the simulation fallback, and the vectorised samplers."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from launcher.analysis import analyse, sample, simulate_presses
from launcher.profiles import (
    EscalatingProfile,
    IIDProfile,
    PatternProfile,
    load_profile,
    preset_names,
)

common: dict[str, Any] = {"name": "t", "source": "test", "description": "d"}


def test_iid_analysis_is_the_textbook_answer() -> None:
    result = analyse(load_profile("bookmarklet"))
    assert result.exact
    assert result.mean == pytest.approx(1.5) and result.p_nothing == pytest.approx(0.5)
    assert result.variance == pytest.approx(0.5 * (1 + 4 + 9 + 16 + 25) / 5 - 1.5**2)
    assert result.presses_until_cards == pytest.approx(2.0)
    assert result.empty_runs[:4] == pytest.approx([0.5, 0.25, 0.125, 0.0625])


def test_1999_pattern_analysis_matches_the_published_sequence() -> None:
    profile = load_profile("original-1999")
    assert isinstance(profile, PatternProfile)
    result = analyse(profile)
    assert result.p_nothing == pytest.approx(62 / 96)
    assert result.mean == pytest.approx(34 / 96 * 5.5)
    assert result.presses_until_cards_from_reset == pytest.approx(2.0)  # first fire on press 2
    assert len(result.empty_runs) == 4  # "never more than 3 misses in a row"
    fires = (0, *profile.fires)
    gaps = np.diff(fires[1:] + (profile.fires[0] + 96,)) - 1
    assert result.empty_runs == pytest.approx(np.bincount(gaps, minlength=4) / 34)


def test_escalating_analysis_agrees_with_a_long_per_press_run() -> None:
    profile = load_profile("escalating")
    result = analyse(profile)
    counts = simulate_presses(profile, 60_000, seed=5, loaded=10**9)
    observed = np.bincount(counts, minlength=len(result.probabilities)) / len(counts)
    assert observed[0] == pytest.approx(result.p_nothing, abs=4 * math.sqrt(0.25 / len(counts)))
    assert counts.mean() == pytest.approx(result.mean, abs=0.04)
    assert (
        result.presses_until_cards_from_reset > result.presses_until_cards
    )  # the chance only rises


def test_guaranteed_fire_bounds_the_run_length_distribution() -> None:
    profile = EscalatingProfile(**common, hazard=(0.1,), firing=(0.0, 1.0), guaranteed_after=3)
    runs = analyse(profile).empty_runs
    assert runs == pytest.approx([0.1, 0.09, 0.081, 0.729])


def test_load_dependent_profile_is_simulated_with_standard_errors() -> None:
    result = analyse(load_profile("heavy-hopper"), presses=40_000, seed=1)
    assert not result.exact and result.presses_simulated == 40_000
    assert 0 < result.standard_errors["mean"] < 0.02
    again = analyse(load_profile("heavy-hopper"), presses=40_000, seed=2)
    assert abs(result.mean - again.mean) < 5 * math.hypot(
        result.standard_errors["mean"], again.standard_errors["mean"]
    )


@given(st.lists(st.integers(0, 30), min_size=1, max_size=10).filter(lambda w: sum(w) > 0))
@settings(max_examples=50, deadline=None)
def test_iid_marginal_is_the_profile_itself(weights: list[int]) -> None:
    probabilities = tuple(w / sum(weights) for w in weights)
    result = analyse(IIDProfile(**common, probabilities=probabilities))
    assert result.probabilities == pytest.approx(probabilities, abs=1e-9)
    assert result.mean == pytest.approx(sum(k * p for k, p in enumerate(probabilities)))


@pytest.mark.parametrize("name", [n for n in preset_names() if n != "heavy-hopper"])
def test_vectorised_samples_follow_the_exact_distribution(name: str) -> None:
    profile = load_profile(name)
    exact = analyse(profile).probabilities
    counts = sample(profile, 200_000, seed=3)
    observed = np.bincount(counts, minlength=len(exact))
    assert len(observed) == len(exact)  # never a count the profile cannot produce
    keep = exact > 0
    # whole cycles of a pattern are not random at all; the test is loose enough for both
    statistic = float(
        np.sum((observed[keep] - len(counts) * exact[keep]) ** 2 / (len(counts) * exact[keep]))
    )
    assert stats.chi2.sf(statistic, keep.sum() - 1) > 1e-4


def test_vectorised_sampling_is_seeded_and_starts_from_a_reset() -> None:
    profile = load_profile("original-1999")
    assert isinstance(profile, PatternProfile)
    assert np.array_equal(sample(profile, 1000, seed=4), sample(profile, 1000, seed=4))
    fired = np.flatnonzero(sample(profile, 96, seed=4)) + 1
    assert fired.tolist() == list(profile.fires)
    web = load_profile("web-game")
    assert not np.array_equal(sample(web, 1000, seed=1), sample(web, 1000, seed=2))


def test_vectorised_escalating_matches_per_press_run_lengths() -> None:
    profile = load_profile("escalating")
    fast = sample(profile, 100_000, seed=8)
    slow = simulate_presses(profile, 100_000, seed=8, loaded=10**9)

    def runs(counts: np.ndarray) -> np.ndarray:
        fired = np.flatnonzero(counts)
        return np.bincount(np.diff(fired) - 1, minlength=5)[:5] / (len(fired) - 1)

    assert runs(fast) == pytest.approx(analyse(profile).empty_runs[:5], abs=0.01)
    assert runs(slow) == pytest.approx(runs(fast), abs=0.015)
