"""The press chance node and the resampling the RL wrappers need, over the rules core.

* :func:`press_outcomes` (and :func:`chance_outcomes`, the same as ``fired:N`` moves): the
  distribution of a pending press — the spit-out profile's per-press distribution, capped
  by the cards in the hopper.
* :func:`resample`: a determinization of the game consistent with what one seat knows
  (for OpenSpiel's information-set MCTS).

The core lists a press's outcomes itself (``Game.chance_outcomes()``) when it is given the
odds (a draw pile, an i.i.d. profile: :func:`press_odds`), as a fresh list each time; the
table presses hundreds of times a round, so the same outcomes are worked out here once per
load and looked up (tests/test_openspiel.py checks they are the core's). A profile with a
memory (pattern, escalating, load bands) is listed from the profile and the presses so far.
Resampling is the core's ``Game.resample_from_infostate``. Only profile *data* is read from
:mod:`launcher.profiles`; no launcher device is ever opened.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from game.core.errors import RulesetError
from game.core.moves import FiredMove
from game.play.driver import fired
from launcher.profiles import (
    EscalatingProfile,
    IIDProfile,
    LoadDependentProfile,
    PatternProfile,
    Profile,
)

if TYPE_CHECKING:
    from game.core.engine import Game


@dataclass
class PressState:
    """What a stateful profile remembers between presses (as its sampler would).

    ``position``: presses made in the pattern's cycle; ``misses``: empty presses in a row
    (escalating); ``generation``: the pile generation of the last hopper load (a load
    resets the sampler, as :class:`launcher.sim.SimLauncher` does).
    """

    position: int = 0
    misses: int = 0
    generation: int = -1


def press_odds(profile: Profile | None) -> tuple[float, ...] | None:
    """What the core needs to list a press's outcomes itself: an i.i.d. profile's odds."""
    return tuple(profile.probabilities) if isinstance(profile, IIDProfile) else None


class PressOutcomes(NamedTuple):
    """A pending press's outcomes: the counts it can shoot, their probabilities (summing
    to 1) and the running sums of those, for sampling with one uniform number (bisect)."""

    counts: tuple[int, ...]
    probabilities: tuple[float, ...]
    cumulative: tuple[float, ...]


def press_outcomes(game: Game, profile: Profile | None, press: PressState) -> PressOutcomes:
    """The pending press's outcomes (``profile`` None: a draw pile, one card while any is left).

    The profile's distribution capped by the hopper, worked out once per profile, memory
    and load (up to the profile's largest count) and then looked up: a table presses
    hundreds of times a round and the distribution depends on nothing else. For a draw pile
    and an i.i.d. profile these are the outcomes ``Game.chance_outcomes()`` lists.
    """
    loaded = len(game.pile)
    if profile is None:
        return _PILE[min(loaded, 1)]
    limit = _LIMITS.get(id(profile))
    if limit is None:
        limit = _LIMITS[id(profile)] = profile.max_count
    if type(profile) is IIDProfile:  # the common case: no memory, the key is the load
        key: tuple[int, ...] = (id(profile), min(loaded, limit))
    else:
        _sync_load(game, profile, press)
        key = (id(profile), min(loaded, limit), press.position, press.misses)
        if isinstance(profile, LoadDependentProfile):
            key += (id(profile.band_for(loaded)),)
    outcomes = _OUTCOMES.get(key)
    if outcomes is None:
        outcomes = _OUTCOMES[key] = _capped(_wanted(profile, press, loaded), loaded)
    return outcomes


def outcomes_by_load(profile: Profile | None) -> tuple[PressOutcomes, ...] | None:
    """A memoryless press's outcomes for each load 0, 1, ... up to the largest count (the
    last entry stands for every larger load), or None for a profile with a memory."""
    if profile is None:
        return _PILE
    if type(profile) is not IIDProfile:
        return None
    wanted = profile.probabilities
    return tuple(_capped(wanted, load) for load in range(profile.max_count + 1))


def chance_outcomes(
    game: Game, profile: Profile | None, press: PressState
) -> list[tuple[FiredMove, float]]:
    """The pending press's outcomes as ``(fired:N, probability)`` pairs, as the core lists them."""
    counts, probabilities, _ = press_outcomes(game, profile, press)
    return [(fired(count), p) for count, p in zip(counts, probabilities, strict=True)]


def _capped(wanted: tuple[float, ...], loaded: int) -> PressOutcomes:
    capped: dict[int, float] = {}
    for count, p in enumerate(wanted):
        if p > 0:
            out = min(count, loaded)
            capped[out] = capped.get(out, 0.0) + p
    total = sum(capped.values())
    counts = tuple(sorted(capped))
    probabilities = tuple(capped[count] / total for count in counts)
    return PressOutcomes(counts, probabilities, tuple(itertools.accumulate(probabilities)))


#: A draw pile's press: one card while any is left.
_PILE = (_capped((1.0,), 0), _capped((0.0, 1.0), 1))
#: Outcomes by (profile, load up to the profile's largest count, its memory); the profiles
#: are the few loaded once per table spec, so this stays small.
_OUTCOMES: dict[tuple[int, ...], PressOutcomes] = {}
#: Each profile's largest count (``Profile.max_count`` scans its table every call).
_LIMITS: dict[int, int] = {}


def after_press(game: Game, profile: Profile | None, press: PressState, count: int) -> None:
    """Advance the profile's memory past a press that shot ``count`` cards.

    The memory :func:`chance_outcomes` reads for a pattern or escalating profile.
    At an empty hopper an escalating profile's press counts as a miss (its sampler would
    not know either way; the hopper caps the outcome at 0).
    """
    if profile is None:
        return
    if isinstance(profile, PatternProfile):
        press.position = press.position % profile.cycle + 1
    elif isinstance(profile, EscalatingProfile):
        press.misses = 0 if count > 0 else press.misses + 1


def _sync_load(game: Game, profile: Profile, press: PressState) -> None:
    """A new deal or reload loads the hopper: the sampler resets (if the profile says so)."""
    if press.generation == game.pile_generation:
        return
    press.generation = game.pile_generation
    resets = getattr(profile, "reset_on_reload", False)
    if resets:
        press.position = press.misses = 0


def _wanted(profile: Profile, press: PressState, loaded: int) -> tuple[float, ...]:
    """P(the profile asks for k cards) on the next press, k = 0, 1, ..."""
    if isinstance(profile, IIDProfile):
        return profile.probabilities
    if isinstance(profile, LoadDependentProfile):
        return profile.band_for(loaded).probabilities
    if isinstance(profile, PatternProfile):
        position = press.position % profile.cycle + 1
        return profile.firing if position in profile.fires else (1.0,)
    if isinstance(profile, EscalatingProfile):
        fire = profile.fire_chance(press.misses)
        return tuple(
            (1.0 - fire if k == 0 else 0.0) + fire * p for k, p in enumerate(profile.firing)
        )
    raise RulesetError(
        f"profile {profile.name!r} of kind {profile.kind!r} has no listed press distribution",
        hint="use an iid, pattern, escalating or load-dependent profile",
    )


def max_outcome(profile: Profile | None) -> int:
    """The largest ``fired:N`` a press can have (the chance outcomes are 0..this)."""
    return 1 if profile is None else profile.max_count


def resample(game: Game, seat: int, rng: random.Random) -> Game:
    """A copy of ``game`` with what ``seat`` cannot see dealt again at random.

    The copy keeps the event log, so every seat's view of the past is unchanged.
    """
    return game.resample_from_infostate(seat, rng)
