"""One building block of a card effect, :class:`Step` (``"hit n=2 reason=hit2"``).

Plain data at the bottom of the rules core: rulesets are made of steps, :mod:`game.core.effects`
runs and checks them (:func:`game.core.effects.parse_step` reads one).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType


@dataclass(frozen=True)
class Step:
    """One building block of an effect: a name and its arguments.

    The arguments are also read into two read-only mappings when the step is made,
    :attr:`text` and :attr:`numbers`: the engine runs a block on most cards it resolves, and a
    block reading ``step.numbers.get("n", 1)`` makes no Python call (:meth:`get` and
    :meth:`number` are one each, about 400 instructions in CPython 3.11: docs/performance.md,
    helper ``effects``). Read-only, because a step is shared by every game of its ruleset
    (a copy of a game shares its effect queue's steps, as it shares its cards).
    """

    name: str
    args: tuple[tuple[str, str], ...] = ()
    #: Every argument as text, by key (the first of a key wins).
    text: Mapping[str, str] = field(init=False, repr=False, compare=False)
    #: The arguments written as whole numbers (``n=2``), as ints, by key.
    numbers: Mapping[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        text = dict(reversed(self.args))  # the first of a key wins
        object.__setattr__(self, "text", MappingProxyType(text))
        numbers = {key: int(value) for key, value in text.items() if value.isdecimal()}
        object.__setattr__(self, "numbers", MappingProxyType(numbers))

    def __reduce__(self) -> tuple[type[Step], tuple[str, tuple[tuple[str, str], ...]]]:
        """Pickled as its name and arguments (its read-only maps are made again)."""
        return (Step, (self.name, self.args))

    def get(self, key: str, default: str = "") -> str:
        return self.text.get(key, default)

    def number(self, key: str, default: int) -> int:
        return self.numbers.get(key, default)

    def __str__(self) -> str:
        return " ".join([self.name, *(f"{k}={v}" for k, v in self.args)])
