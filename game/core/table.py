"""The table between turns, as plain functions: dealer, deal, first card, round scoring.

The first half works on a :class:`~game.core.engine.Game` (start the game, deal a
round, set up a position, end a round) and logs what happens; the second half
are the rules it applies, pure functions of their arguments that draw every
random choice from the chance source passed in. Every card is
accounted for: at the start of a round all cards come back from the hands, the
discard pile and the launcher (:func:`collect`), are shuffled by the game's
chance source, dealt, one is turned up, and the rest are loaded into the launcher.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import deque
from collections.abc import Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from game.core.cards import Card, Kind
from game.core.chance import shuffle
from game.core.errors import GameError
from game.core.moves import Decision
from game.core.turns import set_pile

if TYPE_CHECKING:
    from game.core.cards import Color
    from game.core.chance import Chance
    from game.core.round import RoundState
    from game.core.rulesets import Ruleset
    from game.core.steps import Engine

_CODE = attrgetter("code")

#: A dealer pick: the seat that deals, the last card each seat turned, every turn-up round.
DealerPick = tuple[int, dict[int, str], list[dict[int, str]]]


def custom_header(ruleset: Ruleset) -> dict[str, Any]:
    """The custom card's effect and its file's text, so a log can be checked on its own."""
    path = ruleset.options.get("custom")
    if not path:
        return {}
    steps = [str(s) for s in ruleset.effects.get(Kind.WILD_CUSTOM, ())]
    return {"custom": steps, "custom_file": ruleset.custom_text}


def first_dealer(deck: Sequence[Card], chance: Chance, players: int) -> DealerPick:
    """Each player turns a card; highest number deals (actions count 0); ties turn again.

    Each turned card is drawn uniformly from the cards not yet turned: the same
    distribution as turning them off a shuffled deck, without shuffling the deck.
    One pass per turn-up round keeps the best value and the seats that have it (no
    per-round dict of values, ``max`` or comprehension: about a quarter fewer instructions
    for the same draws, docs/performance.md, helper ``setup``).
    """
    unturned = list(deck)
    contenders = list(range(players))
    turned: dict[int, str] = {}
    rounds: list[dict[int, str]] = []  # every turn-up, ties re-turning (rules.md 2.2)
    randrange = chance.randrange
    while len(contenders) > 1 and unturned:
        turn: dict[int, str] = {}
        top: list[int] = []  # the seats with the best value turned so far
        best = -1
        for seat in contenders:
            card = unturned.pop(randrange(len(unturned)))
            turn[seat] = card.code
            value = card.number or 0
            if value > best:
                best, top = value, [seat]
            elif value == best:
                top.append(seat)
        rounds.append(turn)
        turned.update(turn)
        contenders = top
    return contenders[0], turned, rounds


def collect(state: RoundState, deck_size: int) -> list[Card]:
    """Every card back from the hands, the discard pile and the launcher, counted."""
    cards = [c for hand in state.hands for c in hand] + state.discard + list(state.pile)
    if len(cards) != deck_size:
        raise GameError(f"card accounting broke: {len(cards)} cards, the deck has {deck_size}")
    return cards


def deal_hands(state: RoundState, cards: list[Card], order: Sequence[int], size: int) -> None:
    """Deal ``size`` cards to each seat of ``order``, one at a time, from the end of ``cards``."""
    players = len(order)
    dealt = cards[len(cards) - size * players :]
    del cards[len(cards) - size * players :]
    dealt.reverse()  # the order cards.pop() would give them
    for place, seat in enumerate(order):  # seat ``place`` gets every players-th card
        state.hands[seat].extend(dealt[place::players])


def turn_starter(cards: list[Card], ruleset: Ruleset, chance: Chance) -> tuple[Card, list[Card]]:
    """Turn the top card; a card whose first-card rule is ``return`` goes back in at random."""
    returned: list[Card] = []
    for _ in range(len(cards) * 4):
        card = cards.pop()
        steps = ruleset.first_card.get(card.kind, ())
        if not (steps and steps[0].name == "return"):
            return card, returned
        returned.append(card)
        cards.insert(chance.randrange(len(cards) + 1), card)
    raise GameError("every card in the deck is one the rules return when turned first")


def check_position(
    ruleset: Ruleset,
    players: int,
    hands: Sequence[Sequence[Card]],
    top: Card,
    bottom: Sequence[Card],
    direction: int,
) -> list[Card]:
    """The deck's cards left once ``hands``, ``top`` and ``bottom`` are taken out of it."""
    pool = list(ruleset.deck)
    for card in [c for hand in hands for c in hand] + [top, *bottom]:
        if card not in pool:
            raise GameError(f"set_position: the {ruleset.id} deck has no more {card}")
        pool.remove(card)
    if len(hands) != players or direction not in (1, -1):
        raise GameError(f"set_position needs {players} hands and direction 1 or -1")
    return pool


