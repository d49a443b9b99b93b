"""Head-to-head: one bot against a field of another, seats rotated, win rate with a Wilson 95 % CI.

    python bench/bot_match.py --bot search --against rule --players 2 --games 200 --target 1
    python bench/bot_match.py --bot search --against rule --players 4 --games 200 --target 1

Game ``i`` seats ``--bot`` at seat ``i % players`` and ``--against`` everywhere
else, so every seat is played equally often; game seeds and bot seeds come
from ``--seed`` exactly as in ``uno-attack simulate`` (``game.play.simulate.play_game``),
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

from game.play.simulate import SimConfig, play_game  # noqa: E402


def wilson(wins: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval for a binomial proportion (95 % by default)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def paired_interval(shares: list[float], z: float = 1.959964) -> tuple[float, float]:
    """A normal 95 % interval for the mean of per-deal win shares (paired design)."""
    n = len(shares)
    mean = sum(shares) / n
    var = sum((x - mean) ** 2 for x in shares) / (n - 1) if n > 1 else 0.25
    half = z * math.sqrt(var / n)
    return max(0.0, mean - half), min(1.0, mean + half)


def match(
    bot: str,
    against: str,
    *,
    players: int,
    games: int,
    seed: int,
    ruleset: str = "attack",
    target: int | None = None,
    paired: bool = False,
    progress: bool = False,
    first_deal: int = 0,
) -> dict[str, Any]:
    """Play the match; returns wins, the rate, its interval, rounds and games per second.

    ``paired``: each deal (game seed) is played once per seat, the bot in each
    seat in turn, so the luck of the deal and the launcher falls on every seat;
    the interval is then a normal one over deals of the per-deal win share.
    ``progress`` prints the running count after each deal (stderr), for long runs;
    ``first_deal`` skips the deals before it (split a long match over processes: game
    seeds depend only on ``seed`` and the deal, so the parts pool into the whole).
    """
    options: dict[str, Any] = {"target": target} if target else {}
    wins = rounds = 0
    shares: list[float] = []
    start = time.process_time()
    deals = games // players if paired else games
    for deal in range(first_deal, first_deal + deals):
        heroes = range(players) if paired else [deal % players]
        won = 0
        for hero in heroes:
            seats = tuple(bot if s == hero else against for s in range(players))
            config = SimConfig(
                ruleset=ruleset,
                players=players,
                games=games,
                seed=seed,
                bots=seats,
                options=options,
            )
            result = play_game(config, deal)
            won += result.winner == hero
            rounds += result.rounds
        wins += won
        shares.append(won / len(heroes))
        if progress:
            played = len(shares) * len(heroes)
            print(
                f"deal {deal}: {wins}/{played} wins, {time.process_time() - start:.0f} CPU-s",
                file=sys.stderr,
                flush=True,
            )
    elapsed = time.process_time() - start
    games = deals * (players if paired else 1)
    low, high = paired_interval(shares) if paired else wilson(wins, games)
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
        "cpu_s_per_game": elapsed / games,
        "paired": paired,
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
    parser.add_argument(
        "--paired", action="store_true", help="play each deal once per seat (seats swapped)"
    )
    parser.add_argument("--first-deal", type=int, default=0, help="start at this deal")
    parser.add_argument(
        "--progress", action="store_true", help="print the running count after each deal"
    )
    args = parser.parse_args()
    r = match(
        args.bot,
        args.against,
        players=args.players,
        games=args.games,
        seed=args.seed,
        ruleset=args.ruleset,
        target=args.target,
        paired=args.paired,
        progress=args.progress,
        first_deal=args.first_deal,
    )
    low, high = r["ci95"]
    print(
        f"{r['bot']} vs {r['players'] - 1} x {r['against']} ({r['ruleset']}, {r['players']} "
        f"players, seed {args.seed}, target {args.target or 'ruleset'}): "
        f"{r['wins']}/{r['games']} wins = {r['win_rate']:.1%} "
        f"[95 % {'paired' if r['paired'] else 'Wilson'} CI {low:.1%}-{high:.1%}], "
        f"fair share {r['fair_share']:.1%}; "
        f"{r['rounds_per_game']:.1f} rounds/game, {r['games_per_s']:.2f} games per CPU-second "
        f"({r['cpu_s_per_game']:.2f} CPU-s per game)"
    )


if __name__ == "__main__":
    main()
