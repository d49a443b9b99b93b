"""Rulesets as data: deck lists, hand size, target, points, effects and options.

Each ruleset is a TOML file in ``game/core/ruleset_data/`` laid over ``common.toml``
(effects, first-card actions and points shared by all). Card effects are lists
of building blocks (:mod:`game.core.effects`); a block is written ``"name key=value …"``,
e.g. ``"hit n=2 reason=hit2"``. Options are declared once here in :data:`OPTIONS`
with their type, choices and documentation; a ruleset file only sets defaults.
``docs/rules.md`` documents every ruleset, option and default.
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from types import MappingProxyType
from typing import Any

from game.core.blocks import Step
from game.core.cards import COLORS, Card, Kind, NotationError, all_cards
from game.core.effects import parse_step
from game.core.errors import RulesetError
from game.core.ruleset_ids import DEFAULT_RULESET, RULESET_IDS


@dataclass(frozen=True)
class Option:
    """A rule option: name, type (bool, int, str or choice), choices, default, meaning."""

    name: str
    kind: str
    default: Any
    doc: str
    choices: tuple[str, ...] = ()
    minimum: int = 0

    def convert(self, value: Any, where: str) -> Any:
        """Turn a Python value or CLI text into this option's type, or raise RulesetError."""
        try:
            return _CONVERTERS[self.kind](self, value)
        except (ValueError, TypeError) as error:
            raise RulesetError(f"{where}: option {self.name}={value!r}: {error}") from None


