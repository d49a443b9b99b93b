"""The RL wrappers measured: environment speed against RLCard's UNO, and an ISMCTS match.

    python bench/bench_rl.py speed --seconds 24 --rlcard-python /tmp/rlcard-venv/bin/python
    python bench/bench_rl.py instructions env table+observe table --steps 3000 --skip 3000
    python bench/bench_rl.py ismcts --against rule --games 30 --simulations 50
    python bench/bench_rl.py ismcts --against search:iterations=64 --games 20 --simulations 50

``speed``: steps per second of six loops, interleaved in one run (one-second slices in
turn, so machine load falls on all of them alike): RLCard's ``rlcard.make("uno")``
environment loop (``env.step`` returns the next state and its legal actions), run in
RLCard's own venv (``--rlcard-python``; a child process that times the slices it is asked
for); our PettingZoo environment as ``game.pettingzoo.env(...)`` gives it (``env.step`` then
``env.last()``: the next agent's observation and mask), the same with the tensors' Python
classes (an install without a C compiler: game/rl/_tensor.pyx not built), and the same bare
environment in PettingZoo's stock ``OrderEnforcingWrapper``; the OpenSpiel state
(``apply_action`` then ``legal_actions``); and, as the floor under them, the rules engine
alone (``Game.play`` and ``legal_moves``, presses fed directly). Every loop plays uniformly
random legal moves, Attack with 2 players (RLCard's UNO is two-player only). Each loop's
rate in a round of slices is divided by RLCard's in the same round; the median [min..max]
of those ratios is printed. rlcard (1.2.0 here) comes from PyPI and is needed only here
(``python3 -m venv /tmp/rlcard-venv && /tmp/rlcard-venv/bin/pip install rlcard==1.2.0``).

``ismcts``: OpenSpiel's information-set MCTS bot (open_spiel.python.algorithms.ismcts) plays
one round at a time against one of our bots (game.bots), seats alternating; one round is one
game. Its leaves are scored by :class:`ShortRollout`: 20 random moves, then the hand sizes.
Prints the ISMCTS win rate with a Wilson 95 % interval and the CPU seconds per decision of
each side. Figures go in docs/rl.md.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
import pyspiel  # noqa: E402
from open_spiel.python.algorithms import ismcts  # noqa: E402
from pettingzoo.utils import wrappers  # noqa: E402

import game.openspiel  # noqa: E402, F401  # registers python_uno_attack
from game.bots.base import Bot  # noqa: E402
from game.bots.registry import make_bot  # noqa: E402
from game.experiment.stats import wilson  # noqa: E402
from game.pettingzoo import env, raw_env  # noqa: E402
from game.rl import table as table_module  # noqa: E402
from game.rl import tensor  # noqa: E402
from game.rl.table import CHANCE, Table, TableSpec  # noqa: E402

# -- speed -----------------------------------------------------------------------------------
#: RLCard's environment loop, run in RLCard's own interpreter (``--rlcard-python``): it reads
#: a slice length in seconds per line from stdin, runs ``env.step`` on uniformly random legal
#: actions for that long and answers ``steps seconds``, so its slices interleave with ours.
RLCARD_WORKER = r"""
import random, sys, time
import rlcard


def serve(seed):
    # in a function, as our loops are: module-level names would cost RLCard a dict lookup each
    env = rlcard.make("uno", config={"seed": seed})
    rng = random.Random(seed)
    state = {}
    for line in sys.stdin:
        start = time.perf_counter()
        until, steps = start + float(line), 0
        while time.perf_counter() < until:
            if not state or env.is_over():
                state, _ = env.reset()
            state, _ = env.step(rng.choice(list(state["legal_actions"])))
            steps += 1
        print(steps, time.perf_counter() - start, flush=True)


