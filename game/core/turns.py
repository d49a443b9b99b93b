"""The turn flow of a :class:`~game.core.engine.Game`: decisions, out-of-turn moves, chance nodes.

Plain functions over a game (typed against the :class:`~game.core.steps.Engine` protocol, so
this module imports nothing above it) and its round fields
(:class:`~game.core.round.RoundState`), called by :meth:`Game.play` once a move is known to be
legal. They change the round through the Game's engine steps
(:meth:`~game.core.engine.Game.play_card`, :meth:`~game.core.engine.Game.presses`,
:meth:`~game.core.engine.Game.run_effects`, :meth:`~game.core.engine.Game.after_effects`)
and its round fields; a press's outcome comes back through :func:`on_fired`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from game.core.cards import Card, by_display
from game.core.chance import shuffle
from game.core.effects import skipped_step
from game.core.errors import IllegalMove
from game.core.eventlog import color_event, draw_event, hit_event
from game.core.explain import explain, explain_table
from game.core.legal import fits
from game.core.moves import (
    AcceptMove,
    AimMove,
    CatchMove,
    ChooseMove,
    Decision,
    GiveMove,
    Move,
    MoveKind,
    PenalizeMove,
    PlayMove,
)

if TYPE_CHECKING:
    from game.core.steps import Engine


_TABLE_KINDS = frozenset((MoveKind.UNO, MoveKind.CATCH, MoveKind.PENALIZE))
# module names: an enum member off its class is slow (3.11)
_DRAWN, _PRESS = Decision.DRAWN, Decision.PRESS


# -- decisions: one handler per Decision but a turn's, for a move already checked legal ------
# (Game.play makes a turn's move itself: play_card for a card, draw below for a draw)
def draw(game: Engine, seat: int) -> None:
    """``seat`` draws: presses once, or until a playable card (``draw_until_playable``).

    The draw's chance node is set here, field by field, not through :meth:`Game.presses`
    (whose other work a draw never needs: at least one press, no decision to resume): that
    call, with its keywords, was 0.9 % of a hand's instructions (docs/performance.md,
    helper ``effects``). The fields are the ones ``presses`` sets.
    """
    log = game.event_log.add  # read, then called: faster than a method call (EventLog)
    log((draw_event, seat))
    game.last_volley = ()
    game.drawer = seat
    presses = game.rules.draw_presses  # at least 1
    game.due_seat, game.due_presses, game.due_reason = seat, presses, "draw"
    if presses > 1:  # draw_until_playable: its counts (press_done) start again
        game.due_until, game.then = "playable", "draw"
        game.drawn_cards = game.draw_empties = 0
    else:  # one press (the counts stay 0: only an until=playable press adds to them)
        game.due_until, game.then = "count", "draw"
    if not game.pile:
        maybe_reload(game)
    game.pending, game.decider = _PRESS, seat
    game.legal = None


def on_color(game: Engine, move: Move, seat: int) -> None:
    assert isinstance(move, ChooseMove)  # the only legal kind (checked by play)
    game.active_color = color = move.color
    log = game.event_log.add  # read, then called: faster than a method call (EventLog)
    log((color_event, seat, color))
    game.run_effects()


def on_target(game: Engine, move: Move, seat: int) -> None:
    assert isinstance(move, AimMove)  # the only legal kind (checked by play)
    game.target = move.target
    game.emit("target", {"player": seat, "target": move.target})
    game.run_effects()


def on_drawn(game: Engine, move: Move, seat: int) -> None:
    game.drawn = None
    if isinstance(move, PlayMove):
        game.play_card(seat, move.card, "drawn")
    else:
        game.emit("pass", {"player": seat})
        game.pos = seat
        game.after_effects()


def on_play_again(game: Engine, move: Move, seat: int) -> None:
    if isinstance(move, PlayMove):
        game.play_card(seat, move.card, "play-again", keep_pos=True)
    else:
        game.emit("pass", {"player": seat})
        game.run_effects()


def on_give(game: Engine, move: Move, seat: int) -> None:
    assert isinstance(move, GiveMove)  # the only legal kind (checked by play)
    receiver = game.next_seat(game.pos)
    card = move.card
    game.hands[seat].remove(card)
    game.hands[receiver].append(card)
    game.emit("give", {"player": seat, "to": receiver, "card": card.code})
    game.hand_shrank(seat)
    game.run_effects()


def on_stack(game: Engine, move: Move, seat: int) -> None:
    if isinstance(move, PlayMove):
        game.challenge_presses = None
        game.play_card(seat, move.card, "stack")
        return
    total, game.stack = game.stack, 0
    game.emit("take", {"player": seat, "presses": total})
    if game.stack_skips:
        game.pos = seat
        game.queue.appendleft(skipped_step(seat, "take"))
    game.challenge_presses = None
    if not game.presses(seat, total, game.stack_reason):
        game.run_effects()


def on_challenge(game: Engine, move: Move, seat: int) -> None:
    if isinstance(move, PlayMove):
        on_stack(game, move, seat)
        return
    guilty_n, innocent_n = game.challenge_presses or (0, 0)
    game.challenge_presses = None
    total, game.stack = game.stack, 0
    if isinstance(move, AcceptMove):
        game.emit("accept", {"player": seat})
        game.pos = seat
        game.queue.appendleft(skipped_step(seat, "accept"))
        waiting = game.presses(seat, total, game.stack_reason)
    else:
        waiting = resolve_challenge(game, seat, guilty_n, innocent_n)
    if not waiting:
        game.run_effects()


def resolve_challenge(game: Engine, seat: int, guilty_n: int, innocent_n: int) -> bool:
    """The accused shows the hand: the guilty presses ``guilty_n``, else the challenger more."""
    accused = game.actor
    game.emit(
        "challenge",
        {
            "player": seat,
            "accused": accused,
            "guilty": game.guilty,
            "hand": [c.code for c in game.hands[accused]],
        },
    )
    if game.guilty:
        return game.presses(accused, guilty_n, "challenge")
    game.pos = seat
    game.queue.appendleft(skipped_step(seat, "challenge"))
    return game.presses(seat, innocent_n, "challenge")


def on_next_round(game: Engine, move: Move, seat: int) -> None:
    """``next-round``: collect every card, pass the deal to the left, deal again."""
    game.deal_next_round()


HANDLERS: dict[Decision, Callable[[Engine, Move, int], None]] = {
    Decision.COLOR: on_color,
    Decision.TARGET: on_target,
    Decision.DRAWN: on_drawn,
    Decision.PLAY_AGAIN: on_play_again,
    Decision.GIVE: on_give,
    Decision.STACK: on_stack,
    Decision.CHALLENGE: on_challenge,
    Decision.ROUND_OVER: on_next_round,
}


def checked(game: Engine, move: Move | str) -> Move | None:
    """:meth:`Game.play` for any move but an offered one, away from a press (which ``play``
    feeds itself): notation, out-of-turn moves (made here: None), a decision move equal to a
    legal one; raises IllegalMove for the rest."""
    if isinstance(move, str):
        move = Move.parse(move)
    if move.by is not None or move.kind in _TABLE_KINDS:
        play_table(game, move)
        return None
    legal_now = game.legal
    if legal_now is None:
        legal_now = game.legal = game.compute_legal()
    if move not in legal_now:
        raise IllegalMove(explain(game, move))
    return move


def discard_color(game: Engine) -> None:
    """Discard All (:meth:`Game.discard_color`): the actor's cards of its colour go under it."""
    card, actor = game.card, game.actor
    color = card.color if card is not None and card.color is not None else game.active_color
    hand = game.hands[actor]
    # in card order: the hand's internal order would tell when each card was got
    dumped = sorted((c for c in hand if c.color is color and color is not None), key=by_display)
    if dumped:
        hand[:] = [c for c in hand if c.color is not color]
        game.discard[-1:-1] = dumped
        game.emit("discard", {"player": actor, "cards": [c.code for c in dumped]})
        game.hand_shrank(actor)


