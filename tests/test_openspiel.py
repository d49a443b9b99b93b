"""UNO Attack as an OpenSpiel game, checked by OpenSpiel's own test suite and its ISMCTS bot.

``pyspiel.random_sim_test`` plays random games and checks, at every step, cloning, legal
actions, chance outcomes, observation and information-state tensors and strings for every
seat, serialization (``serialize_game_and_state`` / ``deserialize_game_and_state``), the
returns, and that the game is not longer than it says. Rounds are cut at 120 turns
(``round_turn_limit``) so all ten tables run in seconds; one full round runs unbounded.
"""

from __future__ import annotations

import random

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts, mcts

import game.openspiel  # registers python_uno_attack
from game.rl import compat
from game.rl.table import CHANCE, Table, TableSpec

RULESETS = ["attack", "attack-original", "attack-mega-hit", "classic", "pocket"]


def load(ruleset: str, players: int, **params: object) -> object:
    return pyspiel.load_game(
        "python_uno_attack", {"ruleset": ruleset, "players": players, **params}
    )


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("ruleset", RULESETS)
def test_random_sim_test_with_serialization(ruleset: str, players: int) -> None:
    spiel_game = load(ruleset, players, options="round_turn_limit:120", seed=players)
    pyspiel.random_sim_test(spiel_game, num_sims=2, serialize=True, verbose=False)


def test_random_sim_test_with_out_of_turn_rules_and_a_stateful_profile() -> None:
    """Jump-ins and UNO catches are offered as turns; the escalating profile has memory."""
    spiel_game = load(
        "attack", 4, options="round_turn_limit:150;jump_in:true", profile="escalating", seed=3
    )
    pyspiel.random_sim_test(spiel_game, num_sims=2, serialize=True, verbose=False)


def test_a_whole_round_has_a_winner_and_zero_sum_returns() -> None:
    spiel_game = load("attack", 2, seed=11)
    state = spiel_game.new_initial_state()
    rng = random.Random(5)
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(actions, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    returns = state.returns()
    assert sorted(returns) == [-1.0, 1.0]


@pytest.mark.parametrize("profile", [None, "escalating"])
def test_apply_with_uniform_samples_the_presses_as_press_until_a_seat_acts(
    profile: str | None,
) -> None:
    """``Table.apply(action, uniform)`` (env.step's one call) is apply, then the presses."""
    spec = TableSpec.of("attack", 3, {"jump_in": True}, profile)
    one, two = Table(spec, 9), Table(spec, 9)
    first, second = random.Random(4), random.Random(4)
    one.press_until_a_seat_acts(first.random)
    two.press_until_a_seat_acts(second.random)
    pick = random.Random(1)
    while not one.is_terminal():
        action = pick.choice(one.legal_actions())
        one.apply(action)
        one.press_until_a_seat_acts(first.random)
        two.apply(action, second.random)
        assert (one.moves, one.actor, one.offering) == (two.moves, two.actor, two.offering)
        assert one.information_state_string(0) == two.information_state_string(0)
    assert two.is_terminal() and sum(actor is None for _, actor, _ in two.moves) > 10


def _dealt(ruleset: str = "attack", players: int = 3) -> object:
    state = load(ruleset, players).new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == game.openspiel.DEALS
    state.apply_action(17)
    return state


def test_the_deal_is_a_chance_node_and_replays_exactly() -> None:
    one, two = _dealt(), _dealt()
    assert str(one) == str(two)
    other = load("attack", 3).new_initial_state()
    other.apply_action(18)
    assert str(other) != str(one)


def test_a_press_lists_the_profile_counts_capped_by_the_hopper() -> None:
    """web-game: P(0)=0.45 ... P(9)=0.012; with 3 cards loaded, 3 takes P(>=3)."""
    table = Table(TableSpec.of("attack", 2), seed=1)
    rng = random.Random(2)
    while table.actor != CHANCE:
        table.apply(rng.choice(table.legal_actions()))
    loaded = len(table.game.pile)
    outcomes = dict(table.chance_outcomes())
    web = table.spec.launcher_profile.probabilities  # type: ignore[union-attr]
    assert loaded > len(web)
    assert outcomes == pytest.approx({k: p for k, p in enumerate(web) if p > 0})
    pile = table.game.pile
    for _ in range(loaded - 3):
        pile.pop()
    profile = table.spec.launcher_profile
    capped = {m.count: p for m, p in compat.chance_outcomes(table.game, profile, table.press)}
    assert capped == pytest.approx({0: web[0], 1: web[1], 2: web[2], 3: sum(web[3:])})


@pytest.mark.parametrize("ruleset", ["attack", "classic"])
def test_every_press_the_table_lists_is_the_cores_own_listing(ruleset: str) -> None:
    """The table looks a memoryless press's outcomes up by load; the core works them out."""
    rng = random.Random(5)
    presses = 0
    for seed in range(3):
        table = Table(TableSpec.of(ruleset, 3), seed=seed)
        while not table.is_terminal():
            if table.actor == CHANCE:
                core = {m.count: p for m, p in table.game.chance_outcomes()}  # type: ignore[attr-defined]
                assert dict(table.chance_outcomes()) == pytest.approx(core)
                presses += 1
                counts, probs = zip(*table.chance_outcomes(), strict=True)
                table.apply(rng.choices(counts, probs)[0])
            else:
                table.apply(rng.choice(table.legal_actions()))
    assert presses > 30 if ruleset == "attack" else presses == 0  # a draw pile has one outcome


def test_resample_keeps_the_information_state_and_moves_the_hidden_cards() -> None:
    state = _dealt("attack", 3)
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    seat = state.current_player()
    sampler = iter(np.linspace(0.1, 0.9, 20))
    worlds = [state.resample_from_infostate(seat, lambda: next(sampler)) for _ in range(5)]
    for world in worlds:
        assert world.information_state_string(seat) == state.information_state_string(seat)
        assert world.observation_tensor(seat) == state.observation_tensor(seat)
        assert world.legal_actions() == state.legal_actions()
    others = {str(world.table.game.hands[(seat + 1) % 3]) for world in worlds}
    assert len(others) > 1  # the opponents' hands really were dealt again


def test_information_state_hides_the_other_hands() -> None:
    state = _dealt("classic", 2)
    seat = state.current_player()
    other = 1 - seat
    world = state.resample_from_infostate(seat, lambda: 0.37)
    assert world.table.game.hands[other] != state.table.game.hands[other]
    assert world.information_state_string(seat) == state.information_state_string(seat)
    assert world.information_state_string(other) != state.information_state_string(other)


def test_ismcts_plays_a_round_against_random() -> None:
    spiel_game = load("pocket", 2, options="round_turn_limit:200", seed=4)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(1))
    bot = ismcts.ISMCTSBot(
        spiel_game, evaluator, uct_c=2.0, max_simulations=10,
        random_state=np.random.RandomState(2),
    )  # fmt: skip
    # OpenSpiel's own world sampler is seeded from the OS: draw worlds from the bot's seed
    bot.set_resampler(lambda state, seat: state.resample_from_infostate(seat, bot.random_number))
    state = spiel_game.new_initial_state()
    rng = np.random.RandomState(3)
    decisions = 0
    while not state.is_terminal() and decisions < 40:
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choice(actions, p=probs))
        elif state.current_player() == 0:
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
            decisions += 1
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    assert decisions > 0


