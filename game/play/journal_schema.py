"""The schema of every journal record kind, and the one check that applies it on read.

Each record kind is a :class:`~typing.TypedDict` (the same typed-record style as
:mod:`game.play.events`): the play header, the referee header, a player's ``move``, a
chance ``move`` (``fired:N``), a referee ``entry``, a ``press`` and a ``note``.
:func:`record_problem` walks a record against its TypedDict's annotations, so the
types written here *are* the check: there is no second, hand-written list. A few
value rules that types cannot say (a card code parses, a count is not negative)
follow in :data:`VALUE_RULES`. A problem is returned as ``(field, expected, got)``
so that every caller reports it the same way: ``FILE: line N: field F: expected
..., got ...``.
"""

import json
import types
from typing import Any, Literal, NotRequired, TypedDict, Union, get_args, get_origin, get_type_hints

from game.core.cards import Card, Color, NotationError
from game.core.referee_entries import Op
from hardware.errors import UnoAttackError

Problem = tuple[str, str, str]  #: (field, expected, got)


class SeatRecord(TypedDict):
    name: str
    bot: str | None


class PlayHeader(TypedDict):
    type: Literal["header"]
    version: Literal[1]
    mode: Literal["play"]
    ruleset: str
    seed: int
    seats: list[SeatRecord]
    launcher: str
    options: NotRequired[dict[str, Any]]
    rounds: NotRequired[int | None]


class RefereeHeader(TypedDict):
    type: Literal["header"]
    version: Literal[1]
    mode: Literal["referee"]
    ruleset: str
    seed: int
    players: list[str]
    launcher: str
    options: NotRequired[dict[str, Any]]


class MoveRecord(TypedDict):
    """A player's moves in a ``play`` game (``table``: a catch made by a person at the table)."""

    type: Literal["move"]
    seat: int
    moves: list[str]
    table: NotRequired[bool]


class ChanceRecord(TypedDict):
    """A launcher press outcome in a ``play`` game: ``{"chance": true, "moves": ["fired:N"]}``."""

    type: Literal["move"]
    chance: Literal[True]
    moves: list[str]


class EntryRecord(TypedDict):
    """What the table told the referee (:class:`game.core.referee_entries.Entry`)."""

    type: Literal["entry"]
    op: str
    card: NotRequired[str]
    color: NotRequired[str]
    seat: NotRequired[int]
    count: NotRequired[int]
    uno: NotRequired[bool]
    points: NotRequired[list[int]]


class PressRecord(TypedDict):
    type: Literal["press"]
    counted: int


class NoteRecord(TypedDict):
    type: Literal["note"]
    text: NotRequired[str]


HEADERS: dict[str, type] = {"play": PlayHeader, "referee": RefereeHeader}
#: The record kinds each mode's journal may hold after its header.
BODIES: dict[str, dict[str, type]] = {
    "play": {"move": MoveRecord, "press": PressRecord, "note": NoteRecord},
    "referee": {"entry": EntryRecord, "press": PressRecord, "note": NoteRecord},
}


def header_problem(record: dict[str, Any]) -> Problem | None:
    """Why a first line is not a valid journal header, or None."""
    if record.get("type") != "header":
        return ("type", "'header' (the header record comes first)", show(record.get("type")))
    mode = record.get("mode")
    if not isinstance(mode, str) or mode not in HEADERS:
        return ("mode", "'play' or 'referee'", show(mode))
    return record_problem(record, HEADERS[mode])


def body_problem(mode: str, record: dict[str, Any]) -> Problem | None:
    """Why a record after the header does not fit the journal of ``mode``, or None."""
    kinds = BODIES.get(mode, {})
    kind = record.get("type")
    if not isinstance(kind, str) or kind not in kinds:
        return ("type", "one of " + ", ".join(repr(k) for k in sorted(kinds)), show(kind))
    schema = ChanceRecord if kind == "move" and "chance" in record else kinds[kind]
    return record_problem(record, schema)


def record_problem(record: dict[str, Any], schema: type) -> Problem | None:
    """The first field of ``record`` that does not fit the TypedDict ``schema``, or None."""
    hints = get_type_hints(schema)
    required = schema.__required_keys__  # type: ignore[attr-defined]
    for name in sorted(required - record.keys()):
        return (name, f"a value ({_describe(hints[name])})", "nothing (the field is missing)")
    for name in sorted(record.keys() - hints.keys()):
        return (name, "no such field", show(record[name]))
    for name, value in record.items():
        expected = _mismatch(value, hints[name])
        if expected is not None:
            return (name, expected, show(value))
    rule = VALUE_RULES.get(schema)
    return rule(record) if rule else None


def _mismatch(value: Any, hint: Any) -> str | None:
    """None if ``value`` fits ``hint``, else a description of what was expected."""
    return None if _fits(value, hint) else _describe(hint)


