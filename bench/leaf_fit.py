"""Fit the search bot's leaf score: a seat's round-win chance from hand sizes, in rule-bot play.

    python bench/leaf_fit.py --players 2 --rounds 3000
    python bench/leaf_fit.py --players 4 --rounds 1500

Plays ``--rounds`` one-round Attack games of rule bots (default launcher profile,
game seeds 10000, 10001, ...) and, at every turn, records for each seat its hand
size ``mine``, the fewest cards among the others ``best``, whether it is to move,
and whether it went on to win the round. A logistic regression (Newton's method on
the grouped counts) gives ``c0 + c1 ln mine + c2 ln best + c3 turn``; the
coefficients go in ``game.bots.search.LEAF_FIT``. It also prints the observed win
share by (mine, best) when not on turn, to eyeball the fit.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from game.bots.base import offer_table_moves  # noqa: E402
from game.bots.rule import RuleBot  # noqa: E402
from game.core.moves import Decision  # noqa: E402
from game.play.driver import Table

Key = tuple[int, int, bool]


def counts(players: int, rounds: int) -> dict[Key, list[int]]:
    """(mine, best, on turn) -> [turns seen, rounds then won], capped at 20 cards."""
    table: dict[Key, list[int]] = defaultdict(lambda: [0, 0])
    for g in range(rounds):
        bots = [RuleBot(s) for s in range(players)]
        game = Table.new("attack", players, seed=10_000 + g, options={"target": 1})
        seen: list[tuple[int, Key]] = []
        while not game.is_round_over():
            if game.pending is Decision.TURN:
                for s in range(players):
                    best = min(len(game.hands[o]) for o in range(players) if o != s)
                    key = (min(len(game.hands[s]), 20), min(best, 20), game.decider == s)
                    seen.append((s, key))
            game.play(bots[game.decider].choose(game, game.decider))
            if game.table_moves():
                offer_table_moves(game, bots)
        for s, key in seen:
            table[key][0] += 1
            table[key][1] += game.round_winner == s
    return table


def fit(table: dict[Key, list[int]]) -> list[float]:
    """Logistic regression on grouped counts (Newton-Raphson, 25 steps)."""
    rows = [(k, v) for k, v in table.items() if v[0] and k[0] and k[1]]
    x = np.array([[1.0, math.log(a), math.log(b), float(t)] for (a, b, t), _ in rows])
    n = np.array([v[0] for _, v in rows], dtype=float)
    w = np.array([v[1] for _, v in rows], dtype=float)
    c = np.zeros(4)
    for _ in range(25):
        p = 1 / (1 + np.exp(-x @ c))
        hessian = (x * (n * p * (1 - p))[:, None]).T @ x
        c = c + np.linalg.solve(hessian, x.T @ (w - n * p))
    return [round(float(v), 3) for v in c]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3000)
    args = parser.parse_args()
    start = time.process_time()
    table = counts(args.players, args.rounds)
    for a in range(1, 12):
        shares = (table[(a, b, False)] for b in range(1, 12))
        print(a, " ".join(f"{won / seen if seen else float('nan'):.2f}" for seen, won in shares))
    print(f"coefficients (c0, c1 ln mine, c2 ln best, c3 turn): {fit(table)}")
    print(f"{time.process_time() - start:.1f} CPU-s")


if __name__ == "__main__":
    main()
