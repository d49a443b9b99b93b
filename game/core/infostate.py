"""Sample a game a seat cannot tell from the real one: determinization for search and learning.

:meth:`game.core.engine.Game.resample_from_infostate` (OpenSpiel's name) returns a game that
is identical in everything ``seat`` knows (its observation: its hand, the public table,
the history as it saw it) and whose hidden part is dealt again at random from the cards
the seat has not seen: the other hands (each keeps its size and the cards the seat knows
are in it), the draw pile / launcher hopper (its length kept), the chance source, and the
secret flags that come with them (was the Wild Draw just played a bluff, which card
another seat just drew). The sample reads only the seat's observation and the public
state, so two games that look the same from ``seat`` give the same samples for the same
``rng``: a search that decides from samples never reads the true hidden cards.

The sample holds no launcher, no event callback and no undo stack, and its event log is
the history as ``seat`` saw it (nothing secret to leak into a search). Cards a seat knows
another holds: a card it gave, the hand it traded or rotated away, the hand a challenge
showed it; each stays known until that seat plays it (a hand that then gives a card the
seat does not see is forgotten, a weaker but still consistent belief).
"""

from __future__ import annotations

import random
from collections import Counter, deque
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from game.core.cards import Card, Color, sort_key
from game.core.legal import would_be_guilty
from game.core.observe import observe

if TYPE_CHECKING:
    from game.core.engine import Game

Event = dict[str, Any]


class HandPreference(Protocol):
    """A soft belief about one hidden hand (the search bot's :class:`~game.bots.inference.Belief`).

    Cards it does not :meth:`allows` are dealt to that hand only for its ``fresh`` newest
    cards, when the unseen cards allow it.
    """

    fresh: int
    lacks: set[str]

    def allows(self, card: Card) -> bool: ...


class QuickCopyRandom(random.Random):
    """A sampled world's chance source: its deepcopy (each ``Game.copy``) is one C-level copy."""

    def __deepcopy__(self, memo: dict[int, object]) -> QuickCopyRandom:
        twin = QuickCopyRandom(0)
        twin.setstate(self.getstate())
        return twin


def _card_order(card: Card) -> tuple[tuple[int, int, int], str]:
    return sort_key(card), card.code


class InfoStateSampler:
    """Everything ``seat`` knows of ``game``, read once; :meth:`sample` deals worlds from it.

    A search samples many worlds at one decision: the observation, the known cards and the
    unseen cards are worked out once here, each sample only shuffles and deals.
    """

    def __init__(self, game: Game, seat: int) -> None:
        self.seat = seat
        view = observe(game, seat)
        self.history = view.history
        others = [s for s in range(game.num_players) if s != seat]
        self.others = others
        self.sizes = list(view.hand_sizes)
        base = game.copy()
        base.events = []
        base._stack_of_states = []
        base._chance = QuickCopyRandom(0)
        base.seed = None
        base.hands[seat] = sorted(base.hands[seat], key=_card_order)  # no internal order
        for s in others:
            base.hands[s] = []
        base.pile = deque()
        base.legal = None
        self.base = base
        self.known = _consistent(self._known_cards(game), self.sizes, others)
        self.unseen = self._unseen(game)
        self.drawer = base.decider if base.drawn is not None else base.drawer

    def _known_cards(self, game: Game) -> list[Counter[Card]]:
        codes = known_cards(self.history, self.seat, game.num_players)
        by_code = {card.code: card for card in game.ruleset.deck}
        return [Counter({by_code[c]: n for c, n in hand.items() if c in by_code}) for hand in codes]

    def _unseen(self, game: Game) -> list[Card]:
        """Cards the seat has not seen and knows no place for, in a canonical order."""
        pool = Counter(game.ruleset.deck)
        pool -= Counter(self.base.hands[self.seat])
        pool -= Counter(self.base.discard)
        for hand in self.known:
            pool -= hand
        return sorted(pool.elements(), key=_card_order)

    def sample(
        self,
        rng: random.Random,
        *,
        prefer: Sequence[HandPreference] | None = None,
        history: bool = True,
    ) -> Game:
        """One world: the hidden cards dealt at random (``prefer``: soft beliefs per seat)."""
        world = self.base.copy()
        if history:
            world.events = list(self.history)
        hidden = list(self.unseen)
        rng.shuffle(hidden)
        order = self.others
        if prefer is not None:
            order = sorted(order, key=lambda s: -len(prefer[s].lacks))
        for s in order:
            known = sorted(self.known[s].elements(), key=_card_order)
            fresh = self.sizes[s] - len(known)
            belief = prefer[s] if prefer is not None else None
            world.hands[s] = known + _deal(hidden, fresh, belief)
        world.pile = deque(hidden)
        world._chance = QuickCopyRandom(rng.getrandbits(64))
        self._hidden_flags(world)
        return world

    def _hidden_flags(self, world: Game) -> None:
        """The secrets tied to the hidden cards, made to fit the sampled ones."""
        seat = self.seat
        if self.drawer != seat and world.hands[self.drawer]:
            hand = world.hands[self.drawer]
            if world.drawn is not None:
                world.drawn = hand[-1]
            if world.last_volley:
                world.last_volley = tuple(hand[-len(world.last_volley) :])
        card = world.card
        if card is not None and card in world.rules.challengeable and world.actor != seat:
            world.guilty = _sampled_guilt(world, card, self.history)


