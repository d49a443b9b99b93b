"""Illegal-move messages: each names the rule the move breaks (used by :meth:`Game.play`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from game.core.cards import Card, Kind
from game.core.moves import CatchMove, Decision, Move, PlayMove, UnoMove

if TYPE_CHECKING:
    from game.core.steps import Engine


def explain(game: Engine, move: Move) -> str:
    """Why ``move`` is illegal now, naming the rule."""
    pending, seat = game.pending, game.decider
    if pending is Decision.GAME_OVER:
        return "the game is over"
    if pending is Decision.ROUND_OVER:
        return "the round is over: play next-round (start the next round) first"
    wanted = " ".join(str(m) for m in game.legal_moves())
    if isinstance(move, PlayMove):
        why = why_not_playable(game, seat, move.card)
        if why:
            return f"seat {seat} cannot play {move.card}: {why}"
    return (
        f"{move} is not a legal move now: the game waits for {pending.value} "
        f"from seat {seat} ({wanted})"
    )


def why_not_playable(game: Engine, seat: int, card: Card) -> str:
    """Why ``seat`` may not play ``card`` now (empty if it may)."""
    pending = game.pending
    if card not in game.hands[seat]:
        return f"seat {seat} does not hold {card}"
    if pending is Decision.DRAWN:
        return f"after drawing only the drawn card {game.drawn_card} may be played"
    if pending in (Decision.STACK, Decision.CHALLENGE):
        kinds = ", ".join(sorted(k.label for k in game.ruleset.stack_kinds))
        return (
            f"only a stack card ({kinds}) may be played on a stack"
            if game.can_stack()
            else ("stacking is off (options mega_hit_stack / stack_draws)")
        )
    if pending not in (Decision.TURN, Decision.PLAY_AGAIN):
        return f"the game waits for {pending.value}, not a card"
    if card.kind is Kind.TRADE_HANDS and len(game.hands[seat]) == 1:
        return "you cannot go out on a Trade Hands"
    if card.is_wild:
        return f"a {card.kind.label} is legal only when you hold no card of the active colour"
    top, color = game.discard[-1], game.active_color
    return (
        f"it matches neither the colour {color.name.lower() if color else '-'} nor the "
        f"{'number' if top.kind is Kind.NUMBER else 'symbol'} of the top card {top}"
    )


def explain_table(move: Move) -> str:
    """Why an out-of-turn move is illegal now."""
    if isinstance(move, UnoMove):
        return "no one can call UNO now: it is called after playing the next-to-last card"
    if isinstance(move, CatchMove):
        return (
            f"seat {move.seat} cannot be caught: only a player down to one card who has not "
            "called UNO, before the next player begins, by another seat"
        )
    return f"{move}: jump-in needs option jump_in and a card identical to the top card"
