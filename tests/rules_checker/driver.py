"""Play seeded games through the public engine API and return their event logs.

Only what docs/rules.md "Playing with the engine" documents is used: ``Game.new``,
``legal_moves``, ``table_moves``, ``play``, ``start_next_round``, ``events``. The bot
here is deliberately unlike the engine's own bots: it calls UNO only sometimes,
catches others, jumps in, and prefers playing to drawing so rounds stay short.
"""

from __future__ import annotations

import random
from typing import Any

from game import Game
from game.play.driver import Table
from hardware.errors import UnoAttackError

PROFILES = (
    "bookmarklet",
    "escalating",
    "heavy-hopper",
    "irc-bot",
    "multi-variant-server",
    "original-1999",
    "web-game",
)
MAX_MOVES = 60_000


class Refused(Exception):
    """The engine refused a set-up with a clear error (e.g. an option a ruleset cannot take)."""


def launcher_spec(profile: str | None) -> str | None:
    """None keeps the ruleset's own launcher (sim:// or the draw pile)."""
    return None if profile is None else f"sim://?profile={profile}"


def play_game(
    ruleset: str,
    players: int,
    seed: int,
    options: dict[str, Any] | None = None,
    profile: str | None = None,
    max_rounds: int | None = None,
) -> list[dict[str, Any]]:
    """One game (or its first ``max_rounds`` rounds) by a seeded random bot; its events.

    After ``MAX_MOVES`` moves the log is cut at the next round end, or at the start of a
    turn when a round never ends (``empty_launcher=dry`` with ``round_turn_limit=0``).
    """
    try:
        game = Table.new(
            ruleset,
            players=players,
            seed=seed,
            options=options or {},
            launcher=launcher_spec(profile),
        )
    except UnoAttackError as error:
        raise Refused(str(error)) from error
    rng = random.Random(seed)
    moves = 0
    while not game.is_game_over():
        if game.is_round_over():
            rounds_done = max_rounds is not None and game.round_number >= max_rounds
            if rounds_done or moves >= MAX_MOVES:  # stop at a round end: the log stays whole
                break
            game.start_next_round()
            continue
        if moves >= MAX_MOVES and "draw" in {str(m) for m in game.legal_moves()}:
            break  # a round that does not end (e.g. empty_launcher=dry, no turn limit)
        _table_move(game, rng)
        if not (game.is_game_over() or game.is_round_over()):
            game.play(_choose(game.legal_moves(), rng))
        moves += 1
    return list(game.events)


def _table_move(game: Game, rng: random.Random) -> None:
    for move in game.table_moves():
        text = str(move)
        chance = 0.75 if text == "uno" else 0.4
        if rng.random() < chance:
            game.play(move)
            return


def _choose(moves: list[Any], rng: random.Random) -> Any:
    texts = [str(m) for m in moves]
    passive = ("draw", "pass", "take", "accept")
    keep = [m for m, t in zip(moves, texts, strict=True) if t not in passive]
    if keep and rng.random() < 0.85:
        return rng.choice(keep)
    return rng.choice(moves)
