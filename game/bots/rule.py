"""The rule-based bot (``rule``): how a sensible person plays, written down as rules.

In the spirit of RLCard's ``uno-rule-v1`` (play a card when you can, wilds
last, colour you hold most), and better at the things UNO Attack rewards:

- it plays when it can; it draws (presses) only when it has nothing to play;
- it keeps wilds until they are the only card it can play, or until an attack
  wild stops a player who is about to go out;
- it plays the colour it holds most, and chooses that colour for a wild;
- it aims attack cards at the *leader* (the opponent with fewest cards, then
  the highest score): Wild Attack-Attack and Trade Hands target the leader,
  and hits, draws and skips that strike the next player are played early when
  the next player is close to going out;
- it calls UNO, catches anyone who did not, jumps in when allowed;
- it stacks a hit rather than taking it, challenges a Wild Draw when the odds
  favour it, and plays a card drawn in classic/pocket when it fits.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from game.bots.base import Bot, by_kind, favourite_color, rules_of
from game.core.cards import Card, Kind
from game.core.moves import Decision, Move, MoveKind, PlayMove

if TYPE_CHECKING:
    from game.core.observe import Observation

#: Cards whose effect strikes the next player (hits, draws, skips).
NEXT_ATTACKS = frozenset(
    {
        Kind.SKIP,
        Kind.DRAW_ONE,
        Kind.DRAW_TWO,
        Kind.HIT_ONE,
        Kind.HIT_TWO,
        Kind.WILD_DRAW_FOUR,
        Kind.WILD_DRAW_TWO,
        Kind.WILD_HIT_FOUR,
        Kind.WILD_HIT_FIRE,
    }
)
#: Wilds that hit someone the player chooses (or everyone): worth spending on a threat.
AIMED_WILDS = frozenset({Kind.WILD_ATTACK_ATTACK, Kind.WILD_ALL_HIT, Kind.WILD_CUSTOM})
#: A player with this many cards or fewer is about to go out.
THREAT = 2


def leader(view: Observation, seat: int) -> int:
    """The opponent closest to winning: fewest cards, then highest score, then nearest seat."""
    others = [s for s in view.seats_in_play if s != seat]
    n, sizes, scores = view.num_players, view.hand_sizes, view.scores
    return min(others, key=lambda s: (sizes[s], -scores[s], (s - seat) % n))


class RuleBot(Bot):
    """Plays like a careful person: see the module docstring for the rules."""

    name = "rule"

    def decide(self, view: Observation) -> Move:
        moves = view.moves
        if len(moves) == 1:
            return moves[0]
        pending = view.decision
        hand = view.cards
        if pending is Decision.COLOR:
            return Move.choose(favourite_color(list(hand)))
        if pending is Decision.TARGET:
            return Move.aim(leader(view, view.seat))
        if pending is Decision.GIVE:
            return Move.give(self._give_away(hand))
        plays = [m for m in moves if isinstance(m, PlayMove)]
        if pending in (Decision.STACK, Decision.CHALLENGE):
            return self._answer_attack(view, plays, moves)
        return self._turn(view, plays, moves)

    # -- a turn, a drawn card, a play-again ----------------------------------------------
    def _turn(self, view: Observation, plays: list[PlayMove], moves: Sequence[Move]) -> Move:
        fallback = next((m for m in moves if m.kind is not MoveKind.PLAY), None)
        if not plays:
            return moves[-1] if fallback is None else fallback
        if fallback is None:
            return max(plays, key=lambda m: self.value(view, m.card))
        if len(view.cards) == 1:
            return plays[0]  # going out
        best = max(plays, key=lambda m: self.value(view, m.card))
        card = best.card
        if view.decision is Decision.DRAWN:
            return fallback if self._bad_trade(view, card) else best
        extra = view.decision is Decision.PLAY_AGAIN
        if card.is_wild and extra and not self._urgent(view, card):
            return fallback  # a free extra play is not worth a wild
        if card.kind is Kind.TRADE_HANDS and self._bad_trade(view, card):
            return fallback
        return best

    def value(self, view: Observation, card: Card) -> float:
        """How much playing ``card`` now is worth (higher is better)."""
        if card.is_wild:
            return 60.0 if self._urgent(view, card) else -50.0 + self._wild_order(card)
        seat, sizes = view.seat, view.hand_sizes
        same = sum(1 for c in view.cards if c.color is card.color) - 1
        value = 2.0 * same + rules_of(view).card_points(card) / 10
        two = len(view.seats_in_play) == 2
        if card.kind in NEXT_ATTACKS or (card.kind is Kind.REVERSE and two):
            value += _pressure(sizes[view.next_seat(seat)])
        if card.kind is Kind.DISCARD_ALL:
            value += 3.0 * same
        if card.kind is Kind.TRADE_HANDS:
            value += 40.0 if not self._bad_trade(view, card) else -60.0
        return value

    def _urgent(self, view: Observation, card: Card) -> bool:
        """Is this attack wild worth spending now, on a player about to go out?"""
        if card.kind in AIMED_WILDS:
            return view.hand_sizes[leader(view, view.seat)] <= THREAT
        if card.kind in NEXT_ATTACKS:
            return view.hand_sizes[view.next_seat(view.seat)] <= THREAT
        return False

    @staticmethod
    def _wild_order(card: Card) -> float:
        """Among wilds forced out, spend the plain ones first and keep the attacks."""
        if card.kind in AIMED_WILDS:
            return 0.0
        return 1.0 if card.kind in NEXT_ATTACKS else 2.0

    @staticmethod
    def _bad_trade(view: Observation, card: Card) -> bool:
        if card.kind is not Kind.TRADE_HANDS:
            return False
        after = len(view.cards) - 1
        return view.hand_sizes[leader(view, view.seat)] >= after

    # -- answering a hit, a draw, a Wild Draw ------------------------------------------
    def _answer_attack(
        self, view: Observation, plays: list[PlayMove], moves: Sequence[Move]
    ) -> Move:
        if plays:  # pass the stack on; spend the cheapest card
            return min(plays, key=lambda m: (m.card.is_wild, m.card.code))
        if view.decision is Decision.STACK:
            return by_kind(moves, MoveKind.TAKE)
        return by_kind(moves, MoveKind.CHALLENGE if challenge_pays(view) else MoveKind.ACCEPT)

    @staticmethod
    def _give_away(hand: Sequence[Card]) -> Card:
        """Give the card that helps least: no wild, no attack, the colour held least."""
        counts = Counter(c.color for c in hand)
        return min(
            hand,
            key=lambda c: (c.is_wild, c.kind in NEXT_ATTACKS, counts[c.color], c.code),
        )

    # -- out of turn ----------------------------------------------------------------------
    def react(self, view: Observation, moves: list[Move]) -> Move | None:
        """Call UNO, catch a missed UNO, jump in with an identical card."""
        for kind in (MoveKind.UNO, MoveKind.CATCH, MoveKind.PLAY):
            for move in moves:
                if move.kind is kind:
                    return move
        return None


def _pressure(next_size: int) -> float:
    """Bonus for striking the next player now: large when they are about to go out."""
    if next_size <= THREAT:
        return 12.0
    return 4.0 if next_size <= 4 else 0.0


def challenge_pays(view: Observation) -> bool:
    """Challenge a Wild Draw when the accused probably held a card of the old colour.

    With ``n`` cards left, the chance the accused held none of one colour is about
    0.75**n; a failed challenge costs two presses more than accepting (rules.md
    3.2), a won one saves all four, so challenge when the guilt chance is above 1/3.
    """
    accused = view.hand_sizes[view.actor]
    return 1 - 0.75**accused > 1 / 3
