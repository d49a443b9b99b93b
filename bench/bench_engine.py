"""Engine throughput against RLCard 1.2.0, each engine in its own natural fastest loop.

    python bench/bench_engine.py [--hands 2000] [--reps 7] [--players 2 4]
                                 [--rlcard-python /tmp/rlcard-venv/bin/python]

The peers live in throw-away venvs, never project dependencies::

    python3 -m venv /tmp/rlcard-venv && /tmp/rlcard-venv/bin/pip install rlcard==1.2.0 numpy

The same work on both sides: one fresh hand of classic UNO (set-up, shuffle and
deal included in the timed loop; each side's random stream seeded once a run),
uniformly random agents over each engine's legal moves, ours restricted to
nearly RLCard's legal set (draw only when nothing is playable, a drawn card that can
be played is played, Wild Draw Four accepted, no UNO calls offered). One step = one
turn decision (RLCard's ``step``; our ``Decision.TURN``; a colour choice is part
of the turn, as in RLCard's ``r-wild``). Our engine keeps every classic rule and
the event log on. RLCard's ``step`` also builds the next player's state (its natural
API has no step without it); ours builds no observation. docs/performance.md
("What the bench does not make equal", session 14) gives what each difference weighs.

Timing: CPU time (``time.process_time``) of the loop alone, inside one process
per block (imports and interpreter start-up excluded), each loop inside a function
(module-level names cost both sides a dict lookup each; session 14), after ``--warmup`` untimed
hands (default 100): each engine's first hands in a fresh process cost more than
the rest (RLCard's first 100 about 25 ms more, ours about 4 ms), which made short
blocks favour us (docs/performance.md, session 13). Blocks of the two engines
alternate A B B A within each repetition; the per-repetition ratio is ours/RLCard
steps per CPU-second; the table gives its median and spread (min..max) over the
repetitions, so other load on the machine moves both sides of a ratio alike.
The context row (RLCard's ``env.run`` with ``RandomAgent``) runs
``--context-reps`` blocks; its median rate is shown, no ratio. uno-game 1.1.0 is
reported as not measurable (see ``UNOGAME_NOTE``). Figures go in docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Our engine's natural fastest loop: the ruleset compiled once (RLCard's one
#: ``UnoGame``), a fresh ``Game`` per hand dealt from one seeded stream for the whole run
#: (``Game(rules, players, chance)``), as RLCard deals every hand from its one ``np_random``:
#: ``Game.new(seed=...)`` seeds a Mersenne Twister per hand (about 4 us, 3 % of a hand),
#: work RLCard's loop does not do. Presses are fed as chance moves: a draw
#: pile gives one card per press, which is what ``Presser`` would feed from ``DrawPile``
#: (the ``presser`` driver: a ``Table`` on a ``DrawPile`` launcher). The loop reads
#: ``game.pending`` once a step and tests the commonest decisions first; a ``drawn`` offer
#: is ``[the drawn card, pass]`` and a ``challenge`` offer ``[challenge, accept, ...]``
#: (game.core.legal), so RLCard's choices there are taken by position.
#:
#: Both engines' loops run inside a function, as any program that drives an engine runs
#: its loop: at module level every name is a dict lookup (``LOAD_NAME``), a cost of the
#: script that neither engine has. It charged our loop more than RLCard's, because ours
#: does more of the driving (feeding presses, dispatching decisions): RLCard's hand 2.6 %
#: fewer instructions in a function, ours 18 % fewer with the reading of ``pending`` once a
#: step below (docs/performance.md, session 14).
OURS = r"""
import json, random, sys, time
sys.path.insert(0, ROOT)
from game import Decision, Game, Move, load_ruleset
try:
    from game import Table  # the launcher side, outside the rules core (issue 24)
except ImportError:  # an older tree (bench/ab_engine.sh): Game.new(presses=False) is the pure game
    Table = None


def loop(players, hands, seed, driver, warmup):
    # ``hands`` timed hands after ``warmup`` untimed ones: (turn steps, CPU seconds)
    rules = load_ruleset("classic")
    pick = random.Random(seed).randrange
    chance = random.Random(seed + 1)  # the games' one stream, as RLCard's one np_random
    TURN, PRESS, DRAWN = Decision.TURN, Decision.PRESS, Decision.DRAWN
    CHALLENGE, OVER = Decision.CHALLENGE, (Decision.ROUND_OVER, Decision.GAME_OVER)
    ONE, NONE = Move.fired(1), Move.fired(0)
    presses = driver == "chance"
    steps = 0
    start = time.process_time()
    for hand in range(-warmup, hands):
        if hand == 0:
            steps = 0
            start = time.process_time()
        if Table is None:
            game = Game.new(rules, players, seed=seed + hand, presses=not presses)
            play = game.play
        elif presses:
            game = Game(rules, players, chance)
            play = game.play
        else:
            table = Table.new(rules, players, seed=seed + hand)
            game, play = table.game, table.play
        legal_moves = game.legal_moves
        while True:
            pending = game.pending
            if pending is TURN:
                steps += 1
                moves = legal_moves()
                if len(moves) > 1:
                    moves.pop()  # draw is always last: RLCard draws only when nothing is playable
                play(moves[pick(len(moves))])
            elif pending is PRESS:
                play(ONE if game.pile else NONE)
            elif pending is DRAWN:  # RLCard plays a playable drawn card: [the card, pass]
                play(legal_moves()[0])
            elif pending is CHALLENGE:  # and never challenges: [challenge, accept, ...]
                play(legal_moves()[1])
            elif pending in OVER:
                break
            else:  # a colour
                moves = legal_moves()
                play(moves[pick(len(moves))])
    return steps, time.process_time() - start


