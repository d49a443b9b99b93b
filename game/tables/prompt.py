"""Reading what people type: parse, explain what was wrong, ask the same question again.

Nothing typed at the table is ever lost or fatal. Every parser here either
returns a value or raises :class:`InputRejected` with a reason written for the
person at the keyboard; :func:`ask` prints the reason and repeats the same
question. End of input (Ctrl-D) raises :class:`QuitRequested`, as does typing
``quit``, so the caller can close the journal and say how to resume.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from game.core.cards import Card, Color, Kind, NotationError
from game.referee.referee import Entry, Op
from hardware.errors import ConfigError, UnoAttackError

T = TypeVar("T")
QUIT_WORDS = frozenset({"quit", "exit", "q"})
HELP_WORDS = frozenset({"?", "help", "h"})
YES_WORDS = frozenset({"y", "yes", "j", "ok", "1", "true"})
NO_WORDS = frozenset({"n", "no", "0", "false"})
MAX_SEATS = 10
BOT_PREFIX = "bot:"


class InputRejected(ValueError):
    """What was typed cannot be used; ``reason`` says why, for the person who typed it."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class QuitRequested(Exception):
    """The person asked to stop (``quit`` or end of input); the game so far is kept."""


class HelpRequested(Exception):
    """The person typed ``?`` or ``help [topic]``; ``topic`` is what followed, if anything."""

    def __init__(self, topic: str = "") -> None:
        super().__init__(topic)
        self.topic = topic


Reader = Callable[[str], str]
Writer = Callable[[str], None]


def ask(
    read: Reader,
    write: Writer,
    question: str,
    parse: Callable[[str], T],
    *,
    on_help: Callable[[str], None] | None = None,
) -> T:
    """Ask until ``parse`` accepts the answer; every rejection is answered with its reason."""
    while True:
        try:
            text = read(question)
        except EOFError:
            raise QuitRequested() from None
        words = text.strip()
        if words.lower() in QUIT_WORDS:
            raise QuitRequested()
        help_topic = _help_topic(words)
        if help_topic is not None:
            if on_help is not None:
                on_help(help_topic)
            else:
                write("  (no help here: answer the question above)")
            continue
        try:
            return parse(words)
        except InputRejected as rejected:
            write(f"  ✗ {rejected.reason}")


def _help_topic(words: str) -> str | None:
    head, _, rest = words.partition(" ")
    if head.lower() in HELP_WORDS:
        return rest.strip()
    return None


def parse_yes_no(text: str) -> bool:
    word = text.strip().lower()
    if word in YES_WORDS:
        return True
    if word in NO_WORDS:
        return False
    raise InputRejected(f"{text!r} is not yes or no: type y or n")


def parse_index(text: str, count: int) -> int:
    """A 1-based menu number; returns the 0-based index."""
    try:
        number = int(text)
    except ValueError:
        raise InputRejected(f"{text!r} is not a number: type a number from 1 to {count}") from None
    if not 1 <= number <= count:
        raise InputRejected(f"{number} is out of range: choose a number from 1 to {count}")
    return number - 1


@dataclass(frozen=True)
class Menu(Generic[T]):
    """Numbered options that can also be picked by their text (a move, a colour, a name)."""

    options: Sequence[T]
    labels: Sequence[str]
    what: str = "choice"
    #: True when the numbered list was shown; otherwise a refusal lists the labels instead.
    numbered: bool = True

    def pick(self, text: str) -> T:
        """By number, by exact label, by unique prefix; otherwise a reason with a suggestion."""
        if not text:
            raise InputRejected(
                f"nothing typed: choose a {self.what} by number (1-{len(self.options)})"
            )
        if text.lstrip("-").isdecimal():
            return self.options[parse_index(text, len(self.options))]
        wanted = normalise(text)
        keys = [normalise(label) for label in self.labels]
        if wanted in keys:
            return self.options[keys.index(wanted)]
        starts = [index for index, key in enumerate(keys) if key.startswith(wanted)]
        if len(starts) == 1:
            return self.options[starts[0]]
        raise InputRejected(self._unknown(text, keys, len(starts)))

    def _unknown(self, text: str, keys: list[str], ambiguous: int) -> str:
        if ambiguous > 1:
            return (
                f"{text!r} could mean {ambiguous} different {self.what}s: "
                "type more of it, or its number"
            )
        close = difflib.get_close_matches(normalise(text), keys, n=1, cutoff=0.6)
        hint = f" Did you mean {self.labels[keys.index(close[0])]!r}?" if close else ""
        how = (
            "Type its number, or ? for help"
            if self.numbered
            else f"Type one of: {', '.join(self.labels)}"
        )
        return f"{text!r} is not a {self.what} you can choose here.{hint} {how}"


