"""Moves, their text notation, and the kinds of decision a game can be waiting for.

Everything a player does is a :class:`Move`: playing a card, drawing (pressing
the launcher), and every decision that is not a card play — choose a colour,
pick a target, challenge or accept, keep a drawn card, pass a card, take a
stack, call or catch UNO. Each kind is its own small frozen dataclass
(:class:`PlayMove`, :class:`ChooseMove`, :class:`AimMove`, ...) so a type
checker narrows ``isinstance``/``match`` and no field is optional except
``by``. ``Move.parse(str(m)) == m`` (``docs/notation.md``)::

    R7            play the red 7          draw        press the launcher / draw one
    color:G       choose green            target:2    aim at seat 2
    challenge     challenge a Wild Draw   accept      take the draw without challenging
    pass          keep the drawn card / decline to play again
    take          press the stacked hits instead of stacking
    give:R7       pass the red 7 (Wild Dip Into The Deck)
    uno           the player down to one card calls UNO
    catch:2@0     seat 0 catches seat 2, who did not call UNO
    R7@3          seat 3 jumps in with an identical red 7 (house rule ``jump_in``)
    penalize:2    seat 2 pays the suggestion penalty (option ``suggestion_penalty``)
    fired:3       chance: the pending launcher press shot 3 cards (fed by game.play.driver)
    next-round    the round is over: collect the cards, pass the deal, deal again
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

from game.core.cards import Card, Color, NotationError
from game.core.errors import IllegalMove


class Decision(StrEnum):
    """What the game is waiting for, and from whom (:attr:`game.Game.decider`)."""

    TURN = "turn"  #: play a card or draw
    COLOR = "color"  #: choose the colour for a wild
    TARGET = "target"  #: pick a player (Wild Attack-Attack, Trade Hands, 7-0, custom)
    CHALLENGE = "challenge"  #: challenge or accept a Wild Draw Four / Pocket Wild Draw 2
    DRAWN = "drawn"  #: play the card just drawn, or keep it (classic, pocket)
    GIVE = "give"  #: pass one card to the next player (Wild Dip Into The Deck)
    PLAY_AGAIN = "play_again"  #: play one more card after a Skip/Reverse, or pass
    STACK = "stack"  #: add a hit/draw card to the stack, or take it
    PRESS = "press"  #: a chance node: the launcher is pressed, feed ``fired:N`` (game.play.driver)
    ROUND_OVER = "round_over"  #: the only legal move is ``next-round``
    GAME_OVER = "game_over"  #: nothing left to do


class MoveKind(StrEnum):
    """What kind of move a :class:`Move` is: play a card, draw, choose a colour, and so on."""

    PLAY = "play"
    DRAW = "draw"
    COLOR = "color"
    TARGET = "target"
    CHALLENGE = "challenge"
    ACCEPT = "accept"
    PASS = "pass"
    TAKE = "take"
    GIVE = "give"
    UNO = "uno"
    CATCH = "catch"
    PENALIZE = "penalize"
    FIRED = "fired"
    NEXT_ROUND = "next-round"


class Move:
    """One move; each kind is a subclass. ``by`` is set only for out-of-turn moves
    made by a seat other than the decider (``R7@3``, ``catch:2@0``, ``uno@1``).

    ``Move.of(MoveKind.DRAW)`` and ``Move.of(MoveKind.PLAY, card=c)`` build the typed
    kind (:class:`DrawMove`, :class:`PlayMove`) from a kind and its argument.
    """

    __slots__ = ()
    kind: ClassVar[MoveKind]
    by: int | None

    # -- constructors ---------------------------------------------------------
    @staticmethod
    def of(
        kind: MoveKind,
        card: Card | None = None,
        color: Color | None = None,
        target: int | None = None,
        by: int | None = None,
        count: int | None = None,
    ) -> Move:
        """The typed move of ``kind``; its argument is required (ValueError without it)."""
        kind = MoveKind(kind)
        bare = _BARE.get(kind)
        if bare is not None:
            return bare(by=by)
        if kind is MoveKind.PLAY and card is not None:
            return PlayMove(card, by=by)
        if kind is MoveKind.GIVE and card is not None:
            return GiveMove(card, by=by)
        if kind is MoveKind.COLOR and color is not None:
            return ChooseMove(color, by=by)
        number = count if kind is MoveKind.FIRED else target
        if kind in (MoveKind.FIRED, MoveKind.TARGET, MoveKind.CATCH, MoveKind.PENALIZE):
            if number is not None:
                return _numbered(kind, number, by)
        raise ValueError(f"a {kind.value} move needs its argument ({kind.value}:…)")

    @staticmethod
    def play(card: Card, by: int | None = None) -> PlayMove:
        return PlayMove(card, by=by)

    @staticmethod
    def choose(color: Color) -> ChooseMove:
        return ChooseMove(color)

    @staticmethod
    def aim(seat: int) -> AimMove:
        return AimMove(seat)

    @staticmethod
    def give(card: Card) -> GiveMove:
        return GiveMove(card)

    @staticmethod
    def fired(count: int) -> FiredMove:
        """The outcome of one pending launcher press: ``count`` cards came out."""
        return FiredMove(count)

    @staticmethod
    def catch(seat: int, by: int) -> CatchMove:
        return CatchMove(seat, by=by)

    @staticmethod
    def penalize(seat: int) -> PenalizeMove:
        return PenalizeMove(seat)

    # -- notation -------------------------------------------------------------
    def _body(self) -> str:
        """The notation without the ``@by`` suffix (bare kinds: the kind's name)."""
        return _KIND_TEXT[self.kind]

    def __str__(self) -> str:
        text = self._body()
        return text if self.by is None else f"{text}@{self.by}"

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read the notation above; raises :class:`~game.core.cards.NotationError`."""
        body, _, by_text = text.strip().partition("@")
        by = _number(by_text, text) if by_text else None
        name, _, arg = body.partition(":")
        name = name.strip().lower()
        try:
            kind = MoveKind(name)
        except ValueError:
            if arg:
                raise NotationError(f"unknown move {text!r}") from None
            return PlayMove(Card.parse(body), by=by)
        return _parse_kind(kind, arg.strip(), by, text)


@dataclass(frozen=True, slots=True, repr=False)
class PlayMove(Move):
    """Play ``card`` (``R7``); with ``by``, a jump-in by that seat (``R7@3``)."""

    kind: ClassVar[MoveKind] = MoveKind.PLAY
    card: Card
    by: int | None = None

    def _body(self) -> str:
        return self.card.code

    def __str__(self) -> str:  # one call, not two: every decision event lists its moves
        return self.card.code if self.by is None else f"{self.card.code}@{self.by}"


@dataclass(frozen=True, slots=True, repr=False)
class ChooseMove(Move):
    """Choose the colour of a wild (``color:G``)."""

    kind: ClassVar[MoveKind] = MoveKind.COLOR
    color: Color
    by: int | None = None

    def _body(self) -> str:
        return _CHOOSE_TEXT[self.color]

    def __str__(self) -> str:  # one call, as PlayMove's (docs/performance.md)
        text = _CHOOSE_TEXT[self.color]
        return text if self.by is None else f"{text}@{self.by}"


@dataclass(frozen=True, slots=True, repr=False)
class AimMove(Move):
    """Pick the player a card acts on (``target:2``)."""

    kind: ClassVar[MoveKind] = MoveKind.TARGET
    target: int
    by: int | None = None

    def _body(self) -> str:
        return f"target:{self.target}"


@dataclass(frozen=True, slots=True, repr=False)
class GiveMove(Move):
    """Pass ``card`` to the next player (Wild Dip Into The Deck, ``give:R7``)."""

    kind: ClassVar[MoveKind] = MoveKind.GIVE
    card: Card
    by: int | None = None

    def _body(self) -> str:
        return f"give:{self.card.code}"


@dataclass(frozen=True, slots=True, repr=False)
class FiredMove(Move):
    """Chance: the pending launcher press shot ``count`` cards (``fired:3``)."""

    kind: ClassVar[MoveKind] = MoveKind.FIRED
    count: int
    by: int | None = None

    def __post_init__(self) -> None:
        count = self.count
        if type(count) is not int or count < 0:  # 1.5, -1, True, "2": never an outcome
            raise IllegalMove(
                f"fired:{count!r} is not a press's outcome: a press shoots a whole number of "
                "cards, 0 or more"
            )

    def _body(self) -> str:
        return f"fired:{self.count}"


@dataclass(frozen=True, slots=True, repr=False)
class CatchMove(Move):
    """Seat ``by`` catches ``seat``, who did not call UNO (``catch:2@0``)."""

    kind: ClassVar[MoveKind] = MoveKind.CATCH
    seat: int
    by: int | None = None

    def _body(self) -> str:
        return f"catch:{self.seat}"


@dataclass(frozen=True, slots=True, repr=False)
class PenalizeMove(Move):
    """``seat`` pays the suggestion penalty (``penalize:2``)."""

    kind: ClassVar[MoveKind] = MoveKind.PENALIZE
    seat: int
    by: int | None = None

    def _body(self) -> str:
        return f"penalize:{self.seat}"


@dataclass(frozen=True, slots=True, repr=False)
class DrawMove(Move):
    """Press the launcher / draw one (``draw``)."""

    kind: ClassVar[MoveKind] = MoveKind.DRAW
    by: int | None = None


@dataclass(frozen=True, slots=True, repr=False)
class ChallengeMove(Move):
    """Challenge a Wild Draw Four / Pocket Wild Draw 2 (``challenge``)."""

    kind: ClassVar[MoveKind] = MoveKind.CHALLENGE
    by: int | None = None


@dataclass(frozen=True, slots=True, repr=False)
class AcceptMove(Move):
    """Take the draw without challenging (``accept``)."""

    kind: ClassVar[MoveKind] = MoveKind.ACCEPT
    by: int | None = None


@dataclass(frozen=True, slots=True, repr=False)
class PassMove(Move):
    """Keep the drawn card / decline to play again (``pass``)."""

    kind: ClassVar[MoveKind] = MoveKind.PASS
    by: int | None = None


@dataclass(frozen=True, slots=True, repr=False)
class TakeMove(Move):
    """Press the stacked hits instead of stacking (``take``)."""

    kind: ClassVar[MoveKind] = MoveKind.TAKE
    by: int | None = None


@dataclass(frozen=True, slots=True, repr=False)
class UnoMove(Move):
    """The player down to one card calls UNO (``uno``)."""

    kind: ClassVar[MoveKind] = MoveKind.UNO
    by: int | None = None


@dataclass(frozen=True, slots=True, repr=False)
class NextRoundMove(Move):
    """Start the next round once one is over (``next-round``): a move, so push/pop cross it."""

    kind: ClassVar[MoveKind] = MoveKind.NEXT_ROUND
    by: int | None = None


_BARE: dict[MoveKind, Callable[..., Move]] = {
    MoveKind.DRAW: DrawMove,
    MoveKind.CHALLENGE: ChallengeMove,
    MoveKind.ACCEPT: AcceptMove,
    MoveKind.PASS: PassMove,
    MoveKind.TAKE: TakeMove,
    MoveKind.UNO: UnoMove,
    MoveKind.NEXT_ROUND: NextRoundMove,
}
_CHOOSE_TEXT = {c: f"color:{c.value}" for c in Color}
_KIND_TEXT = {k: k.value for k in MoveKind}  # an enum's .value is a Python-level property


#: The move that starts the next round.
NEXT_ROUND = NextRoundMove()

#: ``fired:N`` moves made once each (a move is immutable; a game makes a thousand presses).
_FIRED: dict[int, FiredMove] = {}


def fired(count: int) -> FiredMove:
    """The move ``fired:count``, shared for small counts."""
    move = _FIRED.get(count)
    if move is None:
        move = FiredMove(count)
        if type(count) is int and 0 <= count < 64:
            _FIRED[count] = move
    return move


def _parse_kind(kind: MoveKind, arg: str, by: int | None, text: str) -> Move:
    bare = _BARE.get(kind)
    if bare is not None:
        if arg:
            raise NotationError(f"move {text!r}: {kind.value} takes no argument")
        return bare(by=by)
    if not arg:
        raise NotationError(f"move {text!r}: {kind.value} needs an argument ({kind.value}:…)")
    if kind is MoveKind.COLOR:
        return ChooseMove(Color.parse(arg), by=by)
    if kind in (MoveKind.GIVE, MoveKind.PLAY):
        card = Card.parse(arg)
        return GiveMove(card, by=by) if kind is MoveKind.GIVE else PlayMove(card, by=by)
    what = "a count of cards (0 or more)" if kind is MoveKind.FIRED else "a seat number"
    return _numbered(kind, _number(arg, text, what), by)


def _numbered(kind: MoveKind, number: int, by: int | None) -> Move:
    """The kinds whose argument is a number: fired:N, target:S, catch:S, penalize:S."""
    if kind is MoveKind.FIRED:
        return FiredMove(number, by=by)
    if kind is MoveKind.TARGET:
        return AimMove(number, by=by)
    if kind is MoveKind.CATCH:
        return CatchMove(number, by=by)
    return PenalizeMove(number, by=by)


def _number(text: str, whole: str, what: str = "a seat number") -> int:
    """The whole number ``text`` of the move ``whole``; ``what`` it stands for, for the error."""
    if not text.strip().isdecimal():
        raise NotationError(f"move {whole!r}: {text!r} is not {what}")
    return int(text)


__all__ = [
    "AcceptMove",
    "AimMove",
    "CatchMove",
    "ChallengeMove",
    "ChooseMove",
    "Decision",
    "DrawMove",
    "FiredMove",
    "GiveMove",
    "Move",
    "MoveKind",
    "NEXT_ROUND",
    "NextRoundMove",
    "PassMove",
    "PenalizeMove",
    "PlayMove",
    "TakeMove",
    "UnoMove",
    "fired",
]
