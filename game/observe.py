"""What one seat may see, and how a game ended: value types for bots, search and learning.

:meth:`game.engine.Game.observation` builds an :class:`Observation` (the seat's
own hand, every hand's size, the top card, the history with other seats' hidden
cards removed); :meth:`game.engine.Game.outcome` an :class:`Outcome`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from game.moves import Decision

if TYPE_CHECKING:
    from game.steps import Engine

#: Event fields that show cards only their owner (or nobody) may see, by event type.
_PRIVATE = {"hit": "cards", "give": "card", "decision": "moves"}


class Termination(StrEnum):
    """Why a game ended (python-chess's ``Termination``); the values are the logged strings."""

    TARGET = "target"  #: a score reached the target
    ELIMINATION = "elimination"  #: the challenge game: one seat is left


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended (python-chess's ``Outcome``): the winner, the scores, the rounds."""

    winner: int
    scores: tuple[int, ...]
    rounds: int
    termination: Termination


@dataclass(frozen=True, slots=True)
class Observation:
    """Everything ``seat`` may know now; nothing about the other hands but their sizes."""

    seat: int
    hand: tuple[str, ...]
    hand_sizes: tuple[int, ...]
    top_card: str
    active_color: str | None
    direction: int
    pending: str
    decider: int
    legal_moves: tuple[str, ...]  #: empty unless ``seat`` decides
    scores: tuple[int, ...]
    pile_size: int
    history: tuple[dict[str, Any], ...]


def redact(event: dict[str, Any], seat: int) -> dict[str, Any]:
    """``event`` as ``seat`` saw it: other seats' dealt hands become sizes, hidden cards go."""
    kind = event["type"]
    if kind == "deal":
        hands = [hand if index == seat else len(hand) for index, hand in enumerate(event["hands"])]
        return {**event, "hands": hands, "loaded": len(event["loaded"])}
    private = _PRIVATE.get(kind)
    if private is None or private not in event:
        return event
    involved = event.get("player") == seat or event.get("to") == seat
    return event if involved else {k: v for k, v in event.items() if k != private}


def observe(game: Engine, seat: int) -> Observation:
    """What ``seat`` may see of ``game`` now (:meth:`game.engine.Game.observation`)."""
    mine = seat == game.decider and game.pending is not Decision.PRESS
    return Observation(
        seat=seat,
        hand=tuple(c.code for c in game.hand(seat)),
        hand_sizes=tuple(game.hand_sizes),
        top_card=game.discard[-1].code,
        active_color=game.active_color.value if game.active_color else None,
        direction=game.direction,
        pending=game.pending.value,
        decider=game.decider,
        legal_moves=tuple(str(m) for m in game.legal_moves()) if mine else (),
        scores=tuple(game.scores),
        pile_size=len(game.pile),
        history=tuple(redact(e, seat) for e in game.events),
    )
