"""PNG plots with matplotlib (the optional ``plot`` extra): measured bars, intervals, a target."""

from __future__ import annotations

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


def _whiskers(shown: FloatArray, low: npt.ArrayLike, high: npt.ArrayLike) -> FloatArray:
    """Matplotlib's asymmetric error bars: distances below and above each bar."""
    pad = (0, len(shown) - len(np.asarray(low)))
    lo = np.pad(np.asarray(low, dtype=float), pad)
    hi = np.pad(np.asarray(high, dtype=float), pad)
    return np.vstack([shown - lo, hi - shown]).clip(min=0)


def _save(plt: Any, figure: Any, path: str | Path) -> Path:
    target_path = Path(path)
    try:
        figure.savefig(target_path)
    except OSError as error:
        raise ConfigError(f"{target_path}: cannot write plot ({error.strerror})") from None
    finally:
        plt.close(figure)
    return target_path


def plot_distribution(
    path: str | Path,
    title: str,
    estimate: npt.ArrayLike,
    low: npt.ArrayLike | None = None,
    high: npt.ArrayLike | None = None,
    target: npt.ArrayLike | None = None,
    *,
    label: str = "measured",
    target_label: str = "target",
) -> Path:
    """Bars for ``estimate`` (interval whiskers if given), the target as diamonds; saves a PNG."""
    plt = _pyplot()
    est = np.asarray(estimate, dtype=float)
    goal = None if target is None else np.asarray(target, dtype=float)
    width = max(len(est), 0 if goal is None else len(goal))
    shown = np.pad(est, (0, width - len(est)))
    errors = None if low is None or high is None else _whiskers(shown, low, high)
    figure, axes = plt.subplots(figsize=(7, 4), dpi=110)
    axes.bar(
        np.arange(width),
        shown,
        color="#4C72B0",
        alpha=0.8,
        label=label,
        yerr=errors,
        capsize=4,
        error_kw={"ecolor": "#222222", "elinewidth": 1.2},
    )
    if goal is not None:
        axes.plot(
            np.arange(len(goal)), goal, "D", color="#DD5533", markersize=7, label=target_label
        )
    axes.set(xlabel="cards per press", ylabel="probability", title=title, xticks=np.arange(width))
    axes.legend()
    axes.grid(axis="y", alpha=0.3)
    figure.tight_layout()
    return _save(plt, figure, path)
