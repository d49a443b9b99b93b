"""game.core.chance.shuffle is random.Random.shuffle, faster: same permutation and stream after."""

import random

import pytest

from game.core.chance import seeded, shuffle


@pytest.mark.parametrize("size", [0, 1, 2, 3, 7, 108, 112, 1000])
def test_same_permutation_and_stream_as_random_shuffle(size: int) -> None:
    for seed in range(50):
        ours, theirs = seeded(seed), random.Random(seed)
        a, b = list(range(size)), list(range(size))
        shuffle(ours, a)
        theirs.shuffle(b)
        assert a == b
        assert ours.getrandbits(64) == theirs.getrandbits(64)


def test_other_sources_keep_their_own_shuffle() -> None:
    class Reverse:
        def shuffle(self, x: list[int]) -> None:
            x.reverse()

        def randrange(self, stop: int, /) -> int:
            return 0

    cards = [1, 2, 3]
    shuffle(Reverse(), cards)
    assert cards == [3, 2, 1]