def normalise(text: str) -> str:
    """Lower case, single spaces, no punctuation around words: how typed text is compared."""
    text = text.lower().replace("→", ">").replace("->", ">")
    return re.sub(r"\s+", " ", text).strip()


@dataclass(frozen=True)
class SeatSpec:
    """One seat at the table: a person's name, or a bot (``bot:greedy``) with a generated name."""

    name: str
    bot: str | None = None

    @property
    def is_bot(self) -> bool:
        return self.bot is not None


#: What a seat's name may be (it is shown on every page and screen).
SEAT_NAME = re.compile(r"[\w .'-]{1,20}")
SEAT_NAME_RULE = "1-20 letters, digits, spaces or .'-"


def parse_seats(text: str, *, bots: Sequence[str], option: str = "--seats") -> list[SeatSpec]:
    """``"Ann,Bob,bot:greedy"`` -> seats; unknown bots, duplicates and bad counts are errors."""
    parts = [part.strip() for part in text.split(",")]
    if any(not part for part in parts):
        raise ConfigError(f"{option} {text!r}: an empty seat name (two commas in a row?)")
    seats: list[SeatSpec] = []
    for part in parts:
        seats.append(_seat(part, bots, option, len(seats) + 1))
    check_seat_names([seat.name for seat in seats], f"{option} {text!r}")
    return seats


def check_seat_names(names: Sequence[str], where: str) -> None:
    """The one rule for the names at a table, from ``--seats`` or from a journal resumed:
    2 to MAX_SEATS names, each 1-20 letters, digits, spaces or .'-, no two alike."""
    if not 2 <= len(names) <= MAX_SEATS:
        raise ConfigError(f"{where}: {len(names)} seat(s); a game needs 2 to {MAX_SEATS}")
    for name in names:
        if not SEAT_NAME.fullmatch(name):
            raise ConfigError(f"{where}: seat name {name!r} must be {SEAT_NAME_RULE}")
    folded = [name.lower() for name in names]
    duplicates = sorted({name for name in folded if folded.count(name) > 1})
    if duplicates:
        raise ConfigError(f"{where}: the name {duplicates[0]!r} is used twice; names must differ")


def _seat(part: str, bots: Sequence[str], option: str, number: int) -> SeatSpec:
    if not part.lower().startswith(BOT_PREFIX):
        if not SEAT_NAME.fullmatch(part):
            raise ConfigError(f"{option}: seat name {part!r} must be {SEAT_NAME_RULE}")
        return SeatSpec(part)
    spec = part[len(BOT_PREFIX) :].strip()
    kind, _, params = spec.partition(":")
    kind = kind.strip().lower()
    if kind not in bots:
        raise ConfigError(
            f"{option}: unknown bot {kind!r} in {part!r}; expected bot:{' or bot:'.join(bots)}"
        )
    if params:
        spec = f"{kind}:{params}"
        _check_bot_params(spec, option)
    else:
        spec = kind
    return SeatSpec(f"{kind.capitalize()}Bot{number}", spec)


def _check_bot_params(spec: str, option: str) -> None:
    """``casual:forget_uno=0.3``: the parameters must be the bot's own, with numbers it takes.

    Checked here by making the bot once, so a typo or a probability of 3 is an error before
    the game (or its journal) starts.
    """
    from game.bots.registry import make_bot  # the bots import the engine: only when asked

    try:
        make_bot(spec, 0)
    except UnoAttackError as error:
        raise ConfigError(f"{option}: {error}", hint=error.hint) from None


def parse_names(text: str, *, option: str = "--players") -> list[str]:
    """The people at a refereed table: names only, no bots."""
    seats = parse_seats(text, bots=(), option=option)
    return [seat.name for seat in seats]


