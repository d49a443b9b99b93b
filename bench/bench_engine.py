"""Engine throughput, side by side with RLCard's bare UNO engine, in one run.

    python bench/bench_engine.py [--hands 3000] [--games 200] [--rlcard-python PYTHON]

Workload (the peer's own): one hand of classic UNO, 2 players, uniformly random
legal-move agents, one core; one step per turn (a play or a draw). Our engine
runs with its full rules on (Wild Draw Four challenges, draw-then-play, UNO
calls and catches offered to random agents every move, reloads, the event log).
RLCard runs in a throw-away venv, never a project dependency::

    python3 -m venv /tmp/rlcard-venv && /tmp/rlcard-venv/bin/pip install rlcard==1.2.0 numpy

Rates are per CPU-second of the one process (``time.process_time``), so other
load on the machine does not skew the comparison; runs are interleaved, best of N.

Also reported: complete UNO Attack games to 500 per second (4 random bots, the
default simulated launcher). Figures go in docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from game import Decision, Game  # noqa: E402
from game.simulate import SimConfig, play_game  # noqa: E402

RLCARD_SCRIPT = r"""
import json, random, sys, time
import numpy as np
from rlcard.games.uno.game import UnoGame

hands, seed = int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(seed)
steps = 0
start = time.process_time()
for hand in range(hands):
    game = UnoGame(allow_step_back=False, num_players=2)
    game.np_random = np.random.RandomState(seed + hand)
    game.init_game()
    while not game.is_over():
        legal = game.get_legal_actions()
        game.step(legal[rng.randrange(len(legal))])
        steps += 1
elapsed = time.process_time() - start
print(json.dumps({"steps": steps, "seconds": elapsed, "hands": hands}))
"""


def our_hands(hands: int, seed: int, must_play: bool = False) -> dict[str, float]:
    """Play ``hands`` single hands of classic UNO with random agents; one step per play or draw.

    ``must_play``: the agent draws only when it has no play (RLCard's legal moves), instead
    of choosing uniformly among plays and ``draw`` (our rules let you choose not to play).
    """
    rng = random.Random(seed)
    steps = 0
    start = time.process_time()
    for hand in range(hands):
        game = Game.new("classic", 2, seed=seed + hand)
        while not game.is_round_over():
            if game.pending is Decision.TURN:
                steps += 1
            moves = game.legal_moves()
            if must_play and game.pending is Decision.TURN and len(moves) > 1:
                moves.pop()  # draw is always last
            game.play(moves[rng.randrange(len(moves))])
            table = game.table_moves()
            if table:  # random agents may call UNO or catch, as in the simulator
                pick = rng.randrange(len(table) + 1)
                if pick < len(table) and not game.is_round_over():
                    game.play(table[pick])
    return {"steps": steps, "seconds": time.process_time() - start, "hands": hands}


def rlcard_hands(python: str, hands: int, seed: int) -> dict[str, float] | None:
    if not Path(python).exists():
        return None
    done = subprocess.run(
        [python, "-c", RLCARD_SCRIPT, str(hands), str(seed)],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def attack_games(games: int, seed: int) -> dict[str, float]:
    config = SimConfig(ruleset="attack", players=4, games=games, seed=seed, bots=("random",))
    start = time.process_time()
    turns = sum(play_game(config, i).turns for i in range(games))
    return {"games": games, "seconds": time.process_time() - start, "turns": turns}


def rate(result: dict[str, float] | None, key: str) -> float:
    return result[key] / result["seconds"] if result else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=3000)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs for each engine")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rlcard-python", default="/tmp/rlcard-venv/bin/python")
    args = parser.parse_args()
    ours: dict[str, float] | None = None
    theirs: dict[str, float] | None = None
    for _ in range(args.repeat):  # interleaved, best of N: fair when the machine is busy
        mine = our_hands(args.hands, args.seed)
        if ours is None or rate(mine, "steps") > rate(ours, "steps"):
            ours = mine
        run = rlcard_hands(args.rlcard_python, args.hands, args.seed)
        if run and (theirs is None or rate(run, "steps") > rate(theirs, "steps")):
            theirs = run
    assert ours is not None
    forced = max(
        (our_hands(args.hands, args.seed, must_play=True) for _ in range(args.repeat)),
        key=lambda r: rate(r, "steps"),
    )
    attack = attack_games(args.games, args.seed)
    print(
        f"# {platform.python_implementation()} {platform.python_version()} "
        f"on {platform.machine()}, "
        f"{os.cpu_count()} cpus; one core; CPU time (process_time); best of {args.repeat}"
    )
    print(f"classic, 2 players, random agents, {args.hands} hands (one step = a play or a draw)")
    print(f"  uno-attack engine : {rate(ours, 'steps'):>10,.0f} steps/s  ({ours['steps']} steps)")
    if theirs:
        peer = rate(theirs, "steps")
        print(f"  RLCard 1.2.0      : {peer:>10,.0f} steps/s  ({theirs['steps']} steps)")
        print(f"  ratio             : {rate(ours, 'steps') / rate(theirs, 'steps'):>10.2f} x")
    else:
        print(f"  RLCard            : not measured ({args.rlcard_python} missing)")
    print(
        f"  uno-attack, agents that draw only when they cannot play (RLCard's semantics): "
        f"{rate(forced, 'steps'):,.0f} steps/s "
        f"({forced['steps'] / forced['hands']:.0f} steps/hand; "
        f"ours above: {ours['steps'] / ours['hands']:.0f}, RLCard: "
        f"{(theirs['steps'] / theirs['hands']) if theirs else float('nan'):.0f})"
    )
    print(f"UNO Attack, 4 random bots, sim launcher, complete games to 500: {args.games} games")
    print(f"  {rate(attack, 'games'):,.1f} games/s  ({rate(attack, 'turns'):,.0f} turns/s)")


if __name__ == "__main__":
    main()