def _fits(value: Any, hint: Any) -> bool:
    origin = get_origin(hint)
    if origin is NotRequired:
        return _fits(value, get_args(hint)[0])
    if hint is Any:
        return True
    if origin in (Union, types.UnionType):
        return any(_fits(value, option) for option in get_args(hint))
    if origin is Literal:
        return any(value == v and type(value) is type(v) for v in get_args(hint))
    if origin is list:
        (item,) = get_args(hint)
        return isinstance(value, list) and all(_fits(v, item) for v in value)
    if origin is dict:
        return isinstance(value, dict)
    if hint is type(None):
        return value is None
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if isinstance(hint, type) and hasattr(hint, "__required_keys__"):
        return isinstance(value, dict) and record_problem(value, hint) is None
    return isinstance(value, hint)


def _describe(hint: Any) -> str:
    origin = get_origin(hint)
    if origin is NotRequired:
        return _describe(get_args(hint)[0])
    if origin in (Union, types.UnionType):
        return " or ".join(_describe(option) for option in get_args(hint))
    if origin is Literal:
        return " or ".join(json.dumps(v) for v in get_args(hint))
    if origin is list:
        return f"a list of {_describe(get_args(hint)[0])}"
    if origin is dict:
        return "an object"
    if isinstance(hint, type) and hasattr(hint, "__required_keys__"):
        keys = ", ".join(get_type_hints(hint))
        return f"an object with {keys}"
    names = {int: "a whole number", str: "a string", bool: "true or false", type(None): "null"}
    return names.get(hint, getattr(hint, "__name__", str(hint)))


def show(value: Any) -> str:
    """A value as JSON, cut to a readable length."""
    text = json.dumps(value, ensure_ascii=False) if _jsonable(value) else repr(value)
    return text if len(text) <= 40 else text[:40] + "…"


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def _play_header_rules(record: dict[str, Any]) -> Problem | None:
    from game.bots import BOT_NAMES  # here: the bots import the engine, which is heavier

    names = [seat["name"] for seat in record["seats"]]
    if not names or not all(name.strip() for name in names) or len(set(names)) < len(names):
        return ("seats", "seats with non-empty, different names", show(names))
    bots = [seat["bot"] for seat in record["seats"] if seat["bot"] is not None]
    if not all(_is_bot_spec(bot) for bot in bots):
        expected = "bots among " + ", ".join(BOT_NAMES) + " (with NAME=VALUE parameters)"
        return ("seats", expected, show(bots))
    rounds = record.get("rounds")
    if rounds is not None and rounds < 1:
        return ("rounds", "a whole number >= 1 or null", show(rounds))
    return None


def _is_bot_spec(spec: str) -> bool:
    """``rule`` or ``casual:forget_uno=0.3``: a bot ``make_bot`` can build, as ``--seats`` wrote."""
    from game.bots.registry import parse_bot_spec

    try:
        parse_bot_spec(spec)
    except UnoAttackError:
        return False
    return True


def _referee_header_rules(record: dict[str, Any]) -> Problem | None:
    names = record["players"]
    if not names or not all(name.strip() for name in names) or len(set(names)) < len(names):
        return ("players", "a list of non-empty, different names", show(names))
    return None


def _chance_rules(record: dict[str, Any]) -> Problem | None:
    for text in record["moves"]:
        head, _, count = text.partition(":")
        if head != "fired" or not count.isdecimal():
            return ("moves", '"fired:N" with N a whole number >= 0', show(text))
    return None


def _entry_rules(record: dict[str, Any]) -> Problem | None:
    if record["op"] not in {op.value for op in Op}:
        return ("op", "one of " + ", ".join(op.value for op in Op), show(record["op"]))
    for name in ("seat", "count"):
        if record.get(name, 0) < 0:
            return (name, "a whole number >= 0", show(record[name]))
    if any(p < 0 for p in record.get("points", ())):
        return ("points", "whole numbers >= 0", show(record["points"]))
    try:
        if "card" in record:
            Card.parse(record["card"])
    except (NotationError, ValueError):
        return ("card", "a card code (R7, WAA…)", show(record["card"]))
    try:
        if "color" in record:
            Color.parse(record["color"])
    except (NotationError, ValueError):
        return ("color", "a colour (red, yellow, green, blue)", show(record["color"]))
    return None


def _press_rules(record: dict[str, Any]) -> Problem | None:
    return (
        ("counted", "a whole number >= 0", show(record["counted"]))
        if record["counted"] < 0
        else None
    )


VALUE_RULES: dict[type, Any] = {
    PlayHeader: _play_header_rules,
    RefereeHeader: _referee_header_rules,
    ChanceRecord: _chance_rules,
    EntryRecord: _entry_rules,
    PressRecord: _press_rules,
}
