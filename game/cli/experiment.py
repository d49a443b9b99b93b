"""``uno-attack experiment``: grids of simulated games, their report, tuning, the paper.

``run`` plays a grid (a TOML file, axes on the command line, or both: the command line
wins) into a resumable JSON Lines file and prints the summary; ``report`` summarises
and plots a results file; ``tune`` finds the P(0) or mean cards per press that gives
a target length; ``paper`` regenerates docs/experiments.md. docs/experiments.md has
the recipes; docs/experiment-cluster.md the Dask set-up.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from game.cli.common import add_force_argument
from game.experiment.executors import dask_address, run_tasks
from game.experiment.grid import (
    DEFAULT_BOT,
    DEFAULT_CHUNK,
    DEFAULT_GAMES,
    Grid,
    GridError,
    Task,
    bots_axis,
    grid_from_toml,
    split_list,
)
from game.experiment.stats import TimeModel, aggregate, format_report
from game.experiment.store import ResultsFile, read_records

MAX_WORKERS = 64
MAX_GAMES = 1_000_000
EXAMPLE = (
    "uno-attack experiment run --ruleset attack,classic --players 2,4 "
    "--profile default,original-1999 --games 200 --out results.jsonl"
)


def register(subparsers: Any) -> None:
    """Add ``experiment run|report|tune|paper``."""
    parser = subparsers.add_parser(
        "experiment",
        help="run grids of simulated games: lengths, hits, win rates, with CIs; tune a profile",
        description=f"Launcher science on simulated games. Example: {EXAMPLE}",
    )
    actions = parser.add_subparsers(dest="experiment_command", metavar="ACTION", required=True)
    _register_run(actions)
    _register_report(actions)
    _register_tune(actions)
    _register_paper(actions)


def _add_execution(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--workers", type=int, default=1, help="local processes (default 1: this process)"
    )
    parser.add_argument(
        "--executor",
        default="local",
        metavar="local|dask://HOST:PORT",
        help="where tasks run: local processes (default) or a Dask scheduler",
    )
    parser.add_argument("--seed", type=int, default=1, help="master seed (default 1)")


def _add_time_model(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--time-model",
        default="",
        metavar="NAME=S,...",
        help=f"assumed seconds: turn, play, press, card, deal (default {TimeModel().describe()})",
    )


def _add_output(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--plots", metavar="DIR", help="write PNG figures into DIR")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument(
        "--force", action="store_true", help="replace figures in --plots DIR that already exist"
    )


def _register_run(actions: Any) -> None:
    run = actions.add_parser(
        "run",
        help="play a grid into a resumable results file and summarise it",
        description="Play every cell of a grid; rerunning skips the tasks already in --out. "
        f"Example: {EXAMPLE}",
    )
    run.add_argument("grid", nargs="?", metavar="GRID.toml", help="grid file (optional)")
    run.add_argument(
        "--out", required=True, metavar="FILE.jsonl", help="results file (resumed if it exists)"
    )
    run.add_argument(
        "--restart", action="store_true", help="discard the results already in --out, start over"
    )
    run.add_argument("--ruleset", metavar="A,B", help="rulesets (default attack)")
    run.add_argument("--players", metavar="N,M", help="player counts (default 4)")
    run.add_argument(
        "--profile",
        metavar="P,Q",
        help="launcher profiles: default, preset names, specs, BASE@p0=X, BASE@mean=X",
    )
    run.add_argument(
        "--bots",
        metavar="L,M",
        help=f"bot line-ups; + cycles bots over seats, e.g. {DEFAULT_BOT},random+{DEFAULT_BOT} "
        f"(default {DEFAULT_BOT})",
    )
    run.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="rule option (all cells)"
    )
    run.add_argument("--games", type=int, help=f"games per cell (default {DEFAULT_GAMES})")
    run.add_argument(
        "--chunk", type=int, default=DEFAULT_CHUNK, help=f"games per task (default {DEFAULT_CHUNK})"
    )
    _add_execution(run)
    _add_time_model(run)
    _add_output(run)
    run.set_defaults(func=run_grid)


def _register_report(actions: Any) -> None:
    report = actions.add_parser("report", help="summarise (and plot) a results file")
    report.add_argument("results", metavar="RESULTS.jsonl")
    _add_time_model(report)
    _add_output(report)
    report.set_defaults(func=run_report)


def _register_tune(actions: Any) -> None:
    tune = actions.add_parser(
        "tune",
        help="find the P(0) or mean cards per press that gives a target length",
        description="Bisection with common random numbers over an i.i.d. profile's setting. "
        "Example: uno-attack experiment tune --target-minutes 20 --ruleset attack --players 4",
    )
    tune.add_argument("--target-minutes", type=float, required=True, help="the target length")
    tune.add_argument("--per", choices=("round", "game"), default="round", help="(default round)")
    tune.add_argument("--ruleset", default="attack", help="(default attack)")
    tune.add_argument("--players", type=int, default=4, help="(default 4)")
    tune.add_argument("--bots", default=DEFAULT_BOT, help=f"one line-up (default {DEFAULT_BOT})")
    tune.add_argument("--knob", choices=("p0", "mean"), default="p0", help="(default p0)")
    tune.add_argument("--base", default="web-game", help="i.i.d. base profile (default web-game)")
    tune.add_argument("--range", metavar="LO,HI", help="search range (p0 0.05,0.9; mean 0.6,4.5)")
    tune.add_argument("--games", type=int, default=200, help="games per evaluation (default 200)")
    tune.add_argument("--steps", type=int, default=6, help="bisection steps (default 6)")
    tune.add_argument("--json", action="store_true", help="print the result as JSON")
    _add_execution(tune)
    _add_time_model(tune)
    tune.set_defaults(func=run_tune)


def _register_paper(actions: Any) -> None:
    paper = actions.add_parser(
        "paper",
        help="regenerate docs/experiments.md: what the launcher does to UNO Attack",
        description="Example: uno-attack experiment paper --out docs/experiments.md",
    )
    paper.add_argument("--out", required=True, metavar="FILE.md")
    paper.add_argument("--images", metavar="DIR", help="figures folder (default OUT's images/)")
    paper.add_argument("--games", type=int, default=300, help="games per cell (default 300)")
    paper.add_argument("--bot", default=DEFAULT_BOT, help=f"bot in every seat ({DEFAULT_BOT})")
    paper.add_argument(
        "--target-minutes", type=float, default=10.0, help="round length to tune for (default 10)"
    )
    _add_execution(paper)
    _add_time_model(paper)
    add_force_argument(paper)
    paper.set_defaults(func=run_paper)


# -- run ----------------------------------------------------------------------------------------
def _grid(args: argparse.Namespace) -> Grid:
    grid = grid_from_toml(args.grid) if args.grid else Grid()
    if args.ruleset:
        grid.rulesets = split_list(args.ruleset)
    if args.players:
        grid.players = [_whole(p, "--players") for p in split_list(args.players)]
    if args.profile:
        grid.profiles = split_list(args.profile)
    if args.bots:
        grid.bots = bots_axis(split_list(args.bots))
    if args.option:
        grid.options = [{**o, **_options(args.option)} for o in grid.options]
    if args.games is not None:
        grid.games = args.games
    if not 1 <= grid.games <= MAX_GAMES:
        raise GridError(f"--games must be between 1 and {MAX_GAMES:,}, not {grid.games}")
    grid.validate()
    return grid


def _whole(text: str, flag: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise GridError(f"{flag} {text!r}: expected whole numbers separated by commas") from None


def _options(pairs: list[str]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise GridError(f"--option {pair!r}: expected KEY=VALUE, e.g. --option jump_in=true")
        out[key.strip()] = value.strip()
    return out


def _check_execution(args: argparse.Namespace) -> None:
    if not 1 <= args.workers <= MAX_WORKERS:
        raise GridError(f"--workers must be between 1 and {MAX_WORKERS}, not {args.workers}")
    dask_address(args.executor)


def _time_model(args: argparse.Namespace, grid_file: str | None = None) -> TimeModel:
    text = args.time_model
    if not text and grid_file:
        text = _grid_time_model(grid_file)
    return TimeModel.parse(text) if text else TimeModel()


def _grid_time_model(path: str) -> str:
    import tomllib

    from hardware.files import read_user_text

    data = tomllib.loads(read_user_text(path, what="grid file", error=GridError))
    model = data.get("time_model", {})
    return ",".join(f"{k}={v}" for k, v in dict(model).items())


def run_grid(args: argparse.Namespace) -> int:
    """``experiment run``: play the tasks not yet in --out, then summarise the grid."""
    _check_execution(args)
    if args.chunk < 1:
        raise GridError(f"--chunk must be at least 1, not {args.chunk}")
    grid = _grid(args)
    model = _time_model(args, args.grid)
    figures = _check_plots(args)
    tasks = grid.tasks(args.seed, args.chunk)
    keys = {t.key for t in tasks}
    results_file = ResultsFile(args.out, seed=args.seed, chunk=args.chunk, restart=args.restart)
    with results_file as results:
        todo = [t for t in tasks if t.key not in results.done]
        print(
            f"{len(grid.cells())} cells, {len(tasks)} tasks, {len(tasks) - len(todo)} already in "
            f"{args.out}",
            file=sys.stderr,
        )
        progress = _Progress(len(todo))
        try:
            for record in run_tasks(todo, args.executor, args.workers):
                results.append(record)
                progress.step()
        except KeyboardInterrupt:
            print(
                f"\n{len(results.done & keys)} of {len(tasks)} tasks are in {args.out}; "
                "run the same command again to resume",
                file=sys.stderr,
            )
            raise
    _, records = read_records(args.out)
    return _summarise([r for r in records if r["key"] in keys], model, args, figures)


class _Progress:
    def __init__(self, total: int) -> None:
        self.total, self.done = total, 0
        self.enabled = sys.stderr.isatty() and total > 0

    def step(self) -> None:
        self.done += 1
        if self.enabled:
            end = "\n" if self.done == self.total else ""
            print(f"\rexperiment: {self.done}/{self.total} tasks", end=end, file=sys.stderr)


def _check_plots(args: argparse.Namespace) -> list[Path]:
    if not args.plots:
        return []
    from game.experiment.plots import REPORT_FIGURES, check_plot_dir

    return check_plot_dir(args.plots, REPORT_FIGURES, force=args.force)


def _summarise(
    records: list[dict[str, Any]], model: TimeModel, args: argparse.Namespace, figures: list[Path]
) -> int:
    summary = aggregate(records, model)
    print(json.dumps(summary, sort_keys=True) if args.json else format_report(summary))
    if figures:
        from game.experiment.plots import report_figures

        report_figures(summary, figures)
        print(f"figures: {', '.join(str(p) for p in figures)}", file=sys.stderr)
    return 0


# -- report -------------------------------------------------------------------------------------
def run_report(args: argparse.Namespace) -> int:
    """``experiment report``: summarise (and plot) a results file."""
    model = _time_model(args)
    figures = _check_plots(args)
    header, records = read_records(args.results)
    if header is None:
        raise GridError(
            f"{args.results} is not an experiment results file (no run header); nothing to report",
            hint="give the --out file of `uno-attack experiment run`",
        )
    return _summarise(records, model, args, figures)


# -- tune ---------------------------------------------------------------------------------------
def run_tune(args: argparse.Namespace) -> int:
    """``experiment tune``: the knob's value for the target length."""
    from game.experiment.tune import DEFAULT_RANGES, Tuner

    _check_execution(args)
    if args.target_minutes <= 0 or args.games < 2 or args.steps < 0:
        raise GridError("--target-minutes must be > 0, --games at least 2, --steps at least 0")
    lo, hi = DEFAULT_RANGES[args.knob]
    if args.range:
        lo, hi = _range(args.range)
    tuner = Tuner(
        ruleset=args.ruleset,
        players=args.players,
        bots=tuple(b for b in args.bots.split("+") if b),
        knob=args.knob,
        base=args.base,
        target=args.target_minutes,
        per=args.per,
        games=args.games,
        seed=args.seed,
        model=_time_model(args),
    )
    Grid([args.ruleset], [args.players], [tuner.cell(lo).profile], [tuner.bots]).validate()
    result = tuner.search(
        lambda tasks: run_tasks(tasks, args.executor, args.workers), lo, hi, args.steps
    )
    if args.json:
        print(json.dumps(result.__dict__, sort_keys=True))
    else:
        print(result.text())
    return 0


