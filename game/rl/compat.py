"""The press chance node and the resampling the RL wrappers need, over the rules core.

* :func:`chance_outcomes`: the distribution of ``fired:N`` at a pending press — the
  spit-out profile's per-press distribution, capped by the cards in the hopper.
* :func:`resample`: a determinization of the game consistent with what one seat knows
  (for OpenSpiel's information-set MCTS).

The core lists a press's outcomes itself (``Game.chance_outcomes()``) when it is given the
odds (a draw pile, an i.i.d. profile: :func:`press_odds`); a profile with a memory
(pattern, escalating, load bands) is listed here from the profile and the presses so far.
Resampling is the core's ``Game.resample_from_infostate``. Only profile *data* is read from
:mod:`launcher.profiles`; no launcher device is ever opened.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

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


def chance_outcomes(
    game: Game, profile: Profile | None, press: PressState
) -> list[tuple[FiredMove, float]]:
    """The pending press's outcomes ``fired:N`` and their probabilities (they sum to 1).

    ``profile`` None: the draw pile (classic, pocket), one card while any is left.
    """
    listed = game.chance_outcomes()
    if listed:  # the core lists them when it has the odds (a draw pile, an i.i.d. profile)
        return listed  # type: ignore[return-value]  # every outcome is a fired:N move
    # A profile with a memory (pattern, escalating, load bands): its distribution, capped.
    loaded = len(game.round.pile)
    if profile is None:
        return [(fired(1 if loaded else 0), 1.0)]
    _sync_load(game, profile, press)
    limit = _LIMITS.get(id(profile))
    if limit is None:
        limit = _LIMITS[id(profile)] = profile.max_count + 1
    key: tuple[int, ...] = (id(profile), press.position, press.misses, min(loaded, limit))
    if isinstance(profile, LoadDependentProfile):
        key += (id(profile.band_for(loaded)),)
    outcomes = _OUTCOMES.get(key)
    if outcomes is None:
        outcomes = _OUTCOMES[key] = _capped(_wanted(profile, press, loaded), loaded)
    return outcomes


#: Outcome lists by (profile, its memory, load up to the profile's largest count); the
#: profiles are the few loaded once per table spec, so this stays small.
_OUTCOMES: dict[tuple[int, ...], list[tuple[FiredMove, float]]] = {}
#: Each profile's largest count + 1 (``Profile.max_count`` scans its table every call).
_LIMITS: dict[int, int] = {}


def _capped(wanted: tuple[float, ...], loaded: int) -> list[tuple[FiredMove, float]]:
    capped: dict[int, float] = {}
    for count, p in enumerate(wanted):
        if p > 0:
            out = min(count, loaded)
            capped[out] = capped.get(out, 0.0) + p
    total = sum(capped.values())
    return [(fired(count), p / total) for count, p in sorted(capped.items())]


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
    # FALLBACK (until Game.resample_from_infostate is merged): the search bot's
    # determinization (other hands and the pile re-dealt from their union, keeping sizes
    # and what the history says a seat lacks), with the events put back.
    from game.bots.inference import hand_constraints
    from game.bots.search import determinize

    beliefs = hand_constraints(game.observation(seat).history, game.num_players)
    world = determinize(game, seat, rng, beliefs)
    world.events = list(game.events)
    return world
