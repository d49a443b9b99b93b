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
from math import inf
from typing import TYPE_CHECKING

from game.bots.base import Bot, by_kind, favourite_color, offered, rules_of
from game.core.cards import Card, Color, Kind
from game.core.moves import AimMove, ChooseMove, Decision, Move, MoveKind, PlayMove
from game.core.observe import move_key, observe, seat_table_moves

if TYPE_CHECKING:
    from typing import Protocol

    from game.core.engine import Game
    from game.core.observe import Observation
    from game.core.rulesets import Ruleset

    class PublicTable(Protocol):
        """What the rule bot reads of the table besides its own hand and moves.

        Public to every seat: an :class:`~game.core.observe.Observation` has it, and so
        has the :class:`~game.core.engine.Game` itself (:meth:`RuleBot.choose` reads these
        off the game instead of building the seat's observation; the hidden hands are not
        among them).
        """

        @property
        def hand_sizes(self) -> Sequence[int]: ...
        def hand_size(self, seat: int) -> int: ...
        @property
        def scores(self) -> Sequence[int]: ...
        @property
        def in_play(self) -> Sequence[int]: ...
        @property
        def num_players(self) -> int: ...
        @property
        def actor(self) -> int: ...
        def next_seat(self, seat: int) -> int: ...


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

# The decisions as module names: an enum member read off its class is not a cached
# attribute in CPython 3.11 (80 ns against 10 for a global; docs/performance.md).
_COLOR, _TARGET, _GIVE = Decision.COLOR, Decision.TARGET, Decision.GIVE
_STACK, _CHALLENGE = Decision.STACK, Decision.CHALLENGE
_PLAY_AGAIN = Decision.PLAY_AGAIN


def leader(view: PublicTable, seat: int) -> int:
    """The opponent closest to winning: fewest cards, then highest score, then nearest seat."""
    others = [s for s in view.in_play if s != seat]
    n, sizes, scores = view.num_players, view.hand_sizes, view.scores
    return min(others, key=lambda s: (sizes[s], -scores[s], (s - seat) % n))


class CardFacts:
    """What the rule bot asks of one card under one ruleset, worked out once per card."""

    __slots__ = (
        "wild", "tenth", "strikes_next", "aimed", "turns_two", "discards", "trades", "wild_order",
        "plain",
    )  # fmt: skip

    def __init__(self, rules: Ruleset, card: Card) -> None:
        kind = card.kind
        self.wild = card.color is None
        self.tenth = rules.card_points(card) / 10  #: a tenth of its points
        self.strikes_next = kind in NEXT_ATTACKS  #: hits, draws or skips the next player
        self.aimed = kind in AIMED_WILDS
        self.turns_two = kind is Kind.REVERSE  #: strikes the next player when two play
        self.discards = kind is Kind.DISCARD_ALL
        self.trades = kind is Kind.TRADE_HANDS
        #: Among wilds forced out, spend the plain ones first and keep the attacks (a field,
        #: not a property: it is read for every wild valued).
        self.wild_order = 0.0 if self.aimed else 1.0 if self.strikes_next else 2.0
        #: None of the valuation's extra terms applies (a number card, most cards): its
        #: value is its colour's count and its points, and it is never held back.
        self.plain = not (
            self.wild or self.strikes_next or self.turns_two or self.discards or self.trades
        )


class _FactTable(dict[Card, CardFacts]):
    def __init__(self, rules: Ruleset) -> None:
        super().__init__()
        self.rules = rules

    def __missing__(self, card: Card) -> CardFacts:
        self[card] = facts = CardFacts(self.rules, card)
        return facts


#: One :class:`_FactTable` per ruleset object met, by identity (a ruleset is unhashable),
#: with the ruleset itself so its ``id`` is not reused.
_TABLES: dict[int, tuple[Ruleset, _FactTable]] = {}


