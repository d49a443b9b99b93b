"""Experiment figures and report a reader can trust (issue 28, finding 6).

The figures are checked as matplotlib objects: win rates and hand sizes carry
their 95 % intervals, and no two pieces of text overlap (the renderer's
bounding boxes), however close two seats' win rates are. The text report
shows a per-bot win rate only when the seats hold different bots.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from game.cli import main
from game.experiment.plots import REPORT_FIGURES, report_figure

pytest.importorskip("matplotlib")


@pytest.fixture(scope="module")
def summary(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A real run: six cells of 2, 4 and 6 players, one bot or a mix, 6 games each."""
    out = tmp_path_factory.mktemp("exp") / "r.jsonl"
    argv = ["experiment", "run", "--games", "6", "--players", "2,4,6", "--out", str(out)]
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main([*argv, "--bots", "greedy,greedy+random", "--json"]) == 0
    return dict(json.loads(buffer.getvalue()))


def _texts(figure: Any) -> list[Any]:
    """Every piece of text the renderer draws: tick labels, axis labels, title, legend."""
    figure.canvas.draw()
    texts = []
    for ax in figure.axes:
        texts += [*ax.get_xticklabels(), *ax.get_yticklabels()]
        texts += [ax.xaxis.label, ax.yaxis.label, ax.title]
        legend = ax.get_legend()
        texts += legend.get_texts() if legend is not None else []
    return [t for t in texts if t.get_visible() and t.get_text()]


def _overlapping(figure: Any) -> list[tuple[str, str]]:
    renderer = figure.canvas.get_renderer()
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in _texts(figure)]
    return [
        (a, b)
        for i, (a, box) in enumerate(boxes)
        for b, other in boxes[i + 1 :]
        if box.overlaps(other) and box.width and other.width
    ]


@pytest.mark.parametrize("name", REPORT_FIGURES)
def test_no_two_labels_of_a_figure_overlap(summary: dict[str, Any], name: str) -> None:
    figure = report_figure(summary, name)
    assert _overlapping(figure) == []


def test_seats_with_the_same_win_rate_get_apart_labels(summary: dict[str, Any]) -> None:
    """The old figure wrote seat numbers at the points: equal rates stacked them up."""
    cell = summary["cells"][0]
    for rate in cell["seat_win_rate"]:
        rate.update(mean=0.5, low=0.3, high=0.7)
    figure = report_figure({"cells": [cell]}, "seat_win_rates.png")
    assert _overlapping(figure) == []
    legend = [t.get_text() for t in figure.axes[0].get_legend().get_texts()]
    assert legend == [f"seat {s}" for s in range(len(cell["seat_win_rate"]))]


def test_win_rates_and_hand_sizes_carry_their_intervals(summary: dict[str, Any]) -> None:
    seats = report_figure(summary, "seat_win_rates.png").axes[0]
    whiskers = [c for c in seats.containers if getattr(c, "has_xerr", False)]
    assert len(whiskers) == sum(len(c["seat_win_rate"]) for c in summary["cells"])
    hands = report_figure(summary, "hand_sizes.png").axes[0]
    assert len(hands.collections) == len(summary["cells"])  # one band per cell
    assert "95 % CI" in hands.get_ylabel() and "95 % CI" in seats.get_xlabel()


def test_a_per_bot_line_only_when_the_seats_hold_different_bots(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.jsonl"
    argv = ["experiment", "run", "--games", "2", "--players", "2", "--out", str(out)]
    assert main([*argv, "--bots", "greedy,greedy+random"]) == 0
    text = capsys.readouterr().out
    same, mixed = text.split("greedy,random:")
    assert "bot greedy wins" not in same  # "bot greedy wins 100 %" said nothing
    assert "bot greedy wins" in mixed and "bot random wins" in mixed
    assert "[-" not in text  # hits / round of two games was "25.1 [-1.2,51.4]"
