"""Head-to-head: one bot against a field of another, seats rotated, win rate with a Wilson 95 % CI.

    python bench/bot_match.py --bot search --against rule --players 2 --games 200 --target 1
    python bench/bot_match.py --bot search --against rule --players 4 --games 200 --target 1

Game ``i`` seats ``--bot`` at seat ``i % players`` and ``--against`` everywhere
else, so every seat is played equally often; game seeds and bot seeds come
from ``--seed`` exactly as in ``uno-attack simulate`` (``game.simulate.play_game``),
so a run replays. ``--target 1`` makes each game one round (the first round
winner scores and wins); without it games go to the ruleset's target (500).
The fair share of wins is ``1/players``; speed is games per CPU-second of this process
(``time.process_time``), so other load disturbs it less. Figures go in docs/bots.md.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from game.simulate import SimConfig, play_game  # noqa: E402


def wilson(wins: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval for a binomial proportion (95 % by default)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def match(
    bot: str,
    against: str,
    *,
    players: int,
    games: int,
    seed: int,
    ruleset: str = "attack",
    target: int | None = None,
) -> dict[str, Any]:
    """Play the match; returns wins, the rate, its interval, rounds and games per second."""
    options: dict[str, Any] = {"target": target} if target else {}
    wins = rounds = 0
    start = time.process_time()
    for index in range(games):
        hero = index % players
        seats = tuple(bot if s == hero else against for s in range(players))
        config = SimConfig(
            ruleset=ruleset, players=players, games=games, seed=seed, bots=seats, options=options
        )
        result = play_game(config, index)
        wins += result.winner == hero
        rounds += result.rounds
    elapsed = time.process_time() - start
    low, high = wilson(wins, games)
    return {
        "bot": bot,
        "against": against,
        "players": players,
        "ruleset": ruleset,
        "games": games,
        "wins": wins,
        "win_rate": wins / games,
        "ci95": (low, high),
        "fair_share": 1 / players,
        "rounds_per_game": rounds / games,
        "games_per_s": games / elapsed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bot", default="search", help="the bot under test (a spec)")
    parser.add_argument("--against", default="rule", help="the bot in every other seat")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ruleset", default="attack")
    parser.add_argument("--target", type=int, default=None, help="1: one-round games")
    args = parser.parse_args()
    r = match(
        args.bot,
        args.against,
        players=args.players,
        games=args.games,
        seed=args.seed,
        ruleset=args.ruleset,
        target=args.target,
    )
    low, high = r["ci95"]
    print(
        f"{r['bot']} vs {r['players'] - 1} x {r['against']} ({r['ruleset']}, {r['players']} "
        f"players, seed {args.seed}, target {args.target or 'ruleset'}): "
        f"{r['wins']}/{r['games']} wins = {r['win_rate']:.1%} "
        f"[95 % CI {low:.1%}-{high:.1%}], fair share {r['fair_share']:.1%}; "
        f"{r['rounds_per_game']:.1f} rounds/game, {r['games_per_s']:.2f} games per CPU-second"
    )


if __name__ == "__main__":
    main()
