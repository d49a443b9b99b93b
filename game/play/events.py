"""The event log: what happened in a game, one JSON object per event (JSON Lines).

The engine emits plain dicts with a ``type`` key (``Game.events``, and the
``on_event`` callback as each happens). Cards are written in card notation.
The log is complete enough to replay a game and account for every card
(``tests/event_checker.py`` does exactly that):

==============  ==============================================================================
``game_start``  ruleset, players, options, launcher, deck; with ``--custom``: custom (the
                Wild Customizable's steps) and custom_file (the file's text). No seed: the
                seed is secret (it rebuilds every hand); the journal header keeps it
``dealer``      seat (first dealer), turned (the last card each player turned), rounds (every
                turn-up in order: all players, then each re-turn of the tied ones)
``deal``        round, dealer, hands, starter, returned (cards put back), loaded (bottom first;
                secret: a seat's observation keeps only its own hand and the counts)
``play``        player, card, reason (turn, drawn, play-again, stack, jump-in)
``decision``    player, decision (color, target, challenge, stack, drawn, play_again, give),
                moves (the moves offered, in notation)
``color``       player, color                ``target``  player, target
``draw``        player (chose to draw / press once)
``hit``         player, reason (draw, hit1, hit2, hit4, draw1, draw2, draw4, attack, all-hit,
                hit-fire,
                uno-penalty, challenge, suggestion-penalty…), cards, counted — one per press
``reload``      cards (the discard pile except its top card, in card order: which cards go in
                is public, the order they were shuffled into is secret and never logged)
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

``Game.events`` is the game's complete record and holds secrets (every hand, the
launcher's loaded order): ``simulate --log`` writes it to a 0600 file. What a seat may see
of it is :meth:`Game.observation(seat).history <game.core.engine.Game.observation>`
(:func:`game.core.observe.redact`); the web table sends :func:`game.tables.web.views.public_event`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any, Literal, TypedDict

from game.core.errors import GameError


# -- the typed contract: one TypedDict per event type (tests/test_events.py checks every
# event of real games against it; ``dict[str, Any]`` stays the runtime type, JSON-ready).
class _GameStart(TypedDict):
    type: Literal["game_start"]
    ruleset: str
    players: list[str]
    options: dict[str, Any]
    launcher: str
    deck: list[str]


class GameStart(_GameStart, total=False):
    seed: int | None  #: only in logs written before the seed became secret
    custom: list[str]  #: with ``--custom``: the Wild Customizable's steps
    custom_file: str | None  #: and the file's text


class Dealer(TypedDict):
    type: Literal["dealer"]
    seat: int
    turned: dict[int, str]
    rounds: list[dict[int, str]]


class _Deal(TypedDict):
    type: Literal["deal"]
    round: int
    dealer: int
    hands: list[list[str]]
    starter: str
    returned: list[str]
    loaded: list[str]


class Deal(_Deal, total=False):
    position: bool  #: a position set up by ``set_position``


class Play(TypedDict):
    type: Literal["play"]
    player: int
    card: str
    reason: str


class DecisionOffered(TypedDict):
    type: Literal["decision"]
    player: int
    decision: str
    moves: list[str]


class ColorChosen(TypedDict):
    type: Literal["color"]
    player: int
    color: str


class TargetChosen(TypedDict):
    type: Literal["target"]
    player: int
    target: int


class PlayerEvent(TypedDict):
    """``draw``, ``accept``, ``pass``: only the player."""

    type: Literal["draw", "accept", "pass"]
    player: int


class Hit(TypedDict):
    type: Literal["hit"]
    player: int
    reason: str
    cards: list[str]
    counted: int


class Reload(TypedDict):
    type: Literal["reload"]
    cards: list[str]


class _Skip(TypedDict):
    type: Literal["skip"]
    player: int


class Skip(_Skip, total=False):
    reason: str  #: accept, challenge, take, draw-card (not a Skip/Hit card)


class Reverse(TypedDict):
    type: Literal["reverse"]
    direction: int


class Discard(TypedDict):
    type: Literal["discard"]
    player: int
    cards: list[str]


class Trade(TypedDict):
    type: Literal["trade"]
    player: int
    target: int


class Give(TypedDict):
    type: Literal["give"]
    player: int
    to: int
    card: str


class Rotate(TypedDict):
    type: Literal["rotate"]
    direction: int
    seats: list[int]


class Uno(TypedDict):
    type: Literal["uno"]
    player: int
    by: int
    caught: bool


class Challenge(TypedDict):
    type: Literal["challenge"]
    player: int
    accused: int
    guilty: bool
    hand: list[str]


class Take(TypedDict):
    type: Literal["take"]
    player: int
    presses: int


class RoundEnd(TypedDict):
    type: Literal["round_end"]
    round: int
    winner: int | None
    reason: str
    held: list[int]
    gained: list[int]
    scores: list[int]
    hands: list[list[str]]
    turns: int
    eliminated: list[int]


class GameEnd(TypedDict):
    type: Literal["game_end"]
    winner: int
    scores: list[int]
    rounds: int


#: The schema of each event type.
SCHEMAS: dict[str, type] = {
    "game_start": GameStart,
    "dealer": Dealer,
    "deal": Deal,
    "play": Play,
    "decision": DecisionOffered,
    "color": ColorChosen,
    "target": TargetChosen,
    "draw": PlayerEvent,
    "accept": PlayerEvent,
    "pass": PlayerEvent,
    "hit": Hit,
    "reload": Reload,
    "skip": Skip,
    "reverse": Reverse,
    "discard": Discard,
    "trade": Trade,
    "give": Give,
    "rotate": Rotate,
    "uno": Uno,
    "challenge": Challenge,
    "take": Take,
    "round_end": RoundEnd,
    "game_end": GameEnd,
}


def schema_problem(event: dict[str, Any]) -> str | None:
    """Why ``event`` does not fit its type's schema (missing or unknown fields), or None."""
    schema = SCHEMAS.get(event.get("type", ""))
    if schema is None:
        return f"unknown event type {event.get('type')!r}"
    required = schema.__required_keys__  # type: ignore[attr-defined]
    allowed = required | schema.__optional_keys__  # type: ignore[attr-defined]
    missing, unknown = required - event.keys(), event.keys() - allowed
    if missing or unknown:
        return f"{event['type']}: missing {sorted(missing)}, unknown {sorted(unknown)}"
    return None


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


#: ``json.dumps(..., separators=(",", ":"))`` builds this encoder on every call; a log has
#: a hundred thousand events, so it is built once.
_COMPACT = json.JSONEncoder(separators=(",", ":"))


def dumps(event: dict[str, Any]) -> str:
    """One event as one compact JSON line (no newline)."""
    return _COMPACT.encode(event)


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
