"""The seeded battery: every ruleset x player count x option value x launcher profile.

Each case is (ruleset, players, option, value); its games rotate through the launcher
profiles (and the ruleset's own launcher), so every profile meets every ruleset and
most option values. Games use a low ``target`` (unless the case is about ``target``)
so that a game of several rounds stays short: see README.md for the counts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.rules_checker.cards import RULESETS
from tests.rules_checker.driver import PROFILES

OPTION_VALUES: dict[str, list[Any]] = {
    "hand_size": [3, 7],
    "target": [60, 500],
    "scoring": ["winner", "lowest", "elimination"],
    "skip_reverse_play_again": ["always", "two_player_only"],
    "mega_hit_stack": [True, False],
    "stack_draws": [True, False],
    "hit_fire_cap": [1, 50],
    "uno_penalty": [0, 2, 4],
    "draw_until_playable": [True, False],
    "draw_until_cap": [1, 10],
    "seven_zero": [True, False],
    "jump_in": [True, False],
    "suggestion_penalty": [0, 4],
    "wild_draw_bluff": [True, False],
    "challenges": [True, False],
    "wilds": [4, 8],
    "empty_launcher": ["reload", "dry"],
    "round_turn_limit": [0, 40, 5000],
    "custom": sorted(p.name for p in (Path(__file__).parent / "custom").glob("*.toml")),
}
CUSTOM_DIR = Path(__file__).parent / "custom"
BASE_TARGET = 120
GAMES_PER_CASE = 4
LAUNCHERS: tuple[str | None, ...] = (None, *PROFILES)


def player_counts(ruleset: str) -> range:
    return range(2, 6) if ruleset == "pocket" else range(2, 11)


def cases() -> list[tuple[str, int, str, Any]]:
    """Every (ruleset, players, option, value)."""
    return [
        (ruleset, players, option, value)
        for ruleset in RULESETS
        for players in player_counts(ruleset)
        for option, values in OPTION_VALUES.items()
        for value in values
        if option != "custom" or ruleset == "attack"  # only the attack deck has the card
    ]


def options_for(option: str, value: Any) -> dict[str, Any]:
    """The options of a case: the one under test, a low target, and what it needs."""
    if option == "custom":
        value = str(CUSTOM_DIR / value)
    options: dict[str, Any] = {option: value}
    if option != "target":
        options["target"] = BASE_TARGET
    if option == "draw_until_cap":
        options["draw_until_playable"] = True
    if option == "scoring" and value != "winner":
        options["target"] = 60
    return options


def case_seed(ruleset: str, players: int, option: str, value: Any, game: int) -> int:
    """A stable seed per case and game (no hash randomisation)."""
    text = f"{ruleset}|{players}|{option}|{value}|{game}"
    return sum((i + 1) * ord(ch) for i, ch in enumerate(text)) * 7919 + game


def launcher_for(index: int, game: int) -> str | None:
    return LAUNCHERS[(index + game) % len(LAUNCHERS)]