def facts_for(rules: Ruleset) -> dict[Card, CardFacts]:
    """The :class:`CardFacts` of every card under ``rules``, filled in as cards are met."""
    entry = _TABLES.get(id(rules))
    if entry is None or entry[0] is not rules:
        if len(_TABLES) > 64:
            _TABLES.clear()
        entry = _TABLES[id(rules)] = (rules, _FactTable(rules))
    return entry[1]


class Reading:
    """One decision's reading of the table, shared by every card the bot values.

    ``table`` is the seat's view or the game (:class:`PublicTable`: only what every seat
    may see is read off it), ``hand`` the seat's own cards in any order: the valuation
    counts colours and cards, it never reads the hand's order. The next player's hand size
    and the leader are looked up once, when first needed.
    """

    __slots__ = ("table", "seat", "size", "facts", "colors", "_next_size", "_leader_size")

    def __init__(
        self, table: PublicTable, seat: int, hand: Sequence[Card], facts: dict[Card, CardFacts]
    ) -> None:
        self.table, self.seat, self.size = table, seat, len(hand)
        self.facts = facts  #: :func:`facts_for` the ruleset
        self.colors = [card.color for card in hand]
        self._next_size = -1
        self._leader_size = -1

    @classmethod
    def of(cls, view: Observation) -> Reading:
        """The reading of a seat's observation."""
        return cls(view, view.seat, view.cards, facts_for(rules_of(view)))

    @property
    def next_size(self) -> int:
        """Cards held by the next player in the direction of play."""
        if self._next_size < 0:
            table = self.table
            self._next_size = table.hand_size(table.next_seat(self.seat))
        return self._next_size

    @property
    def leader_size(self) -> int:
        """Cards held by the :func:`leader`: the fewest any opponent holds.

        (The leader is the opponent with the fewest cards, whatever breaks its ties, so its
        size is their minimum: no seat needs to be picked for it.)
        """
        if self._leader_size < 0:
            table, seat = self.table, self.seat
            size = table.hand_size  # a method, not the hand_sizes property: no list built
            self._leader_size = min([size(s) for s in table.in_play if s != seat])
        return self._leader_size

    def value(self, card: Card) -> float:
        """How much playing ``card`` now is worth (higher is better)."""
        facts = self.facts[card]
        if facts.wild:
            return 60.0 if self.urgent(facts) else -50.0 + facts.wild_order
        same = self.colors.count(card.color) - 1
        value = 2.0 * same + facts.tenth
        if facts.plain:
            return value
        if facts.strikes_next or (facts.turns_two and len(self.table.in_play) == 2):
            value += _pressure(self.next_size)
        if facts.discards:
            value += 3.0 * same
        if facts.trades:
            value += 40.0 if not self.bad_trade(facts) else -60.0
        return value

    def urgent(self, facts: CardFacts) -> bool:
        """Is this attack wild worth spending now, on a player about to go out?"""
        if facts.aimed:
            return self.leader_size <= THREAT
        if facts.strikes_next:
            return self.next_size <= THREAT
        return False

    def bad_trade(self, facts: CardFacts) -> bool:
        """Would a Trade Hands now give away a smaller hand than the leader's?"""
        return facts.trades and self.leader_size >= self.size - 1

    def best(self, plays: Sequence[PlayMove]) -> PlayMove:
        """The play worth most; of equals, the first in display order (the canonical order).

        Written for any order of ``plays`` (the engine's or an observation's): a tie goes
        to the card first in :attr:`~game.core.cards.Card.display` order, which is the
        first of equals in the observation's canonical order (each card is offered once).
        """
        if len(plays) == 1:
            return plays[0]
        facts, colors = self.facts, self.colors
        best, most = plays[0], -inf
        for move in plays:
            card = move.card
            fact = facts[card]
            if fact.plain:  # :meth:`value` inlined for most cards (its call cost as much)
                worth = 2.0 * colors.count(card.color) - 2.0 + fact.tenth
            else:
                worth = self.value(card)
            if worth > most or (worth == most and card.display < best.card.display):
                best, most = move, worth
        return best


