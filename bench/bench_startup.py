"""Start-up time of the ``uno-attack`` console script, hyperfine-style.

    python bench/bench_startup.py [--runs 30] [--warmup 3] [--script PATH]

Runs each command ``--runs`` times (after ``--warmup`` untimed runs) and prints the
median, min..max and the mean of the wall-clock time of the whole process
(interpreter start-up included), as hyperfine would, and the CPU time (user +
system) of the child, which other load on the machine disturbs less. Commands timed:
``uno-attack --help``, ``uno-attack rules``, and ``python -c 'import game.cli'``
and ``python -c pass`` as the floor. Wall time: on a busy machine read the median
and minimum, and rerun when idle. Figures go in docs/performance.md; nothing is
asserted (tests/test_cli_lazy.py checks that --help imports no command module).
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


def timed(command: list[str], runs: int, warmup: int) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU (user + system) seconds of ``runs`` runs of ``command``."""
    for _ in range(warmup):
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall, cpu = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        wall.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=3)
    default = Path(sys.executable).with_name("uno-attack")
    parser.add_argument(
        "--script",
        default=str(default) if default.exists() else shutil.which("uno-attack") or "uno-attack",
        help="the console script (default: next to this Python, else on PATH)",
    )
    args = parser.parse_args()
    commands = {
        "uno-attack --help": [args.script, "--help"],
        "uno-attack rules": [args.script, "rules"],
        "python -c 'import game.cli'": [sys.executable, "-c", "import game.cli"],
        "python -c pass (floor)": [sys.executable, "-c", "pass"],
    }
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"# {args.runs} runs each after {args.warmup} warm-up; wall clock; load average {load}")
    for name, command in commands.items():
        wall, cpu = timed(command, args.runs, args.warmup)
        ms, cpu_ms = [t * 1000 for t in wall], [t * 1000 for t in cpu]
        print(
            f"{name:30} wall median {statistics.median(ms):6.1f} ms  "
            f"min..max {min(ms):6.1f}..{max(ms):6.1f}  mean {statistics.fmean(ms):6.1f}  |  "
            f"CPU median {statistics.median(cpu_ms):6.1f} ms  min {min(cpu_ms):6.1f}"
        )


if __name__ == "__main__":
    main()
