"""Cards and their compact notation (``docs/notation.md``).

A card is a colour (or none, for wilds), a :class:`Kind` and, for number
cards, a number. Its text form is the colour letter followed by the kind's
code: ``R7``, ``BS`` (blue Skip), ``GR`` (green Reverse), ``Y+2`` (yellow
Draw Two), ``RH2`` (red Hit 2), ``BDA`` (blue Discard All); wilds start with
``W``: ``W``, ``W+4``, ``WAA`` (Wild Attack-Attack)… ``Card.parse(str(c)) == c``.

Cards are interned: there is exactly one ``Card`` object per distinct card, so
two red sevens in a deck are the same object, and equality and hashing are
identity (C speed in the engine's hot loops). Nothing ever iterates a set of
cards, so no order depends on object addresses.

Cards have no order of their own (``card < other`` raises ``TypeError``): sort them
with ``key=sort_key`` (display order: colour, kind, number) or by ``Card.display``,
the same order as one int. The class defines no comparison method on purpose: any
one written in Python (``__lt__`` for ``sorted(cards)``) gives it a Python-level
comparison slot, and then every ``==`` between two different cards — each card
``hand.remove(card)``, ``card in hand`` or ``hand.index(card)`` passes over — costs
a Python call (about 1,300 instructions) instead of ``object``'s C comparison
(docs/performance.md, "Cards compare in C").
"""

from __future__ import annotations

import functools
from enum import StrEnum
from operator import attrgetter
from typing import Any, ClassVar

from game.core.errors import GameError


class NotationError(GameError, ValueError):
    """A card or move written in a notation we cannot read."""

    hint = "docs/notation.md lists every card code (R7, BS, Y+2, RH2, W+4, WAA…)"


class Color(StrEnum):
    """The four suit colours; the value is the one-letter code used in notation."""

    RED = "R"
    BLUE = "B"
    GREEN = "G"
    YELLOW = "Y"

    def __str__(self) -> str:
        return self.value

    @classmethod
    def parse(cls, text: str) -> Color:
        try:
            return _COLOR_BY_TEXT[text.strip().lower()]
        except KeyError:
            raise NotationError(f"unknown colour {text!r}: expected R, B, G or Y") from None


_COLOR_BY_TEXT = {c.value.lower(): c for c in Color} | {c.name.lower(): c for c in Color}
COLORS: tuple[Color, ...] = tuple(Color)


class Kind(StrEnum):
    """What a card is; the value is its code after the colour letter (wilds: the whole code)."""

    NUMBER = "#"
    SKIP = "S"
    REVERSE = "R"
    DRAW_ONE = "+1"
    DRAW_TWO = "+2"
    HIT_ONE = "H1"
    HIT_TWO = "H2"
    DISCARD_ALL = "DA"
    TRADE_HANDS = "TH"
    WILD = "W"
    WILD_DRAW_FOUR = "W+4"
    WILD_DRAW_TWO = "W+2"
    WILD_DIP = "WD"
    WILD_HIT_FOUR = "WH4"
    WILD_ATTACK_ATTACK = "WAA"
    WILD_ALL_HIT = "WAH"
    WILD_HIT_FIRE = "WHF"
    WILD_CUSTOM = "WC"

    @property
    def is_wild(self) -> bool:
        return self.value.startswith("W")

    @property
    def title(self) -> str:  # type: ignore[override]  # a name, not str.title()
        """Human name of the kind: ``Hit 2``, ``Wild Attack-Attack``."""
        return _TITLES[self]

    @property
    def label(self) -> str:
        """Same as :attr:`title` (which shadows ``str.title``)."""
        return _TITLES[self]


_TITLES = {
    Kind.NUMBER: "number",
    Kind.SKIP: "Skip",
    Kind.REVERSE: "Reverse",
    Kind.DRAW_ONE: "Draw One",
    Kind.DRAW_TWO: "Draw Two",
    Kind.HIT_ONE: "Hit 1",
    Kind.HIT_TWO: "Hit 2",
    Kind.DISCARD_ALL: "Discard All",
    Kind.TRADE_HANDS: "Trade Hands",
    Kind.WILD: "Wild",
    Kind.WILD_DRAW_FOUR: "Wild Draw Four",
    Kind.WILD_DRAW_TWO: "Wild Draw 2",
    Kind.WILD_DIP: "Wild Dip Into The Deck",
    Kind.WILD_HIT_FOUR: "Wild Hit 4",
    Kind.WILD_ATTACK_ATTACK: "Wild Attack-Attack",
    Kind.WILD_ALL_HIT: "Wild All Hit",
    Kind.WILD_HIT_FIRE: "Wild Hit-Fire",
    Kind.WILD_CUSTOM: "Wild Customizable",
}
_WILD_BY_CODE = {k.value: k for k in Kind if k.is_wild}
_COLORED_BY_CODE = {k.value: k for k in Kind if not k.is_wild and k is not Kind.NUMBER}


_KIND_ORDER = {k: i for i, k in enumerate(Kind)}
_COLOR_ORDER = {None: 4} | {c: i for i, c in enumerate(COLORS)}