players, hands, seed, driver = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
warmup = int(sys.argv[5]) if len(sys.argv) > 5 else 0  # untimed hands first (seeds below)
steps, elapsed = loop(players, hands, seed, driver, warmup)
print(json.dumps({"steps": steps, "seconds": elapsed, "hands": hands}))
"""

#: RLCard's natural loop (as its ``Env.run`` drives it): one ``UnoGame``, ``init_game()``
#: per hand, a uniformly random pick among ``state['legal_actions']`` from ``step()``.
RLCARD = r"""
import json, random, sys, time
import numpy as np
from rlcard.games.uno.game import UnoGame


def loop(players, hands, seed, warmup):
    # ``hands`` timed hands after ``warmup`` untimed ones: (steps, CPU seconds)
    pick = random.Random(seed).randrange
    game = UnoGame(allow_step_back=False, num_players=players)
    game.np_random = np.random.RandomState(seed)
    steps = 0
    start = time.process_time()
    for hand in range(-warmup, hands):
        if hand == 0:
            steps = 0
            start = time.process_time()
        state, player = game.init_game()
        while not game.is_over():
            legal = state["legal_actions"]
            state, player = game.step(legal[pick(len(legal))])
            steps += 1
    return steps, time.process_time() - start


players, hands, seed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
warmup = int(sys.argv[4]) if len(sys.argv) > 4 else 0  # untimed hands first
steps, elapsed = loop(players, hands, seed, warmup)
print(json.dumps({"steps": steps, "seconds": elapsed, "hands": hands}))
"""

#: RLCard's environment loop (context): ``env.run`` with its own ``RandomAgent``s.
RLCARD_ENV = r"""
import json, sys, time
import rlcard
from rlcard.agents import RandomAgent

