"""Typed input: each mistake gets its reason and the same question again; nothing is lost."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from game.bots import BOT_NAMES
from game.tables.prompt import (
    HelpRequested,
    InputRejected,
    Menu,
    QuitRequested,
    ask,
    parse_index,
    parse_names,
    parse_seats,
    parse_yes_no,
)
from hardware.errors import ConfigError


class Keyboard:
    """Answers questions from a script and records what was asked and printed."""

    def __init__(self, answers: list[str]) -> None:
        self._answers: Iterator[str] = iter(answers)
        self.asked: list[str] = []
        self.printed: list[str] = []

    def read(self, question: str) -> str:
        self.asked.append(question)
        try:
            return next(self._answers)
        except StopIteration:
            raise EOFError from None

    def write(self, text: str) -> None:
        self.printed.append(text)


MOVES = Menu(["play R7", "play B+2", "hit"], ["R7", "B+2", "hit"], what="move")


def test_typo_and_out_of_range_are_answered_and_the_same_question_repeats() -> None:
    keys = Keyboard(["hti", "9", "3"])
    assert ask(keys.read, keys.write, "Ann> ", MOVES.pick) == "hit"
    assert keys.asked == ["Ann> "] * 3
    assert "Did you mean 'hit'?" in keys.printed[0]
    assert "out of range" in keys.printed[1] and "1 to 3" in keys.printed[1]


def test_a_superscript_digit_is_answered_not_a_crash() -> None:
    # str.isdigit() is true of "¹", which int() refuses: the menu asks again
    keys = Keyboard(["¹", "²3", "3"])
    assert ask(keys.read, keys.write, "Ann> ", MOVES.pick) == "hit"
    assert keys.asked == ["Ann> "] * 3


def test_moves_can_be_picked_by_text_or_unique_prefix_case_insensitively() -> None:
    assert MOVES.pick("r7") == "play R7"
    assert MOVES.pick("B") == "play B+2"
    assert MOVES.pick(" 2 ".strip()) == "play B+2"


def test_an_ambiguous_prefix_is_explained() -> None:
    menu = Menu(["a", "b"], ["blue 7", "blue 9"], what="card")
    with pytest.raises(InputRejected, match="could mean 2 different cards"):
        menu.pick("blue")


def test_help_is_shown_without_consuming_the_question() -> None:
    keys = Keyboard(["? hit2", "help", "1"])
    topics: list[str] = []
    assert ask(keys.read, keys.write, "> ", MOVES.pick, on_help=topics.append) == "play R7"
    assert topics == ["hit2", ""]


def test_quit_and_end_of_input_stop_politely() -> None:
    for answers in (["quit"], []):
        keys = Keyboard(answers)
        with pytest.raises(QuitRequested):
            ask(keys.read, keys.write, "> ", MOVES.pick)


def test_help_requested_carries_its_topic() -> None:
    assert HelpRequested("skip").topic == "skip"


@given(st.integers(min_value=1, max_value=20), st.integers(min_value=-50, max_value=50))
def test_parse_index_accepts_exactly_the_menu_numbers(count: int, number: int) -> None:
    if 1 <= number <= count:
        assert parse_index(str(number), count) == number - 1
    else:
        with pytest.raises(InputRejected, match="out of range"):
            parse_index(str(number), count)


def test_yes_no() -> None:
    assert parse_yes_no("Y") and not parse_yes_no("no")
    with pytest.raises(InputRejected, match="yes or no"):
        parse_yes_no("maybe")


def test_seats_people_and_bots() -> None:
    seats = parse_seats("Ann, Bob,bot:greedy,BOT:random", bots=("random", "greedy"))
    assert [seat.name for seat in seats] == ["Ann", "Bob", "GreedyBot3", "RandomBot4"]
    assert [seat.bot for seat in seats] == [None, None, "greedy", "random"]


def test_a_bot_seat_takes_the_bots_parameters_as_bots_does() -> None:
    """``bot:casual:forget_uno=0.3`` seats a casual bot with that slip, as ``--bots`` would."""
    seats = parse_seats("Ann,bot:casual:forget_uno=0.3,bot:Search:iterations=8", bots=BOT_NAMES)
    assert [seat.bot for seat in seats] == [None, "casual:forget_uno=0.3", "search:iterations=8"]
    assert [seat.name for seat in seats] == ["Ann", "CasualBot2", "SearchBot3"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Ann,bot:casual:forget=0.3", "'forget=0.3' is not a parameter of casual"),
        ("Ann,bot:casual:forget_uno=often", "is not a number"),
        ("Ann,bot:rule:depth", "not a parameter of rule"),
    ],
)
def test_a_bad_bot_parameter_is_an_error_before_the_game(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        parse_seats(text, bots=BOT_NAMES)
    assert str(caught.value).startswith("--seats: ")
    assert "takes:" in caught.value.hint or "e.g." in caught.value.hint


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Ann", "1 seat"),
        (",".join(f"P{i}" for i in range(11)), "2 to 10"),
        ("Ann,ann", "used twice"),
        ("Ann,,Bob", "empty seat"),
        ("Ann,bot:clever", "unknown bot 'clever'"),
        ("Ann,<script>", "seat name"),
    ],
)
def test_bad_seats_are_config_errors_naming_the_option(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        parse_seats(text, bots=("random", "greedy"))
    assert "--seats" in str(caught.value)


def test_referee_players_are_people() -> None:
    assert parse_names("Ann,Sam,Kim") == ["Ann", "Sam", "Kim"]
    with pytest.raises(ConfigError, match="--players"):
        parse_names("Ann,bot:random")


# -- issue #12: referee help --------------------------------------------------------------------
def test_a_name_that_is_not_a_player_lists_the_players_not_a_number() -> None:
    from game.tables.prompt import InputRejected, parse_entry

    with pytest.raises(InputRejected) as rejected:
        parse_entry("fix Zed 2", ["Ann", "Sam", "Kim"])
    assert "Type its number" not in rejected.value.reason
    assert "Ann, Sam, Kim" in rejected.value.reason


def test_card_help_accepts_card_codes_like_play_does() -> None:
    from game.tables.tui import render_help

    assert "no help" not in render_help(["WAA"]) and "no help" not in render_help(["RH2"])


def test_referee_quit_without_a_journal_does_not_claim_a_save(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from game.cli import main

    answers = iter(["red 7", "quit"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    code = main(["referee", "--players", "Ann,Sam", "--launcher", "sim://?seed=1", "--delay", "0"])
    out = capsys.readouterr().out
    assert code == 0 and "Nothing was saved" in out
    assert "saved in the journal" not in out
