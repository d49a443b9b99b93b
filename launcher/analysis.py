"""Exact analysis of spit-out profiles, and fast vectorised sampling with numpy.

Every kind whose state is finite is a Markov chain over "press states"
(:class:`PressChain`): one state for i.i.d., one per cycle position for a
pattern, one per run of misses for escalating. From the chain we get exactly
the long-run P(count = k), mean, variance, P(nothing), the expected presses
until cards fly (what a Wild Hit-Fire costs) and the distribution of runs of
empty presses. A load-dependent profile depends on how the hopper is used, so
it is analysed by simulating a hopper that is topped up when it runs low, and
the result states its standard error (batch means, which stay honest when
presses are correlated).

The vectorised samplers (:func:`sample`) reproduce each model's law exactly but
not the per-press sampler's stream: the same seed gives the same array, not the
same presses a ``sim://`` launcher would make.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

try:
    import numpy as np
    import numpy.typing as npt
except ModuleNotFoundError as missing:  # the analysis extra is not installed
    raise ModuleNotFoundError(
        f"launcher.analysis needs {missing.name}: pip install 'uno-attack[analysis]'",
        name=missing.name,
    ) from missing

from launcher.profiles import (
    EscalatingProfile,
    IIDProfile,
    LoadDependentProfile,
    PatternProfile,
    Profile,
)

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
TAIL_MASS = 1e-12
MAX_RUN = 100_000
CHUNK = 1 << 20
FULL_LOAD = 90
RELOAD_BELOW = 10


@dataclass(frozen=True)
class PressChain:
    """A profile as a Markov chain: each state emits a count and moves on by whether it was empty.

    ``emissions[s, k]`` = P(k cards | state s); after an empty press the chain
    moves to ``next_if_empty[s]``, otherwise to ``next_if_fired[s]``.
    """

    emissions: FloatArray
    next_if_empty: IntArray
    next_if_fired: IntArray
    start: int = 0

    @property
    def transition(self) -> FloatArray:
        states = len(self.emissions)
        matrix = np.zeros((states, states))
        empty = self.emissions[:, 0]
        np.add.at(matrix, (np.arange(states), self.next_if_empty), empty)
        np.add.at(matrix, (np.arange(states), self.next_if_fired), 1.0 - empty)
        return matrix


def _padded(rows: list[tuple[float, ...]]) -> FloatArray:
    width = max(len(r) for r in rows)
    return np.array([list(r) + [0.0] * (width - len(r)) for r in rows], dtype=float)


def chain_of(profile: Profile) -> PressChain | None:
    """The exact Markov chain of a profile, or None when its law depends on hopper usage."""
    if isinstance(profile, IIDProfile):
        zero = np.zeros(1, dtype=np.int64)
        return PressChain(_padded([profile.probabilities]), zero, zero)
    if isinstance(profile, PatternProfile):
        return _pattern_chain(profile)
    if isinstance(profile, EscalatingProfile):
        return _escalating_chain(profile)
    return None


def _pattern_chain(profile: PatternProfile) -> PressChain:
    fires = set(profile.fires)
    nothing = (1.0,) + (0.0,) * (len(profile.firing) - 1)
    rows = [
        profile.firing if position + 1 in fires else nothing for position in range(profile.cycle)
    ]
    following = (np.arange(profile.cycle, dtype=np.int64) + 1) % profile.cycle
    return PressChain(_padded(rows), following, following)


def _escalating_chain(profile: EscalatingProfile) -> PressChain:
    states = len(profile.hazard)
    if profile.guaranteed_after is not None:
        states = profile.guaranteed_after + 1
    firing = np.array(profile.firing)
    rows = []
    for misses in range(states):
        chance = profile.fire_chance(misses)
        row = chance * firing
        row[0] += 1.0 - chance
        rows.append(tuple(row))
    after_miss = np.minimum(np.arange(states, dtype=np.int64) + 1, states - 1)
    return PressChain(_padded(rows), after_miss, np.zeros(states, dtype=np.int64))


# -- exact quantities ---------------------------------------------------------------
def stationary(chain: PressChain) -> FloatArray:
    """Long-run share of presses made in each state (solves pi P = pi, sum pi = 1)."""
    states = len(chain.emissions)
    system = np.vstack([chain.transition.T - np.eye(states), np.ones(states)])
    target = np.zeros(states + 1)
    target[-1] = 1.0
    solution, *_ = np.linalg.lstsq(system, target, rcond=None)
    solution = np.clip(solution, 0.0, None)
    return np.asarray(solution / solution.sum(), dtype=float)


def presses_until_cards(chain: PressChain) -> FloatArray:
    """Expected presses, counting the one that shoots, from each state until cards fly."""
    states = len(chain.emissions)
    stay_empty = np.zeros((states, states))
    np.add.at(stay_empty, (np.arange(states), chain.next_if_empty), chain.emissions[:, 0])
    try:
        expected = np.linalg.solve(np.eye(states) - stay_empty, np.ones(states))
    except np.linalg.LinAlgError:
        return np.full(states, math.inf)
    expected[(expected < 0) | ~np.isfinite(expected)] = math.inf
    return np.asarray(expected, dtype=float)


def empty_run_lengths(chain: PressChain, weights: FloatArray) -> FloatArray:
    """P(L = l): empty presses before cards fly, starting from the state mix ``weights``."""
    mass = weights.astype(float).copy()
    empty = chain.emissions[:, 0]
    out: list[float] = []
    while mass.sum() > TAIL_MASS and len(out) < MAX_RUN:
        out.append(float(mass @ (1.0 - empty)))
        mass = np.bincount(chain.next_if_empty, weights=mass * empty, minlength=len(mass))
    return np.array(out)


@dataclass(frozen=True)
class ProfileAnalysis:
    """What a profile means for a game; ``exact`` False means simulated, with standard errors."""

    probabilities: FloatArray
    mean: float
    variance: float
    presses_until_cards: float
    presses_until_cards_from_reset: float
    empty_runs: FloatArray
    exact: bool
    presses_simulated: int = 0
    standard_errors: dict[str, float] = field(default_factory=dict)

    @property
    def p_nothing(self) -> float:
        return float(self.probabilities[0])

    @property
    def sd(self) -> float:
        return math.sqrt(self.variance)


def _moments(probabilities: FloatArray) -> tuple[float, float]:
    counts = np.arange(len(probabilities))
    mean = float(probabilities @ counts)
    return mean, float(probabilities @ (counts - mean) ** 2)


def analyse(
    profile: Profile, *, presses: int = 200_000, seed: int = 0, loaded: int = FULL_LOAD
) -> ProfileAnalysis:
    """Exact analysis when the profile is a finite chain, otherwise a seeded simulation."""
    chain = chain_of(profile)
    if chain is None:
        return simulate_analysis(profile, presses=presses, seed=seed, loaded=loaded)
    weights = stationary(chain)
    probabilities = weights @ chain.emissions
    mean, variance = _moments(probabilities)
    expected = presses_until_cards(chain)
    fired = weights * (1.0 - chain.emissions[:, 0])
    after_fire = np.bincount(chain.next_if_fired, weights=fired, minlength=len(weights))
    runs = (
        empty_run_lengths(chain, after_fire / after_fire.sum())
        if after_fire.sum() > 0
        else np.zeros(0)
    )
    return ProfileAnalysis(
        probabilities=probabilities,
        mean=mean,
        variance=variance,
        presses_until_cards=float(weights @ expected)
        if np.all(np.isfinite(expected))
        else math.inf,
        presses_until_cards_from_reset=float(expected[chain.start]),
        empty_runs=runs,
        exact=True,
    )


# -- simulation fallback --------------------------------------------------------------
def simulate_presses(
    profile: Profile,
    presses: int,
    *,
    seed: int | None = 0,
    loaded: int = FULL_LOAD,
    reload_below: int = RELOAD_BELOW,
) -> IntArray:
    """Press a simulated hopper of ``loaded`` cards, topping it up (a reload) when it runs low."""
    sampler = profile.sampler(seed)
    out = np.zeros(presses, dtype=np.int64)
    remaining = loaded
    for index in range(presses):
        if remaining < reload_below:
            remaining = loaded
            sampler.reset()
        count = min(sampler.next(remaining), remaining)
        out[index] = count
        remaining -= count
    return out


def _batch_se(values: FloatArray, batches: int = 50) -> float:
    means = np.array([chunk.mean() for chunk in np.array_split(values, batches)])
    return float(means.std(ddof=1) / math.sqrt(batches))


def _gaps(counts: IntArray) -> IntArray:
    fired = np.flatnonzero(counts > 0)
    return np.diff(fired) - 1 if len(fired) > 1 else np.zeros(0, dtype=np.int64)


def _wait_from_full(profile: Profile, loaded: int) -> float:
    """Load-dependent only: an empty press keeps the load, so the wait is geometric."""
    if not isinstance(profile, LoadDependentProfile):
        return math.nan
    nothing = profile.band_for(loaded).probabilities[0]
    return math.inf if nothing >= 1.0 else 1.0 / (1.0 - nothing)


def simulate_analysis(
    profile: Profile, *, presses: int = 200_000, seed: int = 0, loaded: int = FULL_LOAD
) -> ProfileAnalysis:
    """Estimate the analysis by simulation; ``standard_errors`` say how far to trust each figure."""
    counts = simulate_presses(profile, presses, seed=seed, loaded=loaded)
    probabilities = np.bincount(counts).astype(float) / presses
    gaps = _gaps(counts)
    runs = np.bincount(gaps).astype(float) / max(len(gaps), 1)
    waits = (gaps + 1).astype(np.float64)
    # From a random press, the wait is size-biased: E[W] = E[G^2 + G] / (2 E[G]) with G = gap + 1.
    wait = float((waits**2 + waits).mean() / (2 * waits.mean())) if len(waits) else math.inf
    mean, variance = float(counts.mean()), float(counts.var())
    errors = {
        "mean": _batch_se(counts.astype(float)),
        "p_nothing": _batch_se((counts == 0).astype(float)),
    }
    errors["presses_until_cards"] = _batch_se(waits) if len(waits) > 100 else math.inf
    return ProfileAnalysis(
        probabilities=probabilities,
        mean=mean,
        variance=variance,
        presses_until_cards=wait,
        presses_until_cards_from_reset=_wait_from_full(profile, loaded),
        empty_runs=runs,
        exact=False,
        presses_simulated=presses,
        standard_errors=errors,
    )


# -- vectorised sampling ----------------------------------------------------------------
def sample(
    profile: Profile, presses: int, seed: int | None = None, *, loaded: int = FULL_LOAD
) -> npt.NDArray[np.uint8]:
    """``presses`` counts from a fresh launcher (just reset), fast; one press per element.

    i.i.d., pattern and escalating profiles are sampled with whole-array numpy
    operations; other kinds fall back to :func:`simulate_presses`.
    """
    rng = np.random.default_rng(seed)
    if isinstance(profile, IIDProfile):
        return sample_categorical(profile.probabilities, presses, rng)
    if isinstance(profile, PatternProfile):
        return _sample_pattern(profile, presses, rng)
    if isinstance(profile, EscalatingProfile):
        return _sample_escalating(profile, presses, rng)
    return simulate_presses(profile, presses, seed=seed, loaded=loaded).astype(np.uint8)


def sample_categorical(
    probabilities: tuple[float, ...] | FloatArray, size: int, rng: np.random.Generator
) -> npt.NDArray[np.uint8]:
    """Inverse-CDF draws in chunks: one uniform and one binary search per press."""
    cumulative = np.cumsum(np.asarray(probabilities, dtype=float))[:-1]
    cumulative = cumulative / (cumulative[-1] if len(cumulative) and cumulative[-1] > 1 else 1.0)
    out = np.empty(size, dtype=np.uint8)
    uniforms = np.empty(min(size, CHUNK))
    for start in range(0, size, CHUNK):
        stop = min(start + CHUNK, size)
        block = uniforms[: stop - start]
        rng.random(out=block)
        out[start:stop] = np.searchsorted(cumulative, block, side="right")
    return out


def _sample_pattern(
    profile: PatternProfile, presses: int, rng: np.random.Generator
) -> npt.NDArray[np.uint8]:
    fires = np.zeros(profile.cycle, dtype=bool)
    fires[np.array(profile.fires, dtype=np.int64) - 1] = True
    mask = np.resize(fires, presses)
    out = np.zeros(presses, dtype=np.uint8)
    out[mask] = sample_categorical(profile.firing, int(mask.sum()), rng)
    return out


def _sample_gaps(profile: EscalatingProfile, size: int, rng: np.random.Generator) -> IntArray:
    """Empty presses before each fire, drawn exactly: a table, then a geometric tail."""
    chain = _escalating_chain(profile)
    states = len(chain.emissions)
    start = np.zeros(states)
    start[0] = 1.0
    head = np.array([profile.fire_chance(m) for m in range(states)])
    survive = np.concatenate([[1.0], np.cumprod(1.0 - head[:-1])])
    table = survive * head
    table[-1] = survive[-1]  # the last state's mass covers the whole tail
    gaps = np.searchsorted(np.cumsum(table)[:-1], rng.random(size), side="right").astype(np.int64)
    last = head[-1]
    tail = gaps == states - 1
    if last < 1.0:
        gaps[tail] += rng.geometric(last, int(tail.sum())) - 1 if last > 0 else MAX_RUN * 1000
    return gaps


def _sample_escalating(
    profile: EscalatingProfile, presses: int, rng: np.random.Generator
) -> npt.NDArray[np.uint8]:
    out = np.zeros(presses, dtype=np.uint8)
    fire_chance = 1.0 / max(analyse(profile).presses_until_cards_from_reset, 1.0)
    position = 0
    while position < presses:
        batch = int((presses - position) * fire_chance * 1.2) + 64
        where = position + np.cumsum(_sample_gaps(profile, batch, rng) + 1) - 1
        where = where[where < presses]
        out[where] = sample_categorical(profile.firing, len(where), rng)
        position = int(where[-1]) + 1 if len(where) == batch else presses
    return out
