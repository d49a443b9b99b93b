"""How ``uno-attack simulate --workers N`` scales: wall time and CPU time per worker count.

    python bench/bench_workers.py [--games 200] [--workers 1 2] [--reps 3] [--ruleset attack]
                                  [--tree PATH ...] [--log]

Runs ``uno-attack simulate --games G --workers N --json`` as a child process (start-up,
worker start and the summary included, as a user runs it) for each worker count in turn,
``--reps`` rounds interleaved (1 2 2 1 ...), and prints per count the median wall time,
the speed-up over the first count, the parallel efficiency (speed-up / N) and the CPU time
of the whole process tree (the child and its workers, user + system). On idle cores the
wall speed-up is what a user gets; on a machine other jobs load, read the CPU time: the
extra CPU of N workers over one is the overhead of parallelism (worker start, pickling),
and ``games x CPU(1) / CPU(N)`` bounds the speed-up N idle cores could give. The load
average is printed at the start and at the end. Figures go in docs/performance.md.

``--tree PATH`` (repeatable) times the package in each source tree instead of the
installed script, as ``python -S -c "...main([...])"`` with the tree first on
``sys.path`` (``-S``: without ``site``, whose editable-install hook would pick this
checkout), interleaved with the others, so two versions compare side by side in one
run. ``--log`` adds ``--log FILE`` (every event as JSON Lines, written to a temporary
folder), the case where results are big.

``--pool-start`` instead times only starting N workers and handing each a trivial job of
:mod:`game.play.simulate` (so that a spawned worker imports the engine, as in a real run), with the
``spawn`` and the ``fork`` start methods in turn (``game.play.simulate.start_method`` picks
``fork`` when no other thread runs), after importing what ``simulate`` has imported.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run_once(command: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (the child and every descendant it waited for) of ``command``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def launcher_of(script: str, tree: Path | None) -> list[str]:
    """The command prefix that runs ``uno-attack``: the script, or ``main`` of a source tree."""
    if tree is None:
        return [script]
    code = (
        f"import sys; sys.path.insert(0, {str(tree)!r}); from game.cli import main; "
        "sys.exit(main(sys.argv[1:]))"
    )
    return [sys.executable, "-S", "-c", code]


def pool_start(workers: int, reps: int) -> None:
    """CPU and wall time of starting ``workers`` processes per start method, A B B A."""
    import multiprocessing
    from functools import partial

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from game.play.simulate import game_seed

    # a job from game.play.simulate, as a simulate run hands out: a spawned worker imports it
    job = partial(game_seed, 1)

    def cpu() -> float:
        me = resource.getrusage(resource.RUSAGE_SELF)
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime

    methods = ("spawn", "fork")
    times: dict[str, list[tuple[float, float]]] = {m: [] for m in methods}
    for rep in range(reps):
        for method in methods if rep % 2 == 0 else tuple(reversed(methods)):
            before, start = cpu(), time.perf_counter()
            with multiprocessing.get_context(method).Pool(workers) as pool:
                list(pool.imap(job, range(workers)))
            times[method].append((time.perf_counter() - start, cpu() - before))
    for method, runs in times.items():
        wall = statistics.median(w for w, _ in runs) * 1000
        cpu_ms = statistics.median(c for _, c in runs) * 1000
        print(f"start {workers} workers by {method:5}: wall {wall:7.1f} ms  CPU {cpu_ms:6.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--ruleset", default="attack")
    parser.add_argument("--seed", type=int, default=1)
    default = Path(sys.executable).with_name("uno-attack")
    parser.add_argument(
        "--script",
        default=str(default) if default.exists() else shutil.which("uno-attack") or "uno-attack",
        help="the console script (default: next to this Python, else on PATH)",
    )
    parser.add_argument("--tree", type=Path, action="append", default=[], metavar="PATH")
    parser.add_argument("--log", action="store_true", help="also write the event log")
    parser.add_argument("--pool-start", action="store_true", help="time worker start only")
    args = parser.parse_args()
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    if args.pool_start:
        print(f"# {os.cpu_count()} CPUs; load average {load}; median of {args.reps}")
        pool_start(max(args.workers), args.reps)
        return
    print(f"# {os.cpu_count()} CPUs; load average {load}; {args.games} games of {args.ruleset}")
    sides = {str(t): launcher_of(args.script, t.resolve()) for t in args.tree} or {
        "installed": launcher_of(args.script, None)
    }
    times: dict[tuple[str, int], list[tuple[float, float]]] = {
        (side, n): [] for side in sides for n in args.workers
    }
    keys = list(times)
    with tempfile.TemporaryDirectory() as folder:
        for rep in range(args.reps):
            for side, n in keys if rep % 2 == 0 else reversed(keys):
                command = [*sides[side], "simulate", "--ruleset", args.ruleset]
                command += ["--games", str(args.games), "--seed", str(args.seed)]
                command += ["--workers", str(n), "--json"]
                if args.log:
                    command += ["--log", str(Path(folder) / "log.jsonl"), "--force"]
                times[side, n].append(run_once(command))
    for side in sides:
        print(f"## {side}")
        report(times, side, args.workers, args.games)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"# load average at the end {load}")


def report(
    times: dict[tuple[str, int], list[tuple[float, float]]],
    side: str,
    workers: list[int],
    games: int,
) -> None:
    base_wall = statistics.median(w for w, _ in times[side, workers[0]])
    base_cpu = statistics.median(c for _, c in times[side, workers[0]])
    for n in workers:
        runs = times[side, n]
        wall = statistics.median(w for w, _ in runs)
        cpu = statistics.median(c for _, c in runs)
        speedup = base_wall / wall
        print(
            f"workers {n:2}: wall {wall:6.2f} s [{min(w for w, _ in runs):.2f}.."
            f"{max(w for w, _ in runs):.2f}]  {games / wall:6.1f} games/s  "
            f"speed-up {speedup:4.2f}x  efficiency {speedup / n * workers[0]:4.0%}  |  "
            f"CPU {cpu:6.2f} s [{min(c for _, c in runs):.2f}..{max(c for _, c in runs):.2f}] "
            f"({cpu / base_cpu:4.2f}x of {workers[0]} worker(s))"
        )


if __name__ == "__main__":
    main()
