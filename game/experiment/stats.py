"""From task records to per-cell estimates with 95 % confidence intervals.

Methods (stated in every report):

* means over games (rounds per game, turns and minutes per game): normal interval,
  mean ± 1.96 standard errors;
* per-round quantities (turns, minutes, hits per round, cards per hit, share of rounds
  won from behind or with the launcher run empty): ratio estimators with the *game* as
  the sampling unit (rounds of one game share a score and a table, so they are not
  independent), standard error by linearisation (Cochran's ratio estimator);
* win rates: Wilson score interval over games.

Minutes come from a **turn-time model** (:class:`TimeModel`): assumed seconds per turn,
per card played, per launcher press (or draw), per card picked up, and per deal. These
are assumptions, not measurements; change them with ``--time-model``.
Aggregation is pure arithmetic in a fixed order, so the same records give the same
bytes whatever order they were written in.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any

from game.experiment.grid import Cell, GridError
from game.experiment.play import DECILES, ROUND_FIELDS
from game.experiment.store import iter_games

Z95 = 1.959963984540054
METHODS = (
    "95 % intervals: games are the sampling unit; normal (mean ± 1.96 SE) for per-game means, "
    "ratio estimator with linearised SE for per-round quantities, Wilson for win rates."
)
_T, _P, _H, _C, _W, _B, _R, _E = range(len(ROUND_FIELDS))


@dataclass(frozen=True)
class TimeModel:
    """Assumed seconds a table spends on each thing that happens (not measurements)."""

    turn: float = 8.0  #: look at the hand and decide, every turn
    play: float = 2.0  #: put a card on the pile (and say a colour)
    press: float = 3.0  #: press the launcher (or draw from the pile) and watch it
    card: float = 2.0  #: pick up one card and sort it into the hand
    deal: float = 90.0  #: shuffle, deal, load the launcher, once per round

    def seconds(self, round_: Sequence[Any]) -> float:
        """Estimated seconds of one round record (:data:`ROUND_FIELDS` order)."""
        return (
            self.turn * round_[_T]
            + self.play * round_[_P]
            + self.press * round_[_H]
            + self.card * round_[_C]
            + self.deal
        )

    def describe(self) -> str:
        """The model as ``--time-model`` text."""
        return ",".join(f"{f.name}={getattr(self, f.name):g}" for f in fields(self))

    @classmethod
    def parse(cls, text: str) -> TimeModel:
        """``turn=8,play=2,press=3,card=2,deal=90`` (any subset; the rest keep defaults)."""
        values: dict[str, float] = {}
        names = {f.name for f in fields(cls)}
        for part in (p.strip() for p in text.split(",") if p.strip()):
            key, sep, raw = part.partition("=")
            try:
                value = float(raw)
            except ValueError:
                value = math.nan
            if not sep or key not in names or not math.isfinite(value) or value < 0:
                raise GridError(
                    f"--time-model {part!r}: expected NAME=SECONDS, NAME one of {sorted(names)}",
                    hint="e.g. --time-model turn=8,play=2,press=3,card=2,deal=90",
                )
            values[key] = value
        return cls(**values)


@dataclass(frozen=True)
class Estimate:
    mean: float
    low: float
    high: float

    def text(self, digits: int = 1, percent: bool = False) -> str:
        """``mean [low, high]``."""
        if percent:
            return f"{self.mean:.0%} [{self.low:.0%}, {self.high:.0%}]"
        return f"{self.mean:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"


def _r(x: float) -> float:
    return round(x, 6)


def mean_ci(values: Sequence[float]) -> Estimate:
    """Mean ± 1.96 standard errors, cut at 0 (no interval from fewer than 2 values).

    Every quantity summarised is a count or a time, never negative: an interval
    like "hits / round 25.1 [-1.2, 51.4]" from two games is cut to [0, 51.4].
    """
    n = len(values)
    if n == 0:
        return Estimate(math.nan, math.nan, math.nan)
    mean = math.fsum(values) / n
    if n < 2:
        return Estimate(_r(mean), math.nan, math.nan)
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    half = Z95 * math.sqrt(var / n)
    return Estimate(_r(mean), _r(max(0.0, mean - half)), _r(mean + half))


def ratio_ci(
    numerators: Sequence[float], denominators: Sequence[float], *, share: bool = False
) -> Estimate:
    """sum(x)/sum(n) over games, SE by linearisation (games are the unit), cut at 0 like
    :func:`mean_ci`; a share is clipped to [0, 1]."""
    total = math.fsum(denominators)
    g = len(numerators)
    if total == 0 or g == 0:
        return Estimate(math.nan, math.nan, math.nan)
    ratio = math.fsum(numerators) / total
    if g < 2:
        return Estimate(_r(ratio), math.nan, math.nan)
    mean_n = total / g
    resid = [x - ratio * n for x, n in zip(numerators, denominators, strict=True)]
    se = math.sqrt(math.fsum(r * r for r in resid) / (g * (g - 1))) / mean_n
    low, high = max(0.0, ratio - Z95 * se), ratio + Z95 * se
    if share:
        high = min(1.0, high)
    return Estimate(_r(ratio), _r(low), _r(high))


def wilson(successes: int, trials: int) -> Estimate:
    """The Wilson score interval of a proportion (sound near 0 and 1, unlike the normal one)."""
    if trials == 0:
        return Estimate(math.nan, math.nan, math.nan)
    p = successes / trials
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = Z95 * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    return Estimate(_r(p), _r(centre - half), _r(centre + half))


def summarize_cell(cell: Cell, games: list[dict[str, Any]], model: TimeModel) -> dict[str, Any]:
    """Every estimate of one cell (JSON-ready)."""
    rounds = [g["rounds"] for g in games]
    per_game = {
        "rounds": [float(len(r)) for r in rounds],
        "turns": [float(sum(x[_T] for x in r)) for r in rounds],
        "minutes": [sum(model.seconds(x) for x in r) / 60 for r in rounds],
        "presses": [float(sum(x[_H] for x in r)) for r in rounds],
        "cards": [float(sum(x[_C] for x in r)) for r in rounds],
        "behind": [float(sum(1 for x in r if x[_B] == 1)) for r in rounds],
        "judged": [float(sum(1 for x in r if x[_B] is not None)) for r in rounds],
        "empty": [float(sum(x[_E] for x in r)) for r in rounds],
        "unfinished": [float(sum(1 for x in r if x[_W] is None)) for r in rounds],
    }
    n_rounds = per_game["rounds"]
    out: dict[str, Any] = {
        "cell": cell.to_dict(),
        "label": cell.label(),
        "games": len(games),
        "rounds": int(sum(n_rounds)),
        "rounds_per_game": mean_ci(n_rounds),
        "turns_per_game": mean_ci(per_game["turns"]),
        "minutes_per_game": mean_ci(per_game["minutes"]),
        "turns_per_round": ratio_ci(per_game["turns"], n_rounds),
        "minutes_per_round": ratio_ci(per_game["minutes"], n_rounds),
        "hits_per_round": ratio_ci(per_game["presses"], n_rounds),
        "cards_per_hit": ratio_ci(per_game["cards"], per_game["presses"]),
        "won_from_behind": ratio_ci(per_game["behind"], per_game["judged"], share=True),
        "launcher_ran_empty": ratio_ci(per_game["empty"], n_rounds, share=True),
        "rounds_unfinished": ratio_ci(per_game["unfinished"], n_rounds, share=True),
        "hand_size_by_decile": _deciles(games),
        "seat_win_rate": _seat_wins(cell, games),
        "bot_win_rate": _bot_wins(cell, games),
    }
    return _plain(out)


def _deciles(games: list[dict[str, Any]]) -> list[Estimate]:
    rows = [d for g in games for d in g["deciles"] if len(d) == DECILES]
    return [mean_ci([row[k] for row in rows]) for k in range(DECILES)]


def _seat_wins(cell: Cell, games: list[dict[str, Any]]) -> list[Estimate]:
    return [
        wilson(sum(1 for g in games if g["winner"] == s), len(games)) for s in range(cell.players)
    ]


def _bot_wins(cell: Cell, games: list[dict[str, Any]]) -> dict[str, Any]:
    out = {}
    for bot in dict.fromkeys(cell.bots):
        seats = [s for s in range(cell.players) if cell.bot_for(s) == bot]
        won = sum(1 for g in games if g["winner"] in seats)
        out[bot] = {
            "seats": seats,
            "win_rate": wilson(won, len(games)),
            "fair_share": len(seats) / cell.players,
        }
    return out


def _plain(value: Any) -> Any:
    if isinstance(value, Estimate):
        return {k: (None if math.isnan(v) else v) for k, v in asdict(value).items()}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def aggregate(records: list[dict[str, Any]], model: TimeModel) -> dict[str, Any]:
    """The summary of a results file: one entry per cell, sorted by cell key."""
    cells = [
        summarize_cell(Cell.from_dict(cell), games, model) for _, cell, games in iter_games(records)
    ]
    return {"time_model": asdict(model), "methods": METHODS, "cells": cells}


# -- the terminal summary ------------------------------------------------------------------------
def est(entry: dict[str, Any], digits: int = 1, percent: bool = False) -> str:
    """An estimate of a summary (``{"mean", "low", "high"}``) as compact text."""
    if entry["mean"] is None:
        return "n/a"
    low, high = entry["low"], entry["high"]
    if percent:
        if low is None:
            return f"{entry['mean']:.0%}"
        return f"{entry['mean']:.0%} [{low:.0%},{high:.0%}]"
    if low is None:
        return f"{entry['mean']:.{digits}f}"
    return f"{entry['mean']:.{digits}f} [{low:.{digits}f},{high:.{digits}f}]"


def format_report(summary: dict[str, Any]) -> str:
    """A compact text summary, one block per cell."""
    model = summary["time_model"]
    lines = [
        "time model (assumed seconds): " + ", ".join(f"{k} {v:g}" for k, v in model.items()),
        summary["methods"],
    ]
    for cell in summary["cells"]:
        lines += ["", f"{cell['label']}: {cell['games']} games, {cell['rounds']} rounds"]
        rows = [
            ("turns / round", est(cell["turns_per_round"])),
            ("minutes / round", est(cell["minutes_per_round"])),
            ("rounds / game", est(cell["rounds_per_game"], 2)),
            ("minutes / game", est(cell["minutes_per_game"])),
            ("hits / round", est(cell["hits_per_round"])),
            ("cards / hit", est(cell["cards_per_hit"], 2)),
            ("won from behind", est(cell["won_from_behind"], percent=True)),
            ("launcher ran empty", est(cell["launcher_ran_empty"], percent=True)),
            ("rounds unfinished", est(cell["rounds_unfinished"], percent=True)),
            (
                "hand size by tenth",
                " ".join(
                    "-" if d["mean"] is None else f"{d['mean']:.1f}"
                    for d in cell["hand_size_by_decile"]
                ),
            ),
            ("seat win rates", " ".join(est(s, percent=True) for s in cell["seat_win_rate"])),
        ]
        bots = cell["bot_win_rate"]
        for bot, data in bots.items() if len(bots) > 1 else ():  # one bot everywhere wins 100 %
            rows.append(
                (
                    f"bot {bot} wins",
                    f"{est(data['win_rate'], percent=True)} (fair share {data['fair_share']:.0%})",
                )
            )
        lines += [f"  {name:<20}{value}" for name, value in rows]
    return "\n".join(lines)
