"""Cards, decks and points, written from rules.md alone (not from the engine).

Card notation follows docs/notation.md: a coloured card is its colour letter and its
code (``R7``, ``GS``, ``B+2``, ``YH1``, ``RDA``), a wild is its code alone (``W``,
``W+4``, ``WAA``...). The deck of every ruleset is rebuilt here from the tables of
rules.md (2.1 columns A/B/C, 3.1, 4.1) so the checker can tell a deck the engine got
wrong from one it got right.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

COLORS = ("R", "B", "G", "Y")
WILD_CODES = ("W", "W+4", "W+2", "WD", "WH4", "WAA", "WAH", "WHF", "WC")
COLORED_CODES = ("S", "R", "+1", "+2", "H1", "H2", "DA", "TH")
LAUNCHER_RULESETS = ("attack", "attack-original", "attack-mega-hit")
RULESETS = LAUNCHER_RULESETS + ("classic", "pocket")


class Violation(AssertionError):
    """A rule of rules.md broken by a game log; the message names the clause."""


@dataclass(frozen=True)
class Card:
    """One card: ``color`` is None for a wild; ``rank`` is the digit or the code."""

    code: str
    color: str | None
    rank: str

    @property
    def is_wild(self) -> bool:
        return self.color is None

    @property
    def number(self) -> int | None:
        return int(self.rank) if self.rank.isdigit() else None


def parse(code: str) -> Card:
    """Parse card notation; an unknown card is a violation (a card was invented)."""
    text = str(code).upper()
    if text in WILD_CODES:
        return Card(text, None, text)
    if len(text) >= 2 and text[0] in COLORS:
        rank = text[1:]
        if (rank.isdigit() and len(rank) == 1) or rank in COLORED_CODES:
            return Card(text, text[0], rank)
    raise Violation(f"unknown card {code!r} (docs/notation.md)")


def points(code: str) -> int:
    """Points of a card left in a hand (rules.md 2.5, 3.3, 4.3)."""
    card = parse(code)
    if card.number is not None:
        return card.number
    if card.rank in ("S", "R", "H1", "H2", "+1", "+2"):
        return 20
    if card.rank in ("DA", "TH"):
        return 30
    if card.rank == "WH4":
        return 40
    return 50


def hand_points(codes: list[str]) -> int:
    return sum(points(code) for code in codes)


def _colored(counts: dict[str, int]) -> Counter[str]:
    deck: Counter[str] = Counter()
    for color in COLORS:
        for rank, count in counts.items():
            deck[color + rank] += count
    return deck


def _numbers(low: int, copies: int) -> dict[str, int]:
    return {str(n): copies for n in range(low, 10)}


def deck_for(ruleset: str, wilds: int | None = None) -> Counter[str]:
    """The deck of a ruleset as a multiset of card codes (rules.md 2.1, 3.1, 4.1)."""
    if ruleset == "attack":  # column C
        deck = _colored({**_numbers(1, 2), "H2": 2, "R": 1, "S": 2, "DA": 2})
        deck.update({"W": 4, "WAA": 4, "WC": 3, "WH4": 1})
    elif ruleset == "attack-original":  # column A
        deck = _colored({**_numbers(1, 2), "H2": 2, "R": 2, "S": 2, "DA": 1, "TH": 1})
        deck.update({"W": 4, "WAH": 2, "WHF": 2})
    elif ruleset == "attack-mega-hit":  # column B
        deck = _colored({**_numbers(1, 2), "H2": 2, "H1": 1, "R": 1, "S": 2, "DA": 2})
        deck.update({"W": 4, "WAA": 4})
    elif ruleset == "classic":  # 3.1: one 0, two of 1-9, 2 Draw Two/Reverse/Skip
        deck = _colored({"0": 1, **_numbers(1, 2), "+2": 2, "R": 2, "S": 2})
        deck.update({"W": 8 if wilds is None else wilds, "W+4": 4})
    elif ruleset == "pocket":  # 4.1: the 51 named cards
        deck = _colored({**_numbers(1, 1), "+1": 1, "S": 1, "R": 1})
        deck.update({"W": 1, "WD": 1, "W+2": 1})
    else:
        raise Violation(f"unknown ruleset {ruleset!r} (rules.md 1)")
    if wilds is not None and ruleset != "classic":
        deck["W"] = wilds
    return +deck


def matches(card: Card, top: Card, active_color: str | None) -> bool:
    """Colour, number or symbol match, or a wild (rules.md 2.3, 3.2)."""
    if card.is_wild:
        return True
    if card.color == active_color:
        return True
    return not top.is_wild and card.rank == top.rank


def dealer_value(code: str) -> int:
    """Dealer pick: the highest number deals, action cards count as 0 (rules.md 2.2)."""
    return parse(code).number or 0
