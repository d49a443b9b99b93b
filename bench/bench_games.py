"""Complete UNO Attack games per CPU-second: 4 random bots, to 500 points, one core.

    python bench/bench_games.py [--games 200] [--seed 1] [--ruleset attack] [--players 4]
                                [--compare TREE --reps 7]

The default simulated launcher (``sim://``, profile ``web-game``), the same loop as
``uno-attack simulate`` (``game.play.simulate.play_game``). CPU time (``time.process_time``)
of this process, so other load on the machine disturbs it less. Figures go in
docs/performance.md.

``--compare TREE`` (another source tree, e.g. ``git archive main | tar -x -C /tmp/main``)
runs the same games with this tree (A) and with TREE (B), each block in its own
``python -S`` process (``-S``: no editable-install hook, so each process imports its own
tree), in A B B A order over ``--reps`` repetitions, and prints the median and the
min..max of the per-repetition ratio A/B of games per CPU-second: paired blocks run
moments apart, so the ratio survives a busy machine better than either rate.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from game.play.simulate import SimConfig, play_game  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ruleset", default="attack")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--compare", type=Path, metavar="TREE")
    parser.add_argument("--reps", type=int, default=7)
    args = parser.parse_args()
    if args.compare is not None:
        compare(args)
        return
    config = SimConfig(
        ruleset=args.ruleset,
        players=args.players,
        games=args.games,
        seed=args.seed,
        bots=("random",),
    )
    start = time.process_time()
    turns = sum(play_game(config, i).turns for i in range(args.games))
    seconds = time.process_time() - start
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"# {platform.python_implementation()} {platform.python_version()}; load {load}")
    print(
        f"{args.ruleset}, {args.players} random bots, {args.games} games: "
        f"{args.games / seconds:.1f} games/s, {turns / seconds:,.0f} turns/s "
        f"({turns / args.games:.0f} turns/game), CPU time"
    )


def block(tree: Path, args: argparse.Namespace) -> float:
    """Games per CPU-second of one block run by ``tree``'s copy of this script."""
    command = [sys.executable, "-S", str(tree / "bench" / "bench_games.py")]
    command += ["--games", str(args.games), "--seed", str(args.seed)]
    command += ["--ruleset", args.ruleset, "--players", str(args.players)]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return float(out.splitlines()[-1].split(": ", 1)[1].split(" games/s")[0])


def compare(args: argparse.Namespace) -> None:
    here, there = Path(__file__).resolve().parent.parent, args.compare.resolve()
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"# A = {here}, B = {there}; {args.reps} x A B B A; load {load}")
    ratios, rates_a, rates_b = [], [], []
    for _ in range(args.reps):
        a1, b1, b2, a2 = (
            block(here, args),
            block(there, args),
            block(there, args),
            block(here, args),
        )
        rates_a += [a1, a2]
        rates_b += [b1, b2]
        ratios.append((a1 + a2) / (b1 + b2))
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"{args.ruleset}, {args.players} random bots, {args.games} games a block: "
        f"A {statistics.median(rates_a):.1f} games/s, B {statistics.median(rates_b):.1f} games/s "
        f"(medians); A/B median {statistics.median(ratios):.2f}x "
        f"[{min(ratios):.2f}..{max(ratios):.2f}]; load at the end {load}"
    )


if __name__ == "__main__":
    main()