def rotate(game: Engine) -> None:
    """7-0's zero (:meth:`Game.rotate`): every hand in play moves one seat on."""
    hands = game.hands
    old = list(hands)
    for seat in game.seats_in_play:
        hands[game.next_seat(seat)] = old[seat]
    game.uno_open = None
    game.emit("rotate", {"direction": game.direction, "seats": game.seats_in_play})


# -- out-of-turn moves -----------------------------------------------------------------
def play_table(game: Engine, move: Move) -> None:
    """Make an out-of-turn move: call UNO, catch, jump in, or a suggestion penalty."""
    if isinstance(move, PenalizeMove):
        penalize(game, move)
        return
    if move not in game.table_moves():
        raise IllegalMove(explain_table(move))
    game.legal = None
    if isinstance(move, CatchMove):
        game.uno_open = None
        game.emit("uno", {"player": move.seat, "by": move.by, "caught": True})
        penalty = int(game.ruleset.options["uno_penalty"])
        game.presses(move.seat, penalty, "uno-penalty", then="resume")
    elif isinstance(move, PlayMove) and move.by is not None:  # a jump-in
        game.uno_open = None if game.uno_open != move.by else game.uno_open
        game.current = move.by
        game.play_card(move.by, move.card, "jump-in")
    else:  # uno: the only other table move
        game.uno_called = True
        game.emit("uno", {"player": game.uno_open, "by": game.uno_open, "caught": False})


def penalize(game: Engine, move: PenalizeMove) -> None:
    presses = game.ruleset.options["suggestion_penalty"]
    seat = move.seat
    if not presses or game.is_round_over() or game.pending is Decision.PRESS:
        raise IllegalMove(
            "the suggestion penalty is off (option suggestion_penalty) or the round is over"
        )
    if not 0 <= seat < game.num_players:
        raise IllegalMove(f"there is no seat {seat}")
    game.legal = None
    game.presses(seat, presses, "suggestion-penalty", then="resume")


