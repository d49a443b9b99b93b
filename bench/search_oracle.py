"""Decision-level test of the search bot: how much better than the rule bot's are its moves?

    python bench/search_oracle.py --games 40 --q /tmp/q40.json
    python bench/search_oracle.py --games 40 --q /tmp/q40.json --bot search:depth=300:iterations=96
    python bench/search_oracle.py --games 40 --q /tmp/q40.json --cheat hands

Whole matches are noisy (a 400-game match has a ±5-point interval). This measures the
moves instead. Positions: every decision with a choice (not a challenge) of the
tracked seat in ``--games`` one-round 2-player Attack games of rule bots (game seeds
from 500; the tracked seat alternates). **Oracle**: each legal move's value from the
*true* state (the real hidden hands and pile), ``--k`` rollouts each (the move, then rule
bots to the end of the round, launcher presses from the profile, common random
numbers across the moves); cached in ``--q``. **Gain** of a bot: mean over positions of
oracle(bot's move) - oracle(rule bot's move), in win-probability points per decision,
with a 95 % interval. ``--cheat hands`` lets the bot see the other hands (not the pile),
``--cheat all`` the whole true state: the gap to the honest bot is what hidden cards cost.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import deque
from pathlib import Path
from random import Random

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from game.bots import make_bot  # noqa: E402
from game.bots import search as S  # noqa: E402
from game.bots.base import offer_table_moves  # noqa: E402
from game.bots.rule import RuleBot  # noqa: E402
from game.core.engine import Game  # noqa: E402
from game.core.moves import Decision  # noqa: E402
from game.play.driver import Table
from game.play.simulate import derive_seed, game_seed  # noqa: E402

Position = tuple[Game, int]


def positions(games: int, seed: int = 500, players: int = 2) -> list[Position]:
    """Copies of the tracked seat's decisions with a choice, in rule-bot games."""
    out: list[Position] = []
    for index in range(games):
        gs = game_seed(seed, index)
        bots = [RuleBot(derive_seed(gs, f"bot:{s}")) for s in range(players)]
        with Table.new("attack", players, seed=gs, options={"target": 1}) as game:
            while not game.is_round_over():
                seat = game.decider
                choice = len(game.legal_moves()) > 1
                if seat == index % players and choice and game.pending not in _SKIP:
                    snapshot = game.copy()
                    snapshot.events = list(game.events)
                    out.append((snapshot, seat))
                game.play(bots[seat].choose(game, seat))
                if game.table_moves():
                    offer_table_moves(game, bots)
    return out


_SKIP = (Decision.CHALLENGE, Decision.PRESS)


def oracle(position: Position, k: int, salt: int) -> list[float]:
    """Each legal move's mean rollout result from the true state (full-length rollouts)."""
    game, seat = position
    bot = S.SearchBot(0, depth=300)
    moves, models, base = game.legal_moves(), S.press_models(game), S._bare_copy(game)
    totals = [0.0] * len(moves)
    for j in range(k):
        world_seed = (salt * 1000003 + j) & (2**63 - 1)
        for i, move in enumerate(moves):
            world = base.copy()
            world._chance = S._FastCopyRandom(world_seed)
            totals[i] += bot._rollout(world, move, seat, world_seed, models(world_seed))
    return [t / k for t in totals]


def _cheat_hands(game: Game, seat: int, rng: Random, beliefs: object = None) -> Game:
    world = S._bare_copy(game)
    pile = sorted(world.pile, key=lambda c: c.code)
    rng.shuffle(pile)
    world.pile = deque(pile)
    world._chance = S._FastCopyRandom(rng.getrandbits(64))
    return world


def _cheat_all(game: Game, seat: int, rng: Random, beliefs: object = None) -> Game:
    world = S._bare_copy(game)
    world._chance = S._FastCopyRandom(rng.getrandbits(64))
    return world


def gain(spec: str, found: list[Position], q: list[list[float]]) -> str:
    """One line: the bot's mean gain per decision over the rule bot, its CI, its cost."""
    gains: list[float] = []
    deviated = 0
    start = time.process_time()
    for j, ((game, seat), values) in enumerate(zip(found, q, strict=True)):
        moves = game.legal_moves()
        rule = moves.index(RuleBot(0).choose(game, seat))
        chosen = moves.index(make_bot(spec, 1000 + j).choose(game, seat))
        deviated += chosen != rule
        gains.append(values[chosen] - values[rule])
    n = len(gains)
    mean = sum(gains) / n
    sd = math.sqrt(sum((g - mean) ** 2 for g in gains) / (n - 1))
    return (
        f"{spec}: {100 * mean:+.2f} points per decision [95 % CI ±{196 * sd / n**0.5:.2f}], "
        f"{deviated / n:.1%} of moves differ from the rule bot's, n={n}, "
        f"{time.process_time() - start:.0f} CPU-s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--k", type=int, default=120, help="oracle rollouts per move")
    parser.add_argument("--q", required=True, help="JSON cache of the oracle values")
    parser.add_argument("--bot", action="append", default=[], help="bot specs to test")
    parser.add_argument("--cheat", choices=["hands", "all"], default=None)
    args = parser.parse_args()
    found = positions(args.games)
    cache = Path(args.q)
    if cache.exists():
        q = json.loads(cache.read_text())
    else:
        q = [oracle(p, args.k, j) for j, p in enumerate(found)]
        cache.write_text(json.dumps(q))
    rules = [p[0].legal_moves().index(RuleBot(0).choose(*p)) for p in found]
    best = sum(max(v) - v[r] for r, v in zip(rules, q, strict=True))
    print(f"{len(found)} positions; best move by the oracle: {100 * best / len(found):+.2f} points")
    if args.cheat:
        S.determinize = _cheat_hands if args.cheat == "hands" else _cheat_all
    for spec in args.bot or ["search"]:
        print(gain(spec, found, q), flush=True)


if __name__ == "__main__":
    main()
