"""``experiment paper``: write docs/experiments.md, "what the launcher does to UNO Attack".

One command runs four small grids (P(0) sweep, mean-cards sweep, every preset, 2 to 8
players), aggregates them with the same code as ``experiment report``, draws the
figures and writes the Markdown page, every number in it produced here. The page
names the command, seed, games per cell, bots and time model, so an outsider can
rerun it and get the same bytes (figures included) from the same version.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from game.experiment.grid import DEFAULT_BOT, Grid, GridError, Task
from game.experiment.plots import save
from game.experiment.stats import METHODS, TimeModel, aggregate, est
from launcher.profiles import DEFAULT_PROFILE, preset_names

Runner = Callable[[list[Task]], Iterator[dict[str, Any]]]
P0_VALUES = (0.1, 0.2, 0.3, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8)
MEAN_VALUES = (0.6, 0.8, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0)
PLAYER_COUNTS = (2, 3, 4, 5, 6, 7, 8)
TUNE_STEPS = 5
FIGURES = (
    "experiments_p0.png",
    "experiments_mean.png",
    "experiments_presets.png",
    "experiments_players.png",
)


@dataclass
class Paper:
    games: int = 300
    seed: int = 1
    bot: str = DEFAULT_BOT
    ruleset: str = "attack"
    players: int = 4
    model: TimeModel = field(default_factory=TimeModel)
    target_minutes: float = 10.0
    command: str = "uno-attack experiment paper --out docs/experiments.md"

    def _grid(self, players: list[int], profiles: list[str]) -> Grid:
        bots: list[tuple[str, ...]] = [(self.bot,)]
        return Grid([self.ruleset], players, profiles, bots, [{}], self.games)

    def grids(self) -> dict[str, Grid]:
        """The page's four grids, by section."""
        one = [self.players]
        return {
            "p0": self._grid(one, [f"{DEFAULT_PROFILE}@p0={v:g}" for v in P0_VALUES]),
            "mean": self._grid(one, [f"{DEFAULT_PROFILE}@mean={v:g}" for v in MEAN_VALUES]),
            "presets": self._grid(one, preset_names()),
            "players": self._grid(list(PLAYER_COUNTS), ["default"]),
        }

    def tasks(self) -> list[Task]:
        """Every task of the four grids, a cell shared by two grids played once."""
        seen: dict[str, Task] = {}
        for grid in self.grids().values():
            for task in grid.tasks(self.seed):
                seen.setdefault(task.key, task)
        return list(seen.values())

    def summaries(self, records: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
        """Each section's cell summaries, in the grid's order."""
        cells = {c["label"]: c for c in aggregate(records, self.model)["cells"]}
        out = {}
        for name, grid in self.grids().items():
            out[name] = [cells[c.label()] for c in grid.cells()]
        return out


def tune_all(paper: Paper, run: Runner) -> list[str]:
    """The "tuning" section: P(0) and mean cards per press for :attr:`Paper.target_minutes`."""
    from game.experiment.tune import DEFAULT_RANGES, Tuner

    lines = []
    for knob in ("p0", "mean"):
        tuner = Tuner(
            paper.ruleset, paper.players, (paper.bot,), knob, DEFAULT_PROFILE,
            paper.target_minutes, games=max(2, paper.games // 2), seed=paper.seed,
            model=paper.model,
        )  # fmt: skip
        try:
            result = tuner.search(run, *DEFAULT_RANGES[knob], steps=TUNE_STEPS)
        except GridError as error:
            lines += [f"`--knob {knob}`: {error}", ""]
            continue
        command = (
            f"uno-attack experiment tune --target-minutes {paper.target_minutes:g} "
            f"--knob {knob} --games {tuner.games} --steps {TUNE_STEPS}"
        )
        if paper.bot != DEFAULT_BOT:
            command += f" --bots {paper.bot}"
        if paper.seed != 1:
            command += f" --seed {paper.seed}"
        if paper.model != TimeModel():
            command += f" --time-model {paper.model.describe()}"
        lines += [
            f"`{command}`:",
            "",
            "```text",
            result.text(),
            "```",
            "",
        ]
    return lines


def write_paper(
    paper: Paper, records: list[dict[str, Any]], out: Path, images: Path, tuning: list[str]
) -> None:
    """Draw the figures into ``images`` and write the page to ``out`` (both atomically)."""
    from hardware.files import atomic_write_text

    parts = paper.summaries(records)
    paths = [images / name for name in FIGURES]
    _figures(parts, paths)
    relative = _relative(images, out.parent)
    atomic_write_text(out, render(paper, parts, relative, tuning))


def _relative(images: Path, base: Path) -> str:
    try:
        return str(images.resolve().relative_to(base.resolve()))
    except ValueError:
        return str(images.resolve())


def _profile_value(cell: dict[str, Any]) -> float:
    return float(cell["cell"]["profile"].rsplit("=", 1)[1])


def _figures(parts: dict[str, list[dict[str, Any]]], paths: list[Path]) -> None:
    save(
        paths[0],
        lambda ax: _line(
            ax, parts["p0"], _profile_value, "P(0): share of presses that shoot nothing"
        ),
    )
    save(
        paths[1],
        lambda ax: _line(
            ax, parts["mean"], _profile_value, "mean cards per press (P(0) 0.45 kept)"
        ),
    )
    save(paths[2], lambda ax: _bars(ax, parts["presets"]), (7, 3.5))
    save(
        paths[3],
        lambda ax: _line(ax, parts["players"], lambda c: float(c["cell"]["players"]), "players"),
    )


def _line(
    ax: Any, cells: list[dict[str, Any]], x_of: Callable[[dict[str, Any]], float], xlabel: str
) -> None:
    xs = [x_of(c) for c in cells]
    for key, colour, label in (
        ("turns_per_round", "#4a7bb7", "turns per round"),
        ("minutes_per_round", "#d9822b", "est. minutes per round"),
    ):
        ys = [c[key]["mean"] for c in cells]
        lows = [
            c[key]["low"] if c[key]["low"] is not None else y
            for c, y in zip(cells, ys, strict=True)
        ]
        highs = [
            c[key]["high"] if c[key]["high"] is not None else y
            for c, y in zip(cells, ys, strict=True)
        ]
        ax.plot(xs, ys, marker="o", color=colour, label=label)
        ax.fill_between(xs, lows, highs, color=colour, alpha=0.2)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("per round (95 % CI shaded)")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)


def _bars(ax: Any, cells: list[dict[str, Any]]) -> None:
    labels = [c["cell"]["profile"] for c in cells]
    means = [c["turns_per_round"]["mean"] for c in cells]
    errs = [
        [m - (c["turns_per_round"]["low"] or m) for m, c in zip(means, cells, strict=True)],
        [(c["turns_per_round"]["high"] or m) - m for m, c in zip(means, cells, strict=True)],
    ]
    colours = ["#d9822b" if "1999" in name else "#4a7bb7" for name in labels]
    ax.barh(range(len(labels)), means, xerr=errs, color=colours, capsize=3)
    ax.set_yticks(range(len(labels)), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("turns per round (95 % CI); orange: the 1999 pattern")


def _row(values: list[str]) -> str:
    return "| " + " | ".join(values) + " |"


_COLUMNS = ["turns / round", "minutes / round", "hits / round", "cards / hit"]
_COLUMNS += ["won from behind", "launcher ran empty"]


def _table(
    cells: list[dict[str, Any]], first: str, name_of: Callable[[dict[str, Any]], str]
) -> list[str]:
    lines = [_row([first, *_COLUMNS]), _row(["---"] * (len(_COLUMNS) + 1))]
    for c in cells:
        values = [
            name_of(c),
            est(c["turns_per_round"]),
            est(c["minutes_per_round"]),
            est(c["hits_per_round"]),
            est(c["cards_per_hit"], 2),
            est(c["won_from_behind"], percent=True),
            est(c["launcher_ran_empty"], percent=True),
        ]
        lines.append(_row(values))
    return lines


_PLAYER_COLUMNS = ["players", "turns / round", "minutes / round", "rounds / game"]
_PLAYER_COLUMNS += ["minutes / game", "seat 0 wins", "launcher ran empty"]


def _players_table(cells: list[dict[str, Any]]) -> list[str]:
    lines = [_row(_PLAYER_COLUMNS), _row(["---"] * len(_PLAYER_COLUMNS))]
    for c in cells:
        values = [
            str(c["cell"]["players"]),
            est(c["turns_per_round"]),
            est(c["minutes_per_round"]),
            est(c["rounds_per_game"], 2),
            est(c["minutes_per_game"]),
            est(c["seat_win_rate"][0], percent=True),
            est(c["launcher_ran_empty"], percent=True),
        ]
        lines.append(_row(values))
    return lines


def _span(cells: list[dict[str, Any]], key: str = "turns_per_round") -> tuple[float, float]:
    values = [c[key]["mean"] for c in cells]
    return min(values), max(values)


def _pattern_sentence(presets: dict[str, dict[str, Any]]) -> list[str]:
    """The 1999 pattern against the i.i.d. preset closest to it in cards per press."""
    from launcher.profiles import load_profile

    pattern = presets.get("original-1999")
    iid = [c for name, c in presets.items() if load_profile(name).kind == "iid"]
    if pattern is None or not iid:
        return []
    per_hit = pattern["cards_per_hit"]["mean"]
    twin = min(iid, key=lambda c: abs(c["cards_per_hit"]["mean"] - per_hit))
    a, b = pattern["turns_per_round"], twin["turns_per_round"]
    overlap = a["low"] is not None and b["low"] is not None and a["low"] <= b["high"]
    overlap = overlap and b["low"] <= a["high"]
    verdict = "overlap" if overlap else "do not overlap"
    return [
        f"The 1999 pattern gives {est(pattern['cards_per_hit'], 2)} cards per press and rounds "
        f"of {est(a)} turns. The i.i.d. preset closest to it in cards per press, "
        f"`{twin['cell']['profile']}` ({est(twin['cards_per_hit'], 2)}), gives {est(b)} turns: "
        f"the two intervals {verdict}.",
        "",
    ]


def render(
    paper: Paper, parts: dict[str, list[dict[str, Any]]], images: str, tuning: list[str]
) -> str:
    """The Markdown page."""
    players = {c["cell"]["players"]: c for c in parts["players"]}
    head = players.get(paper.players, parts["players"][0])
    p0_lo, p0_hi = parts["p0"][0], parts["p0"][-1]
    m_lo, m_hi = parts["mean"][0], parts["mean"][-1]
    presets = {c["cell"]["profile"]: c for c in parts["presets"]}
    lines = [
        "# What the launcher does to UNO Attack",
        "",
        "<!-- generated by the command below; do not edit by hand -->",
        "",
        "Made by uno-attack itself, with one command:",
        "",
        "```sh",
        paper.command,
        "```",
        "",
        f"Every cell: {paper.games} complete games (to the target score) of `{paper.ruleset}`, "
        f"`{paper.bot}` bots in every seat, seed {paper.seed}. Minutes come from a turn-time model "
        "whose numbers are **assumptions**, not measurements: "
        f"`--time-model {paper.model.describe()}` (seconds per turn, per card played, per press, "
        "per card picked up, per deal). " + METHODS,
        "Bots are not people: a round of people is longer and messier. Read the numbers as how the "
        "launcher changes the game, not as a stopwatch.",
        "",
        "## In one paragraph",
        "",
        f"With {paper.players} players on the default profile (`{DEFAULT_PROFILE}`), a round lasts "
        f"{est(head['turns_per_round'])} turns, about {est(head['minutes_per_round'])} minutes, "
        f"and a game {est(head['rounds_per_game'], 2)} rounds. From P(0) = "
        f"{_profile_value(p0_lo):g} to {_profile_value(p0_hi):g} a round goes from "
        f"{p0_lo['turns_per_round']['mean']:.0f} to {p0_hi['turns_per_round']['mean']:.0f} turns. "
        f"Mean cards per press from {_profile_value(m_lo):g} to {_profile_value(m_hi):g} "
        "takes it from "
        f"{m_lo['turns_per_round']['mean']:.0f} to {m_hi['turns_per_round']['mean']:.0f} turns.",
        "",
        "## Game length against P(0)",
        "",
        f"`{DEFAULT_PROFILE}@p0=X`: P(0) set to X, the firing counts kept in proportion.",
        "",
        f"![turns and minutes per round against P(0)]({images}/{FIGURES[0]})",
        "",
        *_table(parts["p0"], "P(0)", lambda c: f"{_profile_value(c):g}"),
        "",
        "## Game length against mean cards per press",
        "",
        f"`{DEFAULT_PROFILE}@mean=X`: P(0) kept, a firing press shoots 1 + Binomial(8, q) cards "
        "with q giving mean X per press.",
        "",
        f"![turns and minutes per round against mean cards per press]({images}/{FIGURES[1]})",
        "",
        *_table(parts["mean"], "mean cards / press", lambda c: f"{_profile_value(c):g}"),
        "",
        "## The 1999 pattern against the i.i.d. presets",
        "",
        "The 1999 launcher fires on a fixed 96-press cycle (34 firing presses of 3 to 8 cards) "
        "that restarts at every reload; the others are i.i.d., escalating or load-dependent "
        "(`uno-attack profile list`).",
        "",
        f"![turns per round for every preset]({images}/{FIGURES[2]})",
        "",
        *_table(parts["presets"], "profile", lambda c: c["cell"]["profile"]),
        "",
    ]
    lines += _pattern_sentence(presets)
    lines += [
        "## 2 to 8 players",
        "",
        f"Default profile (`{DEFAULT_PROFILE}`).",
        "",
        f"![turns and minutes per round against players]({images}/{FIGURES[3]})",
        "",
        *_players_table(parts["players"]),
    ]
    lines += [
        "",
        f"## Tuning a launcher to {paper.target_minutes:g}-minute rounds",
        "",
        f"Which P(0), or which mean cards per press, gives {paper.ruleset} rounds of "
        f"{paper.target_minutes:g} estimated minutes at {paper.players} players? "
        "`experiment tune` answers with common random numbers and bisection "
        "([experiment-cluster.md](experiment-cluster.md), 'Tuning a profile'); its interval "
        "includes the noise of the games, not the doubt about the time model.",
        "",
        *tuning,
        "## Definitions",
        "",
        "- *turns*: the engine's turn count (`round_end` event); *hits*: launcher presses "
        "(draws from the pile count as presses); *cards / hit*: cards that came out per press.",
        "- *won from behind*: at the middle turn of the round the winner held more cards than the "
        "smallest hand at the table.",
        "- *launcher ran empty*: the hopper was empty after some press or turn of the round, "
        "or was reloaded from the discard pile.",
        "- Your own grids, the methods in full, and clusters: "
        "[experiment-cluster.md](experiment-cluster.md).",
        "",
    ]
    return "\n".join(lines)
