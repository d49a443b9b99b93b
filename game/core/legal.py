"""What may be played now: the legal moves of a :class:`~game.core.engine.Game`, as plain functions.

:class:`CompiledRules` reads the options the hot paths need once per game;
the functions below read a game's round fields (:class:`~game.core.round.RoundState`) and
change nothing.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from operator import attrgetter
from typing import TYPE_CHECKING

from game.core.cards import COLORS, Card, Color, Kind, all_cards
from game.core.moves import (
    NEXT_ROUND,
    AcceptMove,
    ChallengeMove,
    Decision,
    DrawMove,
    Move,
    PassMove,
    PlayMove,
    TakeMove,
    UnoMove,
)
from game.core.rulesets import Step

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from game.core.round import RoundState
    from game.core.rulesets import Ruleset

DRAW = DrawMove()
PASS = PassMove()
TAKE = TakeMove()
CHALLENGE = ChallengeMove()
ACCEPT = AcceptMove()
UNO = UnoMove()
#: One shared move object per card, so ``play()`` finds a legal move by identity first.
PLAY: dict[Card, PlayMove] = {card: Move.play(card) for card in all_cards()}


COLOR_MOVES: list[Move] = [Move.choose(c) for c in COLORS]
# The decisions as module names: an enum member read off its class costs CPython 3.11 a
# call of EnumType's attribute hook (about 80 ns, against 10 for a global;
# docs/performance.md, "A data-oriented core").
_TURN, _COLOR, _TARGET, _DRAWN = Decision.TURN, Decision.COLOR, Decision.TARGET, Decision.DRAWN
_PLAY_AGAIN, _GIVE, _STACK = Decision.PLAY_AGAIN, Decision.GIVE, Decision.STACK
_CHALLENGE, _PRESS = Decision.CHALLENGE, Decision.PRESS
_ROUND_OVER, _GAME_OVER = Decision.ROUND_OVER, Decision.GAME_OVER
_NOT_AT_THE_TABLE = (_PRESS, _ROUND_OVER, _GAME_OVER)
_TRADE_HANDS = Kind.TRADE_HANDS
_INDEX = attrgetter("index")  # a card's place in the interned order: a fixed, set-free order
_SEVEN_ZERO = {7: (Step("target"), Step("trade_hands")), 0: (Step("rotate_hands"),)}


@dataclass(frozen=True, slots=True)
class CompiledRules:
    """The options the hot paths need, read once, and each card's effect steps."""

    challenge_steps: dict[Kind, Step | None]
    bluff: bool  #: wild_draw_bluff: a challengeable wild may be played illegally
    #: every matching card is playable: ``bluff`` on and no Trade Hands in the deck (which may
    #: not be a hand's last card), so a turn's offer skips :func:`playable_cards`' tests
    plain_offer: bool
    jump_in: bool
    turn_cap: int  #: turns a round may have (round_turn_limit; no limit: a count never reached)
    reloads: bool  #: empty_launcher=reload
    draw_presses: int  #: presses a draw may take (draw_until_playable: a cap)
    play_after_draw: bool
    stacking: bool  #: Ruleset.stacking (mega_hit_stack or stack_draws)
    steps_for: dict[Card, tuple[Step, ...]]
    challengeable: frozenset[Card]
    #: ``plays[top][colour]``: the cards that may go on ``top`` when ``colour`` is active
    #: (rules.md 3.2), each with its shared :class:`PlayMove`, one table per pair built once
    #: per ruleset: "may I play this card" is a lookup, and a turn's offer reads its moves
    #: off the same table.
    plays: dict[Card, dict[Color | None, dict[Card, PlayMove]]]

    #: The deck's card codes, for the ``game_start`` event (copied into each event).
    deck_codes: tuple[str, ...]

    @classmethod
    def of(cls, ruleset: Ruleset) -> CompiledRules:
        """The compiled rules of ``ruleset``, built once and kept on the (immutable) ruleset."""
        compiled: CompiledRules | None = ruleset.__dict__.get("_compiled")
        if compiled is None:
            compiled = cls.build(ruleset)
            object.__setattr__(ruleset, "_compiled", compiled)  # a frozen dataclass: a cache
        return compiled

    @classmethod
    def build(cls, ruleset: Ruleset) -> CompiledRules:
        options = ruleset.options
        steps = {
            k: next((s for s in v if s.name == "challenge"), None)
            for k, v in ruleset.effects.items()
        }
        # draw_until_playable: the cap counts cards; presses that bring nothing do not count,
        # but at most hit_fire_cap of them more, so an empty launcher never loops for ever
        until_cap = int(options["draw_until_cap"]) + int(options["hit_fire_cap"])
        seven_zero = bool(options["seven_zero"])
        return cls(
            challenge_steps=steps,
            bluff=bool(options["wild_draw_bluff"]),
            plain_offer=bool(options["wild_draw_bluff"])
            and all(c.kind is not Kind.TRADE_HANDS for c in ruleset.deck),
            jump_in=bool(options["jump_in"]),
            turn_cap=int(options["round_turn_limit"]) or sys.maxsize,
            reloads=options["empty_launcher"] == "reload",
            draw_presses=until_cap if options["draw_until_playable"] else 1,
            play_after_draw=ruleset.play_after_draw,
            stacking=ruleset.stacking,
            steps_for={card: card_steps(ruleset, card, seven_zero) for card in all_cards()},
            challengeable=frozenset(c for c in all_cards() if steps.get(c.kind)),
            plays=play_table(all_cards()),
            deck_codes=tuple(c.code for c in ruleset.deck),
        )


