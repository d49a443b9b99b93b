"""Terminal rendering for the table: cards in colour, the table state, launcher presses, help.

Everything here turns plain data into text; nothing reads input or knows the
rules engine. ANSI colour is used only when the output is a terminal (and
``NO_COLOR`` is not set), so logs, pipes and tests get plain text. Launcher
presses are animated with an injected ``sleep`` so tests and ``--delay 0`` run
at full speed.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, TextIO

from game.core.cards import Card, NotationError

RESET = "\x1b[0m"
CLEAR_SCREEN = "\x1b[2J\x1b[H"
ANSI_CODES = {
    "red": "1;31",
    "green": "1;32",
    "yellow": "1;33",
    "blue": "1;34",
    "wild": "1;35",
    "bold": "1",
    "dim": "2",
    "alert": "1;37;41",
}
COLOUR_NAMES = ("red", "green", "yellow", "blue")
ARROWS = {1: "→ clockwise", -1: "← counter-clockwise"}


def colour_of(card: Any) -> str | None:
    """The colour name of an engine card (``red``…), ``None`` for a wild or an unknown object."""
    value = getattr(card, "color", None) or getattr(card, "colour", None)
    return colour_name(value)


def colour_name(value: Any) -> str | None:
    """``Color.RED``, ``"R"``, ``"red"`` -> ``"red"``; anything else -> ``None``."""
    if value is None:
        return None
    name = value.name if isinstance(value, Enum) else str(getattr(value, "value", value))
    name = name.strip().lower()
    name = _LETTERS.get(name, name)
    return name if name in COLOUR_NAMES else None


_LETTERS = {name[0]: name for name in COLOUR_NAMES}


@dataclass(frozen=True)
class Painter:
    """Adds ANSI colour when ``enabled``; otherwise returns the text unchanged."""

    enabled: bool = False

    @classmethod
    def for_stream(cls, stream: TextIO) -> Painter:
        is_tty = bool(getattr(stream, "isatty", lambda: False)())
        return cls(is_tty and "NO_COLOR" not in os.environ)

    def paint(self, text: str, style: str | None) -> str:
        code = ANSI_CODES.get(style or "")
        if not self.enabled or code is None:
            return text
        return f"\x1b[{code}m{text}{RESET}"

    def card(self, card: Any, colour: str | None = None) -> str:
        """A card in its own colour (wilds in magenta)."""
        return self.paint(str(card), colour or colour_of(card) or "wild")

    def clear(self) -> str:
        """What clears the screen: the ANSI code on a terminal, a visible separator elsewhere."""
        return CLEAR_SCREEN if self.enabled else "\n" + "=" * 60 + "\n"


@dataclass(frozen=True)
class Seat:
    """One player as the table shows them to everyone."""

    name: str
    cards: int
    score: int = 0
    is_current: bool = False
    note: str = ""


@dataclass
class TableView:
    """What one person may see at their turn: the public table plus, optionally, their hand."""

    seats: Sequence[Seat]
    top: Any
    active_colour: str | None
    direction: int = 1
    round_number: int = 1
    target: int | None = None
    hand: Sequence[Any] | None = None
    viewer: str | None = None
    lines: list[str] = field(default_factory=list)


def render_table(view: TableView, painter: Painter) -> str:
    """Round and direction, every player's count and score, the top card, the viewer's hand."""
    target = f" · first to {view.target}" if view.target else ""
    out = [
        painter.paint(
            f"Round {view.round_number}{target} · play goes {ARROWS.get(view.direction, '?')}",
            "bold",
        )
    ]
    out += [_seat_line(seat, painter) for seat in view.seats]
    colour = view.active_colour or colour_of(view.top)
    colour_text = painter.paint(colour, colour) if colour else "any"
    title = getattr(view.top, "title", None)  # a Card's title; a placeholder text has none
    if not isinstance(title, str):
        title = None
    top = (
        painter.paint(f"{title} ({view.top})", colour_of(view.top) or "wild")
        if title
        else painter.card(view.top)
    )
    out.append(f"Top card: {top}   active colour: {colour_text}")
    if view.hand is not None:
        who = f"{view.viewer}'s" if view.viewer else "Your"
        out.append(f"{who} hand ({len(view.hand)}): {render_hand(view.hand, painter)}")
    out += view.lines
    return "\n".join(out)


def _seat_line(seat: Seat, painter: Painter) -> str:
    marker = "▶" if seat.is_current else " "
    plural = "card" if seat.cards == 1 else "cards"
    note = f"  {seat.note}" if seat.note else ""
    line = f" {marker} {seat.name:<12} {seat.cards:>3} {plural:<5}  score {seat.score:>4}{note}"
    return painter.paint(line, "bold") if seat.is_current else line


def render_hand(hand: Sequence[Any], painter: Painter) -> str:
    return "  ".join(painter.card(card) for card in hand) if hand else "(no cards)"


def render_menu(labels: Sequence[str], painter: Painter, *, title: str = "Your options") -> str:
    """A numbered list; the number or the text after it can be typed."""
    width = len(str(len(labels)))
    rows = [
        f"  {painter.paint(str(number).rjust(width), 'bold')}) {label}"
        for number, label in enumerate(labels, 1)
    ]
    return "\n".join([f"{title}:", *rows])


class PressAnimator:
    """Shows each launcher press as it happens: who presses, why, then how many cards flew.

    ``delay`` is the pause between animation frames (0 disables the animation);
    ``sleep`` is injected so tests never wait.
    """

    FRAMES = ("·", "·", "·")

    def __init__(
        self,
        out: TextIO,
        painter: Painter,
        *,
        delay: float = 0.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.out = out
        self.painter = painter
        self.delay = delay
        self.sleep = sleep

    def press(
        self,
        player: str,
        counted: int,
        reason: str = "",
        *,
        number: int | None = None,
        cards: Sequence[str] = (),
    ) -> None:
        """``cards``: what came out, shown only when the person at the screen is the presser."""
        why = f" ({reason}{f', press {number}' if number else ''})" if reason else ""
        self.out.write(f"  💥 {player} presses the launcher{why} ")
        if self.delay > 0:
            for frame in self.FRAMES:
                self.out.write(frame)
                self.out.flush()
                self.sleep(self.delay)
            self.out.write(" ")
        yours = f" Yours: {' '.join(cards)}" if cards else ""
        self.out.write(self._result(counted) + yours + "\n")
        self.out.flush()

    def _result(self, counted: int) -> str:
        if counted == 0:
            return "nothing came out."
        plural = "card" if counted == 1 else "cards"
        return self.painter.paint(f"{counted} {plural} flew out!", "bold")


#: What each action card does, keyed by the words people use for it (see :func:`card_help`).
CARD_HELP: dict[str, str] = {
    "number": "Match it by colour or by number.",
    "skip": "The next player loses their turn.",
    "reverse": "Play changes direction. With two players it acts as a Skip.",
    "hit1": "The next player presses the launcher once; their turn is over.",
    "hit2": "The next player presses the launcher twice; their turn is over.",
    "discard-all": "Discard every card of this card's colour from your hand with it.",
    "trade-hands": "Swap your whole hand with a player you choose. You cannot go out on it.",
    "wild": "Choose the colour to play next. Playable on anything.",
    "wild-hit4": "Choose a colour; the next player presses the launcher 4 times.",
    "wild-attack-attack": "Choose a colour and a player, who presses twice. Play moves on.",
    "wild-hit-fire": "Choose a colour; the next player presses until cards fly, then loses a turn.",
    "wild-all-hit": "Choose a colour; each other player presses once, in seat order from the left.",
    "wild-customizable": "Its action is what your table wrote on it (the custom-card file).",
    "draw1": "The next player draws one card and loses the turn.",
    "draw2": "The next player draws two cards and loses the turn.",
    "wild-draw4": "Choose a colour; the next player draws 4 and loses the turn. Only legal "
    "with no card of the active colour; the next player may challenge "
    "(guilty: you draw 4; innocent: they draw 6).",
    "wild-draw2": "Choose a colour; the next player draws 2 and loses the turn. They may challenge "
    "(if you could have played another card you draw 2, otherwise they draw 4).",
    "wild-dip": "Choose a colour, draw one card, then pass any card to the next player.",
    "uno": "Type 'uno' when you play your next-to-last card, or be caught and hit the penalty.",
    "catch": "Catch a player who has one card and did not call UNO, before the next player begins.",
}
_HELP_ALIASES = {
    "hit-2": "hit2",
    "hit-1": "hit1",
    "+2": "draw2",
    "draw-two": "draw2",
    "discard": "discard-all",
    "trade": "trade-hands",
    "hit4": "wild-hit4",
    "attack": "wild-attack-attack",
    "attack-attack": "wild-attack-attack",
    "hit-fire": "wild-hit-fire",
    "all-hit": "wild-all-hit",
    "customizable": "wild-customizable",
    "custom": "wild-customizable",
    "draw4": "wild-draw4",
    "+4": "wild-draw4",
    "dip": "wild-dip",
    "wild-dip-into-the-deck": "wild-dip",
    "draw-one": "draw1",
    "wild-draw-four": "wild-draw4",
    "wild-draw-2": "wild-draw2",
    "wild-hit-4": "wild-hit4",
}
#: Entries of the help screen that are calls, not cards: every ruleset has them.
CALLS = ("uno", "catch")


def card_help(topic: str) -> str | None:
    """Help for an action card named loosely (``hit 2``, ``Wild Attack-Attack``, ``+4``)."""
    try:  # a card code (``WAA``, ``RH2``) names its card
        topic = Card.parse(topic.strip()).kind.title
    except NotationError:
        pass
    key = topic.strip().lower().replace("_", "-").replace(" ", "-")
    key = _HELP_ALIASES.get(key, key)
    if key in CARD_HELP:
        return CARD_HELP[key]
    if key.startswith("wild-") and key[5:] in _HELP_ALIASES:
        return CARD_HELP.get(_HELP_ALIASES[key[5:]])
    return None


def render_help(topics: Sequence[str] = (), cards: Iterable[str] | None = None) -> str:
    """The full help screen, or help for the topics asked about.

    ``cards`` (the titles of the kinds in the game's deck) keeps the screen to the
    cards of this ruleset; without it every action card is listed.
    """
    if topics:
        found = [(topic, card_help(topic)) for topic in topics]
        return "\n".join(
            f"  {topic}: {text or 'no help for that; type ? for the list'}" for topic, text in found
        )
    shown = None if cards is None else {card_help(title) for title in cards}
    rows = [
        f"  {name:<19} {text}"
        for name, text in CARD_HELP.items()
        if shown is None or text in shown or name in CALLS
    ]
    return "\n".join(["Action cards and calls:", *rows])
