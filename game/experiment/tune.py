"""``experiment tune``: the profile setting that gives a target round (or game) length.

The setting is P(0) (``knob="p0"``) or mean cards per press (``knob="mean"``) of an
i.i.d. base profile (:func:`game.experiment.grid.derived_profile`). Every evaluation
plays the *same* games (same deals, bot choices and launcher random numbers: common
random numbers), only the profile changes, so differences between settings are not
drowned in game-to-game noise and the search is a deterministic function of the seed.

Search: evaluate the two ends of the range (they must bracket the target), then
bisect ``steps`` times. A game's course changes as soon as one press differs, so even
with common random numbers the estimates wobble around the true curve: the answer is
the root of a weighted straight line through the evaluations within :data:`WINDOW` of
the range around the final bracket, and its 95 % interval comes from that line's
uncertainty (delta method).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from game.experiment.grid import Cell, GridError, Task, task_seed
from game.experiment.stats import Z95, TimeModel, summarize_cell

Runner = Callable[[list[Task]], Iterator[dict[str, Any]]]
#: The answer's straight line is fitted to the evaluations within this share of the search
#: range on either side of the final bracket (at least :data:`MIN_POINTS` of them): wide
#: enough that the slope is not the noise between two neighbouring settings.
WINDOW = 0.25
MIN_POINTS = 3
DEFAULT_RANGES = {"p0": (0.05, 0.9), "mean": (0.6, 4.5)}


@dataclass
class TuneResult:
    knob: str
    value: float
    low: float
    high: float
    target: float
    per: str
    evaluations: list[dict[str, Any]] = field(default_factory=list)

    def text(self) -> str:
        """The answer and every evaluation, for the terminal."""
        name = "P(0)" if self.knob == "p0" else "mean cards per press"
        lines = [
            f"{name} = {self.value:.3f} [{self.low:.3f}, {self.high:.3f}] (95 %) gives "
            f"{self.target:g} estimated minutes per {self.per}",
            f"  {'setting':>8}  minutes per {self.per} [95 % CI]",
        ]
        for e in self.evaluations:
            lines.append(f"  {e['value']:>8.3f}  {e['mean']:.2f} [{e['low']:.2f}, {e['high']:.2f}]")
        return "\n".join(lines)


@dataclass
class Tuner:
    ruleset: str
    players: int
    bots: tuple[str, ...]
    knob: str
    base: str
    target: float
    per: str = "round"
    games: int = 200
    chunk: int = 25
    seed: int = 1
    model: TimeModel = field(default_factory=TimeModel)
    options: tuple[tuple[str, str], ...] = ()
    _window: float = field(default=math.inf, init=False, repr=False)

    def cell(self, value: float) -> Cell:
        """The cell whose profile has the knob at ``value``."""
        profile = f"{self.base}@{self.knob}={value:.6g}"
        return Cell(self.ruleset, self.players, profile, self.bots, self.options)

    def tasks(self, value: float) -> list[Task]:
        """The same seeds for every value (common random numbers): keyed without the profile."""
        key = self.cell(0.5).key.replace(self.cell(0.5).profile, "tune")
        out = []
        for index, start in enumerate(range(0, self.games, self.chunk)):
            size = min(self.chunk, self.games - start)
            out.append(Task(self.cell(value), index, size, task_seed(self.seed, key, index)))
        return out

    def evaluate(self, value: float, run: Runner) -> dict[str, Any]:
        """Minutes per round (or game) at ``value``, with its interval."""
        records = sorted(run(self.tasks(value)), key=lambda r: r["chunk"])
        games = [g for r in records for g in r["games"]]
        estimate = summarize_cell(self.cell(value), games, self.model)[f"minutes_per_{self.per}"]
        return {"value": value, **estimate}

    def search(self, run: Runner, lo: float, hi: float, steps: int = 6) -> TuneResult:
        """Bracket, bisect ``steps`` times, then fit a line near the root."""
        if not lo < hi:
            raise GridError(f"--range {lo},{hi}: the low end must be below the high end")
        self._window = WINDOW * (hi - lo)
        a, b = self.evaluate(lo, run), self.evaluate(hi, run)
        seen = [a, b]
        if (a["mean"] - self.target) * (b["mean"] - self.target) > 0:
            raise GridError(
                f"{self.target:g} minutes per {self.per} is outside what the range gives "
                f"({a['mean']:.1f} at {lo:g}, {b['mean']:.1f} at {hi:g})",
                hint="widen --range, or choose another --target-minutes or --knob",
            )
        for _ in range(steps):
            middle = self.evaluate((a["value"] + b["value"]) / 2, run)
            seen.append(middle)
            if (a["mean"] - self.target) * (middle["mean"] - self.target) <= 0:
                b = middle
            else:
                a = middle
        return self._answer(a, b, seen)

    def _answer(
        self, a: dict[str, Any], b: dict[str, Any], seen: list[dict[str, Any]]
    ) -> TuneResult:
        """Weighted straight line through the evaluations nearest the bracket; its root."""
        middle = (a["value"] + b["value"]) / 2
        ordered = sorted(seen, key=lambda e: abs(e["value"] - middle))
        near = [e for e in ordered if abs(e["value"] - middle) <= self._window]
        if len(near) < MIN_POINTS:
            near = ordered[:MIN_POINTS]
        value, spread = _line_root(near, self.target)
        return TuneResult(
            knob=self.knob,
            value=round(value, 6),
            low=round(value - spread, 6),
            high=round(value + spread, 6),
            target=self.target,
            per=self.per,
            evaluations=sorted(seen, key=lambda e: e["value"]),
        )


def _line_root(points: list[dict[str, Any]], target: float) -> tuple[float, float]:
    """Root of a weighted least-squares line y = c + m x, and its 95 % half-width (delta method).

    Weights are 1 / SE² of each estimate. The evaluations share their games (common random
    numbers), so their errors are positively correlated: the level of the line gets no
    benefit from averaging (its variance is the weighted mean SE, squared, as if fully
    correlated), while the slope's variance is taken as for independent points, which
    overstates it when the correlation is positive. Both err on the wide side.
    """
    xs = [p["value"] for p in points]
    ys = [p["mean"] for p in points]
    ses = [max((p["high"] - p["low"]) / (2 * Z95), 1e-9) for p in points]
    w = [1 / s**2 for s in ses]
    sw = math.fsum(w)
    mx = math.fsum(wi * x for wi, x in zip(w, xs, strict=True)) / sw
    my = math.fsum(wi * y for wi, y in zip(w, ys, strict=True)) / sw
    sxx = math.fsum(wi * (x - mx) ** 2 for wi, x in zip(w, xs, strict=True))
    sxy = math.fsum(wi * (x - mx) * (y - my) for wi, x, y in zip(w, xs, ys, strict=True))
    if sxx == 0 or sxy == 0:
        return mx, math.inf
    slope = sxy / sxx
    root = mx + (target - my) / slope
    level = math.fsum(wi * se for wi, se in zip(w, ses, strict=True)) / sw
    variance = (level**2 + (root - mx) ** 2 / sxx) / slope**2
    return root, Z95 * math.sqrt(variance)
