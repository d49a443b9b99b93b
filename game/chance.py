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
#: CPython's Random draws below n with getrandbits (true unless random.py changes).
_INLINE = getattr(random.Random, "_randbelow", None) is getattr(
    random.Random, "_randbelow_with_getrandbits", 0
)


class Chance(Protocol):
    def shuffle(self, x: list[Any]) -> None: ...

    def randrange(self, stop: int, /) -> int: ...


def seeded(seed: int) -> random.Random:
    """The game's chance source for ``seed``."""
    return random.Random(seed)


def shuffle(chance: Chance, cards: list[Any]) -> None:
    """``chance.shuffle(cards)``, the same permutation and stream, without a call per card.

    For a plain :class:`random.Random` this is CPython's ``shuffle`` with its
    ``_randbelow_with_getrandbits`` inlined (tests/test_chance_shuffle.py checks that the
    results and the stream after it are identical); any other source keeps its own shuffle.
    """
    if not _INLINE or type(chance) is not random.Random:
        chance.shuffle(cards)
        return
    getrandbits = chance.getrandbits
    for i in range(len(cards) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]


def derive_seed(seed: int, label: str) -> int:
    """A stable sub-seed for ``label`` (splitmix64 finaliser over seed and a CRC of the label)."""
    z = (seed * 0x9E3779B97F4A7C15 + zlib.crc32(label.encode())) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return (z ^ (z >> 31)) & _MASK


def fresh_seed() -> int:
    """A new seed from the operating system, for games started without one (it is logged)."""
    return random.SystemRandom().randrange(1 << 32)
