"""What the table shows: colours only on terminals, every player's count, presses as they happen."""

from __future__ import annotations

import io
from dataclasses import dataclass

import pytest

from game.tables.tui import (
    CARD_HELP,
    Painter,
    PressAnimator,
    Seat,
    TableView,
    card_help,
    colour_of,
    render_help,
    render_menu,
    render_table,
)


@dataclass(frozen=True)
class FakeCard:
    """Only the two things the renderer reads from an engine card: its text and its colour."""

    text: str
    color: str | None

    def __str__(self) -> str:
        return self.text


class TTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def view(**changes: object) -> TableView:
    seats = [
        Seat("Ann", 3, 120, is_current=True),
        Seat("Bob", 1, 0, note="UNO!"),
        Seat("Kim", 7, 45),
    ]
    base = TableView(
        seats=seats,
        top=FakeCard("R7", "red"),
        active_colour="red",
        direction=-1,
        round_number=2,
        target=500,
        hand=[FakeCard("B3", "blue"), FakeCard("W", None)],
        viewer="Ann",
    )
    for key, value in changes.items():
        setattr(base, key, value)
    return base


def test_plain_output_has_no_escape_codes_and_shows_everything_a_player_needs() -> None:
    text = render_table(view(), Painter(False))
    assert "\x1b" not in text
    assert "Round 2 · first to 500 · play goes ← counter-clockwise" in text
    assert "▶ Ann" in text and "3 cards" in text and "Bob" in text and "1 card " in text
    assert "UNO!" in text and "score  120" in text
    assert "Top card: R7   active colour: red" in text
    assert "Ann's hand (2): B3  W" in text


def test_colours_follow_the_cards_on_a_terminal() -> None:
    painter = Painter.for_stream(TTY())
    text = render_table(view(), painter)
    assert "\x1b[1;31mR7\x1b[0m" in text  # red top card
    assert "\x1b[1;34mB3\x1b[0m" in text  # blue card in hand
    assert "\x1b[1;35mW\x1b[0m" in text  # wild in magenta


def test_no_color_environment_turns_colour_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    assert not Painter.for_stream(TTY()).enabled
    assert not Painter.for_stream(io.StringIO()).enabled


def test_a_wild_shows_the_chosen_colour_and_a_hidden_hand_is_not_shown() -> None:
    text = render_table(
        view(top=FakeCard("W", None), active_colour="green", hand=None), Painter(False)
    )
    assert "active colour: green" in text and "hand" not in text


def test_before_the_first_card_the_top_card_reads_as_a_placeholder_not_a_python_object() -> None:
    text = render_table(view(top="(none yet)", active_colour=None), Painter(False))
    assert "Top card: (none yet)   active colour: any" in text and "built-in" not in text


def test_colour_of_reads_enum_like_values() -> None:
    class Colour:
        value = "Blue"

    assert colour_of(FakeCard("x", Colour())) == "blue"  # type: ignore[arg-type]
    assert colour_of(FakeCard("x", None)) is None
    assert colour_of(object()) is None


def test_menu_numbers_every_option() -> None:
    assert render_menu(["R7", "hit"], Painter(False)) == "Your options:\n  1) R7\n  2) hit"


def test_presses_are_animated_frame_by_frame_without_real_waiting() -> None:
    out = io.StringIO()
    pauses: list[float] = []
    animator = PressAnimator(out, Painter(False), delay=0.2, sleep=pauses.append)
    animator.press("Bob", 3, "hit 2", number=1)
    animator.press("Bob", 0, "hit 2", number=2)
    lines = out.getvalue().splitlines()
    assert lines[0] == "  💥 Bob presses the launcher (hit 2, press 1) ··· 3 cards flew out!"
    assert lines[1].endswith("nothing came out.")
    assert pauses == [0.2] * 6  # three frames per press


def test_without_delay_nothing_waits() -> None:
    out = io.StringIO()
    PressAnimator(out, Painter(False), sleep=lambda _: pytest.fail("slept")).press("Ann", 1)
    assert out.getvalue() == "  💥 Ann presses the launcher 1 card flew out!\n"


@pytest.mark.parametrize(
    "topic", ["Hit 2", "hit2", "wild attack-attack", "ATTACK", "+4", "Wild Hit-Fire", "dip"]
)
def test_every_action_card_has_help_under_the_names_people_use(topic: str) -> None:
    assert card_help(topic)


def test_help_screen_lists_every_card_and_unknown_topics_say_so() -> None:
    screen = render_help()
    assert all(name in screen for name in CARD_HELP)
    assert "no help for that" in render_help(["banana"])


def test_the_narrator_skips_unknown_event_types_but_never_hides_a_broken_event() -> None:
    from game.tables.terminal import Console, Narrator, PlaySeat

    out = io.StringIO()
    console = Console(out, input, Painter(False), PressAnimator(out, Painter(False)))
    narrator = Narrator(console, [PlaySeat("Ann"), PlaySeat("Bob")])
    narrator({"type": "play", "player": 0, "card": "R7"})
    narrator({"type": "decision", "player": 1, "decision": "color", "moves": []})  # not told
    narrator({"type": "hit", "player": 1, "reason": "hit2", "counted": 2, "cards": ["R1", "B2"]})
    lines = out.getvalue().splitlines()
    assert lines[0] == "Ann plays red 7."
    assert lines[1] == "  💥 Bob presses the launcher (hit2) 2 cards flew out!"
    with pytest.raises(KeyError):  # issue #9: a known event missing a field is an engine bug
        narrator({"type": "play", "player": 1})
