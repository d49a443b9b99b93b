"""What a seat can infer about the hidden hands from the public history: colours they lack.

A player who draws (presses) instead of playing held no card of the active
colour and no wild — at least a sensible one did (rules.md 2.3: you may only
draw when you cannot, or choose not to, play; the rule bot never holds back).
The cards they get afterwards are unconstrained. :func:`hand_constraints`
reads a seat's :meth:`~game.core.engine.Game.observation` history since the last
deal and returns, per seat, the colours it is believed to lack and how many of
its cards are exempt (got since). :func:`game.bots.search.determinize` deals
hidden cards to respect them when it can.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from game.core.cards import Card, Kind

#: The pseudo-colour for "holds no wild".
WILD = "W"


@dataclass
class Belief:
    """Colours (and ``W`` for wilds) one seat lacks, except in its ``fresh`` newest cards."""

    lacks: set[str] = field(default_factory=set)
    fresh: int = 0

    def allows(self, card: Card) -> bool:
        return (WILD if card.color is None else card.color.value) not in self.lacks


def _color_of(code: str) -> str | None:
    card = Card.parse(code)
    return None if card.color is None else card.color.value


def hand_constraints(history: Sequence[dict[str, Any]], players: int) -> list[Belief]:
    """Per seat, what it lacks, read from the history of the current round."""
    start = max((i for i, e in enumerate(history) if e["type"] == "deal"), default=-1)
    beliefs = [Belief() for _ in range(players)]
    active: str | None = None
    for event in history[start:] if start >= 0 else ():
        kind, seat = event["type"], int(event.get("player") or 0)
        if kind == "deal":
            active = _color_of(event["starter"])
        elif kind == "play":
            if event.get("reason") == "turn":
                _chose(beliefs[seat], event["card"], active)
            active = _played(beliefs[seat], event["card"], active)
        elif kind == "color":
            active = event["color"]
        elif kind == "draw":
            _drew(beliefs[seat], active)
        elif kind == "hit":
            beliefs[seat].fresh += len(event.get("cards", ())) or int(event.get("counted", 0))
        elif kind == "give":
            beliefs[event["to"]].fresh += 1
        elif kind == "trade":
            target = event["target"]
            beliefs[seat], beliefs[target] = beliefs[target], beliefs[seat]
        elif kind == "rotate":
            beliefs = [Belief() for _ in range(players)]
    return beliefs


def _played(belief: Belief, code: str, active: str | None) -> str | None:
    color = _color_of(code)
    if (WILD if color is None else color) in belief.lacks:
        belief.fresh = max(0, belief.fresh - 1)  # it can only have come from the fresh cards
    return color if color is not None else active


#: Wilds a sensible player spends only when no coloured card can be played.
PLAIN_WILDS = frozenset({Kind.WILD, Kind.WILD_DIP})


def _chose(belief: Belief, code: str, active: str | None) -> None:
    """A plain wild played on a turn shows no card of the active colour was held: a
    sensible player keeps plain wilds until nothing else fits (the rule bot always does).

    (A colour chosen for a wild, or a play that turns the colour, says little: in rule-bot
    games the player held none of that colour any more in a third of the later turns.)
    """
    if Card.parse(code).kind in PLAIN_WILDS and active is not None:
        belief.lacks = (belief.lacks - {WILD}) | {active} if belief.fresh == 0 else {active}
        belief.fresh = 0


def _drew(belief: Belief, active: str | None) -> None:
    lacks = {WILD} if active is None else {WILD, active}
    belief.lacks = belief.lacks | lacks if belief.fresh == 0 else lacks
    belief.fresh = 0
