"""Complete UNO Attack games per CPU-second: 4 random bots, to 500 points, one core.

    python bench/bench_games.py [--games 200] [--seed 1] [--ruleset attack] [--players 4]

The default simulated launcher (``sim://``, profile ``web-game``), the same loop as
``uno-attack simulate`` (``game.simulate.play_game``). CPU time (``time.process_time``)
of this process, so other load on the machine disturbs it less. Figures go in
docs/performance.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from game.simulate import SimConfig, play_game  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ruleset", default="attack")
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
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


if __name__ == "__main__":
    main()
