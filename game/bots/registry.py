"""Bots by name: ``make_bot("casual:forget_uno=0.3", seed)``; the names ``--bots`` accepts."""

from __future__ import annotations

import functools
import importlib
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from game.core.errors import RulesetError

if TYPE_CHECKING:
    from collections.abc import Callable

    from game.bots.base import Bot

#: Every bot name, the default first.
BOT_NAMES = ("rule", "casual", "search", "greedy", "random")
#: The bot ``simulate`` seats when ``--bots`` is not given.
DEFAULT_BOT = "rule"


#: Where each bot class lives, by name: only the bot asked for is imported (the search bot
#: brings the sampler and the launcher profiles, which a game of rule bots never needs).
_CLASSES = {
    "rule": ("game.bots.rule", "RuleBot"),
    "casual": ("game.bots.casual", "CasualBot"),
    "search": ("game.bots.search", "SearchBot"),
    "greedy": ("game.bots.base", "GreedyBot"),
    "random": ("game.bots.base", "RandomBot"),
}


def bot_class(name: str) -> type[Bot]:
    """The class behind a bot name (RulesetError with the list of names for an unknown one)."""
    home = _CLASSES.get(name)
    if home is None:
        raise RulesetError(f"unknown bot {name!r}", hint=f"bots are: {', '.join(BOT_NAMES)}")
    module, cls = home
    found: type[Bot] = getattr(importlib.import_module(module), cls)
    return found


def parse_bot_spec(spec: str) -> tuple[str, dict[str, float]]:
    """``"casual:forget_uno=0.3:miss_play=0.2"`` -> ``("casual", {...})``; checks the names.

    Parameters are numbers; each bot class lists the ones it takes in ``PARAMS``.
    """
    name, *parts = [p.strip() for p in spec.strip().split(":")]
    params: dict[str, float] = {}
    allowed: dict[str, Any] = getattr(bot_class(name), "PARAMS", {})
    for part in parts:
        key, eq, value = part.partition("=")
        key = key.strip()
        if not eq or key not in allowed:
            known = ", ".join(sorted(allowed)) or "none"
            raise RulesetError(
                f"bot {spec!r}: {part!r} is not a parameter of {name}",
                hint=f"write {name}:NAME=VALUE; {name} takes: {known}",
            )
        try:
            params[key] = float(value)
        except ValueError:
            raise RulesetError(
                f"bot {spec!r}: {key}={value!r} is not a number", hint=f"e.g. {name}:{key}=0.2"
            ) from None
    return name, params


def make_bot(spec: str, seed: int | None) -> Bot:
    """A bot from its spec (``rule``, ``casual:miss_play=0.2``, ``search:iterations=64``)."""
    return _maker(spec)(seed)


@functools.lru_cache(maxsize=64)
def _maker(spec: str) -> Callable[[int | None], Bot]:
    """The spec's bot maker, the spec read once: ``simulate`` makes its bots for every game."""
    name, params = parse_bot_spec(spec)
    return functools.partial(bot_class(name).from_params, params=MappingProxyType(params))
