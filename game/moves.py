"""Moves, their text notation, and the kinds of decision a game can be waiting for.

Everything a player does is a :class:`Move`: playing a card, drawing (pressing
the launcher), and every decision that is not a card play — choose a colour,
pick a target, challenge or accept, keep a drawn card, pass a card, take a
stack, call or catch UNO. ``Move.parse(str(m)) == m`` (``docs/notation.md``)::

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
    fired:3       chance: the pending launcher press shot 3 cards (fed by game.driver)
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from game.cards import Card, Color, NotationError


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
    PRESS = "press"  #: a chance node: the launcher is pressed, feed ``fired:N`` (game.driver)
    ROUND_OVER = "round_over"  #: call Game.start_next_round()
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


_BARE = {
    MoveKind.DRAW,
    MoveKind.CHALLENGE,
    MoveKind.ACCEPT,
    MoveKind.PASS,
    MoveKind.TAKE,
    MoveKind.UNO,
}


@dataclass(frozen=True, slots=True)
class Move:
    """One move. ``by`` is set only for out-of-turn moves made by a seat other than the decider."""

    kind: MoveKind
    card: Card | None = None
    color: Color | None = None
    target: int | None = None
    by: int | None = None
    count: int | None = None

    # -- constructors ---------------------------------------------------------
    @staticmethod
    def play(card: Card, by: int | None = None) -> Move:
        return Move(MoveKind.PLAY, card=card, by=by)

    @staticmethod
    def choose(color: Color) -> Move:
        return Move(MoveKind.COLOR, color=color)

    @staticmethod
    def aim(seat: int) -> Move:
        return Move(MoveKind.TARGET, target=seat)

    @staticmethod
    def give(card: Card) -> Move:
        return Move(MoveKind.GIVE, card=card)

    @staticmethod
    def fired(count: int) -> Move:
        """The outcome of one pending launcher press: ``count`` cards came out."""
        return Move(MoveKind.FIRED, count=count)

    @staticmethod
    def catch(seat: int, by: int) -> Move:
        return Move(MoveKind.CATCH, target=seat, by=by)

    # -- notation -------------------------------------------------------------
    def __str__(self) -> str:
        kind = self.kind
        if kind is MoveKind.PLAY:
            text = self.card.code  # type: ignore[union-attr]
        elif kind in _BARE:
            text = kind.value
        elif kind is MoveKind.COLOR:
            text = f"color:{self.color.value}"  # type: ignore[union-attr]
        elif kind is MoveKind.GIVE:
            text = f"give:{self.card.code}"  # type: ignore[union-attr]
        elif kind is MoveKind.FIRED:
            text = f"fired:{self.count}"
        else:
            text = f"{kind.value}:{self.target}"
        return text if self.by is None else f"{text}@{self.by}"

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read the notation above; raises :class:`~game.cards.NotationError`."""
        body, _, by_text = text.strip().partition("@")
        by = _seat(by_text, text) if by_text else None
        name, _, arg = body.partition(":")
        name = name.strip().lower()
        try:
            kind = MoveKind(name)
        except ValueError:
            if arg:
                raise NotationError(f"unknown move {text!r}") from None
            return Move(MoveKind.PLAY, card=Card.parse(body), by=by)
        return _parse_kind(kind, arg.strip(), by, text)


def _parse_kind(kind: MoveKind, arg: str, by: int | None, text: str) -> Move:
    if kind in _BARE:
        if arg:
            raise NotationError(f"move {text!r}: {kind.value} takes no argument")
        return Move(kind, by=by)
    if not arg:
        raise NotationError(f"move {text!r}: {kind.value} needs an argument ({kind.value}:…)")
    if kind is MoveKind.COLOR:
        return Move(kind, color=Color.parse(arg), by=by)
    if kind in (MoveKind.GIVE, MoveKind.PLAY):
        return Move(kind, card=Card.parse(arg), by=by)
    if kind is MoveKind.FIRED:
        return Move(kind, count=_seat(arg, text), by=by)
    return Move(kind, target=_seat(arg, text), by=by)


def _seat(text: str, whole: str) -> int:
    if not text.strip().isdigit():
        raise NotationError(f"move {whole!r}: {text!r} is not a seat number")
    return int(text)
