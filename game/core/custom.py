"""Wild Customizable: the action a table writes on the blank card, read from a TOML file.

The file lists the card's effect as building blocks (:mod:`game.core.effects`),
either as strings or as tables::

    name = "Revenge"
    effects = ["choose_color", "target", "hit n=3 who=target reason=custom"]

    # or, the same:
    # [[effect]]
    # block = "choose_color"
    # [[effect]]
    # block = "target"
    # [[effect]]
    # block = "hit"
    # n = 3
    # who = "target"

Use it with ``uno-attack simulate --custom FILE`` or ``options={"custom": FILE}``.
The card is a wild: if the effects choose no colour, a colour choice comes first.
Without a file the card is a plain Wild (choose a colour): see ``docs/rules.md``.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from game.core.blocks import Step
from game.core.effects import parse_step
from game.core.errors import RulesetError
from hardware.files import read_user_text

_FIRST_CARD_ONLY = {"return", "dealer_starts_reversed", "custom"}


def load_custom(path: str | Path) -> tuple[tuple[Step, ...], str]:
    """The steps of the custom card in ``path`` and the file's text (logged with each game, so
    a log can be checked on its own); RulesetError names the file and the problem."""
    where = str(path)
    text = read_user_text(path, what="the custom-card file", error=RulesetError)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise RulesetError(f"{where}: not valid TOML ({error})") from None
    return custom_steps(data, where), text


def custom_steps(data: dict[str, Any], where: str) -> tuple[Step, ...]:
    """Validate the parsed TOML of a custom card."""
    unknown = sorted(set(data) - {"name", "description", "effects", "effect"})
    if unknown:
        raise RulesetError(
            f"{where}: unknown key(s) {', '.join(unknown)} (expected name, description, effects)"
        )
    raw = data.get("effects", data.get("effect"))
    if not isinstance(raw, list) or not raw:
        raise RulesetError(f'{where}: expected a non-empty list `effects = ["choose_color", ...]`')
    steps = tuple(parse_step(item, f"{where} effects[{i}]") for i, item in enumerate(raw))
    for i, step in enumerate(steps):
        if step.name in _FIRST_CARD_ONLY:
            raise RulesetError(
                f"{where} effects[{i}]: block {step.name!r} cannot be used on a custom card"
            )
        if step.name == "trade_hands" and not any(s.name == "target" for s in steps[:i]):
            raise RulesetError(f"{where} effects[{i}]: trade_hands needs a target block before it")
        if step.get("who") == "target" and not any(s.name == "target" for s in steps[:i]):
            raise RulesetError(f"{where} effects[{i}]: who=target needs a target block before it")
    if not any(s.name == "choose_color" for s in steps):
        steps = (Step("choose_color"), *steps)  # it is a wild: the colour is always chosen
    return steps
