"""Do the calibration statistics do what docs/calibration-methods.md says? Known presets tell.

    python bench/calibration_study.py          # the figures in docs/calibration-methods.md
    python bench/calibration_study.py --sessions 100 --draws 199   # a quick look (CI runs this)

Every figure is a rate over ``--sessions`` simulated sessions per cell, each drawn
from a preset whose true distribution is known, at 30, 100 and 300 presses
(``--sizes``), with its Monte-Carlo standard error sqrt(r (1 - r) / sessions).
All randomness flows from ``--seed``; the same command prints the same table.

* **coverage**: the share of sessions where every simultaneous interval of fit
  (each P(k) shown and the bound for counts never seen) holds the truth; and the
  mean's interval alone;
* **false alarms** (type-I error) of every structure check on i.i.d. presses:
  each independence check at its level 0.05 / 3, the "NOT independent" verdict,
  each load check at 0.05 / 2 and the load verdict; presses come with the loads
  of a real session (90 cards, topped up below 10);
* **compare**: type-I error (a session against its own profile, two sessions
  of one profile) and power (a multi-variant-server session against the
  web-game profile; web-game with P(nothing) 0.1 lower against web-game);
* **plan**: the share of sessions of the planned size whose every interval has
  half-width <= P, the promise ``calibrate plan`` prints, for guessed presets,
  a launcher that never fires (P(0) = 1), and no guess at all.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass

import numpy as np
import numpy.typing as npt

from launcher.analysis import analyse
from launcher.calibration.compare import Side, compare
from launcher.calibration.independence import independence_checks, load_checks, replay_loads
from launcher.calibration.intervals import (
    estimate,
    mean_interval,
    presses_needed,
    shares,
    simultaneous_level,
)
from launcher.profiles import load_profile

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
COVERAGE_PRESETS = ("web-game", "multi-variant-server", "bookmarklet", "irc-bot")
IID_PRESETS = ("web-game", "multi-variant-server")
ALPHA = 0.05


@dataclass(frozen=True)
class Row:
    """One measured rate: what, on which preset, at which session size."""

    measure: str
    preset: str
    presses: int
    rate: float
    error: float
    sessions: int
    target: str

    def markdown(self) -> str:
        spread = "" if math.isnan(self.error) else f" ± {100 * self.error:.1f}"
        return (
            f"| {self.measure} | {self.preset} | {self.presses} | "
            f"{100 * self.rate:.1f}{spread} % | {self.target} |"
        )


def _row(measure: str, preset: str, presses: int, hits: list[bool], target: str) -> Row:
    rate = float(np.mean(hits))
    error = math.sqrt(rate * (1 - rate) / len(hits))
    return Row(measure, preset, presses, rate, error, len(hits), target)


def truth(name: str) -> FloatArray:
    return np.asarray(analyse(load_profile(name)).probabilities, dtype=float)


def shifted_web_game() -> FloatArray:
    """web-game with P(nothing) 0.1 lower, the rest scaled up (docs' power example)."""
    p = truth("web-game").copy()
    p[0] -= 0.1
    p[1:] *= (1 - p[0]) / p[1:].sum()
    return p


def draw(p: FloatArray, presses: int, rng: np.random.Generator) -> IntArray:
    return np.asarray(rng.choice(len(p), size=presses, p=p), dtype=np.int64)


# -- coverage ----------------------------------------------------------------------
def covered(values: IntArray, p: FloatArray, ties: str = "randomized") -> bool:
    est = estimate(values, ties=ties)
    shown = np.pad(p, (0, len(est.counts)))[: len(est.counts)]
    inside = np.all((est.low <= shown + 1e-12) & (shown <= est.high + 1e-12))
    return bool(inside and p[est.tail_from :].sum() <= est.tail_high + 1e-12)


def mean_covered(values: IntArray, p: FloatArray) -> bool:
    interval = mean_interval(values)
    true_mean = float(p @ np.arange(len(p)))
    return bool(interval.low - 1e-12 <= true_mean <= interval.high + 1e-12)


def coverage_rows(sessions: int, sizes: list[int], rng: np.random.Generator) -> Iterator[Row]:
    for name in COVERAGE_PRESETS:
        p = truth(name)
        for n in sizes:
            samples = [draw(p, n, rng) for _ in range(sessions)]
            yield _row(
                "simultaneous coverage", name, n, [covered(s, p) for s in samples], "95-97 %"
            )
            yield _row("mean coverage", name, n, [mean_covered(s, p) for s in samples], ">= 95 %")


def width_rows(sessions: int, sizes: list[int], rng: np.random.Generator) -> Iterator[Row]:
    """What the randomized intervals cost against ``fit --ties mid-p``, on the same sessions.

    Drawn from the coverage part's stream, so these are the coverage part's sessions: fit's
    per-interval level as a share of Bonferroni's (median; above 100 % an interval is
    narrower than Bonferroni's), the mean interval width as a share of mid-p's (mean over
    sessions of each session's mean width), and the joint coverage of the mid-p intervals.
    """
    for name in COVERAGE_PRESETS:
        p = truth(name)
        for n in sizes:
            ratios, widths, mid_widths, mid_hits = [], [], [], []
            for _ in range(sessions):
                values = draw(p, n, rng)
                cells = np.bincount(values)
                ratios.append(simultaneous_level(cells) * shares(len(cells)) / ALPHA)
                est, mid = estimate(values), estimate(values, ties="mid-p")
                widths.append(float(np.mean(est.high - est.low)))
                mid_widths.append(float(np.mean(mid.high - mid.low)))
                mid_hits.append(covered(values, p, "mid-p"))
            label = "level, share of Bonferroni's (median)"
            yield Row(
                label, name, n, float(np.median(ratios)), math.nan, sessions, "100 % = Bonferroni's"
            )
            width = float(np.mean(widths) / np.mean(mid_widths))
            yield Row("mean width, share of mid-p's", name, n, width, math.nan, sessions, "")
            yield _row("simultaneous coverage, --ties mid-p", name, n, mid_hits, "95-97 %")


def _check_hits(
    samples: list[IntArray], check: Callable[[IntArray, int], list[bool]]
) -> list[list[bool]]:
    """Per check, whether it rejected at its level, for every session."""
    rejections = [check(s, i) for i, s in enumerate(samples)]
    return [list(column) for column in zip(*rejections, strict=True)]


def structure_rows(sessions: int, sizes: list[int], rng: np.random.Generator) -> Iterator[Row]:
    names = ("runs", "Ljung-Box fire/no-fire", "Ljung-Box counts", "NOT independent verdict")
    load_names = ("Spearman", "Kruskal-Wallis", "load verdict")

    def independence(values: IntArray, seed: int) -> list[bool]:
        checks = independence_checks(values, seed=seed)
        each = [c.p_value < ALPHA / 3 for c in checks]
        return [*each, any(each)]

    def load(values: IntArray, seed: int) -> list[bool]:
        refills = [(len(values), 90, 10)]
        checks = load_checks(values, replay_loads(values, refills), seed=seed, refills=refills)
        each = [c.p_value < ALPHA / len(checks) for c in checks]
        return [*each, any(each)] if len(each) == 2 else [False, False, False]

    for name in IID_PRESETS:
        p = truth(name)
        for n in sizes:
            samples = [draw(p, n, rng) for _ in range(sessions)]
            for label, hits in zip(names, _check_hits(samples, independence), strict=True):
                yield _row(f"false alarm: {label}", name, n, hits, "<= 1.7 % each, <= 5 % verdict")
            for label, hits in zip(load_names, _check_hits(samples, load), strict=True):
                yield _row(f"false alarm: {label}", name, n, hits, "<= 2.5 % each, <= 5 % verdict")


# -- compare -----------------------------------------------------------------------------
def compare_rows(
    sessions: int, sizes: list[int], rng: np.random.Generator, draws: int
) -> Iterator[Row]:
    web = Side.of_profile(load_profile("web-game"))
    p_web, p_multi, p_shift = truth("web-game"), truth("multi-variant-server"), shifted_web_game()

    def against(p: FloatArray, n: int, profile: Side) -> list[bool]:
        return [
            compare(Side.of_counts("s", draw(p, n, rng)), profile, seed=i, draws=draws).differ
            for i in range(sessions)
        ]

    def two(p: FloatArray, n: int) -> list[bool]:
        return [
            compare(
                Side.of_counts("a", draw(p, n, rng)),
                Side.of_counts("b", draw(p, n, rng)),
                seed=i,
                draws=draws,
            ).differ
            for i in range(sessions)
        ]

    for n in sizes:
        yield _row(
            "compare type-I: session vs its profile",
            "web-game",
            n,
            against(p_web, n, web),
            "<= 5 %",
        )
        multi = Side.of_profile(load_profile("multi-variant-server"))
        yield _row(
            "compare type-I: session vs its profile",
            "multi-variant-server",
            n,
            against(p_multi, n, multi),
            "<= 5 %",
        )
        yield _row("compare type-I: two sessions", "web-game", n, two(p_web, n), "<= 5 %")
        yield _row(
            "compare power: vs web-game profile",
            "multi-variant-server",
            n,
            against(p_multi, n, web),
            "higher is better",
        )
        yield _row(
            "compare power: vs web-game profile",
            "web-game, P(0) - 0.1",
            n,
            against(p_shift, n, web),
            "higher is better",
        )


# -- plan ---------------------------------------------------------------------------------
def promise_kept(values: IntArray, precision: float) -> bool:
    est = estimate(values)
    widest = max(float(np.max((est.high - est.low) / 2)), est.tail_high / 2)
    return widest <= precision + 1e-12


def plan_rows(sessions: int, precisions: list[float], rng: np.random.Generator) -> Iterator[Row]:
    guesses: dict[str, FloatArray | None] = {
        "web-game": truth("web-game"),
        "multi-variant-server": truth("multi-variant-server"),
        "never fires, P(0) = 1": np.array([1.0]),
        "no guess (11 counts), truth web-game": None,
    }
    for label, guess in guesses.items():
        p = truth("web-game") if guess is None else guess
        for precision in precisions:
            n = presses_needed(precision, guess, cells=11)
            hits = [promise_kept(draw(p, n, rng), precision) for _ in range(sessions)]
            yield _row(f"plan promise kept, P = {precision:g}", label, n, hits, ">= 95 %")


# -- driver -----------------------------------------------------------------------------
def run(
    sessions: int,
    sizes: list[int],
    *,
    seed: int = 2026,
    draws: int = 999,
    precisions: list[float] | None = None,
    parts: tuple[str, ...] = ("coverage", "structure", "compare", "plan"),
) -> list[Row]:
    """Every figure of the study; each part has its own seeded stream, so parts can run alone.

    ``width`` (not run by default) redraws the coverage part's sessions.
    """
    streams = np.random.SeedSequence(seed).spawn(4)
    rows: list[Row] = []
    if "coverage" in parts:
        rows += coverage_rows(sessions, sizes, np.random.default_rng(streams[0]))
    if "width" in parts:
        rows += width_rows(sessions, sizes, np.random.default_rng(streams[0]))
    if "structure" in parts:
        rows += structure_rows(sessions, sizes, np.random.default_rng(streams[1]))
    if "compare" in parts:
        rows += compare_rows(sessions, sizes, np.random.default_rng(streams[2]), draws)
    if "plan" in parts:
        rows += plan_rows(
            sessions, precisions or [0.2, 0.1, 0.06], np.random.default_rng(streams[3])
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=1000, help="sessions per cell")
    parser.add_argument("--sizes", type=int, nargs="+", default=[30, 100, 300])
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--draws", type=int, default=999, help="Monte-Carlo draws per compare")
    parser.add_argument(
        "--parts",
        nargs="+",
        default=["coverage", "structure", "compare", "plan"],
        choices=["coverage", "width", "structure", "compare", "plan"],
        help="which figures (width: fit's level and width against Bonferroni's and mid-p's, "
        "and mid-p's coverage; not run by default)",
    )
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args(argv)
    rows = run(args.sessions, args.sizes, seed=args.seed, draws=args.draws, parts=tuple(args.parts))
    if args.json:
        print(json.dumps([asdict(r) for r in rows], indent=2))
        return 0
    print("| measure | preset | presses | rate ± MC error | target |")
    print("|---|---|---|---|---|")
    for row in rows:
        print(row.markdown())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
