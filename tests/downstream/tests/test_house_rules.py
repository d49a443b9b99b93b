"""The house rule, tested with the uno-attack plugin's fixtures only.

Run against the launcher of your choice: ``pytest --uno-launcher 'gpio://?mock=1'``.
"""

from __future__ import annotations

import pytest
from house_rules import double_press, presses_until_cards


def test_double_press_never_creates_or_loses_a_card(launcher):
    launcher.load(range(30))
    cards = double_press(launcher)
    assert sorted(cards + list(launcher.peek_hopper())) == list(range(30))


def test_double_press_hands_out_the_scripted_volleys(scripted_launcher):
    launcher = scripted_launcher([2, 1])
    launcher.load("abcdef")
    assert double_press(launcher) == ["a", "b", "c"]


def test_hit_fire_on_a_launcher_that_shoots_on_the_third_press(scripted_launcher):
    launcher = scripted_launcher([0, 0, 4])
    launcher.load(range(10))
    assert presses_until_cards(launcher) == 3


def test_the_mock_gpio_rig_counts_real_beam_passages(mock_gpio_launcher):
    mock_gpio_launcher.load(range(20))
    cards = double_press(mock_gpio_launcher)
    assert mock_gpio_launcher.rig.mechanism.hopper == 20 - len(cards)


def test_the_emulated_firmware_shoots_what_the_model_hands_out(emulated_launcher):
    emulated_launcher.load(range(20))
    cards = double_press(emulated_launcher)
    assert len(cards) + emulated_launcher.remaining == 20


def test_a_seeded_game_replays(uno_game):
    first, second = uno_game("attack", 3), uno_game("attack", 3)
    for _ in range(10):
        move = first.legal_moves()[0]
        first.play(move)
        second.play(move)
    assert [first.hand(s) for s in range(3)] == [second.hand(s) for s in range(3)]


@pytest.mark.parametrize("launcher", ["sim://?profile=irc-bot", "pile://"], indirect=True)
def test_every_spec_keeps_the_count(launcher):
    launcher.load(range(12))
    assert len(double_press(launcher)) + launcher.remaining == 12


@pytest.mark.uno_hardware
def test_on_the_real_launcher_cards_fly_within_fifty_presses(launcher):
    launcher.load(range(40))
    assert presses_until_cards(launcher) <= 50