def _to_bool(option: Option, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ValueError("expected true/false (or yes/no, 1/0)")


def _to_int(option: Option, value: Any) -> int:
    if isinstance(value, bool):
        raise ValueError("expected a whole number")
    try:
        number = int(value)
    except ValueError:
        raise ValueError(f"expected a whole number >= {option.minimum}") from None
    if number < option.minimum:
        raise ValueError(f"must be at least {option.minimum}")
    return number


def _to_choice(option: Option, value: Any) -> str:
    text = str(value).strip().lower()
    if text not in option.choices:
        raise ValueError(f"expected one of {', '.join(option.choices)}")
    return text


_CONVERTERS = {
    "bool": _to_bool,
    "int": _to_int,
    "choice": _to_choice,
    "str": lambda option, value: str(value),
}

#: Every rule option, with its global default (a ruleset file may change the default).
OPTIONS: dict[str, Option] = {
    o.name: o
    for o in (
        Option("hand_size", "int", None, "cards dealt to each player (ruleset default)", minimum=1),
        Option("target", "int", None, "score that ends the game (ruleset default)", minimum=1),
        Option(
            "scoring",
            "choice",
            "winner",
            "winner: the round winner scores the cards left in the other hands, first to the "
            "target wins; lowest: everyone is charged the cards they hold, when someone reaches "
            "the target the lowest total wins; elimination (the original sheet's challenge game): "
            "charged as lowest, a player reaching the target is out, the last two play head to "
            "head and the winner of that hand wins",
            choices=("winner", "lowest", "elimination"),
        ),
        Option(
            "skip_reverse_play_again",
            "choice",
            "two_player_only",
            "always: after a Skip or Reverse you may play one more card ([002]); "
            "two_player_only: only the "
            "two-player game gives the extra play, through the Skip itself (original sheet)",
            choices=("always", "two_player_only"),
        ),
        Option(
            "mega_hit_stack",
            "bool",
            False,
            "a player hit by a Hit card or Wild Attack-Attack may stack one of the ruleset's "
            "stack cards "
            "instead of pressing; the last player presses the total",
        ),
        Option(
            "stack_draws",
            "bool",
            False,
            "house rule: stack Draw Two / Wild Draw Four (pocket: Draw One / Wild Draw 2) "
            "onto a draw card",
        ),
        Option(
            "hit_fire_cap",
            "int",
            50,
            "Wild Hit-Fire: the victim presses until cards fire, at most this many presses",
            minimum=1,
        ),
        Option(
            "uno_penalty",
            "int",
            2,
            "presses (or draws) for a player caught not calling UNO",
            minimum=0,
        ),
        Option(
            "draw_until_playable",
            "bool",
            False,
            "house rule [004]: draw until you can play, at most draw_until_cap cards",
        ),
        Option("draw_until_cap", "int", 10, "cap for draw_until_playable", minimum=1),
        Option(
            "seven_zero",
            "bool",
            False,
            "house rule: a 7 trades hands with a chosen player, a 0 passes every hand along",
        ),
        Option(
            "jump_in",
            "bool",
            False,
            "house rule: a player holding a card identical to the top card may play it out of turn",
        ),
        Option(
            "suggestion_penalty",
            "int",
            0,
            "original sheet: a player who suggests a card presses this many times (4); 0 = off",
            minimum=0,
        ),
        Option(
            "wild_draw_bluff",
            "bool",
            True,
            "a Wild Draw Four / Pocket Wild Draw 2 may be played illegally, and a challenge "
            "catches it; "
            "false = it is only playable when legal and cannot be challenged",
        ),
        Option(
            "challenges",
            "bool",
            True,
            "the victim of a Wild Draw Four / Wild Draw 2 may challenge it",
        ),
        Option(
            "wilds",
            "int",
            None,
            "number of plain Wild cards (classic 8 = 112 cards; 4 = the 108-card deck)",
            minimum=0,
        ),
        Option(
            "empty_launcher",
            "choice",
            "reload",
            "reload: when a press finds the launcher empty, shuffle the discard pile except "
            "its top card "
            "into it and finish the hit (rules.md 2.3); dry: the press yields nothing",
            choices=("reload", "dry"),
        ),
        Option(
            "round_turn_limit",
            "int",
            5000,
            "safety: a round with this many turns ends with no winner (0 = no limit)",
            minimum=0,
        ),
        Option(
            "custom",
            "str",
            "",
            "TOML file defining the Wild Customizable action (docs/rules.md); "
            "empty = the default action",
        ),
    )
}


@dataclass(frozen=True)
class Ruleset:
    """One ruleset with its options applied. Build with :func:`load_ruleset`."""

    id: str
    name: str
    source: str
    deck: tuple[Card, ...]
    hand_size: int
    target: int
    min_players: int
    max_players: int
    draws_from_pile: bool
    play_after_draw: bool
    points: Mapping[Kind, int]
    effects: Mapping[Kind, tuple[Step, ...]]
    first_card: Mapping[Kind, tuple[Step, ...]]
    stack_kinds: frozenset[Kind]
    options: Mapping[str, Any] = field(default_factory=dict)
    #: The text of the ``custom`` card's file, read when the ruleset was loaded (the game
    #: logs it and reads no file itself).
    custom_text: str | None = None

    def opt(self, name: str) -> Any:
        return self.options[name]

    def card_points(self, card: Card) -> int:
        if card.kind is Kind.NUMBER:
            return card.number or 0
        return self.points[card.kind]

    def hand_points(self, cards: Any) -> int:
        """The points of ``cards``: looked up in C (:attr:`points_of`), one call per hand."""
        return sum(map(self.points_of.__getitem__, cards))

    @functools.cached_property
    def points_of(self) -> dict[Card, int]:
        """:meth:`card_points` of every card it can score, made once: a round's end scores
        every hand, and a call per card was 0.5 % of a 4-player hand (docs/performance.md,
        helper ``effects``). A card it cannot score is missing, a KeyError as in ``card_points``."""
        return {
            card: self.card_points(card)
            for card in all_cards()
            if card.kind is Kind.NUMBER or card.kind in self.points
        }

    @property
    def stacking(self) -> bool:
        return bool(self.options["mega_hit_stack"] or self.options["stack_draws"])

    def check_players(self, players: int) -> None:
        """Raise RulesetError unless ``players`` can play this ruleset with this deck."""
        if not self.min_players <= players <= self.max_players:
            raise RulesetError(
                f"ruleset {self.id} is for {self.min_players}-{self.max_players} players, "
                f"not {players}"
            )
        if players * self.hand_size + 1 > len(self.deck):
            raise RulesetError(
                f"ruleset {self.id}: {players} hands of {self.hand_size} plus a starter need "
                f"{players * self.hand_size + 1} cards, the deck has {len(self.deck)}"
            )


# -- loading ------------------------------------------------------------------
@functools.cache
def _read(name: str) -> dict[str, Any]:
    """The parsed TOML of one data file (cached: callers must not mutate it)."""
    try:
        text = resources.files("game.core.ruleset_data").joinpath(f"{name}.toml").read_text("utf-8")
    except FileNotFoundError:
        raise RulesetError(
            f"unknown ruleset {name!r}", hint=f"choose one of: {', '.join(RULESET_IDS)}"
        ) from None
    return tomllib.loads(text)


_KIND_BY_CODE = {kind.value: kind for kind in Kind}


def _kind(code: str, where: str) -> Kind:
    kind = _KIND_BY_CODE.get(code.upper())
    if kind is None:
        raise RulesetError(f"{where}: unknown card code {code!r}")
    return kind


def _steps_table(table: Mapping[str, Any], where: str) -> dict[Kind, tuple[Step, ...]]:
    out = {}
    for code, raw in table.items():
        steps = raw if isinstance(raw, list) else [raw]
        out[_kind(code, where)] = tuple(parse_step(s, f"{where}.{code}") for s in steps)
    return out


def _deck(table: Mapping[str, Any], where: str, wilds: int | None) -> tuple[Card, ...]:
    cards: list[Card] = []
    for code, copies in table.items():
        if not isinstance(copies, int) or copies < 0:
            raise RulesetError(f"{where}.{code}: expected a number of copies, got {copies!r}")
        if code[0].isdecimal():
            low, _, high = code.partition("-")
            for color in COLORS:
                for number in range(int(low), int(high or low) + 1):
                    cards += [Card(Kind.NUMBER, color, number)] * copies
            continue
        kind = _kind(code, where)
        if kind.is_wild:
            count = wilds if (kind is Kind.WILD and wilds is not None) else copies
            cards += [Card(kind)] * count
        else:
            for color in COLORS:
                cards += [Card(kind, color)] * copies
    return tuple(cards)


def _points(table: Mapping[str, Any], where: str) -> dict[Kind, int]:
    return {_kind(code, where): int(value) for code, value in table.items() if code != "number"}


def resolve_options(
    ruleset_id: str, file_defaults: Mapping[str, Any], given: Mapping[str, Any]
) -> dict[str, Any]:
    """Global defaults, then the ruleset's, then the caller's; unknown names are errors."""
    values = {name: option.default for name, option in OPTIONS.items()}
    for source, mapping in (("ruleset " + ruleset_id, file_defaults), ("options", given)):
        for name, value in mapping.items():
            option = OPTIONS.get(name)
            if option is None:
                raise RulesetError(
                    f"{source}: unknown option {name!r}",
                    hint=f"options are: {', '.join(sorted(OPTIONS))}",
                )
            values[name] = None if value is None else option.convert(value, source)
    return values


def load_ruleset(
    ruleset_id: str = DEFAULT_RULESET, options: Mapping[str, Any] | None = None
) -> Ruleset:
    """The ruleset ``ruleset_id`` with ``options`` applied over its defaults."""
    if ruleset_id not in RULESET_IDS:
        raise RulesetError(
            f"unknown ruleset {ruleset_id!r}", hint=f"choose one of: {', '.join(RULESET_IDS)}"
        )
    given = dict(options or {})
    key = _cache_key(ruleset_id, given)
    cached = _CACHE.get(key) if key is not None else None
    if cached is not None:
        return cached
    common, data = _read("common"), _read(ruleset_id)
    where = f"ruleset {ruleset_id}"
    try:
        rules = _build(ruleset_id, common, data, given, where)
    except (KeyError, NotationError) as error:
        raise RulesetError(f"{where}: malformed ruleset data ({error})") from None
    if key is not None and len(_CACHE) < 256:
        _CACHE[key] = rules
    return rules


_CACHE: dict[tuple[Any, ...], Ruleset] = {}


def _cache_key(ruleset_id: str, given: dict[str, Any]) -> tuple[Any, ...] | None:
    """Built rulesets are cached (they are immutable); not when a custom-card file is read."""
    if given.get("custom"):
        return None
    try:
        key = (ruleset_id, tuple(sorted(given.items())))
        hash(key)
    except TypeError:
        return None
    return key


def _build(
    ruleset_id: str,
    common: dict[str, Any],
    data: dict[str, Any],
    given: Mapping[str, Any],
    where: str,
) -> Ruleset:
    values = resolve_options(ruleset_id, data.get("options", {}), given)
    if values["draw_until_playable"] and data["draw"] != "pile":
        raise RulesetError(
            f"option draw_until_playable is not for {ruleset_id}: in UNO Attack a press ends "
            "the turn even if a launched card is playable (rules.md 2.3)",
            hint="it is a house rule of draw-pile games (classic, pocket; rules.md 3.2)",
        )
    effects = _steps_table({**common["effects"], **data.get("effects", {})}, f"{where} effects")
    custom, custom_text = values["custom"], None
    if custom:
        from game.core.custom import load_custom

        effects[Kind.WILD_CUSTOM], custom_text = load_custom(custom)
    values["hand_size"] = values["hand_size"] or int(data["hand_size"])
    values["target"] = values["target"] or int(data["target"])
    low, high = data["players"]
    return Ruleset(
        id=ruleset_id,
        name=str(data["name"]),
        source=str(data["source"]),
        deck=_deck(data["deck"], f"{where} deck", values["wilds"]),
        hand_size=values["hand_size"],
        target=values["target"],
        min_players=int(low),
        max_players=int(high),
        draws_from_pile=data["draw"] == "pile",
        play_after_draw=bool(data["play_after_draw"]),
        points=_points({**common["points"], **data.get("points", {})}, f"{where} points"),
        effects=effects,
        first_card=_steps_table(
            {**common["first_card"], **data.get("first_card", {})}, f"{where} first_card"
        ),
        stack_kinds=frozenset(_kind(code, where) for code in data.get("stack", [])),
        options=MappingProxyType(values),
        custom_text=custom_text,
    )


def ruleset_for(ruleset: str | Ruleset, options: Mapping[str, Any] | None = None) -> Ruleset:
    """A ruleset by id or as given, with ``options`` laid over its own."""
    if isinstance(ruleset, str):
        return load_ruleset(ruleset, dict(options) if options else None)
    if options:
        return load_ruleset(ruleset.id, {**ruleset.options, **options})
    return ruleset


def with_options(ruleset: Ruleset, **options: Any) -> Ruleset:
    """The same ruleset with some options changed (validated)."""
    return load_ruleset(ruleset.id, {**ruleset.options, **options})


def describe(ruleset_id: str) -> dict[str, Any]:
    """Summary for ``uno-attack rules show``: deck counts, hand, target, options with defaults."""
    ruleset = load_ruleset(ruleset_id)
    counts: dict[str, int] = {}
    for card in ruleset.deck:
        label = card.kind.label if card.kind is not Kind.NUMBER else f"number {card.number}"
        counts[label] = counts.get(label, 0) + 1
    return {
        "id": ruleset.id,
        "name": ruleset.name,
        "source": ruleset.source,
        "deck_size": len(ruleset.deck),
        "deck": counts,
        "hand_size": ruleset.hand_size,
        "target": ruleset.target,
        "players": [ruleset.min_players, ruleset.max_players],
        "draw": "draw pile (one card per draw)"
        if ruleset.draws_from_pile
        else "launcher (every press a hit)",
        "effects": {
            kind.value: [str(s) for s in steps]
            for kind, steps in ruleset.effects.items()
            if any(card.kind is kind for card in ruleset.deck)
        },
        "options": dict(ruleset.options),
    }