def test_bad_options_name_the_format() -> None:
    with pytest.raises(Exception, match="NAME:VALUE"):
        load("attack", 2, options="jump_in")


def test_the_examples_of_docs_rl_run(tmp_path: object) -> None:
    """docs/rl.md's Python blocks (OpenSpiel rollout, ISMCTS, PettingZoo policy) run as shown."""
    import re
    import subprocess
    import sys
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "rl.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 3
    for block in blocks:
        done = subprocess.run(
            [sys.executable, "-c", block], capture_output=True, text=True, timeout=120, check=False
        )
        assert done.returncode == 0, done.stderr


def _reference_tensor(table: Table, seat: int, private: bool) -> np.ndarray:
    """The information-state tensor written field by field from docs/rl.md's layout."""
    from game.core.cards import COLORS
    from game.core.moves import Decision

    state, n = table.game, table.players  # the game's round fields
    cards = table.actions.cards
    faces, index = len(cards), table.actions.card_index
    size = table.spec.information_state_size
    out = np.zeros(size, np.float32)
    if private:
        for card in state.hands[seat]:
            out[index[card.code]] += 1
    out[faces + index[state.discard[-1].code]] = 1
    if state.active_color is not None:
        out[2 * faces + list(COLORS).index(state.active_color)] = 1
    at = 2 * faces + len(COLORS)
    for i in range(n):
        out[at + i] = len(state.hands[(seat + i) % n])
    out[at + n + (state.decider - seat) % n] = 1
    if table.actor >= 0:
        out[at + 2 * n + (table.actor - seat) % n] = 1
    if table.game.uno_pending is not None:
        out[at + 3 * n + (table.game.uno_pending - seat) % n] = 1
    at += 4 * n
    out[at + list(Decision).index(state.pending)] = 1
    at += len(Decision)
    out[at : at + 3] = state.direction, state.stack, len(state.pile)
    played = np.zeros((n, faces), np.float32)
    for event in table.game.events:
        if event["type"] == "play":
            played[event["player"], index[event["card"]]] += 1
    out[at + 3 :] = np.roll(played, -seat, axis=0).ravel()  # from the seat itself, rightwards
    return out


@pytest.mark.parametrize(
    ("ruleset", "players", "options"),
    [("attack", 2, {}), ("classic", 4, {}), ("pocket", 3, {}), ("attack", 3, {"jump_in": True})],
)
def test_the_tensors_are_the_documented_layout_for_every_seat(
    ruleset: str, players: int, options: dict[str, bool]
) -> None:
    """The tensors are joined from ready-made pieces, the hands kept and the plays counted
    as they are made (jump-ins too); a plain field-by-field one from the events must agree."""
    table = Table(TableSpec.of(ruleset, players, options), seed=2)
    rng = random.Random(7)
    steps = 0
    while not table.is_terminal() and steps < 400:
        for seat in range(players):
            for private in (True, False):
                expected = _reference_tensor(table, seat, private)
                got = table.information_state_tensor(seat, private)
                assert got.dtype == np.float32 and np.array_equal(got, expected)
                observation = table.observation_tensor(seat, private)
                assert np.array_equal(observation, expected[: table.spec.observation_size])
        if table.actor == CHANCE:
            counts, probs = zip(*table.chance_outcomes(), strict=True)
            table.apply(rng.choices(counts, probs)[0])
        else:
            table.apply(rng.choice(table.legal_actions()))
        steps += 1
    assert steps > 50
