"""Issue 27's whole-game figure: UNO Attack games to 500 per CPU-second, ``uno-attack simulate``.

    python bench/bench_whole_games.py [--games 100] [--players 4] [--runs 3]
                                      [--compare TREE] [--instructions]

Runs ``uno-attack simulate --games 100 --players 4`` (the default rule bots, the default
simulated launcher, start-up and imports included) ``--runs`` times and reports the best
and the median of games per CPU-second of the child (user + system, from
``getrusage(RUSAGE_CHILDREN)``), as the issue measures it: best of 3 runs. Each run is
``python -S -c "...main([...])"`` with this tree first on ``sys.path`` (``-S``: no
editable-install hook, so a process imports the tree it is given, not the installed one).

Bytecode: an installed package has its modules compiled once (pip writes the ``.pyc``
files); a process run with ``PYTHONDONTWRITEBYTECODE=1`` and no cache compiles every module
of the game again at every start, about 0.15 s of CPU on this machine. So each child runs
with that variable unset and ``PYTHONPYCACHEPREFIX`` pointing at a cache of this run (the
trees stay clean), after one untimed run that fills it; ``--no-bytecode-cache`` keeps the
environment as it is instead.

``--compare TREE`` (another source tree, e.g. ``git archive main | tar -x -C /tmp/main``)
runs TREE's code too, in A B B A order, and prints the median of the paired ratios A/B.
``--instructions`` also counts the instructions of one run of each tree under
``valgrind --tool=callgrind`` (the same count whatever else loads the machine; slow:
about a minute per run of 10 games). Figures go in docs/performance.md, "Whole games".
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def command(tree: Path, games: int, players: int) -> list[str]:
    """``uno-attack simulate`` run from ``tree``'s sources."""
    argv = ["simulate", "--games", str(games), "--players", str(players)]
    code = (
        f"import sys; sys.path.insert(0, {str(tree)!r}); from game.cli import main; "
        f"sys.exit(main({argv!r}))"
    )
    return [sys.executable, "-S", "-c", code]


def child_environment(cache: str | None) -> dict[str, str]:
    """The children's environment: with bytecode cached in ``cache`` (None: as it is)."""
    env = dict(os.environ)
    if cache is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = cache
    return env


def cpu_seconds(argv: list[str], env: dict[str, str]) -> float:
    """User + system CPU seconds of one run of ``argv``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, stdout=subprocess.DEVNULL, check=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def instructions(argv: list[str], env: dict[str, str]) -> int:
    """Instructions executed by one run of ``argv`` (callgrind's ``Collected``)."""
    run = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv],
        capture_output=True,
        text=True,
        check=True,
        env={**env, "PYTHONHASHSEED": "0"},
    )
    found = re.search(r"Collected : (\d+)", run.stderr)
    if found is None:
        raise RuntimeError(f"no instruction count in valgrind's output: {run.stderr[-300:]}")
    return int(found.group(1))


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def rate(games: int, seconds: list[float]) -> str:
    best, median = games / min(seconds), games / statistics.median(seconds)
    return f"best {best:.1f} games/CPU-s ({min(seconds):.2f} s), median {median:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--compare", type=Path, metavar="TREE")
    parser.add_argument("--instructions", action="store_true")
    parser.add_argument("--no-bytecode-cache", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-pyc-") as cache:
        measure(args, child_environment(None if args.no_bytecode_cache else cache))


def measure(args: argparse.Namespace, env: dict[str, str]) -> None:
    trees = [HERE] if args.compare is None else [HERE, args.compare.resolve()]
    cached = "PYTHONPYCACHEPREFIX" in env and "PYTHONDONTWRITEBYTECODE" not in env
    print(
        f"# {' vs '.join(map(str, trees))}; python {sys.version.split()[0]}; "
        f"bytecode {'cached' if cached else 'as the environment has it'}; load {load()}"
    )
    for tree in trees:  # untimed: fills the bytecode cache
        subprocess.run(command(tree, 1, args.players), stdout=subprocess.DEVNULL, env=env)
    times: dict[Path, list[float]] = {tree: [] for tree in trees}
    ratios = []
    for _ in range(args.runs):
        order = trees if len(trees) == 1 else [trees[0], trees[1], trees[1], trees[0]]
        block = {tree: 0.0 for tree in trees}
        for tree in order:
            seconds = cpu_seconds(command(tree, args.games, args.players), env)
            times[tree].append(seconds)
            block[tree] += seconds
        if len(trees) == 2:
            ratios.append(block[trees[1]] / block[trees[0]])
    what = f"simulate --games {args.games} --players {args.players}, start-up included"
    for tree in trees:
        print(f"{tree}: {what}: {rate(args.games, times[tree])}")
    if ratios:
        print(
            f"A/B games per CPU-second, median of {len(ratios)} paired blocks: "
            f"{statistics.median(ratios):.2f}x [{min(ratios):.2f}..{max(ratios):.2f}]"
        )
    if args.instructions:
        for tree in trees:
            ten, one = (instructions(command(tree, n, args.players), env) for n in (10, 1))
            print(
                f"{tree}: {one / 1e6:,.0f} M instructions for start-up and 1 game, "
                f"{(ten - one) / 9e6:,.1f} M a game after it (callgrind, 10 games - 1 game)"
            )
    print(f"# load at the end {load()}")


if __name__ == "__main__":
    main()