def play_table(cards: Sequence[Card]) -> dict[Card, dict[Color | None, dict[Card, PlayMove]]]:
    """For each top card and active colour, the cards that match (a wild, the colour, the
    face) with their moves, in :attr:`Card.index` order (never a set's order)."""
    wilds = frozenset(c for c in cards if c.color is None)
    by_color: dict[Color | None, frozenset[Card]] = {None: frozenset()}
    by_color |= {color: frozenset(c for c in cards if c.color is color) for color in COLORS}
    by_face: dict[tuple[Kind, int | None], frozenset[Card]] = {}
    for card in cards:
        face = (card.kind, card.number)
        by_face[face] = by_face.get(face, frozenset()) | {card}

    def plays(top: Card, color: Color | None) -> dict[Card, PlayMove]:
        match = wilds | by_color[color] | by_face[top.kind, top.number]
        return {card: PLAY[card] for card in sorted(match, key=_INDEX)}

    return {top: {color: plays(top, color) for color in by_color} for top in cards}


def card_steps(ruleset: Ruleset, card: Card, seven_zero: bool) -> tuple[Step, ...]:
    """The effect of ``card`` under these rules (7-0 adds to the 7 and the 0).

    A ``play_again`` block does something only when ``skip_reverse_play_again`` is
    ``always`` (game.core.effects.play_again): under any other value it is left out here,
    so a Skip or a Reverse does not run a block that cannot act.
    """
    play_again = ruleset.options["skip_reverse_play_again"] == "always"
    steps = tuple(
        s for s in ruleset.effects.get(card.kind, ()) if play_again or s.name != "play_again"
    )
    if card.kind is Kind.NUMBER and seven_zero and card.number in _SEVEN_ZERO:
        steps += _SEVEN_ZERO[card.number]
    return steps


def matching(rules: CompiledRules, state: RoundState) -> Mapping[Card, PlayMove]:
    """The cards that match the top of the discard pile and the active colour now, with their
    moves (``card in matching(...)`` is the test)."""
    return rules.plays[state.discard[-1]][state.active_color]


def would_be_guilty(
    rules: CompiledRules, hand: Sequence[Card], card: Card, top: Card, active: Color | None
) -> bool:
    """Was playing this challengeable wild from ``hand`` on ``top`` (``active`` the colour
    then) against the rules (rules.md 3.2, 4.2)?"""
    step = rules.challenge_steps[card.kind]
    assert step is not None
    others = list(hand)
    others.remove(card)
    # loops, not any() over a generator: a generator is a frame of its own (CPython 3.11)
    if step.text.get("test", "color") == "color":
        if active is not None:
            for other in others:
                if other.color is active:
                    return True
        return False
    match = rules.plays[top][active]
    for other in others:
        if other is not card and other in match:
            return True
    return False


