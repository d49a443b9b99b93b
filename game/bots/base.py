"""The bot base class and the two simplest bots: ``random`` and ``greedy``.

A bot decides from what its seat may know: :meth:`Bot.choose` (the public call,
``bot.choose(game, seat)``) hands :meth:`Bot.decide` the seat's
:meth:`~game.core.engine.Game.observation` and nothing else, and :meth:`Bot.table_move`
hands :meth:`Bot.react` the same. A bot that needs the hidden cards samples them
(:meth:`~game.core.engine.Game.resample_from_infostate`, the search bot) instead of
reading them.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, ClassVar

from game.core.cards import COLORS, Card, Color, Kind
from game.core.moves import AcceptMove, ChallengeMove, Decision, Move, MoveKind, PlayMove
from game.core.observe import Observation, seat_table_moves

if TYPE_CHECKING:
    from game.core.engine import Game
    from game.core.rulesets import Ruleset


class Bot:
    """Base class: subclasses override :meth:`choose` and may override :meth:`table_move`."""

    name = "bot"
    #: Does :meth:`decide` read :attr:`Observation.history`? A bot that does not gets its
    #: observations without it (``game.observation(seat, history=False)``), which saves
    #: redacting the game's log for it.
    reads_history: ClassVar[bool] = True
    #: The tunable parameters a spec may set (``casual:forget_uno=0.3``), with their defaults.
    PARAMS: ClassVar[dict[str, float]] = {}

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    @cached_property
    def rng(self) -> random.Random:
        """The bot's own random numbers, seeded with its ``seed``: the same seed, the same draws.

        Made when first used (seeding a ``random.Random`` costs about 36 k instructions, more
        than a rule bot's decision, and the rule bot never draws; simulate makes four bots
        a game). A test may set it.
        """
        return random.Random(self.seed)

    @classmethod
    def from_params(cls, seed: int | None, params: Mapping[str, float]) -> Bot:
        """The bot for a parsed spec; bots with :attr:`PARAMS` override this."""
        return cls(seed)

    def choose(self, game: Game, seat: int) -> Move:
        """The move ``seat`` makes now, decided from its observation only (:meth:`decide`)."""
        return self.decide(game.observation(seat, history=self.reads_history))

    def decide(self, view: Observation) -> Move:
        """One of ``view.moves`` (the seat is the decider)."""
        raise NotImplementedError

    def table_move(self, game: Game, seat: int, moves: list[Move]) -> Move | None:
        """Pick one of ``moves`` (this seat's out-of-turn moves) or None, from the observation."""
        own = seat_table_moves(game, seat, moves)
        if not own:
            return None
        return self.react(game.observation(seat, history=self.reads_history), list(own))

    def react(self, view: Observation, moves: list[Move]) -> Move | None:
        """One of ``moves`` (the seat's out-of-turn moves, in canonical order) or None."""
        return None


class RandomBot(Bot):
    """Uniform over the legal moves; out of turn, uniform over "do nothing" and its table moves."""

    name = "random"
    reads_history = False

    def decide(self, view: Observation) -> Move:
        moves = view.moves
        return moves[self.rng.randrange(len(moves))]

    def react(self, view: Observation, moves: list[Move]) -> Move | None:
        pick = self.rng.randrange(len(moves) + 1)
        return moves[pick] if pick < len(moves) else None


class GreedyBot(Bot):
    """Keeps wilds, dumps high points, calls UNO, catches, challenges when likely.

    Picks the colour it holds most and aims at the player with the fewest cards.
    """

    name = "greedy"
    reads_history = False

    def decide(self, view: Observation) -> Move:
        moves = list(view.moves)
        pending = view.decision
        hand = list(view.cards)
        if pending is Decision.COLOR:
            return Move.choose(favourite_color(hand))
        if pending is Decision.TARGET:
            return Move.aim(fewest_cards(view, view.seat))
        if pending is Decision.GIVE:
            return Move.give(least_useful(view, hand))
        if pending is Decision.CHALLENGE:
            return self._challenge(view, moves)
        plays = [m for m in moves if isinstance(m, PlayMove)]
        if pending is Decision.STACK:
            return plays[0] if plays else moves[-1]
        if pending is Decision.DRAWN:
            drawn = plays[0] if plays else None
            keep = drawn is None or (drawn.card.is_wild and len(hand) > 2)
            return moves[-1] if keep or drawn is None else drawn
        if not plays:
            return moves[-1]  # draw / pass
        return max(plays, key=lambda m: self._value(view, m.card))

    def _value(self, view: Observation, card: Card) -> float:
        hand, rules = view.cards, rules_of(view)
        if card.is_wild:
            return -100.0 + rules.card_points(card) / 10
        value = float(rules.card_points(card))
        value += sum(1 for c in hand if c.color is card.color) / 2
        if card.kind is Kind.TRADE_HANDS:
            sizes = view.hand_sizes
            smallest = min(sizes[s] for s in view.seats_in_play if s != view.seat)
            value = 60.0 if smallest < len(hand) - 1 else -50.0
        if card.kind is Kind.DISCARD_ALL:
            value += 10 * sum(1 for c in hand if c.color is card.color)
        return value

    def _challenge(self, view: Observation, moves: list[Move]) -> Move:
        stacks = [m for m in moves if m.kind is MoveKind.PLAY]
        if stacks:
            return stacks[0]
        likely_guilty = 1 - 0.75 ** view.hand_sizes[view.actor]
        return ChallengeMove() if likely_guilty > 1 / 3 else AcceptMove()

    def react(self, view: Observation, moves: list[Move]) -> Move | None:
        for move in moves:
            if move.kind in (MoveKind.UNO, MoveKind.CATCH):
                return move
        return moves[0] if moves else None


def rules_of(view: Observation) -> Ruleset:
    """The ruleset an observation was made under (every observation of a game carries it)."""
    assert view.ruleset is not None, "an observation made by Game.observation has its ruleset"
    return view.ruleset


def favourite_color(hand: Sequence[Card]) -> Color:
    """The colour held most (ties: R, B, G, Y order); red for an all-wild hand."""
    colors = [c.color for c in hand]
    return max(COLORS, key=colors.count)  # max keeps the first of equals: the R, B, G, Y order


def offered(moves: Sequence[Move], move: Move) -> Move:
    """The object among ``moves`` equal to ``move`` (the engine takes its own moves fastest)."""
    return next((m for m in moves if m == move), move)


def fewest_cards(view: Observation, seat: int) -> int:
    others = [s for s in view.seats_in_play if s != seat]
    return min(others, key=lambda s: (view.hand_sizes[s], s))


def least_useful(view: Observation, hand: Sequence[Card]) -> Card:
    """The card to give away: never a wild if avoidable, else the one worth most points."""
    rules = rules_of(view)
    return min(hand, key=lambda c: (c.is_wild, -rules.card_points(c)))


def seat_moves(game: Game, seat: int, moves: list[Move]) -> list[Move]:
    """The table moves ``seat`` itself may make, in canonical order (not the hand's order)."""
    return list(seat_table_moves(game, seat, moves))


def by_kind(moves: Sequence[Move], kind: MoveKind) -> Move:
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