def _deal(hidden: list[Card], size: int, belief: HandPreference | None) -> list[Card]:
    """Take ``size`` cards from ``hidden``: those a belief rules out only for its fresh cards."""
    hand: list[Card] = []
    bound = 0 if belief is None else max(0, size - belief.fresh)
    if belief is not None and belief.lacks and bound:
        for card in hidden:
            if len(hand) == bound:
                break
            if belief.allows(card):
                hand.append(card)
        for card in hand:
            hidden.remove(card)
    rest = size - len(hand)
    hand += hidden[:rest]
    del hidden[:rest]
    return hand


def _consistent(
    known: list[Counter[Card]], sizes: Sequence[int], others: Sequence[int]
) -> list[Counter[Card]]:
    """Known cards that fit the hand sizes (a seat whose known cards do not fit: none known)."""
    out: list[Counter[Card]] = [Counter() for _ in sizes]
    for s in others:
        if known[s].total() <= sizes[s]:
            out[s] = known[s]
    return out


def known_cards(history: Sequence[Event], seat: int, players: int) -> list[Counter[str]]:
    """Per seat, the cards ``seat`` knows it holds now, read from the current round's history.

    ``history`` is the seat's own (redacted) view: only what it was shown counts.
    """
    known: list[Counter[str]] = [Counter() for _ in range(players)]
    mine: Counter[str] | None = Counter()
    for event in _this_round(history):
        kind = event["type"]
        if kind == "deal":
            known = [Counter() for _ in range(players)]
            mine = Counter(event["hands"][seat]) if isinstance(event["hands"][seat], list) else None
        elif kind in ("play", "discard"):
            cards = [event["card"]] if kind == "play" else event["cards"]
            holder = mine if event["player"] == seat else known[event["player"]]
            if holder is not None:
                holder.subtract(cards)
                holder += Counter()  # drop counts at or below zero
        elif kind == "hit" and event["player"] == seat and mine is not None:
            mine.update(event.get("cards", ()))
        elif kind == "give":
            mine = _given(event, seat, known, mine)
        elif kind == "challenge" and event["player"] == seat and "hand" in event:
            known[event["accused"]] = Counter(event["hand"])
        elif kind == "trade":
            mine = _traded(event, seat, known, mine)
        elif kind == "rotate":
            mine = _rotated(event, seat, known, mine)
    return known


def _this_round(history: Sequence[Event]) -> Sequence[Event]:
    start = max((i for i, e in enumerate(history) if e["type"] == "deal"), default=len(history))
    return history[start:]


def _given(
    event: Event, seat: int, known: list[Counter[str]], mine: Counter[str] | None
) -> Counter[str] | None:
    giver, receiver = event["player"], event["to"]
    if giver == seat:
        if mine is not None:
            mine[event["card"]] -= 1
            mine += Counter()
        known[receiver][event["card"]] += 1
    elif receiver == seat:
        if mine is not None:
            mine[event["card"]] += 1
        known[giver][event["card"]] -= 1
        known[giver] += Counter()
    else:
        known[giver] = Counter()  # which card went is hidden: forget the giver's known cards
    return mine


def _traded(
    event: Event, seat: int, known: list[Counter[str]], mine: Counter[str] | None
) -> Counter[str] | None:
    a, b = event["player"], event["target"]
    known[a], known[b] = known[b], known[a]
    if seat not in (a, b):
        return mine
    other = b if a == seat else a
    known[other] = mine if mine is not None else Counter()
    known[seat] = Counter()
    return None  # the seat's new hand is one it now sees, but the log does not list it


def _rotated(
    event: Event, seat: int, known: list[Counter[str]], mine: Counter[str] | None
) -> Counter[str] | None:
    seats, direction = event["seats"], event["direction"]
    if seat in seats:
        known[seat] = mine if mine is not None else Counter()
    moved = {s: known[s] for s in seats}
    for s in seats:
        known[_next_in(seats, s, direction)] = moved[s]
    known[seat] = Counter()
    return None


def _next_in(seats: Sequence[int], seat: int, direction: int) -> int:
    index = seats.index(seat)
    return seats[(index + direction) % len(seats)]


def _sampled_guilt(world: Game, card: Card, history: Sequence[Event]) -> bool:
    """Would the sampled accused hand have made the challengeable wild on top illegal?"""
    hand = [*world.hands[world.actor], card]  # the accused's hand before the play
    discard = world.discard
    top = discard[-2] if len(discard) > 1 else discard[-1]
    return would_be_guilty(world.rules, hand, card, top, _colour_before_last_play(history))


def _colour_before_last_play(history: Sequence[Event]) -> Color | None:
    active: str | None = None
    before: str | None = None
    for event in _this_round(history):
        kind = event["type"]
        if kind == "deal":
            active = _colour(event["starter"])
        elif kind == "play":
            before = active
            active = _colour(event["card"]) or active
        elif kind == "color":
            active = event["color"]
    return Color(before) if before else None


def _colour(code: str) -> str | None:
    card = Card.parse(code)
    return card.color.value if card.color is not None else None


def resample_from_infostate(game: Game, seat: int, rng: random.Random) -> Game:
    """A game identical in everything ``seat`` knows, its hidden cards dealt again by ``rng``."""
    return InfoStateSampler(game, seat).sample(rng)
