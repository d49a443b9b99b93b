"""Bots by name: ``make_bot("casual:forget_uno=0.3", seed)``; the names ``--bots`` accepts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from game.core.errors import RulesetError

if TYPE_CHECKING:
    from game.bots.base import Bot

#: Every bot name, the default first.
BOT_NAMES = ("rule", "casual", "search", "greedy", "random")
#: The bot ``simulate`` seats when ``--bots`` is not given.
DEFAULT_BOT = "rule"


def bot_class(name: str) -> type[Bot]:
    """The class behind a bot name (RulesetError with the list of names for an unknown one)."""
    from game.bots.base import GreedyBot, RandomBot
    from game.bots.casual import CasualBot
    from game.bots.rule import RuleBot
    from game.bots.search import SearchBot

    classes: dict[str, type[Bot]] = {
        "rule": RuleBot,
        "casual": CasualBot,
        "search": SearchBot,
        "greedy": GreedyBot,
        "random": RandomBot,
    }
    try:
        return classes[name]
    except KeyError:
        raise RulesetError(
            f"unknown bot {name!r}", hint=f"bots are: {', '.join(BOT_NAMES)}"
        ) from None


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
    name, params = parse_bot_spec(spec)
    return bot_class(name).from_params(seed, params)
