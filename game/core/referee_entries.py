"""What the table tells the referee (:class:`Entry`), and when (:class:`Phase`).

Kept apart from the state machine in :mod:`game.referee.referee` so each file stays
small; :mod:`game.referee.referee` re-exports everything here.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from game.core.cards import Card, Color
from game.core.errors import GameError


class IllegalEntry(GameError, ValueError):
    """An entry the rules or the known state forbid; nothing changed."""

    hint = "type ? for the entries the referee understands"


class Phase(StrEnum):
    START = "start"  #: waiting for the first card turned up
    PLAYING = "playing"  #: the current player plays a card or presses
    STACK = "stack"  #: Mega Hit stacking: the victim stacks a hit card or presses the total
    PLAY_AGAIN = "play_again"  #: after a Skip/Reverse: one more card, or 'done'
    SCORING = "scoring"  #: a round ended: enter the points left in each hand
    GAME_OVER = "game_over"


class Op(StrEnum):
    START = "start"  #: the card turned up to start the discard pile (+ colour if wild)
    PLAY = "play"  #: the current player plays a card
    PRESS = "press"  #: the current player presses once by choice (or cannot play); turn over
    DONE = "done"  #: decline playing again after a Skip/Reverse
    UNO = "uno"  #: a player calls UNO
    CATCH = "catch"  #: someone caught a player who did not call UNO
    HIT = "hit"  #: a player presses N times for a reason the table applies (custom card, penalty)
    FIX = "fix"  #: correct a hand size the launcher miscounted
    SCORE = "score"  #: points left in each hand at round end


@dataclass(frozen=True)
class Entry:
    """One thing the table tells the referee; journaled as a dict, replayed by Referee.apply."""

    op: Op
    card: Card | None = None
    color: Color | None = None
    seat: int | None = None  #: target / who calls / who is caught / who presses / whose hand
    count: int | None = None  #: extra cards discarded, presses, corrected hand size
    uno: bool = False  #: the player called UNO along with the card
    points: tuple[int, ...] = ()

    def to_record(self) -> dict[str, Any]:
        record: dict[str, Any] = {"op": self.op.value}
        if self.card is not None:
            record["card"] = self.card.code
        if self.color is not None:
            record["color"] = self.color.value
        for name in ("seat", "count"):
            if getattr(self, name) is not None:
                record[name] = getattr(self, name)
        if self.uno:
            record["uno"] = True
        if self.points:
            record["points"] = list(self.points)
        return record

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Entry:
        card = record.get("card")
        color = record.get("color")
        return cls(
            Op(record["op"]),
            card=Card.parse(card) if card else None,
            color=Color.parse(color) if color else None,
            seat=record.get("seat"),
            count=record.get("count"),
            uno=bool(record.get("uno", False)),
            points=tuple(record.get("points", ())),
        )


@dataclass
class Press:
    """One launcher press the referee made, for the table's display and the tests."""

    seat: int
    counted: int
    reason: str


ALLOWED = {
    Phase.START: {Op.START, Op.FIX},
    Phase.PLAYING: {Op.PLAY, Op.PRESS, Op.UNO, Op.CATCH, Op.HIT, Op.FIX},
    Phase.STACK: {Op.PLAY, Op.PRESS, Op.UNO, Op.CATCH, Op.HIT, Op.FIX},
    Phase.PLAY_AGAIN: {Op.PLAY, Op.DONE, Op.UNO, Op.CATCH, Op.HIT, Op.FIX},
    Phase.SCORING: {Op.SCORE, Op.FIX},
    Phase.GAME_OVER: set(),
}
PHASE_REASONS = {
    Phase.START: "the round has not started: enter the card turned up first",
    Phase.PLAYING: "enter the card played, 'press', 'uno NAME' or 'catch NAME'",
    Phase.STACK: "stack a hit card on it, or 'press' to take the hits",
    Phase.PLAY_AGAIN: "play one more card, or 'done'",
    Phase.SCORING: "the round is over: enter the points left in each hand",
    Phase.GAME_OVER: "the game is over",
}