# -- chance nodes: every press of the launcher (game.play.driver feeds the outcome) ----------------
def on_fired(game: Engine, count: int) -> None:
    """Apply one press's outcome: ``count`` cards came out of the launcher.

    The cached offer (:attr:`legal`) is cleared here once the presses are done; while more
    are due the game is still at a chance node, whose offer (none) has not changed.
    """
    pile, seat = game.pile, game.due_seat
    if count == 1 and pile:  # the common press: one card off the draw pile
        card = pile.popleft()
        cards: tuple[Card, ...] = (card,)
        game.hands[seat].append(card)
    elif count == 0 or not pile:  # nothing came out (a launcher often shoots nothing)
        cards = ()
    else:  # a loop, not a comprehension: that would be a call, and make `pile` a cell (3.11)
        taken = []
        for _ in range(min(count, len(pile))):
            taken.append(pile.popleft())
        cards = tuple(taken)
        game.hands[seat].extend(cards)
    if cards:
        # tested against None first: ``int == None`` is a comparison CPython cannot specialise
        if game.uno_open is not None and game.uno_open == seat:
            game.uno_open = None
        game.last_volley = cards
    log = game.event_log.add  # read, then called: faster than a method call (EventLog)
    log((hit_event, seat, game.due_reason, cards, count))
    game.due_presses = left = game.due_presses - 1
    if left > 0 and (game.due_until == "count" or not press_done(game, cards)):
        if not pile:  # maybe_reload's own test, here: most presses leave cards in the pile
            maybe_reload(game)
        return
    game.legal = None
    # the presses are done: finish a draw, resume an interrupted decision, or run effects
    then = game.then
    if then == "draw":
        # offer the first playable card of the last volley (classic, pocket: rules.md 3.2,
        # 4.2), or the turn passes on. Written here, not as a function of its own: every draw
        # ends here, and the call cost 0.3-0.4 % of a hand (docs/performance.md, helper `trim`)
        seat, rules = game.drawer, game.rules
        if rules.play_after_draw:
            fit = rules.plays[game.discard[-1]][game.active_color]  # matching(), inlined
            for card in game.last_volley:  # fits(), inlined: a wild asks it about the bluff rule
                if card in fit and (card.color is not None or fits(rules, game, card)):
                    game.drawn = card
                    game.ask(_DRAWN, seat)
                    return
        game.pos = seat
        game.after_effects()
    elif then == "resume":
        resume(game, *game.resume_to)
    else:
        game.run_effects()


def resume(game: Engine, pending: Decision, seat: int) -> None:
    """Back to the decision an out-of-turn penalty interrupted, offered again if it is logged.

    Offered again always, not only when the penalty's cards changed the offer (a
    play-again offer gains a playable card drawn): whether they did is the decider's
    secret, and a second ``decision`` event only then would tell every seat (docs/rules.md,
    "The event log").
    A world dealt from a seat's view (an ISMCTS search) cannot know the other seats'
    offers either: its log is that seat's view, where they are redacted.
    """
    game.pending, game.decider = pending, seat
    if pending in LOGGED:
        game.ask(pending, seat)


#: The decisions whose offered moves the log carries (a ``decision`` event); ``turn``
#: decisions are not logged (docs/rules.md: their moves follow from the hand and the table).
LOGGED = frozenset(d for d in Decision if d not in (Decision.TURN, Decision.PRESS)) - {
    Decision.ROUND_OVER,
    Decision.GAME_OVER,
}


def press_done(game: Engine, cards: tuple[Card, ...]) -> bool:
    """Does this press end the chance node early (``until=fire`` / ``until=playable``)?"""
    until = game.due_until
    if until == "fire":
        return bool(cards)
    if until == "playable":  # house rule draw_until_playable: the cap counts cards
        game.drawn_cards += len(cards)
        game.draw_empties += not cards
        options = game.ruleset.options
        return (
            game.drawn_cards >= int(options["draw_until_cap"])
            or game.draw_empties >= int(options["hit_fire_cap"])
            or any(fits(game.rules, game, c) for c in cards)
        )
    return False


def maybe_reload(game: Engine) -> None:
    """An empty launcher (``empty_launcher=reload``): the discard pile but its top goes in."""
    if game.rules.reloads and not game.pile:
        discard = game.discard
        if len(discard) < 2:
            return
        cards = discard[:-1]
        del discard[:-1]
        shuffle(game.chance, cards)
        set_pile(game, cards)
        # which cards went in is public (the discard pile); their shuffled order is secret
        game.emit("reload", {"cards": [c.code for c in sorted(cards, key=by_display)]})


def set_pile(game: Engine, cards: Sequence[Card]) -> None:
    """Load ``cards`` into the launcher (a new pile generation: the driver re-syncs)."""
    game.pile = deque(cards)
    game.pile_generation += 1
