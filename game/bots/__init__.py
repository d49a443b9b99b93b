"""Computer players, selectable by name: ``rule`` (the default), ``casual``, ``search``,
``greedy`` and ``random``. ``docs/bots.md`` describes each strategy.

A bot answers two questions: :meth:`Bot.choose` — which of ``game.legal_moves()``
to make when it is the decider — and :meth:`Bot.table_move` — whether to make
one of the out-of-turn moves open to its seat (call UNO, catch, jump in).
Each bot owns a ``random.Random`` seeded by the caller, so games replay exactly.

Bots are made from a *spec*: a name, optionally with parameters after colons,
``casual:forget_uno=0.3:miss_play=0.2`` or ``search:iterations=200``
(:func:`make_bot`, :func:`parse_bot_spec`). Colons, not commas, separate the
parameters, because ``--bots`` separates seats with commas.
"""

from __future__ import annotations

from game.bots.base import (
    Bot,
    GreedyBot,
    RandomBot,
    favourite_color,
    fewest_cards,
    least_useful,
    seat_moves,
)
from game.bots.casual import CasualBot
from game.bots.registry import BOT_NAMES, DEFAULT_BOT, bot_class, make_bot, parse_bot_spec
from game.bots.rule import RuleBot, leader
from game.bots.search import SearchBot

__all__ = [
    "BOT_NAMES",
    "DEFAULT_BOT",
    "Bot",
    "CasualBot",
    "GreedyBot",
    "RandomBot",
    "RuleBot",
    "SearchBot",
    "bot_class",
    "favourite_color",
    "fewest_cards",
    "least_useful",
    "leader",
    "make_bot",
    "parse_bot_spec",
    "seat_moves",
]
