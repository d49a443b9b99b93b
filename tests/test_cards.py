"""Card and move notation round-trips; bad notation is a clear error (docs/notation.md)."""

from __future__ import annotations

import pickle
from operator import attrgetter

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from game import Card, Color, Kind, Move, NotationError
from game.core.cards import all_cards, by_display, format_cards, parse_cards, sort_key
from game.core.moves import (
    CatchMove,
    ChooseMove,
    DrawMove,
    FiredMove,
    GiveMove,
    MoveKind,
    PassMove,
    PlayMove,
)

CARDS = all_cards()


@given(st.sampled_from(CARDS))
def test_card_notation_round_trips(card: Card) -> None:
    assert Card.parse(str(card)) is card
    assert Card.parse(str(card).lower()) is card
    assert pickle.loads(pickle.dumps(card)) is card


moves = st.one_of(
    st.builds(Move.play, st.sampled_from(CARDS), st.none() | st.integers(0, 9)),
    st.builds(Move.choose, st.sampled_from(list(Color))),
    st.builds(Move.aim, st.integers(0, 9)),
    st.builds(Move.give, st.sampled_from(CARDS)),
    st.builds(Move.catch, st.integers(0, 9), st.integers(0, 9)),
    st.sampled_from(
        [
            Move.of(k)
            for k in (
                MoveKind.DRAW,
                MoveKind.PASS,
                MoveKind.TAKE,
                MoveKind.CHALLENGE,
                MoveKind.ACCEPT,
                MoveKind.UNO,
            )
        ]
    ),
    st.builds(lambda s: Move.of(MoveKind.PENALIZE, target=s), st.integers(0, 9)),
    st.builds(Move.fired, st.integers(0, 30)),
)


@given(moves)
def test_move_notation_round_trips(move: Move) -> None:
    assert Move.parse(str(move)) == move
    assert hash(Move.parse(str(move))) == hash(move) and repr(move) == f"Move.parse({str(move)!r})"
    assert pickle.loads(pickle.dumps(move)) == move


def test_each_move_kind_is_its_own_type_with_only_its_own_fields() -> None:
    red7 = Card.parse("R7")
    assert Move.play(red7, by=3) == PlayMove(red7, by=3) == Move.of(MoveKind.PLAY, card=red7, by=3)
    assert Move.of(MoveKind.DRAW) == DrawMove() and Move.parse("draw").kind is MoveKind.DRAW
    assert Move.catch(2, by=0) == CatchMove(2, by=0) == Move.of(MoveKind.CATCH, target=2, by=0)
    assert Move.fired(3) == FiredMove(3) and Move.parse("fired:3").count == 3
    assert PlayMove(red7) != GiveMove(red7) and DrawMove() != PassMove()
    match Move.parse("color:G"):
        case ChooseMove(color=color):
            assert color is Color.GREEN
        case _:
            pytest.fail("color:G is not a ChooseMove")
    assert not hasattr(DrawMove(), "card")
    with pytest.raises(ValueError, match="needs its argument"):
        Move.of(MoveKind.PLAY)


@given(st.text(max_size=8))
@example("R¹")  # str.isdigit() is true of a superscript one, which int() refuses
@example("B٣")  # an Arabic-Indic three: a digit to int(), but not the notation's
def test_parsing_any_text_either_works_or_raises_notation_error(text: str) -> None:
    for parse in (Card.parse, Move.parse):
        try:
            parse(text)
        except NotationError as error:
            assert isinstance(error, ValueError) and str(error)


def test_a_number_card_is_one_ascii_digit() -> None:
    for text in ("R¹", "B٣", "G²"):
        with pytest.raises(NotationError, match="expected 0-9"):
            Card.parse(text)


def test_examples_from_the_notation_page() -> None:
    assert Card.parse("R7") == Card(Kind.NUMBER, Color.RED, 7)
    assert Card.parse("bs").title == "blue Skip"
    assert Card.parse("Y+2").kind is Kind.DRAW_TWO
    assert Card.parse("WAA").title == "Wild Attack-Attack" and Card.parse("WAA").is_wild
    assert format_cards(parse_cards("R7, BS W+4")) == "R7 BS W+4"
    assert str(Move.parse("play:R7")) == "R7"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("X7", "must start with a colour"),
        ("R10", "unknown card"),
        ("WXYZ", "unknown wild"),
        ("color:purple", "unknown colour"),
        ("target:x", "not a seat number"),
        ("draw:1", "takes no argument"),
        ("give", "needs an argument"),
    ],
)
def test_bad_notation_says_what_was_expected(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        Move.parse(text)


def test_cards_are_immutable_and_sort_by_colour_then_kind() -> None:
    card = Card.parse("R7")
    with pytest.raises(AttributeError):
        card.number = 8  # type: ignore[misc]
    cards = parse_cards("W Y1 R9 B2 R1")
    assert sorted(cards, key=sort_key) == parse_cards("R1 R9 B2 Y1 W")
    assert sorted(cards, key=attrgetter("display")) == sorted(cards, key=sort_key)


def test_the_c_sort_key_orders_every_face_as_sort_key_does() -> None:
    faces = all_cards()[::-1]  # not already in order
    assert sorted(faces, key=by_display) == sorted(faces, key=sort_key)


def test_cards_compare_by_identity_in_c() -> None:
    """No comparison method in Python: ``hand.remove(card)`` and ``card in hand`` then compare
    in C (a Python ``__lt__`` would route every ``==`` through a Python call)."""
    for name in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"):
        assert name not in vars(Card), name
    assert Card.__eq__ is object.__eq__ and Card.__hash__ is object.__hash__
    red_1, red_2 = parse_cards("R1 R2")
    with pytest.raises(TypeError):
        red_1 < red_2  # type: ignore[operator]  # noqa: B015
    hand = parse_cards("R2 R1 R2")
    hand.remove(red_2)
    assert hand == parse_cards("R1 R2") and red_1 in hand and hand.index(red_2) == 1


def test_the_notation_page_examples_run() -> None:
    import doctest
    from pathlib import Path

    page = Path(__file__).resolve().parent.parent / "docs" / "notation.md"
    result = doctest.testfile(str(page), module_relative=False, verbose=False)
    assert result.attempted >= 3 and result.failed == 0