# -- what the referee's operator types ------------------------------------------------------
_KIND_WORDS: dict[str, Kind] = {
    "skip": Kind.SKIP,
    "s": Kind.SKIP,
    "reverse": Kind.REVERSE,
    "rev": Kind.REVERSE,
    "hit2": Kind.HIT_TWO,
    "h2": Kind.HIT_TWO,
    "hit1": Kind.HIT_ONE,
    "h1": Kind.HIT_ONE,
    "draw2": Kind.DRAW_TWO,
    "+2": Kind.DRAW_TWO,
    "drawtwo": Kind.DRAW_TWO,
    "draw1": Kind.DRAW_ONE,
    "+1": Kind.DRAW_ONE,
    "drawone": Kind.DRAW_ONE,
    "discardall": Kind.DISCARD_ALL,
    "discard": Kind.DISCARD_ALL,
    "da": Kind.DISCARD_ALL,
    "tradehands": Kind.TRADE_HANDS,
    "trade": Kind.TRADE_HANDS,
    "th": Kind.TRADE_HANDS,
    "wild": Kind.WILD,
    "w": Kind.WILD,
    "wildhit4": Kind.WILD_HIT_FOUR,
    "hit4": Kind.WILD_HIT_FOUR,
    "wh4": Kind.WILD_HIT_FOUR,
    "wildattackattack": Kind.WILD_ATTACK_ATTACK,
    "attackattack": Kind.WILD_ATTACK_ATTACK,
    "attack": Kind.WILD_ATTACK_ATTACK,
    "wildattack": Kind.WILD_ATTACK_ATTACK,
    "waa": Kind.WILD_ATTACK_ATTACK,
    "wildallhit": Kind.WILD_ALL_HIT,
    "allhit": Kind.WILD_ALL_HIT,
    "wah": Kind.WILD_ALL_HIT,
    "wildhitfire": Kind.WILD_HIT_FIRE,
    "hitfire": Kind.WILD_HIT_FIRE,
    "whf": Kind.WILD_HIT_FIRE,
    "wildcustomizable": Kind.WILD_CUSTOM,
    "customizable": Kind.WILD_CUSTOM,
    "custom": Kind.WILD_CUSTOM,
    "wildcustom": Kind.WILD_CUSTOM,
    "wc": Kind.WILD_CUSTOM,
    "wilddrawfour": Kind.WILD_DRAW_FOUR,
    "wild+4": Kind.WILD_DRAW_FOUR,
    "+4": Kind.WILD_DRAW_FOUR,
    "wilddraw4": Kind.WILD_DRAW_FOUR,
    "draw4": Kind.WILD_DRAW_FOUR,
    "wilddraw2": Kind.WILD_DRAW_TWO,
    "wild+2": Kind.WILD_DRAW_TWO,
    "wilddip": Kind.WILD_DIP,
    "dip": Kind.WILD_DIP,
    "wilddipintothedeck": Kind.WILD_DIP,
}
_COLOR_WORDS = {color.name.lower(): color for color in Color}
PRESS_WORDS = frozenset({"press", "pass", "hit", "p", "draw"})
DONE_WORDS = frozenset({"done", "next", "no"})
ENTRY_HELP = """\
What to type (the current player is assumed):
  blue 7 · red hit2 · green skip · yellow reverse · blue discard-all 2 (2 more blue cards)
  wild red · wild hit4 green · wild attack-attack blue > Sam · red trade-hands > Kim
  add 'uno' when the player calls it with the card: red 5 uno
  press            the player presses the launcher (cannot or will not play)
  done             no extra card after a Skip/Reverse
  uno NAME         NAME calls UNO          catch NAME   NAME did not call UNO in time
  hit NAME N       NAME presses N times (a custom card, a penalty)
  fix NAME N       NAME really holds N cards (the launcher miscounted)
  status · ? CARD (help for a card, e.g. ? WAA) · quit (stop; resumable only with --journal)"""


def parse_entry(text: str, players: Sequence[str]) -> Entry:
    """What the operator typed -> a :class:`~game.core.referee_entries.Entry`, or InputRejected."""
    words = normalise(text)
    if not words:
        raise InputRejected("nothing typed: enter the card played, or 'press' (? for help)")
    head, _, rest = words.partition(" ")
    if head in PRESS_WORDS and not rest:
        return Entry(Op.PRESS)
    if head == "uno" and not rest:
        return Entry(Op.UNO)
    if head in DONE_WORDS and not rest:
        return Entry(Op.DONE)
    if head in ("uno", "catch", "hit", "fix") and rest:
        return _named_entry(head, rest, players)
    return parse_card_entry(words, players)