players, hands, seed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
env = rlcard.make("uno", config={"game_num_players": players, "seed": seed})
env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(players)])
steps = 0
start = time.process_time()
for hand in range(hands):
    trajectories, _ = env.run(is_training=False)
    steps += sum((len(t) - 1) // 2 for t in trajectories)
elapsed = time.process_time() - start
print(json.dumps({"steps": steps, "seconds": elapsed, "hands": hands}))
"""

#: uno-game 1.1.0 installs from PyPI but cannot be timed unattended: ``Game.begin()`` plays
#: the first card as a ``_TempPlayer`` that has no ``ask``; when that card is a wild, the
#: AttributeError is swallowed by ``while True: try ... except Exception: continue`` and
#: the loop spins forever (it hangs on the very first hand with ``random.seed(1)``).
UNOGAME_NOTE = (
    "not measured: uno-game 1.1.0 installs, but Game.begin() spins forever when the first "
    "card is a wild (_TempPlayer has no ask(); the error is swallowed in a while-True loop)"
)


def run_block(
    python: str, script: str, *args: object, timeout: float | None = None
) -> dict[str, float]:
    """One timed block in a fresh process; its JSON result (steps, seconds, hands)."""
    code = script.replace("ROOT)", f"{str(ROOT)!r})", 1)
    done = subprocess.run(
        [python, "-c", code, *map(str, args)],
        capture_output=True,
        text=True,
        check=True,
        timeout=timeout,
    )
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def profile(players: int, hands: int, seed: int, driver: str, top: int = 18) -> None:
    """Our loop under cProfile: the functions with the most own time (where the time goes)."""
    code = OURS.replace("ROOT)", f"{str(ROOT)!r})", 1)
    runner = (
        "import cProfile, pstats, sys\n"
        f"sys.argv = ['ours', '{players}', '{hands}', '{seed}', '{driver}']\n"
        "profiler, namespace = cProfile.Profile(), {'__name__': '__main__'}\n"
        f"profiler.runctx({code!r}, namespace, namespace)\n"
        "stats = pstats.Stats(profiler).strip_dirs()\n"
        f"stats.sort_stats('tottime').print_stats({top})\n"
        f"stats.sort_stats('cumulative').print_stats('engine|table|effects|cards|events', {top})\n"
    )
    subprocess.run([sys.executable, "-c", runner], check=True)


def rate(block: dict[str, float]) -> float:
    return block["steps"] / block["seconds"]


def merged(blocks: list[dict[str, float]]) -> dict[str, float]:
    return {key: sum(b[key] for b in blocks) for key in ("steps", "seconds", "hands")}


def compare(args: argparse.Namespace, players: int, driver: str) -> dict[str, list[float]]:
    """A B B A blocks per repetition; per-repetition rates and ratio."""
    out: dict[str, list[float]] = {"ours": [], "rlcard": [], "ratio": [], "hands_ratio": []}
    for rep in range(args.reps):
        seed = args.seed + 1000 * rep
        warm = args.warmup
        a1 = run_block(sys.executable, OURS, players, args.hands, seed, driver, warm)
        b1 = run_block(args.rlcard_python, RLCARD, players, args.hands, seed, warm)
        b2 = run_block(args.rlcard_python, RLCARD, players, args.hands, seed + 500, warm)
        a2 = run_block(sys.executable, OURS, players, args.hands, seed + 500, driver, warm)
        ours, theirs = merged([a1, a2]), merged([b1, b2])
        out["ours"].append(rate(ours))
        out["rlcard"].append(rate(theirs))
        out["ratio"].append(rate(ours) / rate(theirs))
        out["hands_ratio"].append(theirs["seconds"] / ours["seconds"])
        out.setdefault("ours_steps_per_hand", []).append(ours["steps"] / ours["hands"])
        out.setdefault("rlcard_steps_per_hand", []).append(theirs["steps"] / theirs["hands"])
    return out


def context(python: str, script: str, players: int, hands: int, args: argparse.Namespace) -> str:
    if args.context_reps <= 0:
        return "not measured (--context-reps 0)"
    if not Path(python).exists():
        return f"not measured ({python} missing)"
    try:
        rates = [
            rate(run_block(python, script, players, hands, args.seed + r))
            for r in range(args.context_reps)
        ]
    except subprocess.CalledProcessError as error:
        return f"not measured ({(error.stderr.strip().splitlines() or ['failed'])[-1]})"
    return f"{statistics.median(rates):>10,.0f} steps/s (median of {len(rates)})"


def spread(values: list[float], fmt: str) -> str:
    return f"{statistics.median(values):{fmt}} [{min(values):{fmt}}..{max(values):{fmt}}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000, help="hands per block")
    parser.add_argument("--reps", type=int, default=7, help="A B B A repetitions (>= 7)")
    parser.add_argument(
        "--context-reps", type=int, default=3, help="blocks of the context row (0: none)"
    )
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--warmup",
        type=int,
        default=100,
        help="untimed hands each block plays first (0: time the process's first hands too, "
        "as before session 13: RLCard's first 100 hands take about 25 ms more than later ones)",
    )
    parser.add_argument("--driver", choices=["chance", "presser", "both"], default="both")
    parser.add_argument("--rlcard-python", default="/tmp/rlcard-venv/bin/python")
    parser.add_argument(
        "--profile", action="store_true", help="profile our loop (cProfile, own time) and stop"
    )
    args = parser.parse_args()
    if args.profile:
        profile(args.players[0], args.hands, args.seed, "chance")
        return
    if not Path(args.rlcard_python).exists():
        sys.exit(f"bench_engine: {args.rlcard_python} missing; see the module docstring")
    print(
        f"# {platform.python_implementation()} {platform.python_version()} on "
        f"{platform.machine()}, {os.cpu_count()} cpus, load average "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    print(
        f"# classic UNO, {args.hands} fresh hands per block (set-up, shuffle, deal timed), "
        f"uniformly random agents; one step = one turn decision;\n"
        f"# CPU time (process_time) of the loop in its own process, after {args.warmup} untimed "
        f"hands; blocks A B B A x {args.reps}; "
        f"ratio = ours / RLCard steps per CPU-s, median [min..max] over repetitions.\n"
        f"# ours: ruleset compiled once, a Game per hand from one seeded stream (RLCard: one\n"
        f"#   np_random), every rule and the event log on;\n"
        f"#   'chance' = the pure Game, the loop feeds fired:1 per press (a draw pile's outcome);\n"
        f"#   'presser' = Table.new (DrawPile launcher + Presser), as simulate does.\n"
        f"# RLCard: one UnoGame, init_game() per hand, random pick among state['legal_actions']."
    )
    drivers = ["chance", "presser"] if args.driver == "both" else [args.driver]
    for players in args.players:
        print(f"\n{players} players")
        for driver in drivers:
            res = compare(args, players, driver)
            print(
                f"  ours ({driver:7})    : {spread(res['ours'], ',.0f')} steps/s  "
                f"({statistics.median(res['ours_steps_per_hand']):.1f} steps/hand)\n"
                f"  RLCard 1.2.0      : {spread(res['rlcard'], ',.0f')} steps/s  "
                f"({statistics.median(res['rlcard_steps_per_hand']):.1f} steps/hand)\n"
                f"  ratio steps/s     : {spread(res['ratio'], '.2f')} x\n"
                f"  ratio hands/s     : {spread(res['hands_ratio'], '.2f')} x"
            )
        env = context(args.rlcard_python, RLCARD_ENV, players, args.hands, args)
        print(f"  context, RLCard env.run + RandomAgent: {env}")
        print(f"  context, uno-game 1.1.0: {UNOGAME_NOTE}")


if __name__ == "__main__":
    main()
