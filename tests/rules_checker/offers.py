"""``decision`` events (newer logs): what the engine offered must be legal, and taken.

The engine logs the exact list of moves it offered when it stopped for anything other
than an ordinary turn. Every offered card must be in the chooser's hand and playable
there (a matching card for ``drawn`` / ``play_again``, a stack card for ``stack``);
every offered target another seat in play; and the move then made must be one of them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.rules_checker.cards import Violation, parse
from tests.rules_checker.table import Table

Event = dict[str, Any]
SKIP_TYPES = ("uno", "reload", "press_due", "decision")


def move_of(event: Event) -> str | None:
    """The move notation of an event that answers a decision (docs/notation.md)."""
    kind = event["type"]
    if kind == "play":
        return str(event["card"])
    if kind == "color":
        return f"color:{event['color']}"
    if kind == "target":
        return f"target:{event['target']}"
    if kind == "give":
        return f"give:{event['card']}"
    if kind in ("challenge", "accept", "pass", "take"):
        return str(kind)
    return None


Playable = Callable[[str, int], bool]


def check_offer(
    offer: Event, answer: Event, table: Table, stack_ranks: set[str], playable: Playable
) -> None:
    seat, kind = offer["player"], offer["decision"]
    moves = [str(m).removeprefix("play:") for m in offer.get("moves", [])]
    for move in moves:
        check_move(seat, kind, move, table, stack_ranks, playable)
    made = move_of(answer)
    if answer["type"].startswith("<hand changed"):
        return
    if made is None or answer.get("player") != seat or made not in moves:
        raise Violation(f"P{seat} was offered {kind} {moves}; the log continues with {answer}")


def check_move(
    seat: int, kind: str, move: str, table: Table, stack_ranks: set[str], playable: Playable
) -> None:
    if move in ("challenge", "accept", "pass", "take", "draw") or move.startswith("color:"):
        return
    if move.startswith("target:"):
        target = int(move.split(":")[1])
        if target == seat or target not in table.in_play:
            raise Violation(f"P{seat} is offered {move}: a card never acts on its own player")
        return
    code = move.split(":", 1)[1] if move.startswith("give:") else move
    if code not in table.hands[seat]:
        raise Violation(f"P{seat} is offered {move} but does not hold {code}")
    card = parse(code)
    if kind in ("drawn", "play_again") and not playable(code, seat):
        raise Violation(f"P{seat} is offered {move} ({kind}), which does not match the pile")
    if kind == "stack" and card.rank not in stack_ranks:
        raise Violation(f"P{seat} is offered {move} to stack, which is not a stack card")


def answer_after(events: list[Event], index: int) -> Event:
    for event in events[index + 1 :]:
        if event["type"] == "uno" and event.get("caught"):
            return {"type": "<hand changed by a penalty: the offer is stale>"}
        penalty = event.get("reason") in ("uno-penalty", "suggestion-penalty")
        if event["type"] not in SKIP_TYPES and not (event["type"] == "hit" and penalty):
            return event
    return {"type": "<end of log>"}