def _named_entry(head: str, rest: str, players: Sequence[str]) -> Entry:
    name, _, number = rest.rpartition(" ") if head in ("hit", "fix") else (rest, "", "")
    if head in ("hit", "fix") and not number.isdecimal():
        if head == "fix":
            raise InputRejected(f"'fix {rest}': say how many cards, e.g. 'fix Sam 4'")
        name, number = rest, "1"
    seat = pick_player(name, players)
    op = {"uno": Op.UNO, "catch": Op.CATCH, "hit": Op.HIT, "fix": Op.FIX}[head]
    return Entry(op, seat=seat, count=int(number) if number else None)


def pick_player(text: str, players: Sequence[str]) -> int:
    menu = Menu(list(range(len(players))), list(players), what="player", numbered=False)
    return menu.pick(text.strip())


def parse_card_entry(words: str, players: Sequence[str]) -> Entry:
    """``wild attack-attack blue > Sam``, ``blue discard-all 2``, ``red 5 uno``, ``BH2``."""
    body, _, target_text = words.partition(">")
    seat = pick_player(target_text, players) if target_text.strip() else None
    tokens = body.split()
    uno = bool(tokens) and tokens[-1] == "uno"
    if uno:
        tokens = tokens[:-1]
    card, color, count = _card_tokens(tokens, words)
    return Entry(Op.PLAY, card=card, color=color, seat=seat, count=count, uno=uno)


def _card_tokens(tokens: list[str], words: str) -> tuple[Card, Color | None, int | None]:
    if len(tokens) in (1, 2) and _engine_code(tokens[0]) is not None:
        card = _engine_code(tokens[0])
        assert card is not None
        color = _COLOR_WORDS.get(tokens[1]) if len(tokens) == 2 else None
        if len(tokens) == 2 and color is None and not tokens[1].isdecimal():
            raise InputRejected(
                f"{words!r}: {tokens[1]!r} is not a colour (red, blue, green, yellow)"
            )
        return card, color, int(tokens[1]) if len(tokens) == 2 and tokens[1].isdecimal() else None
    colors = [_COLOR_WORDS[t] for t in tokens if t in _COLOR_WORDS]
    numbers = [int(t) for t in tokens if t.isdecimal()]
    kind_text = "".join(t for t in tokens if t not in _COLOR_WORDS and not t.isdecimal()).replace(
        "-", ""
    )
    return _compose(kind_text, colors, numbers, words)


def _engine_code(token: str) -> Card | None:
    if token in _KIND_WORDS or token in _COLOR_WORDS:
        return None
    try:
        return Card.parse(token)
    except NotationError:
        return None


def _compose(
    kind_text: str, colors: list[Color], numbers: list[int], words: str
) -> tuple[Card, Color | None, int | None]:
    if not kind_text:
        if len(colors) != 1 or len(numbers) != 1:
            raise InputRejected(
                f"{words!r} is not a card: try 'blue 7', 'red hit2', 'wild red' (? for help)"
            )
        if not 0 <= numbers[0] <= 9:
            raise InputRejected(f"{numbers[0]} is not a card number (0-9)")
        return Card(Kind.NUMBER, colors[0], numbers[0]), None, None
    kind = _KIND_WORDS.get(kind_text)
    if kind is None:
        close = difflib.get_close_matches(kind_text, [*_KIND_WORDS, *_COLOR_WORDS], n=1, cutoff=0.6)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise InputRejected(f"{words!r}: I do not know the card {kind_text!r}.{hint} (? for help)")
    if len(colors) > 1:
        raise InputRejected(f"{words!r}: one colour only")
    if kind.is_wild:
        return Card(kind), (colors[0] if colors else None), (numbers[0] if numbers else None)
    if not colors:
        raise InputRejected(f"{words!r}: which colour is the {kind.title}? e.g. 'blue {kind_text}'")
    return Card(kind, colors[0]), None, (numbers[0] if numbers else None)
