"""The Double Press house rule: a player who is hit presses twice and keeps every card."""

from __future__ import annotations

from typing import Any

from launcher import Launcher


def double_press(launcher: Launcher[Any]) -> list[Any]:
    """Press twice; return every card that came out, in order."""
    cards: list[Any] = []
    for _ in range(2):
        cards.extend(launcher.hit().cards)
    return cards


def presses_until_cards(launcher: Launcher[Any], limit: int = 50) -> int:
    """Press until at least one card flies (a Wild Hit-Fire); how many presses it took."""
    for press in range(1, limit + 1):
        if launcher.hit().counted:
            return press
    raise RuntimeError(f"no card after {limit} presses")
