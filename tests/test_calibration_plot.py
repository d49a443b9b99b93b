"""``fit --plot`` and ``compare --plot`` draw the counts that matter, readably (issue 28 #2).

The figure objects are checked: the x axis runs from 0 to a little past the
largest count seen (not to the hopper size, 90), the last bar is a "k+" bar
holding the rest, every tick label is readable (no two overlap in the
renderer's bounding boxes) and the whiskers are the simultaneous intervals.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from game.cli import main
from launcher.analysis import analyse
from launcher.calibration.fit import fit_sessions
from launcher.calibration.intervals import estimate
from launcher.calibration.plot import bars, distribution_figure
from launcher.calibration.session import read_session
from launcher.profiles import load_profile

pytest.importorskip("matplotlib")


def _labels(figure) -> list[str]:
    return [t.get_text() for t in figure.axes[0].get_xticklabels()]


def _no_overlap(figure) -> bool:
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in figure.axes[0].get_xticklabels()]
    return all(not a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])


@pytest.fixture(scope="module")
def practice(tmp_path_factory: pytest.TempPathFactory) -> tuple[np.ndarray, np.ndarray]:
    """The docs' practice recipe: 300 presses of the 1999 launcher, and the profile fitted to them.

    The fitted profile runs to the hopper size (91 counts): what used to set the axis.
    """
    session = tmp_path_factory.mktemp("practice") / "practice.jsonl"
    spec = "sim://?profile=original-1999"
    args = ["calibrate", "record", str(session), "--launcher", spec, "--seed", "1"]
    assert main([*args, "--presses", "300"]) == 0
    report = fit_sessions([read_session(session)])
    return report.data.counts, analyse(report.profile).probabilities


def test_the_fit_plot_stops_a_little_past_the_largest_count_seen(practice) -> None:
    counts, profile = practice
    assert len(profile) == 91
    est = estimate(counts)
    figure = distribution_figure(
        "fit", est.probabilities, est.low, est.high, profile, tail_high=est.tail_high
    )
    largest = int(counts.max())
    labels = _labels(figure)
    low, high = figure.axes[0].get_xlim()
    assert low < 0 and largest + 2 < high <= largest + 4
    assert labels[0] == "0" and labels[-1] == f"{largest + 3}+"
    assert len(labels) <= 16 and _no_overlap(figure)


def test_the_k_plus_bar_holds_the_rest_and_its_whisker_is_the_unseen_bound(practice) -> None:
    counts, profile = practice
    est = estimate(counts)
    drawn = bars(est.probabilities, est.low, est.high, profile, tail_high=est.tail_high)
    split = int(counts.max()) + 3
    assert drawn.target is not None and drawn.errors is not None
    assert drawn.target[-1] == pytest.approx(profile[split:].sum())
    assert drawn.target.sum() == pytest.approx(1.0) and drawn.shown.sum() == pytest.approx(1.0)
    assert drawn.shown[-1] == 0 and drawn.errors[1, -1] == pytest.approx(est.tail_high)
    seen = len(est.low)
    assert np.allclose(drawn.shown[:seen] - drawn.errors[0, :seen], est.low)
    assert np.allclose(drawn.shown[:seen] + drawn.errors[1, :seen], est.high)


def test_a_profile_plot_spans_the_counts_with_real_probability(practice) -> None:
    """`profile show --plot` and compare of two profiles: no session, so P >= 0.002 decides."""
    fitted = practice[1]
    preset = analyse(load_profile("original-1999")).probabilities
    figure = distribution_figure("fitted vs preset", fitted, target=preset)
    labels = _labels(figure)
    assert labels[-1] == f"{int(np.flatnonzero(fitted >= 0.002).max()) + 3}+"
    assert _no_overlap(figure)


def test_many_counts_get_every_other_tick_and_stay_readable() -> None:
    wide = np.full(40, 1 / 40)
    figure = distribution_figure("wide", wide)
    labels = _labels(figure)
    assert len(labels) <= 16 and labels[0] == "0" and labels[-1] == "39"
    assert _no_overlap(figure)


def test_fit_and_compare_plots_are_written(tmp_path: Path) -> None:
    session = tmp_path / "practice.jsonl"
    spec = "sim://?profile=original-1999"
    record = ["calibrate", "record", str(session), "--launcher", spec, "--presses", "60"]
    assert main(record) == 0
    assert main(["calibrate", "fit", str(session), "--plot", str(tmp_path / "f.png")]) == 0
    compare = ["calibrate", "compare", str(session), "original-1999"]
    assert main([*compare, "--plot", str(tmp_path / "c.png")]) == 0
    for name in ("f.png", "c.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
