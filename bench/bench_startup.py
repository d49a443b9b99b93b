"""Start-up time of the ``uno-attack`` console script, hyperfine-style.

    python bench/bench_startup.py [--runs 30] [--warmup 3] [--script PATH] [--compare TREE]

Runs each command ``--runs`` times (after ``--warmup`` untimed runs) and prints the
median, min..max and the mean of the wall-clock time of the whole process
(interpreter start-up included), as hyperfine would, and the CPU time (user +
system) of the child, which other load on the machine disturbs less. Commands timed:
``uno-attack --help``, ``uno-attack simulate --help``, ``uno-attack rules``, and
``python -c 'import game.cli'`` and ``python -c pass`` as the floor.

``--compare TREE`` (a source tree of another version, e.g. ``git archive main | tar -x
-C /tmp/main-tree``) also times the same help screens of this tree and of TREE side by
side, interleaved A B B A, each as ``python -S -c "...main([...])"`` with the tree
first on ``sys.path``: ``-S`` leaves out ``site`` (and an editable install's import
hook, which would pick this checkout whatever the path says), so the two differ only
by what the code imports. Wall time: on a busy machine read the median and minimum,
and rerun when idle. Figures go in docs/performance.md; nothing is asserted
(tests/test_cli_lazy.py checks what a help screen may import).
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

HERE = Path(__file__).resolve().parent.parent
HELP_SCREENS = {"--help": ["--help"], "simulate --help": ["simulate", "--help"]}


def timed_once(command: list[str]) -> tuple[float, float]:
    """Wall-clock and CPU (user + system) seconds of one run of ``command``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def timed(command: list[str], runs: int, warmup: int) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU seconds of ``runs`` runs of ``command``."""
    for _ in range(warmup):
        timed_once(command)
    wall, cpu = [], []
    for _ in range(runs):
        w, c = timed_once(command)
        wall.append(w)
        cpu.append(c)
    return wall, cpu


def report(name: str, wall: list[float], cpu: list[float]) -> None:
    ms, cpu_ms = [t * 1000 for t in wall], [t * 1000 for t in cpu]
    print(
        f"{name:34} wall median {statistics.median(ms):6.1f} ms  "
        f"min..max {min(ms):6.1f}..{max(ms):6.1f}  mean {statistics.fmean(ms):6.1f}  |  "
        f"CPU median {statistics.median(cpu_ms):6.1f} ms  min {min(cpu_ms):6.1f}"
    )


def source_command(tree: Path, argv: list[str]) -> list[str]:
    """``main(argv)`` of the package in ``tree``, without ``site`` (see the module docstring)."""
    code = (
        f"import sys; sys.path.insert(0, {str(tree)!r}); from game.cli import main; "
        f"sys.exit(main({argv!r}))"
    )
    return [sys.executable, "-S", "-c", code]


def compare(tree: Path, runs: int, warmup: int) -> None:
    """This tree against ``tree``, each help screen in A B B A blocks."""
    print(f"# side by side, python -S: A = {HERE}, B = {tree}")
    for label, argv in HELP_SCREENS.items():
        sides = {"A": source_command(HERE, argv), "B": source_command(tree, argv)}
        for command in sides.values():
            for _ in range(warmup):
                timed_once(command)
        times: dict[str, tuple[list[float], list[float]]] = {s: ([], []) for s in sides}
        for i in range(runs):
            order = ("A", "B") if i % 2 == 0 else ("B", "A")
            for side in order:
                w, c = timed_once(sides[side])
                times[side][0].append(w)
                times[side][1].append(c)
        for side in sides:
            report(f"{side}: uno-attack {label}", *times[side])
    floor = [sys.executable, "-S", "-c", "pass"]
    report("python -S -c pass (floor)", *timed(floor, runs, warmup))


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
    parser.add_argument(
        "--compare", type=Path, metavar="TREE", help="another source tree to time side by side"
    )
    args = parser.parse_args()
    commands = {
        "uno-attack --help": [args.script, "--help"],
        "uno-attack simulate --help": [args.script, "simulate", "--help"],
        "uno-attack rules": [args.script, "rules"],
        "python -c 'import game.cli'": [sys.executable, "-c", "import game.cli"],
        "python -c pass (floor)": [sys.executable, "-c", "pass"],
    }
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"# {args.runs} runs each after {args.warmup} warm-up; wall clock; load average {load}")
    for name, command in commands.items():
        report(name, *timed(command, args.runs, args.warmup))
    if args.compare is not None:
        compare(args.compare.resolve(), args.runs, args.warmup)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"# load average at the end {load}")


if __name__ == "__main__":
    main()
