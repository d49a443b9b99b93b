"""The opening sentences of every ``fit``, ``compare`` and ``plan`` report, in plain words.

A hobbyist reads these and may stop there; the statistics follow them for
anyone who wants to check. Every figure here is one the detailed report
prints too (never recomputed another way), rounded to what a person can use:
percentages to the whole number, cards to one decimal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from launcher.calibration.independence import MIN_PRESSES as MIN_PROFILE_PRESSES

if TYPE_CHECKING:
    from launcher.calibration.compare import Comparison
    from launcher.calibration.fit import FitReport

_STRUCTURE = {
    "iid": "Each press looks independent of the ones before it",
    "pattern": "Whether it fires follows a fixed pattern that restarts at every reload "
    "(like the 1999 launcher)",
    "escalating": "It gets more likely to fire after each empty press",
    "load-dependent": "It shoots differently depending on how full the hopper is",
}


def _percent(value: float) -> str:
    """0.425 -> "43 %": half up from the 3 decimals the tables print (as a person rounds)."""
    return f"{int(round(100 * round(value, 3), 6) + 0.5)} %"


def fit_summary(report: FitReport) -> list[str]:
    """Two or three sentences: how often nothing comes out, how many cards, how sure we are."""
    est, mean = report.estimate, report.mean
    nothing = (
        f"Your launcher shoots nothing on about {_percent(est.probabilities[0])} of presses "
        f"(between {_percent(est.low[0])} and {_percent(est.high[0])})"
    )
    average = f"on average {mean.mean:.1f} cards per press"
    if mean.low == mean.low:  # not NaN
        average += f" (between {mean.low:.1f} and {mean.high:.1f})"
    lines = [f"{nothing}, {average}; the most in one press was {int(report.data.counts.max())}."]
    if len(set(report.data.counts.tolist())) == 1:
        lines.append(
            "Every press gave the same count, so how presses depend on each other cannot be told."
        )
    elif report.structures:
        lines.append(f"{_STRUCTURE[report.structure]}, and the fitted profile says so.")
    else:
        lines.append(
            f"{report.presses} press(es) are too few to say more: record at least "
            f"{MIN_PROFILE_PRESSES} (`calibrate record --resume`)."
        )
    widest = float(np.max(est.high - est.low)) / 2
    lines.append(
        f"From {report.presses} presses each of these shares may be off by up to "
        f"{_percent(widest)[:-2]} percentage points either way; `calibrate plan` says how many "
        "presses make that smaller."
    )
    return lines


def _describe(label: str, distribution: np.ndarray) -> str:
    mean = float(np.arange(len(distribution)) @ distribution)
    nothing = _percent(distribution[0])
    return f"{label} shoots nothing on {nothing} of presses, {mean:.1f} cards on average"


def compare_summary(result: Comparison) -> list[str]:
    """Two or three sentences: same or different, and how each side behaves."""
    width = max(len(result.a.cells), len(result.b.cells))
    pa, pb = result.a.distribution(width), result.b.distribution(width)
    sides = f"{_describe('A', pa)}; {_describe('B', pb)}."
    if not result.is_sampled:
        return [
            f"Two profiles, compared exactly: they differ by {_percent(result.total_variation)} "
            "of their probability (0 % is identical, 100 % nothing in common).",
            sides,
        ]
    if result.differ:
        worst = int(np.argmax(np.abs(pa - pb)))
        return [
            f"A and B behave differently (the gap is too large to be luck); the biggest "
            f"difference is how often {worst} card(s) come out: {_percent(pa[worst])} vs "
            f"{_percent(pb[worst])}.",
            sides,
        ]
    return [
        "No difference between A and B shows in these presses; a small one could still "
        "show with more presses.",
        sides,
    ]


def plan_summary(presses: int, precision: float, duration: str, guess: str | None) -> list[str]:
    """Two sentences: how many presses, how long, and what they buy."""
    like = f" if your launcher behaves like {guess}" if guess else ""
    return [
        f"Press the launcher {presses} times (about {duration} at one press every 5 seconds); "
        f"then every share `calibrate fit` prints is known to within ±{precision:g} "
        f"({100 * precision:g} percentage points){like}.",
        "You need not do it in one go: stop with Ctrl-C and continue with `record --resume`, "
        "or pool several sessions (`fit A B C`).",
    ]
