"""The four profile kinds and their seeded per-press samplers.

A :class:`Profile` is data (one TOML format, ``docs/profiles.md``); it makes a
:class:`PressSampler`, the small seeded state machine a launcher consults on
every press. Samplers use :class:`random.Random` so the per-press path of a
game stays simple and replayable; bulk analysis uses the vectorised sampler in
:mod:`launcher.analysis` instead.
"""

from __future__ import annotations

import bisect
import itertools
import random
from abc import ABC, abstractmethod
from dataclasses import dataclass


class PressSampler(ABC):
    """Per-launcher state that decides each press's count; seeded, never global randomness."""

    @abstractmethod
    def next(self, loaded: int) -> int:
        """How many cards this press should shoot, with ``loaded`` cards in the hopper."""

    def reset(self) -> None:  # noqa: B027 -- optional hook; most samplers have nothing to reset
        """The launcher was powered up or its hopper reloaded."""


@dataclass(frozen=True)
class Profile(ABC):
    """A named, sourced description of a launcher's spit-out behaviour."""

    name: str
    source: str
    description: str

    kind = "abstract"

    @abstractmethod
    def sampler(self, seed: int | None) -> PressSampler:
        """A fresh sampler whose choices all flow from ``seed``."""

    @property
    def max_count(self) -> int:
        """The largest count this profile can ever ask for."""
        return 0


def _cumulative(probabilities: tuple[float, ...]) -> list[float]:
    """The running sums of ``probabilities``, the last one exactly 1: an index is drawn as
    ``bisect_right(sums, u)`` for one uniform ``u``."""
    sums = list(itertools.accumulate(probabilities))
    sums[-1] = 1.0
    return sums


class _CategoricalDraw:
    """Draw an index from fixed probabilities with one uniform number per draw."""

    def __init__(self, probabilities: tuple[float, ...]) -> None:
        self._cumulative = _cumulative(probabilities)

    def draw(self, rng: random.Random) -> int:
        """The index drawn with one ``rng.random()``.

        A named method, not ``__call__``: the samplers call it on every press, and a call
        through ``__call__``'s slot costs about 800 instructions more in CPython 3.11
        (docs/performance.md, session ``bots2``).
        """
        return bisect.bisect_right(self._cumulative, rng.random())


def _last_possible(probabilities: tuple[float, ...]) -> int:
    return max((k for k, p in enumerate(probabilities) if p > 0), default=0)


# -- i.i.d. -----------------------------------------------------------------------
@dataclass(frozen=True)
class IIDProfile(Profile):
    """Every press independent: ``probabilities[k]`` = P(k cards)."""

    probabilities: tuple[float, ...]

    kind = "iid"

    def sampler(self, seed: int | None) -> PressSampler:
        return _IIDSampler(self.probabilities, random.Random(seed))

    @property
    def max_count(self) -> int:
        return _last_possible(self.probabilities)


class _IIDSampler(PressSampler):
    """Every press the same draw: :meth:`_CategoricalDraw.draw`'s bisect, made here without
    its call (the default ``sim://`` profile is i.i.d.: every press of a simulated game)."""

    def __init__(self, probabilities: tuple[float, ...], rng: random.Random) -> None:
        self._cumulative = _cumulative(probabilities)
        self._random = rng.random

    def next(self, loaded: int) -> int:
        return bisect.bisect_right(self._cumulative, self._random())


# -- fixed pattern ----------------------------------------------------------------
@dataclass(frozen=True)
class PatternProfile(Profile):
    """A fixed firing sequence over a cycle of presses; firing presses draw from ``firing``.

    ``fires`` are 1-based press numbers within a cycle of ``cycle`` presses. The
    position restarts at power-up and, when ``reset_on_reload`` (the 1999
    launcher), every time the hopper is opened and closed.
    """

    fires: tuple[int, ...]
    cycle: int
    firing: tuple[float, ...]
    reset_on_reload: bool = True

    kind = "pattern"

    def sampler(self, seed: int | None) -> PressSampler:
        return _PatternSampler(self, random.Random(seed))

    @property
    def max_count(self) -> int:
        return _last_possible(self.firing) if self.fires else 0