class RuleBot(Bot):
    """Plays like a careful person: see the module docstring for the rules."""

    name = "rule"
    reads_history = False
    #: The ruleset of the last decision and its card facts (:func:`facts_for`).
    _rules: Ruleset | None = None
    _facts: dict[Card, CardFacts]

    def choose(self, game: Game, seat: int) -> Move:
        """As :meth:`Bot.choose`, deciding on the game's public part, without an observation.

        The rule bot reads its own hand (as colours and a count, never its order), its legal
        moves (in any order: :meth:`decide` gives the same move whatever their order) and
        the table everyone sees (:class:`PublicTable`); building the seat's observation
        for that cost as much as deciding (docs/performance.md, "Whole games with the rule
        bots"). The move is the one :meth:`decide` returns for the seat's observation
        (tests/test_bots_rule.py checks it). A subclass with its own :meth:`decide`, and a
        seat that is not the decider, get the observation.
        """
        moves = game.legal_moves()
        if seat != game.decider:
            return self.decide(observe(game, seat, history=False))
        if len(moves) == 1:  # a sixth of a game's decisions: nothing to decide
            return moves[0]
        if type(self).decide is not RuleBot.decide:
            return self.decide(observe(game, seat, history=False))
        return self._decide(game, seat, game.hands[seat], moves, game.pending, game.ruleset)

    def decide(self, view: Observation) -> Move:
        moves = view.moves
        if len(moves) == 1:
            return moves[0]
        return self._decide(view, view.seat, view.cards, moves, view.decision, rules_of(view))

    def _decide(
        self,
        table: PublicTable,
        seat: int,
        hand: Sequence[Card],
        moves: Sequence[Move],
        pending: Decision,
        rules: Ruleset,
    ) -> Move:
        """The move for ``pending``: a function of the hand and the moves as sets, not lists."""
        if pending is _COLOR:
            return _offered_color(moves, favourite_color(hand))
        if pending is _TARGET:
            return _offered_target(moves, leader(table, seat))
        if pending is _GIVE:
            return offered(moves, Move.give(self._give_away(hand)))
        if pending is _STACK or pending is _CHALLENGE:
            plays = [m for m in moves if isinstance(m, PlayMove)]
            return self._answer_attack(table, pending, plays, moves)
        return self._turn(table, seat, hand, moves, pending, rules)  # a turn, drawn, play-again

    # -- a turn, a drawn card, a play-again ----------------------------------------------
    def _turn(
        self,
        table: PublicTable,
        seat: int,
        hand: Sequence[Card],
        moves: Sequence[Move],
        pending: Decision,
        rules: Ruleset,
    ) -> Move:
        """The best card to play, or the offer's draw or pass (its fallback) when the best
        card is a wild not worth a free extra play or a Trade Hands that would help the leader.
        """
        plays = [m for m in moves if isinstance(m, PlayMove)]
        fallback = _not_a_play(moves, plays)  # draw or pass
        if not plays:
            return moves[-1] if fallback is None else fallback
        if len(hand) == 1:
            return plays[0]  # going out (one card: one play)
        if rules is not self._rules:  # the facts of the bot's game, kept: one lookup less
            self._rules, self._facts = rules, facts_for(rules)
        facts = self._facts
        if len(plays) == 1:  # nothing to weigh: a Reading only if the card may be held back
            best = plays[0]
            card = facts[best.card]
            if fallback is None or card.plain:
                return best
            reading = Reading(table, seat, hand, facts)
        else:
            reading = Reading(table, seat, hand, facts)
            best = reading.best(plays)
            if fallback is None:
                return best
            card = facts[best.card]
        if card.trades and reading.bad_trade(card):
            return fallback
        if card.wild and pending is _PLAY_AGAIN and not reading.urgent(card):
            return fallback  # a free extra play is not worth a wild
        return best

    def value(self, view: Observation, card: Card) -> float:
        """How much playing ``card`` now is worth (higher is better)."""
        return Reading.of(view).value(card)

    # -- answering a hit, a draw, a Wild Draw ------------------------------------------
    def _answer_attack(
        self,
        table: PublicTable,
        pending: Decision,
        plays: list[PlayMove],
        moves: Sequence[Move],
    ) -> Move:
        if plays:  # pass the stack on; spend the cheapest card
            return min(plays, key=lambda m: (m.card.color is None, m.card.code))
        if pending is _STACK:
            return by_kind(moves, MoveKind.TAKE)
        return by_kind(moves, MoveKind.CHALLENGE if challenge_pays(table) else MoveKind.ACCEPT)

    @staticmethod
    def _give_away(hand: Sequence[Card]) -> Card:
        """Give the card that helps least: no wild, no attack, the colour held least."""
        counts = Counter(c.color for c in hand)
        return min(
            hand,
            key=lambda c: (c.is_wild, c.kind in NEXT_ATTACKS, counts[c.color], c.code),
        )

    # -- out of turn ----------------------------------------------------------------------
    def table_move(self, game: Game, seat: int, moves: list[Move]) -> Move | None:
        """As :meth:`Bot.table_move`, without the observation :meth:`react` never reads.

        (The rule bot's reaction is a function of its own table moves alone; building the
        seat's observation for it was most of the cost of an out-of-turn offer.) A subclass
        with a :meth:`react` of its own, which may read the view, gets the observation.
        """
        if type(self).react is not RuleBot.react:
            return super().table_move(game, seat, moves)
        own = seat_table_moves(game, seat, moves)
        return first_reaction(own) if own else None

    def react(self, view: Observation, moves: list[Move]) -> Move | None:
        """Call UNO, catch a missed UNO, jump in with an identical card."""
        return first_reaction(moves)


