"""game.core.chance.shuffle: random.Random.shuffle's permutation and stream, uniform, no card lost.

The chi-square tests use fixed seeds, so they pass or fail the same way every run; each
bound is checked against two known biased shuffles so it would catch one.
"""

import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


# -- uniformity: chi-square tests with fixed seeds (deterministic, never flaky) -------------
def _chi_square(counts: list[int], expected: float) -> float:
    return sum((c - expected) ** 2 / expected for c in counts)


def _limit(mean: int) -> float:
    """About six standard deviations above a chi-square's ``mean``: a fair shuffle stays
    well under it, a biased one (the tests below) lands far over it.

    The mean is the degrees of freedom for the permutation counts; for the item-by-position
    table of ``n`` items (n * n cells, each a binomial of p = 1/n) it is ``n * (n - 1)``.
    """
    return mean + 6 * (2 * mean) ** 0.5


def _positions(shuffler: Any, size: int, runs: int) -> list[int]:
    """How often each item ends at each position: ``size * size`` cells, item-major."""
    counts = [0] * (size * size)
    items = list(range(size))
    for _ in range(runs):
        cards = list(items)
        shuffler(cards)
        for place, item in enumerate(cards):
            counts[item * size + place] += 1
    return counts


def _naive(rng: random.Random) -> Any:
    """A classic biased shuffle: every swap partner drawn from the whole list."""

    def shuffled(cards: list[int]) -> None:
        for i in range(len(cards)):
            j = rng.randrange(len(cards))
            cards[i], cards[j] = cards[j], cards[i]

    return shuffled


def _sattolo(rng: random.Random) -> Any:
    """Another: an item never stays where it was (the off-by-one ``j < i``)."""

    def shuffled(cards: list[int]) -> None:
        for i in range(len(cards) - 1, 0, -1):
            j = rng.randrange(i)
            cards[i], cards[j] = cards[j], cards[i]

    return shuffled


@pytest.mark.parametrize("size", [5, 13])
def test_every_item_lands_in_every_position_equally_often(size: int) -> None:
    runs = 200 * size
    rng = seeded(20261207)
    counts = _positions(lambda cards: shuffle(rng, cards), size, runs)
    assert _chi_square(counts, runs / size) < _limit(size * (size - 1))


@pytest.mark.parametrize("biased", [_naive, _sattolo])
def test_the_position_test_catches_a_biased_shuffle(biased: Any) -> None:
    size, runs = 13, 2600
    counts = _positions(biased(random.Random(20261207)), size, runs)
    assert _chi_square(counts, runs / size) > _limit(size * (size - 1))


def test_every_permutation_of_four_equally_often() -> None:
    rng, runs = seeded(7), 24_000
    seen = Counter()
    for _ in range(runs):
        cards = [0, 1, 2, 3]
        shuffle(rng, cards)
        seen[tuple(cards)] += 1
    assert len(seen) == 24
    assert _chi_square(list(seen.values()), runs / 24) < _limit(23)


# -- properties ------------------------------------------------------------------------------
@settings(max_examples=200, deadline=None)
@given(cards=st.lists(st.integers(0, 20), max_size=150), seed=st.integers(0, 2**128))
def test_no_card_created_or_lost_and_the_seed_decides(cards: list[int], seed: int) -> None:
    first, second = list(cards), list(cards)
    shuffle(seeded(seed), first)
    shuffle(seeded(seed), second)
    assert Counter(first) == Counter(cards)
    assert first == second


def test_a_quick_copy_source_shuffles_as_its_seed_does() -> None:
    """The resampler's chance source (a random.Random subclass) takes the same shuffle."""
    from game.core.infostate import QuickCopyRandom

    twin = QuickCopyRandom(0)
    twin.setstate(seeded(11).getstate())
    ours, theirs = list(range(108)), list(range(108))
    shuffle(twin, ours)
    shuffle(seeded(11), theirs)
    assert ours == theirs and ours != list(range(108))