class _PatternSampler(PressSampler):
    def __init__(self, profile: PatternProfile, rng: random.Random) -> None:
        self._fires = frozenset(profile.fires)
        self._cycle = profile.cycle
        self._draw = _CategoricalDraw(profile.firing)
        self._rng = rng
        self._resets = profile.reset_on_reload
        self._position = 0

    def next(self, loaded: int) -> int:
        self._position = self._position % self._cycle + 1
        return self._draw.draw(self._rng) if self._position in self._fires else 0

    def reset(self) -> None:
        if self._resets:
            self._position = 0


# -- escalating -------------------------------------------------------------------
@dataclass(frozen=True)
class EscalatingProfile(Profile):
    """The chance of firing rises with every empty press (Mega Hit-style lights pulsing faster).

    ``hazard[m]`` is P(fire) on a press that follows ``m`` empty presses; the
    last value holds for longer droughts. With ``guaranteed_after = M`` the
    press after ``M`` empty presses always fires. A firing press shoots at
    least one card, drawn from ``firing`` (so ``firing[0]`` is 0).
    """

    hazard: tuple[float, ...]
    firing: tuple[float, ...]
    guaranteed_after: int | None = None
    reset_on_reload: bool = True

    kind = "escalating"

    def fire_chance(self, misses: int) -> float:
        """P(fire) on the press after ``misses`` empty presses in a row."""
        if self.guaranteed_after is not None and misses >= self.guaranteed_after:
            return 1.0
        return self.hazard[min(misses, len(self.hazard) - 1)]

    def sampler(self, seed: int | None) -> PressSampler:
        return _EscalatingSampler(self, random.Random(seed))

    @property
    def max_count(self) -> int:
        return _last_possible(self.firing)


class _EscalatingSampler(PressSampler):
    def __init__(self, profile: EscalatingProfile, rng: random.Random) -> None:
        self._profile = profile
        self._draw = _CategoricalDraw(profile.firing)
        self._rng = rng
        self._misses = 0

    def next(self, loaded: int) -> int:
        if self._rng.random() < self._profile.fire_chance(self._misses):
            self._misses = 0
            return self._draw.draw(self._rng)
        self._misses += 1
        return 0

    def reset(self) -> None:
        if self._profile.reset_on_reload:
            self._misses = 0


# -- load-dependent ---------------------------------------------------------------
@dataclass(frozen=True)
class LoadBand:
    """Counts drawn from ``probabilities`` while at least ``min_loaded`` cards are loaded."""

    min_loaded: int
    probabilities: tuple[float, ...]


@dataclass(frozen=True)
class LoadDependentProfile(Profile):
    """Independent presses whose count distribution depends on how full the hopper is.

    ``bands`` are sorted by ``min_loaded``, the first starting at 0; a press
    uses the last band whose ``min_loaded`` is at most the current load.
    """

    bands: tuple[LoadBand, ...]

    kind = "load-dependent"

    def band_for(self, loaded: int) -> LoadBand:
        index = bisect.bisect_right([b.min_loaded for b in self.bands], loaded) - 1
        return self.bands[max(index, 0)]

    def sampler(self, seed: int | None) -> PressSampler:
        return _LoadSampler(self, random.Random(seed))

    @property
    def max_count(self) -> int:
        return max(_last_possible(b.probabilities) for b in self.bands)


class _LoadSampler(PressSampler):
    def __init__(self, profile: LoadDependentProfile, rng: random.Random) -> None:
        self._starts = [b.min_loaded for b in profile.bands]
        self._draws = [_CategoricalDraw(b.probabilities) for b in profile.bands]
        self._rng = rng

    def next(self, loaded: int) -> int:
        index = max(bisect.bisect_right(self._starts, loaded) - 1, 0)
        return self._draws[index].draw(self._rng)