def _range(text: str) -> tuple[float, float]:
    parts = split_list(text)
    try:
        lo, hi = (float(p) for p in parts)
    except ValueError:
        raise GridError(f"--range {text!r}: expected LO,HI, e.g. --range 0.1,0.8") from None
    return lo, hi


# -- paper --------------------------------------------------------------------------------------
def run_paper(args: argparse.Namespace) -> int:
    """``experiment paper``: regenerate the report page and its figures."""
    from game.experiment.paper import FIGURES, Paper, tune_all, write_paper
    from game.experiment.plots import check_plot_dir
    from hardware.files import check_output

    _check_execution(args)
    out = check_output(args.out, what="--out", force=args.force, suffixes=["md"])
    images = Path(args.images) if args.images else out.parent / "images"
    if not args.images and out.parent.is_dir():
        images.mkdir(exist_ok=True)  # the default figures folder beside the page
    check_plot_dir(str(images), FIGURES, force=args.force, what="--images")
    command = f"uno-attack experiment paper --out {args.out}"
    if args.images:
        command += f" --images {args.images}"
    if args.games != 300:
        command += f" --games {args.games}"
    if args.seed != 1:
        command += f" --seed {args.seed}"
    if args.bot != DEFAULT_BOT:
        command += f" --bot {args.bot}"
    if args.time_model:
        command += f" --time-model {args.time_model}"
    if args.target_minutes != 10.0:
        command += f" --target-minutes {args.target_minutes:g}"
    if not args.target_minutes > 0:
        raise GridError(f"--target-minutes must be above 0, not {args.target_minutes}")
    paper = Paper(
        games=args.games,
        seed=args.seed,
        bot=args.bot,
        model=_time_model(args),
        target_minutes=args.target_minutes,
        command=command,
    )

    def run(tasks: list[Task]) -> Iterator[dict[str, Any]]:
        return run_tasks(tasks, args.executor, args.workers)

    records = list(run(paper.tasks()))
    write_paper(paper, records, out, images, tune_all(paper, run))
    print(f"wrote {out} and {len(FIGURES)} figures in {images}", file=sys.stderr)
    return 0
