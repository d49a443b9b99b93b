"""A terminal histogram with interval bars: what people would rather look at than read.

Each row is one count::

      0 ███████████████▓▓▓▓░░░░◆░           0.450  [0.371, 0.531]  target 0.450

``█`` is the part the interval guarantees (up to the lower bound), ``▓`` runs
up to the estimate and ``░`` on to the upper bound; ``◆`` marks the target.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

SURE, ESTIMATE, MAYBE, TARGET = "█", "▓", "░", "◆"
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
    rows = []
    for i, k in enumerate(values):
        mark = None if goal is None else float(goal[i])
        text = f"{k:>4} {_bar(width, scale, lo[i], est[i], hi[i], mark)} {est[i]:6.3f}"
        if low is not None:
            text += f"  [{lo[i]:.3f}, {hi[i]:.3f}]"
        if mark is not None:
            text += f"  {target_name} {mark:.3f}"
        rows.append(text)
    return rows
