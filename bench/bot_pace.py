"""Pace calibration: turns, presses and estimated minutes per round and game, rule bots.

    python bench/bot_pace.py --games 40 --seed 1

For each ruleset (attack on the default launcher profile, classic, pocket) and
2-6 players, plays ``--games`` complete games (to the ruleset's target) with
rule bots (``--bots`` to change) and prints, per round: turns, plays, presses,
cards picked up from the launcher/pile, and minutes under the turn-time model
below; per game: rounds, turns and minutes. Means with a normal 95 % interval
over rounds (turns per round) and games (per game columns).

The turn-time model is an ASSUMPTION, not a measurement: ``--play-s`` seconds
per card played (look, choose, play; default 5), ``--press-s`` per launcher
press or pile draw (default 3), ``--card-s`` per card picked up (default 2).
What is known: an UNO round is commonly said to take 10-20 minutes; nobody has
timed our tables yet. Figures go in docs/bots.md.
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from game.core.rulesets import load_ruleset  # noqa: E402
from game.play.simulate import SimConfig, play_game  # noqa: E402


@dataclass(frozen=True)
class TurnTime:
    """Seconds per card played, per press (or pile draw), per card picked up: assumptions."""

    play_s: float = 5.0
    press_s: float = 3.0
    card_s: float = 2.0

    def minutes(self, plays: int, presses: int, cards: int) -> float:
        return (plays * self.play_s + presses * self.press_s + cards * self.card_s) / 60


def mean_ci(values: list[float]) -> tuple[float, float]:
    """The mean and the half-width of its normal 95 % interval."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, 0.0
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, 1.96 * math.sqrt(var / n)


def rounds_of(events: list[dict[str, Any]]) -> list[dict[str, int]]:
    """Per finished round: turns, plays, presses and cards picked up."""
    out: list[dict[str, int]] = []
    plays = presses = cards = 0
    for event in events:
        kind = event["type"]
        if kind == "play":
            plays += 1
        elif kind == "hit":
            presses += 1
            cards += len(event["cards"])
        elif kind == "round_end":
            out.append(
                {"turns": event["turns"], "plays": plays, "presses": presses, "cards": cards}
            )
            plays = presses = cards = 0
    return out


def cell(ruleset: str, players: int, games: int, seed: int, bots: str, model: TurnTime) -> dict:
    config = SimConfig(
        ruleset=ruleset, players=players, games=games, seed=seed, bots=(bots,), keep_events=True
    )
    rounds: list[dict[str, int]] = []
    per_game: list[tuple[int, int, float]] = []
    for index in range(games):
        played = rounds_of(play_game(config, index).events)
        rounds += played
        minutes = sum(model.minutes(r["plays"], r["presses"], r["cards"]) for r in played)
        per_game.append((len(played), sum(r["turns"] for r in played), minutes))
    round_minutes = [model.minutes(r["plays"], r["presses"], r["cards"]) for r in rounds]
    return {
        "ruleset": ruleset,
        "players": players,
        "turns_round": mean_ci([float(r["turns"]) for r in rounds]),
        "presses_round": mean_ci([float(r["presses"]) for r in rounds]),
        "cards_round": mean_ci([float(r["cards"]) for r in rounds]),
        "minutes_round": mean_ci(round_minutes),
        "rounds_game": mean_ci([float(g[0]) for g in per_game]),
        "turns_game": mean_ci([float(g[1]) for g in per_game]),
        "minutes_game": mean_ci([g[2] for g in per_game]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bots", default="rule")
    parser.add_argument("--rulesets", default="attack,classic,pocket")
    parser.add_argument("--players", default="2,3,4,5,6")
    parser.add_argument("--play-s", type=float, default=5.0)
    parser.add_argument("--press-s", type=float, default=3.0)
    parser.add_argument("--card-s", type=float, default=2.0)
    args = parser.parse_args()
    model = TurnTime(args.play_s, args.press_s, args.card_s)
    print(
        f"bots {args.bots}, {args.games} games per row, seed {args.seed}; turn-time model "
        f"(assumed): {model.play_s:g} s/play, {model.press_s:g} s/press, "
        f"{model.card_s:g} s/card picked up. Means ± 95 % CI."
    )
    columns = [
        ("turns_round", "turns/round", 0),
        ("presses_round", "presses/round", 1),
        ("cards_round", "cards/round", 1),
        ("minutes_round", "min/round", 1),
        ("rounds_game", "rounds/game", 1),
        ("turns_game", "turns/game", 0),
        ("minutes_game", "min/game", 0),
    ]
    print("| ruleset | players | " + " | ".join(c[1] for c in columns) + " |")
    print("|---|---:|" + "---:|" * len(columns))
    for ruleset in args.rulesets.split(","):
        top = load_ruleset(ruleset).max_players
        for players in (int(p) for p in args.players.split(",")):
            if players > top:
                continue
            row = cell(ruleset, players, args.games, args.seed, args.bots, model)
            texts = [
                f"{row[key][0]:.{digits}f} ± {row[key][1]:.{digits}f}" for key, _, digits in columns
            ]
            print(f"| {ruleset} | {players} | " + " | ".join(texts) + " |")


if __name__ == "__main__":
    main()
