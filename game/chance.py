"""The one chance source of a game: every shuffle and random choice flows from the game seed.

The engine never imports :mod:`random`; it is handed an object with ``shuffle``
and ``randrange`` (a :class:`random.Random` made here, or anything with that
shape, e.g. a scripted source in a test). Seeds for sub-systems (the simulated
launcher) are *derived* from the game seed with a fixed mixing function, so one
number replays a whole game.
"""

from __future__ import annotations

import random
import zlib
from typing import Any, Protocol

_MASK = (1 << 63) - 1


class Chance(Protocol):
    def shuffle(self, x: list[Any]) -> None: ...

    def randrange(self, stop: int, /) -> int: ...


def seeded(seed: int) -> random.Random:
    """The game's chance source for ``seed``."""
    return random.Random(seed)


def derive_seed(seed: int, label: str) -> int:
    """A stable sub-seed for ``label`` (splitmix64 finaliser over seed and a CRC of the label)."""
    z = (seed * 0x9E3779B97F4A7C15 + zlib.crc32(label.encode())) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return (z ^ (z >> 31)) & _MASK


def fresh_seed() -> int:
    """A new seed from the operating system, for games started without one (it is logged)."""
    return random.SystemRandom().randrange(1 << 32)
