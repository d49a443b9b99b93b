"""The bot base class and the two simplest bots: ``random`` and ``greedy``."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, ClassVar

from game.cards import COLORS, Card, Color, Kind
from game.moves import AcceptMove, ChallengeMove, Decision, Move, MoveKind, PlayMove

if TYPE_CHECKING:
    from game.engine import Game


class Bot:
    """Base class: subclasses override :meth:`choose` and may override :meth:`table_move`."""

    name = "bot"
    #: The tunable parameters a spec may set (``casual:forget_uno=0.3``), with their defaults.
    PARAMS: ClassVar[dict[str, float]] = {}

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    @classmethod
    def from_params(cls, seed: int | None, params: Mapping[str, float]) -> Bot:
        """The bot for a parsed spec; bots with :attr:`PARAMS` override this."""
        return cls(seed)

    def choose(self, game: Game, seat: int) -> Move:
        raise NotImplementedError

    def table_move(self, game: Game, seat: int, moves: list[Move]) -> Move | None:
        """Pick one of ``moves`` (this seat's out-of-turn moves) or None."""
        return None


class RandomBot(Bot):
    """Uniform over the legal moves; out of turn, uniform over "do nothing" and its table moves."""

    name = "random"

    def choose(self, game: Game, seat: int) -> Move:
        moves = game.legal_moves()
        return moves[self.rng.randrange(len(moves))]

    def table_move(self, game: Game, seat: int, moves: list[Move]) -> Move | None:
        if not moves:
            return None
        pick = self.rng.randrange(len(moves) + 1)
        return moves[pick] if pick < len(moves) else None


class GreedyBot(Bot):
    """Keeps wilds, dumps high points, calls UNO, catches, challenges when likely.

    Picks the colour it holds most and aims at the player with the fewest cards.
    """

    name = "greedy"

    def choose(self, game: Game, seat: int) -> Move:
        moves = game.legal_moves()
        pending = game.pending
        if pending is Decision.COLOR:
            return Move.choose(favourite_color(game.hands[seat]))
        if pending is Decision.TARGET:
            return Move.aim(fewest_cards(game, seat))
        if pending is Decision.GIVE:
            return Move.give(least_useful(game, game.hands[seat]))
        if pending is Decision.CHALLENGE:
            return self._challenge(game, seat, moves)
        plays = [m for m in moves if isinstance(m, PlayMove)]
        if pending is Decision.STACK:
            return plays[0] if plays else moves[-1]
        if pending is Decision.DRAWN:
            drawn = plays[0] if plays else None
            keep = drawn is None or (drawn.card.is_wild and len(game.hands[seat]) > 2)
            return moves[-1] if keep or drawn is None else drawn
        if not plays:
            return moves[-1]  # draw / pass
        return max(plays, key=lambda m: self._value(game, seat, m.card))

    def _value(self, game: Game, seat: int, card: Card) -> float:
        hand = game.hands[seat]
        if card.is_wild:
            return -100.0 + game.ruleset.card_points(card) / 10
        value = float(game.ruleset.card_points(card))
        value += sum(1 for c in hand if c.color is card.color) / 2
        if card.kind is Kind.TRADE_HANDS:
            smallest = min(len(game.hands[s]) for s in game.seats_in_play if s != seat)
            value = 60.0 if smallest < len(hand) - 1 else -50.0
        if card.kind is Kind.DISCARD_ALL:
            value += 10 * sum(1 for c in hand if c.color is card.color)
        return value

    def _challenge(self, game: Game, seat: int, moves: list[Move]) -> Move:
        stacks = [m for m in moves if m.kind is MoveKind.PLAY]
        if stacks:
            return stacks[0]
        accused = len(game.hands[game.actor])
        likely_guilty = 1 - 0.75**accused
        return ChallengeMove() if likely_guilty > 1 / 3 else AcceptMove()

    def table_move(self, game: Game, seat: int, moves: list[Move]) -> Move | None:
        for move in moves:
            if move.kind in (MoveKind.UNO, MoveKind.CATCH):
                return move
        return moves[0] if moves else None


def favourite_color(hand: list[Card]) -> Color:
    """The colour held most (ties: R, B, G, Y order); red for an all-wild hand."""
    counts = Counter(c.color for c in hand if c.color is not None)
    return max(COLORS, key=lambda color: (counts[color], -COLORS.index(color)))


def fewest_cards(game: Game, seat: int) -> int:
    others = [s for s in game.seats_in_play if s != seat]
    return min(others, key=lambda s: (len(game.hands[s]), s))


def least_useful(game: Game, hand: list[Card]) -> Card:
    """The card to give away: never a wild if avoidable, else the one worth most points."""
    return min(hand, key=lambda c: (c.is_wild, -game.ruleset.card_points(c)))


def seat_moves(game: Game, seat: int, moves: list[Move]) -> list[Move]:
    """The table moves ``seat`` itself may make."""
    return [m for m in moves if game.seat_of(m) == seat]


def by_kind(moves: list[Move], kind: MoveKind) -> Move:
    """The first of ``moves`` of ``kind`` (the legal moves always hold the bare ones asked for)."""
    return next(m for m in moves if m.kind is kind)


def offer_table_moves(
    game: Game, bots: Sequence[Bot], play: Callable[[Move], None] | None = None
) -> None:
    """Give each seat, the player down to one card first, a chance to call UNO / catch / jump in.

    ``play`` makes a chosen move (default ``game.play``; a driver's, which also
    makes the presses a catch leads to).
    """
    make = game.play if play is None else play
    moves = game.table_moves()
    if not moves:
        return
    first = game.uno_pending if game.uno_pending is not None else 0
    for k in range(game.num_players):
        seat = (first + k) % game.num_players
        own = seat_moves(game, seat, moves)
        choice = bots[seat].table_move(game, seat, own) if own else None
        if choice is not None:
            make(choice)
            if game.is_round_over():
                return
            moves = game.table_moves()
            if not moves:
                return
