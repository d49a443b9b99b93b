"""PNG plots with matplotlib (the optional ``plot`` extra): measured bars, intervals, a target."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from hardware.errors import ConfigError

FloatArray = npt.NDArray[np.float64]


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ConfigError(
            "--plot needs matplotlib, which is not installed",
            hint="pip install 'uno-attack[plot]'",
        ) from None
    return plt


#: A count whose probability is under this is "not seen" when choosing the range to draw.
SMALL = 0.002
#: Counts drawn one by one past the largest one that matters; the rest share one "k+" bar.
MARGIN = 2
#: At most this many tick labels on the count axis (every count below it).
MAX_TICKS = 16


@dataclass(frozen=True)
class Bars:
    """What one plot draws: the counts' labels, the bars, their whiskers, the target."""

    labels: list[str]
    shown: FloatArray
    errors: FloatArray | None
    target: FloatArray | None


def _last_that_matters(values: FloatArray, seen: bool) -> int:
    """The largest count seen (a session's shares) or with probability >= SMALL (a profile)."""
    hits = np.flatnonzero(values > 0 if seen else values >= SMALL)
    return int(hits.max()) if len(hits) else 0


def _lumped(values: FloatArray, split: int, width: int) -> FloatArray:
    """``values`` for counts 0..split-1, then everything from ``split`` on in one cell."""
    padded = np.pad(values, (0, max(width - len(values), 0)))
    if split >= width:
        return padded[:width]
    return np.concatenate([padded[:split], [padded[split:].sum()]])


def bars(
    estimate: npt.ArrayLike,
    low: npt.ArrayLike | None = None,
    high: npt.ArrayLike | None = None,
    target: npt.ArrayLike | None = None,
    *,
    tail_high: float | None = None,
) -> Bars:
    """Counts 0 up to a little past the largest that matters, the rest in one "k+" bar.

    A profile's P(k) runs to the hopper size (90 counts, most of them 0.000), so
    drawing every count hid the real bars in 8 % of the width. ``low``/``high``
    are a session's simultaneous intervals for the counts seen; ``tail_high``
    bounds P(count >= first unseen) jointly with them and is the whisker of
    every bar of counts never seen, the "k+" bar included.
    """
    est = np.asarray(estimate, dtype=float)
    goal = None if target is None else np.asarray(target, dtype=float)
    seen = low is not None and high is not None
    width = max(len(est), 0 if goal is None else len(goal))
    top = _last_that_matters(est, seen)
    if goal is not None:
        top = max(top, _last_that_matters(goal, False))
    split = top + MARGIN + 1
    labels = [str(k) for k in range(min(split, width))]
    if split < width:
        labels.append(f"{split}+")
    shown = _lumped(est, split, width)
    errors = None
    if seen:
        lows = np.zeros(len(shown))
        highs = np.full(len(shown), tail_high if tail_high is not None else np.nan)
        given_low, given_high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
        known = min(len(given_low), split)
        lows[:known], highs[:known] = given_low[:known], given_high[:known]
        highs = np.where(np.isnan(highs), shown, highs)
        errors = np.vstack([shown - lows, highs - shown]).clip(min=0)
    lumped_goal = None if goal is None else _lumped(goal, split, width)
    return Bars(labels, shown, errors, lumped_goal)


def _ticks(count: int) -> npt.NDArray[np.int64]:
    """Every bar up to MAX_TICKS bars; beyond, every 2nd, 5th or 10th, always the last."""
    step = next((s for s in (1, 2, 5, 10, 20, 50) if count / s <= MAX_TICKS), 100)
    ticks = list(range(0, count, step))
    if ticks[-1] != count - 1:
        if count - 1 - ticks[-1] < step / 2:
            ticks.pop()
        ticks.append(count - 1)
    return np.array(ticks)


def _save(plt: Any, figure: Any, path: str | Path) -> Path:
    target_path = Path(path)
    try:
        figure.savefig(target_path)
    except OSError as error:
        raise ConfigError(f"{target_path}: cannot write plot ({error.strerror})") from None
    finally:
        plt.close(figure)
    return target_path


def distribution_figure(
    title: str,
    estimate: npt.ArrayLike,
    low: npt.ArrayLike | None = None,
    high: npt.ArrayLike | None = None,
    target: npt.ArrayLike | None = None,
    *,
    label: str = "measured",
    target_label: str = "target",
    tail_high: float | None = None,
) -> Any:
    """The matplotlib figure of :func:`plot_distribution` (tests read its axes)."""
    plt = _pyplot()
    drawn = bars(estimate, low, high, target, tail_high=tail_high)
    where = np.arange(len(drawn.labels))
    figure, axes = plt.subplots(figsize=(7, 4), dpi=110)
    axes.bar(
        where,
        drawn.shown,
        color="#4C72B0",
        alpha=0.8,
        label=label if drawn.errors is None else f"{label} (simultaneous 95 % intervals)",
        yerr=drawn.errors,
        capsize=4,
        error_kw={"ecolor": "#222222", "elinewidth": 1.2},
    )
    if drawn.target is not None:
        axes.plot(where, drawn.target, "D", color="#DD5533", markersize=7, label=target_label)
    ticks = _ticks(len(drawn.labels))
    axes.set_xticks(ticks, [drawn.labels[t] for t in ticks])
    axes.set_xlim(-0.6, len(drawn.labels) - 0.4)
    axes.set(xlabel="cards per press", ylabel="probability", title=title)
    axes.set_ylim(bottom=0)
    axes.legend()
    axes.grid(axis="y", alpha=0.3)
    figure.tight_layout()
    return figure


def plot_distribution(
    path: str | Path,
    title: str,
    estimate: npt.ArrayLike,
    low: npt.ArrayLike | None = None,
    high: npt.ArrayLike | None = None,
    target: npt.ArrayLike | None = None,
    **options: Any,
) -> Path:
    """Bars for ``estimate`` (interval whiskers if given), the target as diamonds; saves a PNG.

    ``options`` are :func:`distribution_figure`'s (``label``, ``target_label``, ``tail_high``).
    """
    figure = distribution_figure(title, estimate, low, high, target, **options)
    return _save(_pyplot(), figure, path)