def round_points(
    ruleset: Ruleset, hands: Sequence[Sequence[Card]], winner: int | None
) -> tuple[list[int], list[int]]:
    """The points each hand holds, and what each seat gains (``scoring`` option)."""
    held = list(map(ruleset.hand_points, hands))
    gained = [0] * len(hands)
    if winner is not None:
        if ruleset.options["scoring"] == "winner":
            gained[winner] = sum(held)
        else:
            gained = list(held)
    return held, gained


def knocked_out(ruleset: Ruleset, scores: Sequence[int], in_play: Sequence[int]) -> list[int]:
    """Challenge game (``scoring=elimination``): seats whose total reached the target."""
    if ruleset.options["scoring"] != "elimination":
        return []
    return [s for s in in_play if scores[s] >= ruleset.target]


def game_winner(
    ruleset: Ruleset,
    scores: Sequence[int],
    left: Sequence[int],
    round_winner: int | None,
    head_to_head: bool,
) -> int | None:
    """Who won the game after this round (None: play another round)."""
    target, scoring = ruleset.target, ruleset.options["scoring"]
    if scoring == "elimination":
        if head_to_head and round_winner is not None:
            return round_winner  # the last two played head to head: this hand decides
        if len(left) == 1:
            return left[0]
        return min(range(len(scores)), key=lambda s: (scores[s], s)) if not left else None
    if max(scores) < target:
        return None
    if scoring == "winner":
        return scores.index(max(scores))
    return scores.index(min(scores))


# -- on a Game: start, deal, set a position, end a round ----------------------------------
def start_game(game: Engine) -> None:
    """Log the game's header, pick the first dealer, deal the first round."""
    rules = game.ruleset
    header = (rules, tuple(game.names), game.launcher_name, game.rules.deck_codes)
    game.event_log.add((game_start_event, *header))  # all immutable: written when read
    dealer, turned, rounds = first_dealer(rules.deck, game.chance, game.num_players)
    game.event_log.add((dealer_event, dealer, turned, rounds))  # fresh, never changed after
    deal(game, list(rules.deck), dealer)


def deal(game: Engine, cards: list[Card], dealer: int) -> None:
    """A new round: shuffle ``cards``, deal from the dealer's left, turn and resolve a card."""
    new_round(game, dealer)
    game.round_number += 1
    chance = game.chance
    shuffle(chance, cards)
    # the seats in play from the dealer's left, clockwise (each in play is left_seat's next)
    in_play = game.in_play
    first = bisect_right(in_play, dealer)
    deal_hands(game, cards, in_play[first:] + in_play[:first], game.ruleset.hand_size)
    starter, returned = turn_starter(cards, game.ruleset, chance)
    game.discard = [starter]
    game.active_color = starter.color
    set_pile(game, cards)
    emit_deal(game, starter, returned, cards)
    game.actor = game.pos = dealer
    game.card = starter
    game.first_phase = True
    game.queue = deque(game.ruleset.first_card.get(starter.kind, ()))
    game.run_effects()


def new_round(game: Engine, dealer: int) -> None:
    """Reset the round's fields for a new deal; the turns played so far count on."""
    if game.round_number:  # a round was dealt before: its turns join the game's
        game.turns_before += game.turns
    game.reset_round(game.num_players, dealer)


