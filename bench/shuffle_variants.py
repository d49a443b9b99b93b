"""Instructions per 112-card shuffle, for each way of shuffling measured in issue 27 (helper setup).

    python bench/shuffle_variants.py [--tree .] [--runs 200] [NAME ...]

Each way shuffles one list of 112 items ``--runs`` times (and 100 more) in a fresh ``python``
under ``valgrind --tool=callgrind``; the difference divided by 100 is its count per
shuffle, the same whatever the load (``PYTHONHASHSEED=0``). Only ``ours`` is the game's
(``game.core.chance.shuffle``); the others are the alternatives docs/performance.md reports
as measured and dropped: on CPython 3.11 a sort on random keys "in C" costs more than the
Python Fisher-Yates, because making, converting and comparing 112 keys through the generic
object protocol costs more than the swaps' bytecodes it saves.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/ itself: its sibling script
from engine_parts import callgrind_count  # noqa: E402

VARIANTS = r"""
import functools, random, struct
from itertools import repeat, starmap
from operator import itemgetter
from game.core.chance import shuffle as ours


@functools.cache
def _triples(size):  # the form before helper setup: (index, bound, bits)
    return tuple((i, i + 1, (i + 1).bit_length()) for i in range(size - 1, 0, -1))


def before(rng, cards):
    getrandbits = rng.getrandbits
    for i, n, bits in _triples(len(cards)):
        j = getrandbits(bits)
        while j >= n:
            j = getrandbits(bits)
        cards[i], cards[j] = cards[j], cards[i]


def random_shuffle(rng, cards):  # CPython 3.11's own, the same permutation
    rng.shuffle(cards)


@functools.cache
def _words(n):
    return struct.Struct(f"<{n}Q")


def sort_u64_keys(rng, cards):  # one getrandbits(64n), n 64-bit keys, sort the indices
    n = len(cards)
    keys = _words(n).unpack(rng.getrandbits(64 * n).to_bytes(8 * n, "little"))
    cards[:] = itemgetter(*sorted(range(n), key=keys.__getitem__))(cards)


def sort_u64_memoryview(rng, cards):  # the same keys read by memoryview.cast (native order)
    n = len(cards)
    keys = memoryview(rng.getrandbits(64 * n).to_bytes(8 * n, "little")).cast("Q").tolist()
    cards[:] = itemgetter(*sorted(range(n), key=keys.__getitem__))(cards)


def sort_float_keys(rng, cards):  # n calls of random() in C (starmap), sort the indices
    n = len(cards)
    keys = list(starmap(rng.random, repeat((), n)))
    cards[:] = itemgetter(*sorted(range(n), key=keys.__getitem__))(cards)


@functools.cache
def _tagged(n):  # doubles in [1, 2): 44 random mantissa bits above the item's index byte
    keep = sum((((1 << 52) - 1) & ~0xFF) << (64 * i) for i in range(n))
    tags = sum(((0x3FF << 52) | i) << (64 * i) for i in range(n))
    return keep, tags, struct.Struct(f"<{n}d")


def sort_tagged_floats(rng, cards):  # a plain float sort, no key function; indices read back
    n = len(cards)
    keep, tags, doubles = _tagged(n)
    keys = doubles.unpack(((rng.getrandbits(64 * n) & keep) | tags).to_bytes(8 * n, "little"))
    cards[:] = map(cards.copy().__getitem__, doubles.pack(*sorted(keys))[::8])


def sort_in_place_by_next_key(rng, cards):  # list.sort(key=...) fed the keys in order
    n = len(cards)
    keys = _words(n).unpack(rng.getrandbits(64 * n).to_bytes(8 * n, "little"))
    cards.sort(key=functools.partial(next, iter(keys)))


@functools.cache
def _plan(size):
    positions = tuple(range(size - 1, 0, -1))
    return positions, tuple((i + 1).bit_length() for i in positions)


def draws_by_map(rng, cards):  # Fisher-Yates, each first draw made by map() in C
    getrandbits = rng.getrandbits
    positions, bits = _plan(len(cards))
    for i, j in zip(positions, map(getrandbits, bits)):
        while j > i:
            j = getrandbits(j.bit_length())
        cards[i], cards[j] = cards[j], cards[i]


@functools.cache
def _pairs(size):
    out, i = [], size - 1
    while i >= 2:
        out.append((i, i + 1, (i + 1) * i, ((i + 1) * i).bit_length()))
        i -= 2
    return tuple(out), i


def two_per_draw(rng, cards):  # one draw below (i+1)*i split by divmod into two indices
    getrandbits = rng.getrandbits
    pairs, last = _pairs(len(cards))
    for i, m, bound, bits in pairs:
        r = getrandbits(bits)
        while r >= bound:
            r = getrandbits(bits)
        j, k = divmod(r, m)
        cards[i], cards[k] = cards[k], cards[i]
        cards[i - 1], cards[j] = cards[j], cards[i - 1]
    if last == 1:
        j = getrandbits(1)
        cards[1], cards[j] = cards[j], cards[1]


def keys_only(rng, cards):  # the 112 64-bit keys alone (getrandbits, to_bytes, unpack)
    n = len(cards)
    _words(n).unpack(rng.getrandbits(64 * n).to_bytes(8 * n, "little"))


def swaps_only(rng, cards, js=tuple(random.Random(1).randrange(i + 1) for i in range(111, 0, -1))):
    for i, j in zip(range(len(cards) - 1, 0, -1), js):  # the swaps of a shuffle, no draws
        cards[i], cards[j] = cards[j], cards[i]
"""


def instructions(tree: Path, name: str, runs: int) -> int:
    """Instructions of a python process that shuffles a 112-item list ``runs`` times."""
    code = f"import sys\nsys.path.insert(0, {str(tree)!r})\n{VARIANTS}\n"
    code += f"rng, cards = random.Random(5), list(range(112))\nfor _ in range({runs}):\n"
    return callgrind_count(code + f"    {name}(rng, cards)\n", "shuffle_variants")


def main() -> None:
    names = re.findall(r"^def ([a-z]\w*)\(rng, cards", VARIANTS, re.MULTILINE)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("names", nargs="*", default=["ours", *names], help="ways to measure")
    args = parser.parse_args()
    for name in args.names:
        more = instructions(args.tree, name, args.runs + 100)
        count = (more - instructions(args.tree, name, args.runs)) // 100
        print(f"{count:>10,} instructions  {name}")


if __name__ == "__main__":
    main()
