"""An independent checker of uno-attack game logs, written from rules.md alone.

>>> from tests.rules_checker import check_events
>>> check_events(events)          # raises Violation naming the broken rule

See tests/rules_checker/README.md for every interpretation of an ambiguous rule.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.rules_checker.attack import LauncherReplay
from tests.rules_checker.cards import LAUNCHER_RULESETS, Violation
from tests.rules_checker.checker import GameReplay
from tests.rules_checker.pile import PileReplay
from tests.rules_checker.replay import show

__all__ = ["Violation", "check_events", "check_game", "check_log", "split_games"]


def split_games(events: list[dict[str, Any]]) -> list[tuple[list[int], list[dict[str, Any]]]]:
    """Cut a simulate log into games at each ``game_start`` (``sim_game`` lines dropped).

    Each game comes with the 1-based log line of each of its events, for messages.
    """
    games: list[tuple[list[int], list[dict[str, Any]]]] = []
    for line, event in enumerate(events, 1):
        if event["type"] == "sim_game":
            continue
        if event["type"] == "game_start":
            games.append(([], []))
        if not games:
            raise Violation(f"event before any game_start: {show(event)}")
        games[-1][0].append(line)
        games[-1][1].append(event)
    return games


def check_game(
    events: list[dict[str, Any]],
    lines: list[int] | None = None,
    *,
    unfinished_ok: bool = False,
    ignore: frozenset[str] = frozenset(),
) -> None:
    """Replay one game's events; raise :class:`Violation` at the first broken rule.

    ``unfinished_ok`` accepts a log that stops at a round end before the game is over,
    or at the start of a turn.
    ``ignore`` switches checks off by name (only ``"dealer"`` so far: the dealer pick
    of logs without the ``rounds`` field of re-turns), to look past a known finding.
    """
    start = events[0]
    family: type[GameReplay] = (
        LauncherReplay if start["ruleset"] in LAUNCHER_RULESETS else PileReplay
    )
    replay = family(events, start)
    replay.unfinished_ok = unfinished_ok
    replay.ignore = ignore
    try:
        replay.run()
        if replay.pos != len(events):
            raise Violation(f"events after game_end: {show(events[replay.pos])}")
    except Violation as error:
        at = min(replay.pos, len(events) - 1)
        line = lines[at] if lines else at + 1
        raise Violation(f"{error}\n  at log line {line}: {show(events[at])}") from None


def check_events(
    events: list[dict[str, Any]],
    *,
    unfinished_ok: bool = False,
    ignore: frozenset[str] = frozenset(),
) -> int:
    """Check every game of a log; return how many games were checked."""
    games = split_games(events)
    for lines, game in games:
        check_game(game, lines, unfinished_ok=unfinished_ok, ignore=ignore)
    return len(games)


def check_log(path: str | Path, *, ignore: frozenset[str] = frozenset()) -> int:
    """Check a JSON Lines log as written by ``uno-attack simulate --log FILE``."""
    with open(path, encoding="utf-8") as stream:
        events = [json.loads(line) for line in stream if line.strip()]
    return check_events(events, ignore=ignore)