def set_position(
    game: Engine,
    hands: Sequence[Sequence[Card]],
    top: Card,
    color: Color | None,
    direction: int,
    bottom: Sequence[Card],
) -> None:
    """:meth:`Game.set_position` without the turn: the table as given, the rest loaded."""
    pool = check_position(game.ruleset, game.num_players, hands, top, bottom, direction)
    new_round(game, game.dealer)
    game.direction = direction
    game.hands = [list(hand) for hand in hands]
    game.discard = [top]
    game.active_color = color if color is not None else top.color
    loaded = [*bottom, *pool]
    set_pile(game, loaded)
    emit_deal(game, top, [], loaded, position=True)


def emit_deal(
    game: Engine, starter: Card, returned: list[Card], loaded: list[Card], **extra: Any
) -> None:
    """Log the deal: the cards as they lie now, in tuples (the hands and the pile will change)."""
    hands = tuple(map(tuple, game.hands))
    dealt = (game.round_number, game.dealer, hands, starter, tuple(returned), tuple(loaded))
    game.event_log.add((deal_event, *dealt, extra))


# -- the table's events, written when the log is read (game.core.eventlog) ----------------
def game_start_event(
    rules: Ruleset, players: Sequence[str], launcher: str, deck: Sequence[str]
) -> dict[str, Any]:
    return {
        "type": "game_start",
        "ruleset": rules.id,
        "players": list(players),
        "options": dict(rules.options),
        "launcher": launcher,
        "deck": list(deck),
        **custom_header(rules),
    }


def dealer_event(
    dealer: int, turned: dict[int, str], rounds: list[dict[int, str]]
) -> dict[str, Any]:
    return {"type": "dealer", "seat": dealer, "turned": turned, "rounds": rounds}


def deal_event(
    number: int,
    dealer: int,
    hands: Sequence[Sequence[Card]],
    starter: Card,
    returned: Sequence[Card],
    loaded: Sequence[Card],
    extra: dict[str, Any],
) -> dict[str, Any]:
    return {
        "type": "deal",
        "round": number,
        "dealer": dealer,
        "hands": [list(map(_CODE, hand)) for hand in hands],
        "starter": starter.code,
        "returned": list(map(_CODE, returned)),
        "loaded": list(map(_CODE, loaded)),
        **extra,
    }


def round_end_event(
    number: int,
    winner: int | None,
    held: Sequence[int],
    gained: Sequence[int],
    scores: Sequence[int],
    hands: Sequence[Sequence[Card]],
    turns: int,
    eliminated: Sequence[int],
) -> dict[str, Any]:
    return {
        "type": "round_end",
        "round": number,
        "winner": winner,
        "reason": "out" if winner is not None else "turn-limit",
        "held": list(held),
        "gained": list(gained),
        "scores": list(scores),
        "hands": [list(map(_CODE, hand)) for hand in hands],
        "turns": turns,
        "eliminated": list(eliminated),
    }


def end_round(game: Engine, winner: int | None) -> None:
    """Score the round, knock out (challenge game), and end the game if someone won it."""
    rules, scores = game.ruleset, game.scores
    held, gained = round_points(rules, game.hands, winner)
    for seat, points in enumerate(gained):
        scores[seat] += points
    game.round_winner = winner
    head_to_head = len(game.in_play) == 2
    knocked = knocked_out(rules, scores, game.in_play)
    for seat in knocked:
        game.eliminated[seat] = True
    if knocked:
        game.in_play = tuple(s for s, out in enumerate(game.eliminated) if not out)
    hands = tuple(map(tuple, game.hands))  # as they are now: written when the log is read
    ended = (game.round_number, winner, held, gained, tuple(scores), hands, game.turns, knocked)
    game.event_log.add((round_end_event, *ended))
    game.legal = None
    game.decider = -1
    champion = game_winner(rules, scores, game.in_play, winner, head_to_head)
    if champion is None:
        game.pending = Decision.ROUND_OVER
        return
    game.winner = champion
    game.pending = Decision.GAME_OVER
    game.emit("game_end", {"winner": champion, "scores": list(scores), "rounds": game.round_number})