#: The table moves the rule bot makes, most wanted first.
_REACTIONS = (MoveKind.UNO, MoveKind.CATCH, MoveKind.PLAY)


def first_reaction(moves: Sequence[Move]) -> Move | None:
    """Call UNO, else catch a missed UNO, else jump in: the first such of ``moves``, or None."""
    for kind in _REACTIONS:
        for move in moves:
            if move.kind is kind:
                return move
    return None


def _offered_color(moves: Sequence[Move], color: Color) -> Move:
    """``offered(moves, Move.choose(color))`` without making the move and comparing it to each
    offered one (a dataclass's ``==`` is a Python call): the offer's own ``color:C`` move."""
    for move in moves:
        if isinstance(move, ChooseMove) and move.color is color and move.by is None:
            return move
    return Move.choose(color)


def _offered_target(moves: Sequence[Move], seat: int) -> Move:
    """``offered(moves, Move.aim(seat))``, as :func:`_offered_color`: the offer's ``target:S``."""
    for move in moves:
        if isinstance(move, AimMove) and move.target == seat and move.by is None:
            return move
    return Move.aim(seat)


def _not_a_play(moves: Sequence[Move], plays: Sequence[PlayMove]) -> Move | None:
    """The offer's move that is not a card play (``draw``, ``pass``), or None.

    A turn, a drawn card and a play-again offer card plays and one such move
    (:mod:`game.core.legal`), in the engine's order its last; were there several, the
    first in canonical order (:func:`~game.core.observe.move_key`), whatever their order.
    """
    if len(moves) == len(plays):
        return None
    last = moves[-1]
    if len(moves) == len(plays) + 1 and not isinstance(last, PlayMove):
        return last
    return min((m for m in moves if not isinstance(m, PlayMove)), key=move_key)


def _pressure(next_size: int) -> float:
    """Bonus for striking the next player now: large when they are about to go out."""
    if next_size <= THREAT:
        return 12.0
    return 4.0 if next_size <= 4 else 0.0


def challenge_pays(view: PublicTable) -> bool:
    """Challenge a Wild Draw when the accused probably held a card of the old colour.

    With ``n`` cards left, the chance the accused held none of one colour is about
    0.75**n; a failed challenge costs two presses more than accepting (rules.md
    3.2), a won one saves all four, so challenge when the guilt chance is above 1/3.
    """
    accused = view.hand_size(view.actor)
    return 1 - 0.75**accused > 1 / 3
