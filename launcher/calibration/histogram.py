"""A terminal histogram with interval bars: what people would rather look at than read.

Each row is one count::

      0 ███████████████▓▓▓▓░░░░◆░           0.450  [0.371, 0.531]  target 0.450

``█`` is the part the interval guarantees (up to the lower bound), ``▓`` runs
up to the estimate and ``░`` on to the upper bound; ``◆`` marks the target.
A trailing run of counts that are all below :data:`NEGLIGIBLE` is one row.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
SURE, ESTIMATE, MAYBE, TARGET = "█", "▓", "░", "◆"
#: Rows of a trailing run below this (estimate, bound and target alike) are shown as one row.
NEGLIGIBLE = 0.0005
LEGEND = "   ".join(
    [
        f"{SURE} surely at least",
        f"{ESTIMATE} estimate",
        f"{MAYBE} up to the upper bound",
        f"{TARGET} target",
    ]
)


def _bar(
    width: int, scale: float, low: float, value: float, high: float, target: float | None
) -> str:
    def at(x: float) -> int:
        return min(width, int(round(x / scale * width)))

    cells = [" "] * width
    for index in range(width):
        if index < at(low):
            cells[index] = SURE
        elif index < at(value):
            cells[index] = ESTIMATE
        elif index < at(high):
            cells[index] = MAYBE
    if target is not None:
        cells[min(at(target), width - 1)] = TARGET
    return "".join(cells)


def histogram(
    values: Sequence[int],
    estimate: npt.ArrayLike,
    low: npt.ArrayLike | None = None,
    high: npt.ArrayLike | None = None,
    target: npt.ArrayLike | None = None,
    *,
    width: int = 36,
    target_name: str = "target",
) -> list[str]:
    """Rows for counts ``values``; intervals and target are optional."""
    est = np.asarray(estimate, dtype=float)
    lo = est if low is None else np.asarray(low, dtype=float)
    hi = est if high is None else np.asarray(high, dtype=float)
    goal = (
        None
        if target is None
        else np.pad(np.asarray(target, dtype=float), (0, len(values)))[: len(values)]
    )
    scale = max(
        float(hi.max(initial=0)), float(goal.max(initial=0)) if goal is not None else 0.0, 1e-9
    )
    shown = _rows_worth_showing(est, hi, goal)
    rows = []
    for i, k in enumerate(values[:shown]):
        mark = None if goal is None else float(goal[i])
        text = f"{k:>4} {_bar(width, scale, lo[i], est[i], hi[i], mark)} {est[i]:6.3f}"
        if low is not None:
            text += f"  [{lo[i]:.3f}, {hi[i]:.3f}]"
        if mark is not None:
            text += f"  {target_name} {mark:.3f}"
        rows.append(text)
    if shown < len(values):
        rest = float(est[shown:].sum())
        together = f"{values[shown]:>3}+ {' ' * width} {rest:6.3f}"
        if goal is not None:
            together += f"  {target_name} {float(goal[shown:].sum()):.3f}"
        rows.append(
            together + f"  (counts {values[shown]}-{values[-1]} together, each under {NEGLIGIBLE})"
        )
    return rows


def _rows_worth_showing(est: FloatArray, high: FloatArray, goal: FloatArray | None) -> int:
    """Rows up to the last one with anything at or above NEGLIGIBLE; a long thin tail is one row.

    Fitted profiles keep every count up to the hopper's size possible (a tiny tail
    probability); ninety rows of 0.000 would bury the counts that matter.
    """
    biggest = np.maximum(est, high)
    if goal is not None:
        biggest = np.maximum(biggest, goal)
    visible = np.flatnonzero(biggest >= NEGLIGIBLE)
    last = int(visible.max()) + 1 if len(visible) else len(est)
    return last if len(est) - last >= 2 else len(est)