serve(int(sys.argv[1]))
"""

#: A loop runs for about the given seconds and says (steps made, seconds it took).
Loop = Callable[[float], tuple[int, float]]


def rlcard_loop(seed: int, python: str) -> Loop:
    """RLCard's ``rlcard.make("uno")`` loop in a child process of ``python`` (its venv)."""
    child = subprocess.Popen(
        [python, "-c", RLCARD_WORKER, str(seed)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdin is not None and child.stdout is not None

    def run(seconds: float) -> tuple[int, float]:
        child.stdin.write(f"{seconds}\n")  # type: ignore[union-attr]
        child.stdin.flush()  # type: ignore[union-attr]
        steps, spent = child.stdout.readline().split()  # type: ignore[union-attr]
        return int(steps), float(spent)

    return run


def timed(body: Callable[[float], int]) -> Loop:
    """An in-process loop: ``body(until)`` steps until ``time.perf_counter()`` passes ``until``."""

    def run(seconds: float) -> tuple[int, float]:
        start = time.perf_counter()
        steps = body(start + seconds)
        return steps, time.perf_counter() - start

    run.body = body  # type: ignore[attr-defined]  # for ``count``: body(inf, limit)
    return run


def pettingzoo_loop(
    seed: int, stock_wrapper: bool = False, bare: bool = False, python_tensors: bool = False
) -> Loop:
    """The environment as a user gets it: ``game.pettingzoo.env(...)``, its wrapper included.

    ``stock_wrapper``: the bare environment in PettingZoo's own ``OrderEnforcingWrapper``
    instead of env()'s (the same checks, its reads through ``__getattr__``), for comparison;
    ``bare``: the bare environment (``raw_env``) with no wrapper; ``python_tensors``: its
    tables' tensors and masks made by the Python classes, as on an install that could not
    compile game/rl/_tensor.pyx (no C compiler).
    """
    if stock_wrapper:
        table = wrappers.OrderEnforcingWrapper(raw_env(ruleset="attack", players=2))
    elif bare:
        table = raw_env(ruleset="attack", players=2)
    else:
        table = env(ruleset="attack", players=2)
    table.reset(seed=seed)
    rng = random.Random(seed)

    def run(until: float, limit: float = math.inf) -> int:
        steps = 0
        while steps < limit and time.perf_counter() < until:
            observation, _, termination, truncation, _ = table.last()
            if termination or truncation:
                table.reset()
                continue
            table.step(rng.choice(observation["action_mask"].nonzero()[0].tolist()))
            steps += 1
        return steps

    if python_tensors:
        return timed(_on_python_tensors(run))
    return timed(run)


def _on_python_tensors(run: Callable[[float, float], int]) -> Callable[[float, float], int]:
    """``run`` with the tables' tensors made by game.rl.tensor's Python classes (a table
    keeps the tensors it made, so only this loop's own tables hold Python ones)."""

    def python_run(until: float, limit: float = math.inf) -> int:
        compiled = table_module.SeatTensor, table_module.SeatMask
        table_module.SeatTensor, table_module.SeatMask = tensor.PySeatTensor, tensor.PySeatMask
        try:
            return run(until, limit)
        finally:
            table_module.SeatTensor, table_module.SeatMask = compiled

    return python_run


def table_loop(seed: int, observe: bool = True) -> Loop:
    """The shared table alone (``Table.apply``, presses sampled as ``env()`` samples them);
    ``observe``: with the information-state tensor and the mask each step, as ``last()``."""
    rng = random.Random(seed)
    uniform = rng.random
    spec = TableSpec.of("attack", 2)
    table = Table(spec, rng.getrandbits(63))
    table.press_until_a_seat_acts(uniform)

    def run(until: float, limit: float = math.inf) -> int:
        nonlocal table
        steps = 0
        while steps < limit and time.perf_counter() < until:
            if table.is_terminal():
                table = Table(spec, rng.getrandbits(63))
                table.press_until_a_seat_acts(uniform)
                continue
            seat = table.actor
            if observe:
                table.information_state_tensor(seat)
                legal = table.action_mask(seat).nonzero()[0].tolist()
            else:
                legal = table.legal_actions()
            table.apply(rng.choice(legal))
            if table.actor == CHANCE:
                table.press_until_a_seat_acts(uniform)
            steps += 1
        return steps

    return timed(run)


def openspiel_loop(seed: int) -> Loop:
    spiel_game = pyspiel.load_game("python_uno_attack", {"ruleset": "attack", "players": 2})
    rng = random.Random(seed)
    state = spiel_game.new_initial_state()

    def run(until: float, limit: float = math.inf) -> int:
        nonlocal state
        steps = 0
        while steps < limit and time.perf_counter() < until:
            if state.is_terminal():
                state = spiel_game.new_initial_state()
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(actions, probs)[0])
                continue
            state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
        return steps

    return timed(run)


def engine_loop(seed: int) -> Loop:
    """The floor: the rules engine alone (``Game.play`` of random legal moves, presses fed)."""
    from game.core.engine import Game
    from game.core.moves import Decision
    from game.play.driver import fired

    rng = random.Random(seed)
    counts = (0, 0, 1, 1, 2, 3)
    games = iter(range(seed, seed + 10**9))
    current = Game.new("attack", 2, seed=next(games))

    def run(until: float, limit: float = math.inf) -> int:
        nonlocal current
        steps = 0
        while steps < limit and time.perf_counter() < until:
            g = current
            if g.is_round_over():
                current = Game.new("attack", 2, seed=next(games))
                continue
            if g.pending is Decision.PRESS:
                g.play(fired(min(len(g.pile), rng.choice(counts))))
                continue
            moves = g.legal_moves()
            g.play(moves[rng.randrange(len(moves))])
            g.table_moves()
            steps += 1
        return steps

    return timed(run)


RLCARD = "RLCard uno (env.step)"
#: The loops ``count`` and ``instructions`` know, by name (rlcard runs in its own venv).
LOOPS: dict[str, Callable[[int], Loop]] = {
    "engine": engine_loop,
    "table": lambda seed: table_loop(seed, observe=False),
    "table+observe": table_loop,
    "raw_env": lambda seed: pettingzoo_loop(seed, bare=True),
    "env": pettingzoo_loop,
    "env-python": lambda seed: pettingzoo_loop(seed, python_tensors=True),
    "stock": lambda seed: pettingzoo_loop(seed, stock_wrapper=True),
    "openspiel": openspiel_loop,
}
#: RLCard's loop for ``count``: ``steps`` random steps, no timing.
RLCARD_COUNT = r"""
import random, sys
import rlcard


def run(seed, steps):
    # in a function, as in RLCARD_WORKER
    env = rlcard.make("uno", config={"seed": seed})
    rng = random.Random(seed)
    state = {}
    for _ in range(steps):
        if not state or env.is_over():
            state, _ = env.reset()
        state, _ = env.step(rng.choice(list(state["legal_actions"])))


run(int(sys.argv[1]), int(sys.argv[2]))
"""


def count(loop: str, steps: int, seed: int, rlcard_python: str, skip: int = 0) -> None:
    """Make ``skip`` steps of ``loop``, then ``steps`` more inside one ``eval`` (what
    ``instructions --skip`` counts), and exit (for an instruction counter)."""
    if loop == "rlcard":
        subprocess.run([rlcard_python, "-c", RLCARD_COUNT, str(seed), str(steps)], check=True)
        return
    body = LOOPS[loop](seed).body  # type: ignore[attr-defined]
    assert body(math.inf, skip) == skip
    made = eval("body(math.inf, steps)", {"body": body, "math": math, "steps": steps})
    assert made == steps


def instructions(
    loops: list[str], steps: int, seed: int, rlcard_python: str, skip: int | None = None
) -> None:
    """Instructions per step of each loop: callgrind of ``steps`` steps minus of 0 steps.

    ``PYTHONHASHSEED=0`` and the same seed, so the count is the same whatever the load
    (valgrind counts the child process of rlcard too: ``--trace-children``). That count
    moves by a few thousand a step between runs (the start-up of each process); with
    ``skip`` callgrind collects only inside the ``eval`` of the ``steps`` steps after the
    first ``skip`` (``--collect-atstart=no --toggle-collect=builtin_eval``): runs of the
    same code in one session agree within about 50 instructions a step (often exactly), a
    clone counted on another day up to about 200 apart: compare trees counted side by side
    (docs/rl.md, session 12).
    """
    env_vars = {**os.environ, "PYTHONHASHSEED": "0"}
    if skip is not None and "rlcard" in loops:
        raise SystemExit("--skip counts our loops only (rlcard runs in its own process)")

    def collected(loop: str, n: int, toggled: list[str], skipped: int = 0) -> int:
        command = [
            "valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
            "--trace-children=yes", *toggled, sys.executable, __file__, "count", loop, str(n),
            "--seed", str(seed), "--rlcard-python", rlcard_python, "--skip", str(skipped),
        ]  # fmt: skip
        out = subprocess.run(command, env=env_vars, capture_output=True, text=True, check=True)
        return sum(int(m) for m in re.findall(r"Collected : (\d+)", out.stderr))

    for loop in loops:
        if skip is None:
            per = (collected(loop, steps, []) - collected(loop, 0, [])) / steps
            what = f"{steps} steps"
        else:
            toggled = ["--collect-atstart=no", "--toggle-collect=builtin_eval"]
            per = collected(loop, steps, toggled, skip) / steps
            what = f"steps {skip}-{skip + steps}, inside eval"
        print(f"{loop:16} {per:10,.0f} instructions per step ({what})", flush=True)


def speed(seconds: float, seed: int, rlcard_python: str) -> None:
    """Every loop in one-second slices in turn; each slice's rate over RLCard's of its round.

    Prints steps/s over all slices and the median [min..max] of the per-round ratios.
    """
    loops = {
        RLCARD: rlcard_loop(seed, rlcard_python),
        "engine alone (Game.play + legal_moves)": engine_loop(seed),
        "game.pettingzoo env() (step + last)": pettingzoo_loop(seed),
        "  the same with the Python tensors (no C compiler)": pettingzoo_loop(
            seed, python_tensors=True
        ),
        "  the same in PettingZoo's stock wrapper": pettingzoo_loop(seed, stock_wrapper=True),
        "game.openspiel (apply_action + legal_actions)": openspiel_loop(seed),
    }
    steps = dict.fromkeys(loops, 0)
    spent = dict.fromkeys(loops, 0.0)
    ratios: dict[str, list[float]] = {name: [] for name in loops}
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        rates = {}
        for name, loop in loops.items():  # one-second slices, interleaved
            made, took = loop(1.0)
            steps[name] += made
            spent[name] += took
            rates[name] = made / took
        for name in loops:
            ratios[name].append(rates[name] / rates[RLCARD])
    print(f"{'loop':52} {'steps':>9} {'steps/s':>9}  x RLCard: median [min..max] of rounds")
    for name in loops:
        rate, r = steps[name] / spent[name], ratios[name]
        print(
            f"{name:52} {steps[name]:9d} {rate:9.0f}  "
            f"{statistics.median(r):.2f} [{min(r):.2f}..{max(r):.2f}] ({len(r)} rounds)"
        )


# -- the ISMCTS match ------------------------------------------------------------------------
class ShortRollout:
    """An OpenSpiel MCTS evaluator: ``moves`` random moves from a copy, then hand sizes.

    The value of a seat is ``tanh((mean size of the others - its size) / 4)``, made zero-sum;
    a finished round scores its returns. Uniform priors.
    """

    def __init__(self, moves: int, rng: random.Random) -> None:
        self.moves, self.rng = moves, rng

    def evaluate(self, state: pyspiel.State) -> np.ndarray:
        table = state.table.copy()
        for _ in range(self.moves):
            if table.is_terminal():
                return np.array(table.returns())
            if table.actor == CHANCE:
                counts, probs = zip(*table.chance_outcomes(), strict=True)
                table.apply(self.rng.choices(counts, probs)[0])
            else:
                table.apply(self.rng.choice(table.legal_actions()))
        if table.is_terminal():
            return np.array(table.returns())
        return _hand_value(table)

    def prior(self, state: pyspiel.State) -> list[tuple[int, float]]:
        legal = state.legal_actions()
        return [(action, 1.0 / len(legal)) for action in legal]


def _hand_value(table: Table) -> np.ndarray:
    sizes = np.array(table.game.hand_sizes, float)
    n = len(sizes)
    others = (sizes.sum() - sizes) / (n - 1)
    value = np.tanh((others - sizes) / 4.0)
    return value - value.mean()


def our_move(bot: Bot, table: Table) -> int:
    """Our bot's choice at the table: its move, or at an offer its table move (None: wait)."""
    game, seat = table.game, table.actor
    if table.offering:
        offered = [m for m in game.table_moves() if game.seat_of(m) == seat]
        move = bot.table_move(game, seat, offered)
        return table.actions.wait if move is None else table.actions.encode(move)
    return table.actions.encode(bot.choose(game, seat))


def replayable_worlds(bot: ismcts.ISMCTSBot) -> Callable[[pyspiel.State, int], pyspiel.State]:
    """ISMCTS's world sampler drawing from the bot's seeded random state.

    Without it OpenSpiel samples worlds with a ``UniformProbabilitySampler`` seeded from the
    OS, and the same ``--seed`` would not replay the same match.
    """
    return lambda state, seat: state.resample_from_infostate(seat, bot.random_number)


def match(against: str, games: int, simulations: int, seed: int) -> None:
    spiel_game = pyspiel.load_game(
        "python_uno_attack", {"ruleset": "attack", "players": 2, "seed": seed}
    )
    rng = np.random.RandomState(seed)
    evaluator = ShortRollout(20, random.Random(seed))
    wins = 0
    cost = {"ismcts": [0.0, 0], "ours": [0.0, 0]}
    for index in range(games):
        bot = ismcts.ISMCTSBot(
            spiel_game, evaluator, uct_c=2.0, max_simulations=simulations,
            random_state=np.random.RandomState(seed + index),
        )  # fmt: skip
        bot.set_resampler(replayable_worlds(bot))
        ours = make_bot(against, seed + index)
        seat = index % 2  # the ISMCTS seat alternates
        state = spiel_game.new_initial_state()
        state.apply_action(index % game.openspiel.DEALS)
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choice(actions, p=probs))
                continue
            who = "ismcts" if state.current_player() == seat else "ours"
            start = time.process_time()
            action = bot.step(state) if who == "ismcts" else our_move(ours, state.table)
            cost[who][0] += time.process_time() - start
            cost[who][1] += 1
            state.apply_action(action)
        won = state.returns()[seat] > 0
        wins += won
        print(f"round {index + 1}: ismcts seat {seat} {'won' if won else 'lost'}", flush=True)
    share = wilson(wins, games)
    print(
        f"ISMCTS ({simulations} simulations) vs {against}, attack 2 players, {games} rounds: "
        f"won {wins} = {share.mean:.2f} [{share.low:.2f}, {share.high:.2f}] (Wilson 95 %)"
    )
    for who, (seconds, decisions) in cost.items():
        per = seconds / max(1, decisions)
        print(f"  {who}: {decisions} decisions, {per * 1e3:.2f} ms CPU per decision")
    if math.isnan(share.mean):
        raise SystemExit("no rounds played")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    fast = sub.add_parser("speed", help="steps/s against RLCard's UNO, interleaved")
    fast.add_argument("--seconds", type=float, default=20.0)
    fast.add_argument("--seed", type=int, default=0)
    fast.add_argument(
        "--rlcard-python",
        default=sys.executable,
        help="the Python of a venv with rlcard 1.2.0 (RLCard runs there, in a child process)",
    )
    one = sub.add_parser("count", help="make STEPS steps of one loop (for a counter)")
    one.add_argument("loop", choices=[*LOOPS, "rlcard"])
    one.add_argument("steps", type=int)
    one.add_argument("--skip", type=int, default=0, help="steps made first, not in the eval")
    many = sub.add_parser("instructions", help="callgrind instructions per step of loops")
    many.add_argument("loops", nargs="+", choices=[*LOOPS, "rlcard"])
    many.add_argument("--steps", type=int, default=4000)
    many.add_argument(
        "--skip",
        type=int,
        default=None,
        help="count only the STEPS steps after the first SKIP, inside eval (steadier)",
    )
    for parser_ in (one, many):
        parser_.add_argument("--seed", type=int, default=0)
        parser_.add_argument("--rlcard-python", default=sys.executable)
    play = sub.add_parser("ismcts", help="OpenSpiel's ISMCTS against one of our bots")
    play.add_argument("--against", default="rule")
    play.add_argument("--games", type=int, default=30)
    play.add_argument("--simulations", type=int, default=50)
    play.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.command == "speed":
        speed(args.seconds, args.seed, args.rlcard_python)
    elif args.command == "count":
        count(args.loop, args.steps, args.seed, args.rlcard_python, args.skip)
    elif args.command == "instructions":
        instructions(args.loops, args.steps, args.seed, args.rlcard_python, args.skip)
    else:
        match(args.against, args.games, args.simulations, args.seed)


if __name__ == "__main__":
    main()
