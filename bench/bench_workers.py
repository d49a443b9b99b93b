"""How ``uno-attack simulate --workers N`` scales: wall time and CPU time per worker count.

    python bench/bench_workers.py [--games 200] [--workers 1 2] [--reps 3] [--ruleset attack]

Runs ``uno-attack simulate --games G --workers N --json`` as a child process (start-up,
worker start and the summary included, as a user runs it) for each worker count in turn,
``--reps`` rounds interleaved (1 2 2 1 ...), and prints per count the median wall time,
the speed-up over the first count, the parallel efficiency (speed-up / N) and the CPU time
of the whole process tree (the child and its workers, user + system). On idle cores the
wall speed-up is what a user gets; on a machine other jobs load, read the CPU time: the
extra CPU of N workers over one is the overhead of parallelism (worker start, pickling),
and ``games x CPU(1) / CPU(N)`` bounds the speed-up N idle cores could give. The load
average is printed at the start and at the end. Figures go in docs/performance.md.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
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
    args = parser.parse_args()
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"# {os.cpu_count()} CPUs; load average {load}; {args.games} games of {args.ruleset}")
    times: dict[int, list[tuple[float, float]]] = {n: [] for n in args.workers}
    for rep in range(args.reps):
        order = args.workers if rep % 2 == 0 else list(reversed(args.workers))
        for n in order:
            command = [args.script, "simulate", "--ruleset", args.ruleset]
            command += ["--games", str(args.games), "--seed", str(args.seed)]
            command += ["--workers", str(n), "--json"]
            times[n].append(run_once(command))
    base_wall = statistics.median(w for w, _ in times[args.workers[0]])
    base_cpu = statistics.median(c for _, c in times[args.workers[0]])
    for n in args.workers:
        wall = statistics.median(w for w, _ in times[n])
        cpu = statistics.median(c for _, c in times[n])
        speedup = base_wall / wall
        print(
            f"workers {n:2}: wall {wall:6.2f} s [{min(w for w, _ in times[n]):.2f}.."
            f"{max(w for w, _ in times[n]):.2f}]  {args.games / wall:6.1f} games/s  "
            f"speed-up {speedup:4.2f}x  efficiency {speedup / n * args.workers[0]:4.0%}  |  "
            f"CPU {cpu:6.2f} s ({cpu / base_cpu:4.2f}x of {args.workers[0]} worker(s))"
        )
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"# load average at the end {load}")


if __name__ == "__main__":
    main()