def playable_cards(rules: CompiledRules, state: RoundState, seat: int) -> list[Card]:
    """Distinct cards ``seat`` may play now, in hand order (the hot loop of the engine)."""
    hand = state.hands[seat]
    fit = matching(rules, state)
    seen = {card: None for card in hand if card in fit}  # in hand order, each card once
    if len(hand) == 1 and hand[0].kind is _TRADE_HANDS:
        seen.pop(hand[0], None)
    if not rules.bluff:
        for card in list(seen):
            if rules.challenge_steps.get(card.kind) and would_be_guilty(
                rules, hand, card, state.discard[-1], state.active_color
            ):
                del seen[card]
    return list(seen)


def turn_moves(rules: CompiledRules, state: RoundState) -> list[Move]:
    """The decider's moves at a ``Decision.TURN``: its playable cards, then ``draw``."""
    hand = state.hands[state.decider]
    # the rare cases (never under plain_offer): the bluff rule off, or a lone Trade Hands
    if not rules.plain_offer and (
        not rules.bluff or (len(hand) == 1 and hand[0].kind is _TRADE_HANDS)
    ):
        return [PLAY[c] for c in playable_cards(rules, state, state.decider)] + [DRAW]
    # playable_cards without those two tests: the matching cards, each once, in hand order,
    # with their moves (the table's values). A loop, not a comprehension: CPython 3.11 runs
    # a comprehension as a function of its own, a frame and a closure a call (3 % of a hand
    # of the fair bench; docs/performance.md)
    plays = rules.plays[state.discard[-1]][state.active_color]
    offer: dict[Card, Move] = {}
    for card in hand:
        if card in plays:
            offer[card] = plays[card]
    return [*offer.values(), DRAW]  # unpacked in the bytecode: no call of ``list`` (3.11)


def fits(rules: CompiledRules, state: RoundState, card: Card) -> bool:
    """May the decider play ``card`` (just drawn) now?"""
    if card.color is None:  # a wild always matches; only the bluff rule may forbid it
        return rules.bluff or card in playable_cards(rules, state, state.decider)
    return card in matching(rules, state)


def stack_moves(state: RoundState, seat: int, stack_kinds: frozenset[Kind]) -> list[Move]:
    """The stack cards ``seat`` may add to a stack (none without stack kinds: a challenge
    offer without stacking, every Wild Draw Four of classic, asks without a pass over the hand)."""
    if not stack_kinds:
        return []
    return [PLAY[c] for c in dict.fromkeys(state.hands[seat]) if c.kind in stack_kinds]


def legal_moves(
    rules: CompiledRules, state: RoundState, in_play: Sequence[int], stackable: frozenset[Kind]
) -> list[Move]:
    """The moves the decider may make; ``stackable``: the kinds it may stack now (or none)."""
    pending, seat = state.pending, state.decider
    if pending is _TURN:
        return turn_moves(rules, state)
    if pending is _COLOR:
        return COLOR_MOVES.copy()
    if pending is _TARGET:
        return [Move.aim(s) for s in in_play if s != seat]
    if pending is _DRAWN:
        return [PLAY[state.drawn], PASS] if state.drawn is not None else [PASS]
    if pending is _PLAY_AGAIN:
        return [PLAY[c] for c in playable_cards(rules, state, seat)] + [PASS]
    if pending is _GIVE:
        return [Move.give(c) for c in dict.fromkeys(state.hands[seat])]
    if pending is _STACK:
        return stack_moves(state, seat, stackable) + [TAKE]
    if pending is _CHALLENGE:
        return [CHALLENGE, ACCEPT] + stack_moves(state, seat, stackable)
    if pending is _ROUND_OVER:
        return [NEXT_ROUND]
    return []  # PRESS: a chance node (Game.chance_outcomes); GAME_OVER: nothing left


def table_moves(
    rules: CompiledRules, state: RoundState, in_play: Sequence[int], uno_pending: int | None
) -> list[Move]:
    """Out-of-turn moves any seat may make now: ``uno``, ``catch:P@S``, jump-ins ``R7@S``."""
    moves: list[Move] = []
    if state.pending in _NOT_AT_THE_TABLE:
        return moves
    if uno_pending is not None:
        moves.append(UNO)
        moves += [Move.catch(uno_pending, s) for s in in_play if s != uno_pending]
    if rules.jump_in and state.pending is _TURN:
        top = state.discard[-1]
        if top.color is not None:
            moves += [
                Move.play(top, by=s)
                for s in in_play
                if s != state.decider and top in state.hands[s]
            ]
    return moves