def _display_rank(kind: Kind, color: Color | None, number: int | None) -> int:
    """:func:`sort_key` packed into one int (fewer than 100 kinds, numbers 0-9): same order."""
    return (_COLOR_ORDER[color] * 100 + _KIND_ORDER[kind]) * 10 + (number or 0)


class Card:
    """One card face, immutable and interned: ``Card(kind, color, number)`` or ``Card.parse``."""

    __slots__ = ("kind", "color", "number", "code", "index", "display")
    _interned: ClassVar[dict[tuple[Kind, Color | None, int | None], Card]] = {}

    kind: Kind
    color: Color | None
    number: int | None
    code: str
    index: int
    #: The card's place in display order (:func:`sort_key` as one int): a sort key read in C.
    display: int

    def __new__(cls, kind: Kind, color: Color | None = None, number: int | None = None) -> Card:
        key = (kind, color, number)
        card = cls._interned.get(key)
        if card is None:
            _validate(kind, color, number)
            card = object.__new__(cls)
            code = _code(kind, color, number)
            for name, value in (
                ("kind", kind),
                ("color", color),
                ("number", number),
                ("code", code),
            ):
                object.__setattr__(card, name, value)
            object.__setattr__(card, "index", len(cls._interned))
            object.__setattr__(card, "display", _display_rank(kind, color, number))
            cls._interned[key] = card
        return card

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("cards are immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        return (Card.parse, (self.code,))

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card({self.code!r})"

    @property
    def is_wild(self) -> bool:
        return self.color is None

    @property
    def title(self) -> str:
        """Human name: ``red 7``, ``blue Skip``, ``Wild Attack-Attack``."""
        if self.color is None:
            return self.kind.label
        what = str(self.number) if self.kind is Kind.NUMBER else self.kind.label
        return f"{self.color.name.lower()} {what}"

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read ``R7``, ``bs``, ``Y+2``, ``WAA``…; raises :class:`NotationError` otherwise."""
        card = _PARSE_CACHE.get(text)
        if card is None:
            card = _parse(text)
            _PARSE_CACHE[text] = card
        return card


_PARSE_CACHE: dict[str, Card] = {}


def _code(kind: Kind, color: Color | None, number: int | None) -> str:
    if color is None:
        return kind.value
    return f"{color.value}{number if kind is Kind.NUMBER else kind.value}"


def _validate(kind: Kind, color: Color | None, number: int | None) -> None:
    if kind.is_wild:
        if color is not None or number is not None:
            raise NotationError(f"a {kind.label} has no colour and no number")
        return
    if color is None:
        raise NotationError(f"a {kind.label} card needs a colour")
    if kind is Kind.NUMBER:
        if number is None or not 0 <= number <= 9:
            raise NotationError(f"number cards carry 0-9, not {number!r}")
    elif number is not None:
        raise NotationError(f"a {kind.label} card has no number")


_DIGITS = "0123456789"


def _parse(text: str) -> Card:
    code = text.strip().upper()
    if not code:
        raise NotationError("empty card notation")
    if code[0] == "W":
        kind = _WILD_BY_CODE.get(code)
        if kind is None:
            raise NotationError(
                f"unknown wild card {text!r}: expected one of {', '.join(_WILD_BY_CODE)}"
            )
        return Card(kind)
    color = Color.parse(code[0]) if code[0] in "RBGY" else None
    if color is None:
        raise NotationError(
            f"card {text!r} must start with a colour R, B, G, Y or with W for a wild"
        )
    rest = code[1:]
    if len(rest) == 1 and rest in _DIGITS:  # not str.isdecimal(): it is true of "¹" and "٣"
        return Card(Kind.NUMBER, color, int(rest))
    kind = _COLORED_BY_CODE.get(rest)
    if kind is None:
        raise NotationError(
            f"unknown card {text!r}: after the colour expected 0-9 or "
            f"one of {', '.join(_COLORED_BY_CODE)}"
        )
    return Card(kind, color)


def sort_key(card: Card) -> tuple[int, int, int]:
    """Display order: by colour (R, B, G, Y, wilds), then kind, then number."""
    return (_COLOR_ORDER[card.color], _KIND_ORDER[card.kind], card.number or 0)


#: :func:`sort_key`'s order as a key read in C (:attr:`Card.display`): for sorts on a hot path,
#: such as the cards of every reload (a Python key function is a call per card).
by_display = attrgetter("display")


def parse_cards(text: str) -> list[Card]:
    """Read a space- or comma-separated list of cards: ``"R7 BS W+4"``."""
    return [Card.parse(part) for part in text.replace(",", " ").split()]


def format_cards(cards: Any) -> str:
    return " ".join(card.code for card in cards)


def all_cards() -> list[Card]:
    """Every distinct card face the notation can express (built once; every game asks)."""
    return list(_all_card_faces())


@functools.cache
def _all_card_faces() -> tuple[Card, ...]:
    out = [Card(k) for k in Kind if k.is_wild]
    for color in COLORS:
        out += [Card(Kind.NUMBER, color, n) for n in range(10)]
        out += [Card(k, color) for k in Kind if not k.is_wild and k is not Kind.NUMBER]
    return tuple(out)
