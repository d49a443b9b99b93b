"""Golden playthroughs: one seeded round per ruleset, event by event (G12).

A rules change shows up as a diff of ``tests/playthroughs/<ruleset>.txt``. After a
deliberate change, regenerate with ``UNO_ATTACK_REGEN=1 python -m pytest
tests/test_engine_playthroughs.py`` and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from event_checker import check_events

from game.bots import make_bot
from game.bots.base import offer_table_moves
from game.play.driver import Table
from game.play.events import format_event

HERE = Path(__file__).resolve().parent / "playthroughs"
SETUPS = {
    "attack": 4,
    "attack-original": 3,
    "attack-mega-hit": 4,
    "classic": 3,
    "pocket": 3,
}


def transcript(ruleset: str, players: int) -> list[str]:
    game = Table.new(ruleset, players, seed=2024)
    bots = [make_bot("greedy" if s % 2 else "random", 100 + s) for s in range(players)]
    lines = [format_event(e) for e in game.events if e["type"] not in ("game_start", "dealer")]
    while not game.is_round_over():
        seat, seen = game.decider, len(game.events)
        move = bots[seat].choose(game, seat)
        game.play(move)
        offer_table_moves(game, bots)
        lines.append(f"> P{seat} {move}")
        lines += [f"  {format_event(e)}" for e in game.events[seen:]]
    check_events(game.events)
    return lines


@pytest.mark.parametrize(("ruleset", "players"), sorted(SETUPS.items()))
def test_seeded_round_matches_its_golden_playthrough(ruleset: str, players: int) -> None:
    path = HERE / f"{ruleset}.txt"
    lines = transcript(ruleset, players)
    if os.environ.get("UNO_ATTACK_REGEN") == "1" or not path.exists():
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert lines == path.read_text(encoding="utf-8").splitlines()
