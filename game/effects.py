"""Card effects as small composable building blocks.

A card's effect is a list of :class:`~game.rulesets.Step` s (from the ruleset
data or a user's custom-card file), run in order by the engine. Each block is a
function ``block(game, step) -> bool`` that changes the game through the
engine's internal helpers and returns True when it stopped to wait for a
decision (a colour, a target, a challenge…); the engine resumes the list after
the decision move. Who "next" is comes from the engine's turn pointer
(``game._pos``): a Skip moves the pointer past a player, so a Hit card's
``hit`` followed by ``skip`` makes the next player press and lose the turn.

Blocks (arguments in brackets, defaults after ``=``):

========================  ===================================================================
``choose_color [who=self]``  the player picks a colour (``who=next``: the next one; first card)
``skip``                  the next player loses their turn
``reverse``               reverse the direction (with two players: acts as a Skip)
``play_again``            option ``skip_reverse_play_again``: play one more card, or pass
``hit [n=1] [who=next|target|self] [reason=hitN]``  that player presses the launcher n times
``draw [n=1]``            the player who played the card presses / draws n times (reason ``draw``)
``target``                the player picks any other player (for ``who=target`` and ``trade_hands``)
``discard_color``         discard every card of the played card's (or chosen) colour
``trade_hands``           swap hands with the target
``everyone_hits [n=1]``   every other player, in seat order from the left, presses n times
``hit_until_fire [who=next]``  press until cards fire, capped by option ``hit_fire_cap``
``pass_card``             give one card of your choice to the next player
``rotate_hands``          every hand moves one seat in the direction of play (7-0's zero)
``challenge n= guilty= innocent= test=color|other``  a challengeable draw card
``custom``                the Wild Customizable's default action (a plain colour choice)
``dealer_starts_reversed``  first card Reverse: the dealer plays first, play goes right
``return``                first card only: put it back into the deck and turn another
========================  ===================================================================
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from game.errors import RulesetError
from game.moves import Decision
from game.rulesets import Step as StepType

if TYPE_CHECKING:
    from game.engine import Game
    from game.rulesets import Step

Block = Callable[["Game", "Step"], bool]

#: The default action of a Wild Customizable with no ``--custom`` file: a plain colour choice.
DEFAULT_CUSTOM = ("choose_color",)


def choose_color(game: Game, step: Step) -> bool:
    if step.get("who") == "next":
        return game._ask(Decision.COLOR, game._next(game._actor))
    if game._actor_out():
        return False
    return game._ask(Decision.COLOR, game._actor)


def skip(game: Game, step: Step) -> bool:
    game._pos = game._next(game._pos)
    game._emit("skip", player=game._pos)
    return False


def reverse(game: Game, step: Step) -> bool:
    game.direction = -game.direction
    game._emit("reverse", direction=game.direction)
    if game.players_in == 2:
        return skip(game, step)
    game._pos = game._actor
    return False


def play_again(game: Game, step: Step) -> bool:
    """One more card (rules.md 2.4); the card played again never earns another (no chains)."""
    if game.ruleset.options["skip_reverse_play_again"] != "always" or game.players_in == 2:
        return False
    if game._context == "play-again":
        return False
    if game._actor_out() or game._first_phase or not game._playable_cards(game._actor):
        return False
    return game._ask(Decision.PLAY_AGAIN, game._actor)


def hit(game: Game, step: Step) -> bool:
    n = step.number("n", 1)
    who = step.get("who", "next")
    reason = step.get("reason") or f"hit{n}"
    if who == "self":
        if game._actor_out():
            return False
        victim = game._actor
    else:
        victim = game._victim(who)
    total = game._stack + n  # a stack is never lost, even when the stacker went out
    if game._can_stack() and game._holds_stack_card(victim):
        game._stack, game._stack_reason, game._stack_skips = total, reason, False
        return game._ask(Decision.STACK, victim)
    game._stack = 0
    return game._presses(victim, total, reason)


def draw(game: Game, step: Step) -> bool:
    if game._actor_out():
        return False
    return game._presses(game._actor, step.number("n", 1), step.get("reason") or "draw")


def target(game: Game, step: Step) -> bool:
    if game._actor_out() and not game._queue_uses_target():
        return False
    return game._ask(Decision.TARGET, game._actor)


def discard_color(game: Game, step: Step) -> bool:
    card = game._card
    color = card.color if card is not None and card.color is not None else game.active_color
    hand = game.hands[game._actor]
    dumped = [c for c in hand if c.color is color and color is not None]
    if dumped:
        hand[:] = [c for c in hand if c.color is not color]
        game.discard[-1:-1] = dumped
        game._emit("discard", player=game._actor, cards=[c.code for c in dumped])
        game._hand_shrank(game._actor)
    return False


def trade_hands(game: Game, step: Step) -> bool:
    actor, other = game._actor, game._target
    if other is None or game._actor_out():
        return False
    game.hands[actor], game.hands[other] = game.hands[other], game.hands[actor]
    game._uno_open = None
    game._emit("trade", player=actor, target=other)
    return False


def everyone_hits(game: Game, step: Step) -> bool:
    n = str(step.number("n", 1))
    reason = step.get("reason") or "all-hit"
    actor = game._actor
    seats = []
    seat = game._left(actor)
    while seat != actor:
        seats.append(seat)
        seat = game._left(seat)
    game._queue.extendleft(
        reversed(
            [
                StepType("press_seat", (("seat", str(s)), ("n", n), ("reason", reason)))
                for s in seats
            ]
        )
    )
    return False


def press_seat(game: Game, step: Step) -> bool:
    """Internal: one seat of an ``everyone_hits`` presses (each press a chance move)."""
    return game._presses(int(step.get("seat")), step.number("n", 1), step.get("reason"))


def hit_until_fire(game: Game, step: Step) -> bool:
    victim = game._victim(step.get("who", "next"))
    cap = int(game.ruleset.options["hit_fire_cap"])
    return game._presses(victim, cap, step.get("reason") or "hit-fire", until="fire")


def pass_card(game: Game, step: Step) -> bool:
    if game._actor_out() or not game.hands[game._actor]:
        return False
    return game._ask(Decision.GIVE, game._actor)


def rotate_hands(game: Game, step: Step) -> bool:
    if game._actor_out():
        return False
    old = list(game.hands)
    for seat in game.seats_in_play:
        game.hands[game._next(seat)] = old[seat]
    game._uno_open = None
    game._emit("rotate", direction=game.direction, seats=game.seats_in_play)
    return False


def challenge(game: Game, step: Step) -> bool:
    victim = game._next(game._pos)
    n = step.number("n", 4)
    reason = step.get("reason") or f"draw{n}"
    stackable = game._can_stack() and game._holds_stack_card(victim)
    can_challenge = (
        game.ruleset.options["challenges"]
        and game.ruleset.options["wild_draw_bluff"]
        and game._stack == 0
        and game._out is None
        and not game._first_phase
    )
    if can_challenge or stackable:
        game._stack += n
        game._stack_reason, game._stack_skips = reason, True
        game._challenge = (
            (step.number("guilty", n), step.number("innocent", n + 2)) if can_challenge else None
        )
        return game._ask(Decision.CHALLENGE if can_challenge else Decision.STACK, victim)
    total, game._stack = game._stack + n, 0
    game._pos = victim
    game._emit("skip", player=victim, reason="draw-card")
    return game._presses(victim, total, reason)


def custom(game: Game, step: Step) -> bool:
    game._queue.extendleft(reversed([StepType(name) for name in DEFAULT_CUSTOM]))
    return False


def dealer_starts_reversed(game: Game, step: Step) -> bool:
    game.direction = -1
    game._emit("reverse", direction=-1)
    game._pos = game._left(game._actor)  # the dealer is "next" after the player on the left
    return False


def return_card(game: Game, step: Step) -> bool:
    return False


BLOCKS: dict[str, Block] = {
    "choose_color": choose_color,
    "skip": skip,
    "reverse": reverse,
    "play_again": play_again,
    "hit": hit,
    "draw": draw,
    "target": target,
    "discard_color": discard_color,
    "trade_hands": trade_hands,
    "everyone_hits": everyone_hits,
    "hit_until_fire": hit_until_fire,
    "pass_card": pass_card,
    "rotate_hands": rotate_hands,
    "challenge": challenge,
    "custom": custom,
    "dealer_starts_reversed": dealer_starts_reversed,
    "return": return_card,
}

#: What the engine runs: the public blocks and the ones it inserts itself (never in a file).
RUNNERS: dict[str, Block] = {**BLOCKS, "press_seat": press_seat}

#: Arguments each block accepts, and the allowed values of the non-numeric ones.
_ARGS: dict[str, dict[str, tuple[str, ...]]] = {
    "choose_color": {"who": ("self", "next")},
    "hit": {"n": (), "who": ("next", "target", "self"), "reason": ()},
    "draw": {"n": (), "reason": ()},
    "everyone_hits": {"n": (), "reason": ()},
    "hit_until_fire": {"who": ("next", "target"), "reason": ()},
    "challenge": {"n": (), "guilty": (), "innocent": (), "test": ("color", "other"), "reason": ()},
}
_NUMERIC = {"n", "guilty", "innocent"}


def check_step(step: Step, where: str) -> None:
    """Raise RulesetError naming ``where`` unless ``step`` is a known block with valid arguments."""
    if step.name not in BLOCKS:
        raise RulesetError(
            f"{where}: unknown effect block {step.name!r}",
            hint=f"blocks are: {', '.join(sorted(BLOCKS))}",
        )
    allowed = _ARGS.get(step.name, {})
    for key, value in step.args:
        if key not in allowed:
            expected = ", ".join(allowed) or "no arguments"
            raise RulesetError(
                f"{where}: block {step.name} has no argument {key!r} (takes {expected})"
            )
        if key in _NUMERIC and not (value.isdigit() and 0 < int(value) <= 50):
            raise RulesetError(f"{where}: {step.name} {key}={value!r} must be a whole number 1-50")
        if allowed[key] and value not in allowed[key]:
            raise RulesetError(
                f"{where}: {step.name} {key}={value!r}: expected one of {', '.join(allowed[key])}"
            )
