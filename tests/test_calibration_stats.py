"""Proof that the statistics do what they claim, over many seeded simulated sessions.

* the simultaneous intervals cover the truth about 95 % of the time -- and a
  naive per-count interval, the classic mistake, fails the same check;
* ``compare`` rejects same-distribution data about alpha of the time, and
  catches a 0.1 shift in P(nothing) in a 300-press session;
* the 1999 pattern is flagged as not independent and fitted back as a pattern,
  an escalating launcher as escalating, an i.i.d. one as i.i.d.;
* ``plan`` gives a number of presses that really achieves the precision.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from launcher import open_launcher
from launcher.analysis import analyse, sample, sample_categorical
from launcher.calibration.compare import Side, compare
from launcher.calibration.fit import fit_sessions
from launcher.calibration.independence import independence_checks, looks_independent, runs_test
from launcher.calibration.intervals import estimate, presses_needed
from launcher.calibration.record import Recorder
from launcher.calibration.session import Press, Session, SessionHeader, SessionWriter
from launcher.profiles import load_profile, save_profile
from launcher.sim import SimLauncher

REPEATS = 400
DRAWS = (
    2000  # Monte-Carlo p-values to +-0.005 near alpha: plenty for rates over hundreds of sessions
)


def _covered(values: np.ndarray, truth: np.ndarray, first: int = 0) -> bool:
    est = estimate(values, first=first)
    true = np.pad(truth, (0, len(est.counts) + first))[first : first + len(est.counts)]
    return bool(np.all((est.low <= true + 1e-12) & (true <= est.high + 1e-12)))


def _naive_covered(values: np.ndarray, truth: np.ndarray) -> bool:
    cells = np.bincount(values)
    share = cells / cells.sum()
    half = 1.96 * np.sqrt(share * (1 - share) / cells.sum())
    true = np.pad(truth, (0, len(cells)))[: len(cells)]
    return bool(np.all(np.abs(share - true) <= half))


def test_intervals_cover_an_iid_launcher_at_the_nominal_rate() -> None:
    truth = analyse(load_profile("web-game")).probabilities
    rng = np.random.default_rng(2024)
    sessions = [sample_categorical(truth, 300, rng).astype(np.int64) for _ in range(REPEATS)]
    coverage = np.mean([_covered(s, truth) for s in sessions])
    naive = np.mean([_naive_covered(s, truth) for s in sessions])
    assert 0.93 <= coverage <= 0.995, coverage
    assert naive < 0.85, naive  # a broken (unadjusted Wald) method fails this very check


@pytest.mark.parametrize("name", ["original-1999", "escalating"])
def test_firing_count_intervals_cover_patterned_launchers(name: str) -> None:
    profile = load_profile(name)
    firing = np.array(profile.firing)  # type: ignore[attr-defined]
    firing = firing / firing[1:].sum()
    hits = 0
    for seed in range(REPEATS // 2):
        counts = sample(profile, 300, seed=seed).astype(np.int64)
        hits += _covered(counts[counts > 0], firing, first=1)
    assert 0.93 <= hits / (REPEATS // 2) <= 1.0


def _same_and_shifted() -> tuple[np.ndarray, np.ndarray]:
    p = analyse(load_profile("web-game")).probabilities
    q = p.copy()
    q[0] -= 0.1
    q[1:] *= (1 - q[0]) / q[1:].sum()
    return p, q


def test_compare_false_positive_rate_is_near_alpha() -> None:
    p, _ = _same_and_shifted()
    profile = Side.of_profile(load_profile("web-game"))
    rng = np.random.default_rng(7)
    rejections = [
        compare(
            Side.of_counts("s", sample_categorical(p, 300, rng)), profile, seed=i, draws=DRAWS
        ).differ
        for i in range(300)
    ]
    rate = float(np.mean(rejections))
    assert rate <= 0.05 + 2.5 * np.sqrt(0.05 * 0.95 / 300), rate  # never anti-conservative
    assert rate >= 0.01, rate  # and not so timid it never rejects anything


def test_compare_two_sessions_false_positive_rate_is_near_alpha() -> None:
    p, _ = _same_and_shifted()
    rng = np.random.default_rng(8)
    rejections = [
        compare(
            Side.of_counts("a", sample_categorical(p, 300, rng)),
            Side.of_counts("b", sample_categorical(p, 300, rng)),
            seed=i,
            draws=DRAWS,
        ).differ
        for i in range(200)
    ]
    assert 0.005 <= float(np.mean(rejections)) <= 0.05 + 2.5 * np.sqrt(0.05 * 0.95 / 200)


def test_compare_detects_a_shift_of_0_1_in_p_nothing_in_300_presses() -> None:
    _, q = _same_and_shifted()
    profile = Side.of_profile(load_profile("web-game"))
    rng = np.random.default_rng(9)
    power = np.mean(
        [
            compare(
                Side.of_counts("s", sample_categorical(q, 300, rng)), profile, seed=i, draws=DRAWS
            ).differ
            for i in range(150)
        ]
    )
    assert power >= 0.8, power
    power_two = np.mean(
        [
            compare(
                Side.of_counts("a", sample_categorical(q, 600, rng)),
                Side.of_counts("b", sample_categorical(_same_and_shifted()[0], 600, rng)),
                seed=i,
                draws=DRAWS,
            ).differ
            for i in range(100)
        ]
    )
    assert power_two >= 0.8, power_two  # two sessions each carry noise: 600 presses apiece


def _record(tmp_path: Path, spec: str, presses: int, seed: int) -> Session:
    """A session recorded by the real Recorder; kept in memory (no fsync) to keep the suite fast."""
    header = SessionHeader(
        launcher=spec, cards_loaded=90, reload_below=10, presses_planned=presses, seed=seed
    )
    kept: list[Press] = []
    with (
        SessionWriter(io.StringIO(), durable=False) as writer,
        open_launcher(spec, default_seed=seed) as launcher,
    ):
        Recorder(launcher, writer, header, on_press=kept.append).run(presses)
    return Session(tmp_path / f"{seed}.jsonl", header, kept)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_1999_pattern_is_not_iid_and_is_fitted_back_as_a_pattern(
    tmp_path: Path, seed: int
) -> None:
    session = _record(tmp_path, "sim://?profile=original-1999", 300, seed)
    assert not looks_independent(independence_checks(session.counts))
    report = fit_sessions([session])
    assert not report.independent and report.structure == "pattern"
    truth = load_profile("original-1999")
    assert report.profile.fires == tuple(f for f in truth.fires if f <= report.profile.cycle)  # type: ignore


def test_escalating_and_iid_launchers_are_recognised(tmp_path: Path) -> None:
    escalating = fit_sessions([_record(tmp_path, "sim://?profile=escalating", 600, 4)])
    assert escalating.structure == "escalating"
    hazard = escalating.profile.hazard  # type: ignore[attr-defined]
    assert hazard[0] == pytest.approx(0.35, abs=0.1)
    iid = [fit_sessions([_record(tmp_path, "sim://?profile=web-game", 300, s)]) for s in range(20)]
    # a 5 % test mislabels about 1 session in 20; AIC alone would mislabel 3 or 4
    assert sum(r.structure != "iid" for r in iid) <= 2
    assert sum(not r.independent for r in iid) <= 2


def test_fitted_profile_is_usable_everywhere_and_close_to_the_truth(tmp_path: Path) -> None:
    sessions = [_record(tmp_path, "sim://?profile=bookmarklet", 500, s) for s in (11, 12)]
    report = fit_sessions(sessions, name="mine")
    path = save_profile(report.profile, tmp_path / "mine.toml")
    sim = open_launcher(f"sim://?profile={path}&seed=1")
    assert isinstance(sim, SimLauncher) and sim.profile == load_profile(path)
    fitted = analyse(sim.profile).probabilities
    truth = analyse(load_profile("bookmarklet")).probabilities
    assert 0.5 * np.abs(np.pad(fitted, (0, 9))[:6] - truth).sum() < 0.08
    assert report.mean.low <= 1.5 <= report.mean.high


def test_load_dependence_is_detected_when_it_is_there(tmp_path: Path) -> None:
    session = _record(tmp_path, "sim://?profile=heavy-hopper", 800, 3)
    report = fit_sessions([session])
    assert min(t.p_value for t in report.load) < 0.01
    assert report.structure == "load-dependent" and report.profile.kind == "load-dependent"


def test_plan_gives_enough_presses_for_the_promised_precision() -> None:
    truth = analyse(load_profile("web-game")).probabilities
    needed = presses_needed(0.05, truth)
    assert needed <= presses_needed(0.05, None, cells=len(truth))  # a guess never costs presses
    assert presses_needed(0.025, truth) > 3 * needed
    rng = np.random.default_rng(3)
    widths = [
        max(float(np.max((e.high - e.low) / 2)), e.tail_high / 2)
        for e in (estimate(sample_categorical(truth, needed, rng)) for _ in range(100))
    ]
    assert np.quantile(widths, 0.95) <= 0.05  # the promise: 95 % of sessions


def test_runs_test_matches_its_definition() -> None:
    seq = np.array([1, 0, 1, 0, 1, 0, 1, 0, 1, 0] * 10, dtype=bool)
    result = runs_test(seq)
    assert (
        result.statistic > 5 and result.p_value < 1e-6
    )  # perfectly alternating: far too many runs
    assert stats.norm.sf(result.statistic) * 2 == pytest.approx(result.p_value)
    shuffled = independence_checks(seq.astype(int))[0]  # 100 presses: the permutation p-value
    assert shuffled.method.startswith("permutation") and shuffled.p_value == pytest.approx(0.001)


@pytest.mark.parametrize(
    "preset, presses, kind",
    [
        ("escalating", 600, "escalating"),
        ("heavy-hopper", 800, "load-dependent"),
        ("original-1999", 300, "pattern"),
        ("irc-bot", 300, "iid"),
    ],
)
def test_every_fitted_kind_writes_a_valid_profile_file(
    tmp_path: Path, preset: str, presses: int, kind: str
) -> None:
    report = fit_sessions(
        [_record(tmp_path, f"sim://?profile={preset}", presses, 21)], name="fitted"
    )
    assert report.profile.kind == kind
    path = save_profile(report.profile, tmp_path / "fitted.toml")
    assert load_profile(path) == report.profile
    assert report.profile.source.startswith("measured:")


def test_a_count_the_profile_never_produces_is_an_immediate_difference() -> None:
    session = Side.of_counts("s", [0, 1, 2, 12, 0, 1])
    result = compare(session, Side.of_profile(load_profile("web-game")))
    assert result.differ and result.p_value == 0.0
    assert "counts [12] never happen" in result.tests[0].name
