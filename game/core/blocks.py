"""One building block of a card effect, :class:`Step` (``"hit n=2 reason=hit2"``).

Plain data at the bottom of the rules core: rulesets are made of steps, :mod:`game.core.effects`
runs and checks them (:func:`game.core.effects.parse_step` reads one).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Step:
    """One building block of an effect: a name and its arguments."""

    name: str
    args: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        # the arguments as a dict, made once: the engine reads them on every card it resolves
        object.__setattr__(self, "_by_key", dict(reversed(self.args)))  # the first of a key wins

    def get(self, key: str, default: str = "") -> str:
        return self._by_key.get(key, default)  # type: ignore[attr-defined]

    def number(self, key: str, default: int) -> int:
        raw = self.get(key)
        return int(raw) if raw else default

    def __str__(self) -> str:
        return " ".join([self.name, *(f"{k}={v}" for k, v in self.args)])
