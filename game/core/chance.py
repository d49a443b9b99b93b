"""The one chance source of a game: every shuffle and random choice flows from the game seed.

The engine never imports :mod:`random`; it is handed an object with ``shuffle``
and ``randrange`` (a :class:`random.Random` made here, or anything with that
shape, e.g. a scripted source in a test). Seeds for sub-systems (the simulated
launcher) are *derived* from the game seed with a fixed mixing function, so one
number replays a whole game.
"""

from __future__ import annotations

import functools
import random
import zlib
from typing import Any, Protocol

_MASK = (1 << 63) - 1
_WORD = (1 << 64) - 1
#: Bits of a fresh seed: enough that nobody finds it by trying seeds against the first cards.
SEED_BITS = 128


class Chance(Protocol):
    def shuffle(self, x: list[Any]) -> None: ...

    def randrange(self, stop: int, /) -> int: ...


def seeded(seed: int) -> random.Random:
    """The game's chance source for ``seed``."""
    return random.Random(seed)


def shuffle(chance: Chance, cards: list[Any]) -> None:
    """Shuffle ``cards`` in place: Fisher-Yates, each index drawn by rejection from ``getrandbits``.

    This is the game's shuffle, written here so the event stream does not depend on how
    a Python version implements :meth:`random.Random.shuffle` (CPython 3.11's gives the
    same permutation: tests/test_chance_shuffle.py checks it). It calls only the public
    ``getrandbits``, once per card. A source that is not a plain :class:`random.Random`
    (a scripted test source, a subclass with its own shuffle) keeps its own ``shuffle``.

    The loop is the cheapest form measured on CPython 3.11 (docs/performance.md, helper
    ``setup``; bench/shuffle_variants.py): an index ``j`` is accepted when ``j <= i``, so
    each draw carries only the position and its bit count. A sort on random keys "in C",
    with no bytecode per card, costs more: making, converting and comparing a deck's keys
    through the object protocol outweighs the swaps it saves.
    """
    if type(chance).shuffle is not random.Random.shuffle:
        chance.shuffle(cards)
        return
    getrandbits = chance.getrandbits  # type: ignore[attr-defined]  # a random.Random here
    for i, bits in _draws(len(cards)):
        j = getrandbits(bits)
        while j > i:
            j = getrandbits(bits)
        cards[i], cards[j] = cards[j], cards[i]


@functools.cache
def _draws(size: int) -> tuple[tuple[int, int], ...]:
    """The draws of a shuffle of ``size`` items: (index i, bits to draw j in 0..i by rejection)."""
    return tuple((i, (i + 1).bit_length()) for i in range(size - 1, 0, -1))


def derive_seed(seed: int, label: str) -> int:
    """A stable sub-seed for ``label`` (splitmix64 finaliser over seed and a CRC of the label).

    Seeds above 64 bits fold their higher words in, so a sub-seed depends on every bit
    of a fresh seed; a seed below ``2**64`` gives the sub-seed it always gave.
    """
    crc = zlib.crc32(label.encode())
    z = _splitmix(seed * 0x9E3779B97F4A7C15 + crc)
    high = abs(seed) >> 64
    while high:
        z = _splitmix((z ^ (high & _WORD)) * 0x9E3779B97F4A7C15 + crc)
        high >>= 64
    return z & _MASK


def _splitmix(z: int) -> int:
    z &= _WORD
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _WORD
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _WORD
    return z ^ (z >> 31)


def fresh_seed() -> int:
    """A new secret seed from the operating system's CSPRNG, for games started without one.

    :data:`SEED_BITS` bits: a seed below ``2**32`` could be found by replaying every seed
    against the first cards a player sees. The seed is the game's secret: it goes in the
    journal (a 0600 file), never into an event a view or an observation shows.
    """
    import secrets  # here: seeded runs (every simulate game) never need it, nor hmac/hashlib

    return secrets.randbits(SEED_BITS)
