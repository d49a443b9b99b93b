"""The mechanism model: deterministic, conserves cards, each failure mode behaves as documented."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hardware.errors import ConfigError
from hardware.mechanism import Mechanism, MechanismParams


def _run(params: MechanismParams, *, seed: int, cards: int, seconds: float) -> Mechanism:
    mechanism = Mechanism(params, seed=seed, cards=cards)
    mechanism.set_duty(1.0)
    mechanism.advance(seconds)
    mechanism.set_duty(0.0)
    mechanism.advance(1.0)
    return mechanism


def test_clean_mechanism_feeds_one_card_per_roller_turn_and_each_blocks_the_beam_once() -> None:
    mechanism = Mechanism(
        MechanismParams(cards_per_second=4.0, card_transit_ms=30.0), seed=1, cards=3
    )
    mechanism.set_duty(1.0)
    transitions = mechanism.advance(2.0)
    assert transitions == [
        (0.25, True),
        (0.28, False),
        (0.5, True),
        (0.53, False),
        (0.75, True),
        (0.78, False),
    ]
    assert (mechanism.hopper, mechanism.ejected, mechanism.beam_blocked) == (0, 3, False)


def test_motor_off_or_below_stall_duty_feeds_nothing() -> None:
    mechanism = Mechanism(MechanismParams(stall_duty=0.3), seed=1, cards=10)
    assert mechanism.advance(5.0) == []
    mechanism.set_duty(0.29)
    assert mechanism.advance(5.0) == []
    assert mechanism.hopper == 10


def test_weak_batteries_slow_the_roller() -> None:
    fresh = _run(MechanismParams(battery=1.0), seed=1, cards=50, seconds=3.0)
    weak = _run(MechanismParams(battery=0.6), seed=1, cards=50, seconds=3.0)
    assert fresh.ejected == 12
    assert 0 < weak.ejected < fresh.ejected
    dead = _run(MechanismParams(battery=0.2, stall_duty=0.25), seed=1, cards=50, seconds=3.0)
    assert dead.ejected == 0


def test_roller_keeps_its_position_when_the_motor_stops() -> None:
    mechanism = Mechanism(seed=1, cards=5)
    mechanism.set_duty(1.0)
    assert mechanism.advance(0.2) == []  # 80 % of a turn
    mechanism.set_duty(0.0)
    assert mechanism.advance(10.0) == []
    mechanism.set_duty(1.0)
    assert mechanism.advance(0.06)[0][1] is True  # the last 20 % takes 50 ms


def test_empty_hopper_spins_without_transitions() -> None:
    mechanism = _run(MechanismParams(), seed=1, cards=0, seconds=5.0)
    assert mechanism.attempts == 20 and mechanism.ejected == 0


def test_slip_feeds_nothing_on_that_turn() -> None:
    mechanism = _run(MechanismParams(slip_rate=1.0), seed=1, cards=10, seconds=5.0)
    assert (mechanism.ejected, mechanism.slips, mechanism.hopper) == (0, 20, 10)
    sometimes = _run(MechanismParams(slip_rate=0.3), seed=2, cards=400, seconds=100.0)
    assert 0.2 < sometimes.slips / sometimes.attempts < 0.4


def test_double_feed_ejects_two_cards_that_block_the_beam_once_for_longer() -> None:
    params = MechanismParams(double_feed_rate=1.0, card_transit_ms=30.0, double_transit_factor=1.6)
    mechanism = Mechanism(params, seed=1, cards=4)
    mechanism.set_duty(1.0)
    transitions = mechanism.advance(0.6)
    assert transitions == [(0.25, True), (0.298, False), (0.5, True), (0.548, False)]
    assert (mechanism.ejected, mechanism.doubles, mechanism.hopper) == (4, 2, 0)


def test_a_caught_card_blocks_the_beam_until_cleared_and_then_counts_as_ejected() -> None:
    mechanism = Mechanism(MechanismParams(catch_rate=1.0), seed=1, cards=5)
    mechanism.set_duty(1.0)
    assert mechanism.advance(3.0) == [(0.25, True)]
    assert mechanism.jammed and mechanism.beam_blocked
    assert (mechanism.hopper, mechanism.ejected) == (4, 0)  # the roller cannot push more past it
    mechanism.clear_jam()
    assert not mechanism.jammed and not mechanism.beam_blocked
    assert mechanism.ejected == 1


def test_a_fuller_hopper_slips_less_when_pressure_matters() -> None:
    params = MechanismParams(pressure_slip=0.8, full_load=100)
    full = _run(params, seed=3, cards=1000, seconds=50.0)
    low = _run(params, seed=3, cards=12, seconds=50.0)
    assert full.slips == 0
    assert low.slips > 0


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("slip_rate", 1.5),
        ("battery", -0.1),
        ("cards_per_second", 0.0),
        ("card_transit_ms", -3.0),
        ("stall_duty", 1.0),
        ("full_load", 0),
    ],
)
def test_impossible_parameters_are_refused_by_name(field: str, value: float) -> None:
    with pytest.raises(ConfigError, match=field):
        MechanismParams(**{field: value})  # type: ignore[arg-type]


def test_set_duty_and_advance_refuse_nonsense() -> None:
    mechanism = Mechanism()
    with pytest.raises(ValueError):
        mechanism.set_duty(1.5)
    with pytest.raises(ValueError):
        mechanism.advance(-1.0)
    with pytest.raises(ValueError):
        mechanism.load(-2)


rates = st.floats(min_value=0.0, max_value=0.5)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    cards=st.integers(0, 60),
    slip=rates,
    double=rates,
    catch=st.floats(min_value=0.0, max_value=0.1),
    steps=st.lists(st.floats(min_value=0.0, max_value=0.7), min_size=1, max_size=30),
)
def test_cutting_time_into_any_steps_changes_nothing_and_every_card_is_accounted_for(
    seed: int, cards: int, slip: float, double: float, catch: float, steps: list[float]
) -> None:
    params = MechanismParams(slip_rate=slip, double_feed_rate=double, catch_rate=catch)
    whole, pieces = (
        Mechanism(params, seed=seed, cards=cards),
        Mechanism(params, seed=seed, cards=cards),
    )
    whole.set_duty(1.0)
    pieces.set_duty(1.0)
    total = sum(steps)
    once = whole.advance_to(total)
    stepped = [t for step_end in _cumulative(steps) for t in pieces.advance_to(step_end)]
    assert stepped == once
    assert (pieces.hopper, pieces.ejected, pieces.jammed) == (
        whole.hopper,
        whole.ejected,
        whole.jammed,
    )
    # conservation: nothing is created or lost
    whole.set_duty(0.0)
    whole.advance(1.0)
    whole.clear_jam()
    assert whole.hopper + whole.ejected == cards
    # the beam alternates: never two "blocked" (or two "clear") in a row
    states = [blocked for _, blocked in once]
    assert all(a != b for a, b in zip(states, states[1:], strict=False))


def _cumulative(steps: list[float]) -> list[float]:
    ends, total = [], 0.0
    for step in steps:
        total += step
        ends.append(total)
    return ends


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), cards=st.integers(0, 40))
def test_same_seed_same_story(seed: int, cards: int) -> None:
    params = MechanismParams(slip_rate=0.2, double_feed_rate=0.1, catch_rate=0.02)
    a = _run(params, seed=seed, cards=cards, seconds=8.0)
    b = _run(params, seed=seed, cards=cards, seconds=8.0)
    assert (a.ejected, a.slips, a.doubles, a.catches) == (b.ejected, b.slips, b.doubles, b.catches)


def test_a_coasting_roller_feeds_on_after_the_motor_stops_then_stops() -> None:
    m = Mechanism(MechanismParams(coast_ms=300.0), seed=1, cards=10)
    m.set_duty(1.0)
    m.advance_to(0.26)  # one card fed at 0.25 s
    m.set_duty(0.0)  # the roller coasts 300 ms at 4 turns/s: one more feed, at 0.50 s
    blocked = [t for t, b in m.advance_to(5.0) if b]
    assert blocked == [pytest.approx(0.5)]
    assert m.ejected == 2 and m.next_transition_s() is None


def test_without_coast_the_roller_stops_with_the_motor() -> None:
    m = Mechanism(seed=1, cards=10)
    m.set_duty(1.0)
    m.advance_to(0.26)
    m.set_duty(0.0)
    assert [b for _, b in m.advance_to(5.0)] == [False]  # only the first card leaving
    assert m.ejected == 1
