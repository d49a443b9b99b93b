"""The event log: what happened in a game, one JSON object per event (JSON Lines).

The engine emits plain dicts with a ``type`` key (``Game.events``, and the
``on_event`` callback as each happens). Cards are written in card notation.
The log is complete enough to replay a game and account for every card
(``tests/event_checker.py`` does exactly that):

==============  ==============================================================================
``game_start``  ruleset, players, seed, options, launcher, deck; with ``--custom``: custom (the
                Wild Customizable's steps) and custom_file (the file's text)
``dealer``      seat (first dealer), turned (the last card each player turned), rounds (every
                turn-up in order: all players, then each re-turn of the tied ones)
``deal``        round, dealer, hands, starter, returned (cards put back), loaded (bottom first)
``play``        player, card, reason (turn, drawn, play-again, stack, jump-in)
``decision``    player, decision (color, target, challenge, stack, drawn, play_again, give),
                moves (the moves offered, in notation)
``color``       player, color                ``target``  player, target
``draw``        player (chose to draw / press once)
``hit``         player, reason (draw, hit1, hit2, hit4, draw1, draw2, draw4, attack, all-hit,
                hit-fire,
                uno-penalty, challenge, suggestion-penalty…), cards, counted — one per press
``reload``      cards (the discard pile except its top card, shuffled, loaded bottom first)
``skip``        player, reason (only when not a Skip/Hit card: accept, challenge, take, draw-card)
``reverse``     direction (1 = left/clockwise, -1 = right)
``discard``     player, cards (Discard All: put under the Discard All on the pile)
``trade``       player, target    ``give``  player, to, card
``rotate``      direction, seats (7-0 zero: every hand in play moves one seat)
``uno``         player, by, caught (False: the player called UNO; True: ``by`` caught them)
``challenge``   player (challenger), accused, guilty, hand (the accused's hand, shown)
``accept``      player            ``take``  player, presses (took a stack)      ``pass``  player
``round_end``   round, winner, reason, held (points in each hand), gained, scores, hands, turns,
                eliminated (seats knocked out, ``scoring=elimination``)
``game_end``    winner, scores, rounds
==============  ==============================================================================

Simulation logs add ``{"type": "sim_game", "game": i, "seed": s}`` before each game.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from game.errors import GameError

EVENT_TYPES = (
    "game_start",
    "dealer",
    "deal",
    "play",
    "decision",
    "color",
    "target",
    "draw",
    "hit",
    "reload",
    "skip",
    "reverse",
    "discard",
    "trade",
    "rotate",
    "give",
    "uno",
    "challenge",
    "accept",
    "take",
    "pass",
    "round_end",
    "game_end",
)


def dumps(event: dict[str, Any]) -> str:
    """One event as one compact JSON line (no newline)."""
    return json.dumps(event, separators=(",", ":"))


def write_jsonl(events: Iterable[dict[str, Any]], stream: IO[str]) -> int:
    """Write events one per line; returns how many."""
    count = 0
    for event in events:
        stream.write(dumps(event) + "\n")
        count += 1
    return count


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    """Read a log; a malformed line is an error naming the file and line."""
    events = []
    with open(path, encoding="utf-8") as stream:
        for number, line in enumerate(stream, 1):
            if not line.strip():
                continue
            try:
                event = json.loads(line)
            except json.JSONDecodeError as error:
                raise GameError(f"{path}:{number}: not a JSON event ({error.msg})") from None
            if not isinstance(event, dict) or "type" not in event:
                raise GameError(f'{path}:{number}: an event must be an object with a "type"')
            events.append(event)
    return events


def format_event(event: dict[str, Any]) -> str:
    """One line of plain English for an event (transcripts, golden files, narration)."""
    kind = event["type"]
    formatter = _FORMATS.get(kind)
    if formatter is not None:
        return formatter(event)
    details = " ".join(f"{k}={v}" for k, v in event.items() if k != "type")
    return f"{kind} {details}".rstrip()


def _cards(codes: list[str]) -> str:
    return " ".join(codes) if codes else "nothing"


_FORMATS: dict[str, Any] = {
    "deal": lambda e: (
        f"round {e['round']}: P{e['dealer']} deals, starter {e['starter']}"
        + (f" (returned {' '.join(e['returned'])})" if e["returned"] else "")
    ),
    "play": lambda e: (
        f"P{e['player']} plays {e['card']}" + ("" if e["reason"] == "turn" else f" ({e['reason']})")
    ),
    "color": lambda e: f"P{e['player']} chooses {e['color']}",
    "target": lambda e: f"P{e['player']} aims at P{e['target']}",
    "draw": lambda e: f"P{e['player']} draws",
    "decision": lambda e: f"P{e['player']} decides {e['decision']}: {' '.join(e['moves'])}",
    "hit": lambda e: f"P{e['player']} presses ({e['reason']}): {_cards(e['cards'])}",
    "reload": lambda e: f"launcher reloaded with {len(e['cards'])} cards",
    "skip": lambda e: (
        f"P{e['player']} is skipped" + (f" ({e['reason']})" if e.get("reason") else "")
    ),
    "reverse": lambda e: "play goes " + ("left" if e["direction"] == 1 else "right"),
    "discard": lambda e: f"P{e['player']} discards {_cards(e['cards'])}",
    "trade": lambda e: f"P{e['player']} trades hands with P{e['target']}",
    "give": lambda e: f"P{e['player']} gives {e['card']} to P{e['to']}",
    "uno": lambda e: (
        f"P{e['by']} catches P{e['player']} without UNO" if e["caught"] else f"P{e['player']}: UNO!"
    ),
    "challenge": lambda e: (
        f"P{e['player']} challenges P{e['accused']}: " + ("guilty" if e["guilty"] else "innocent")
    ),
    "round_end": lambda e: (
        f"round {e['round']} won by "
        + (f"P{e['winner']}" if e["winner"] is not None else "nobody")
        + f", scores {e['scores']}"
    ),
    "game_end": lambda e: f"game won by P{e['winner']}, scores {e['scores']}",
}
