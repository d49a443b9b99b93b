"""UNO Attack as a PettingZoo AEC environment, checked by PettingZoo's own tests.

``api_test`` checks the AEC protocol (agents, spaces, ``last``, masks, rewards,
terminations, observations inside their space, render/close); ``seed_test`` that two
environments reset with the same seed and fed the same masked actions stay identical.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test
from pettingzoo.utils import wrappers

from game.core.errors import IllegalMove
from game.pettingzoo import env, raw_env

#: api_test's advice against Dict observations, which PettingZoo's own masked (classic) envs
#: get too: ``{"observation": ..., "action_mask": ...}`` is the documented way to pass a mask.
DICT_WARNINGS = {
    "Observation space for each agent probably should be gymnasium.spaces.box or "
    "gymnasium.spaces.discrete",
    "Observation is not a NumPy array",
}
RULESETS = ["attack", "attack-original", "attack-mega-hit", "classic", "pocket"]


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("ruleset", RULESETS)
def test_pettingzoo_api_and_seed_tests(ruleset: str, players: int) -> None:
    assert _api_test_findings(ruleset, players, seed=players) == set()
    seed_test(functools.partial(env, ruleset=ruleset, players=players), num_cycles=300)


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", RULESETS)
def test_pettingzoo_api_test_soak_with_fresh_seeds(ruleset: str) -> None:
    """The CI test above replays its games; this soak deals new ones on every run."""
    for players in (2, 3, 4) * 10:
        assert _api_test_findings(ruleset, players, seed=None) == set()


def _api_test_findings(ruleset: str, players: int, seed: int | None) -> set[str]:
    """PettingZoo's ``api_test`` on a fresh ``env()``: its warnings but the expected one.

    ``api_test`` deals with ``reset()`` and moves with ``action_space(agent).sample(mask)``;
    with a ``seed`` both replay (the deals continue the seeded generator, the spaces are
    seeded), so a CI run plays the same games as the last; with None they are new.
    """
    under_test = env(ruleset=ruleset, players=players)
    if seed is not None:
        under_test.reset(seed=seed)
        for agent in under_test.possible_agents:
            under_test.action_space(agent).seed(seed)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(under_test, num_cycles=300)
    # a warning of api_test is a finding too, but for the one every masked classic env gets
    return {str(w.message) for w in caught} - DICT_WARNINGS


def masked_random_round(
    table: object, rng: np.random.Generator
) -> tuple[dict[str, float], set[str]]:
    """Play one round with a uniform policy over the mask; the rewards and the ids' names seen."""
    seen: set[str] = set()
    rewards: dict[str, float] = {}
    for agent in table.agent_iter():  # type: ignore[attr-defined]
        observation, reward, termination, truncation, _ = table.last()  # type: ignore[attr-defined]
        rewards[agent] = reward
        if termination or truncation:
            table.step(None)  # type: ignore[attr-defined]
            continue
        legal = np.flatnonzero(observation["action_mask"])
        inner = table.unwrapped  # type: ignore[attr-defined]
        names = {inner.spec.actions.name(int(a)) for a in legal}
        if inner.table.offering and any(name.startswith("play:") for name in names):
            names.add("jump-in")
        seen |= names
        table.step(int(rng.choice(legal)))  # type: ignore[attr-defined]
    return rewards, seen


def test_a_masked_random_round_ends_with_zero_sum_rewards_and_offers_uno_calls() -> None:
    table = env(ruleset="attack", players=4)
    rng = np.random.default_rng(0)
    seen: set[str] = set()
    for seed in range(3):
        table.reset(seed=seed)
        rewards, names = masked_random_round(table, rng)
        seen |= names
        assert sum(rewards.values()) == pytest.approx(0.0)
        assert sorted(rewards.values())[-1] in (0.0, 1.0)
    assert {"uno", "wait", "draw", "color:R"} <= seen
    assert "jump-in" not in seen  # the rule is off
    assert any(name.startswith("catch:") for name in seen)
    assert any(name.startswith("target:") for name in seen)


def test_jump_ins_are_offered_when_the_rule_is_on() -> None:
    table = env(ruleset="classic", players=4, options={"jump_in": True})
    rng = np.random.default_rng(1)
    seen: set[str] = set()
    for seed in range(4):
        table.reset(seed=seed)
        seen |= masked_random_round(table, rng)[1]
    assert "jump-in" in seen


def test_an_illegal_action_is_refused_and_changes_nothing() -> None:
    table = env(ruleset="pocket", players=2)
    table.reset(seed=3)
    observation = table.observe(table.agent_selection)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    before = table.unwrapped.render_mode, str(table.unwrapped.table)
    with pytest.raises(IllegalMove, match="not legal"):
        table.step(illegal)
    assert str(table.unwrapped.table) == before[1]


def test_render_ansi_shows_the_table_and_the_moves() -> None:
    table = raw_env(ruleset="attack", players=3, render_mode="ansi")
    table.reset(seed=9)
    text = table.render()
    assert text is not None and "may:" in text and text.count("hand:") == 3


def test_same_seed_same_round_different_seed_other_round() -> None:
    one, two, three = (raw_env(ruleset="attack", players=2) for _ in range(3))
    one.reset(seed=5)
    two.reset(seed=5)
    three.reset(seed=6)
    assert str(one.table) == str(two.table) != str(three.table)


def test_the_wrapper_is_pettingzoos_order_enforcing_one_with_the_same_checks() -> None:
    """env()'s wrapper forwards the per-step reads by properties; PettingZoo's by __getattr__."""
    ours = env(ruleset="attack", players=3)
    stock = wrappers.OrderEnforcingWrapper(raw_env(ruleset="attack", players=3))
    assert isinstance(ours, wrappers.OrderEnforcingWrapper)
    for name in ("agent_selection", "agents", "rewards", "terminations", "truncations", "infos"):
        with pytest.raises(AttributeError) as theirs:
            getattr(stock, name)
        with pytest.raises(AttributeError, match=f"^{theirs.value}$"):
            getattr(ours, name)
    ours.reset(seed=11)
    stock.reset(seed=11)
    rng = np.random.default_rng(2)
    for _ in range(5000):  # one whole round, however long the seed makes it
        one, two = ours.last(), stock.last()
        assert (one[1:], ours.agent_selection) == (two[1:], stock.agent_selection)
        assert all(np.array_equal(one[0][k], two[0][k]) for k in ("observation", "action_mask"))
        if one[2] or one[3]:
            ours.step(None)
            stock.step(None)
            if not ours.agents:
                break
            continue
        action = int(rng.choice(np.flatnonzero(one[0]["action_mask"])))
        ours.step(np.int64(action) if action % 2 else action)  # a numpy id as well
        stock.step(action)
    assert ours.agents == stock.agents == []


def test_each_observation_is_a_fresh_writable_array() -> None:
    """A buffer of past observations must not change when the environment moves on."""
    table = env(ruleset="attack", players=2)
    table.reset(seed=4)
    first = table.observe(table.agent_selection)
    kept = {key: value.copy() for key, value in first.items()}
    again = table.observe(table.agent_selection)
    for key in kept:
        assert first[key].flags.writeable and again[key] is not first[key]
        first[key][:] = 7  # a user's own scratch use
        assert np.array_equal(again[key], kept[key])
    table.step(int(np.flatnonzero(kept["action_mask"])[0]))
    assert np.array_equal(again["observation"], kept["observation"])
