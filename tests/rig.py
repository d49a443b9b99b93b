"""Helpers to set up exact positions for engine tests (no fakes: real engine, real launchers)."""

from __future__ import annotations

from typing import Any

from game import Card, Game
from game.core.cards import parse_cards
from game.play.driver import Table
from launcher.base import Launcher, ScriptedLauncher


def cards(text: str) -> list[Card]:
    return parse_cards(text)


def position(
    ruleset: str,
    hands: list[str],
    top: str,
    *,
    counts: list[int] | None = None,
    bottom: str = "",
    options: dict[str, Any] | None = None,
    current: int = 0,
    color: str | None = None,
    launcher: Launcher[Any] | None = None,
) -> Game:
    """A game of ``ruleset`` where seat ``current`` is to play, with exactly these hands and top.

    ``counts`` scripts how many cards each press yields (default: one per press);
    ``bottom`` are the next cards out of the launcher, in order.
    """
    from game.core.cards import Color

    device = launcher if launcher is not None else ScriptedLauncher(counts or [1])
    game = Table.new(ruleset, len(hands), launcher=device, seed=1, options=options)
    game.set_position(
        [cards(h) for h in hands],
        Card.parse(top),
        current=current,
        bottom=cards(bottom),
        color=Color.parse(color) if color else None,
    )
    return game


def types(game: Game, since: int = 0) -> list[str]:
    return [e["type"] for e in game.events[since:]]


def hits(game: Game, since: int = 0) -> list[tuple[int, str, list[str]]]:
    return [
        (e["player"], e["reason"], e["cards"]) for e in game.events[since:] if e["type"] == "hit"
    ]


def codes(game: Game, seat: int) -> list[str]:
    return [c.code for c in game.hands[seat]]


class RecordingLauncher(Launcher[Any]):
    """A test's own launcher: yields ``per_press`` cards and records every press and load."""

    backend = "recording"

    def __init__(self, per_press: int = 1) -> None:
        super().__init__()
        self.per_press = per_press
        self.log: list[tuple[str, int]] = []

    def _press(self, loaded: int) -> int:
        self.log.append(("press", loaded))
        return min(self.per_press, loaded)

    def _on_load(self, loaded: int) -> None:
        self.log.append(("load", loaded))
