"""Card effects as small composable building blocks.

A card's effect is a list of :class:`~game.core.rulesets.Step` s (from the ruleset
data or a user's custom-card file), run in order by the engine. Each block is a
function ``block(ctx, step) -> bool`` that changes the game only through the
:class:`EffectContext` protocol (never a private member of the Game) and returns
True when it stopped to wait for a decision (a colour, a target, a challenge…);
the engine resumes the list after the decision move. Who "next" is comes from
the turn pointer (``ctx.pos``): a Skip moves the pointer past a player, so a Hit card's
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

import functools
from collections import deque
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from game.core.blocks import Step
from game.core.errors import RulesetError
from game.core.moves import Decision

if TYPE_CHECKING:
    from game.core.cards import Card


class EffectContext(Protocol):
    """What a block may see and do: written once, run by the engine and by the referee.

    :class:`~game.core.engine.Game` implements it with full information (real hands);
    :class:`~game.referee.referee.Referee` with hand counts only (the table's entry already
    carries the colour, the target and the discarded cards, and a launcher press
    is made at once).
    """

    actor: int  #: the player whose card is resolving
    card: Card | None  #: that card
    pos: int  #: the turn pointer: "next" is the seat after it
    direction: int
    stack: int  #: presses waiting on a stack
    context: str  #: how the card was played (turn, play-again, stack, drawn, jump-in)
    first_phase: bool  #: resolving the first card turned up
    queue: deque[Step]  #: the blocks still to run

    @property
    def target(self) -> int | None:
        """The seat a ``target`` block chose."""

    @property
    def options(self) -> Mapping[str, Any]: ...
    @property
    def players_in(self) -> int: ...
    def next_seat(self, seat: int) -> int: ...
    def left_seat(self, seat: int) -> int: ...
    def actor_out(self) -> bool: ...
    def can_stack(self) -> bool: ...
    def may_stack(self, seat: int) -> bool: ...
    def may_play_again(self, seat: int) -> bool: ...
    def ask(self, decision: Decision, seat: int) -> bool: ...
    def presses(self, seat: int, presses: int, reason: str, *, until: str = "count") -> bool: ...
    def emit(self, kind: str, fields: Mapping[str, Any]) -> None:
        """Log an event of type ``kind``: ``fields`` in their order, after ``type``.

        The fields come as one dict, not keywords: a call with keywords is not specialised
        by CPython 3.11 and costs some 300-500 instructions more (docs/performance.md, helper
        ``effects``); the event's dict is written from it when the log is read.
        """

    def stack_on(self, victim: int, total: int, reason: str, *, skips: bool) -> bool: ...
    def discard_color(self) -> None: ...
    def trade(self, seat: int, other: int) -> None: ...
    def rotate(self) -> None: ...
    def challenge(self, victim: int, step: Step, can_challenge: bool) -> bool: ...


Block = Callable[[EffectContext, "Step"], bool]

#: The default action of a Wild Customizable with no ``--custom`` file: a plain colour choice.
DEFAULT_CUSTOM = ("choose_color",)

# The decisions the blocks ask, as module names (an enum member read off its class is
# slow in CPython 3.11: docs/performance.md).
_COLOR, _PLAY_AGAIN, _TARGET, _GIVE = (
    Decision.COLOR,
    Decision.PLAY_AGAIN,
    Decision.TARGET,
    Decision.GIVE,
)


def _victim(ctx: EffectContext, who: str) -> int:
    """The chosen target (``who=target``) or the next player from the turn pointer."""
    if who == "target" and ctx.target is not None:
        return ctx.target
    return ctx.next_seat(ctx.pos)


def choose_color(ctx: EffectContext, step: Step) -> bool:
    if step.text.get("who", "self") == "next":
        return ctx.ask(_COLOR, ctx.next_seat(ctx.actor))
    if ctx.actor_out():
        return False
    return ctx.ask(_COLOR, ctx.actor)


def skip(ctx: EffectContext, step: Step) -> bool:
    ctx.pos = skipped_seat = ctx.next_seat(ctx.pos)  # one read of the pointer, one write
    ctx.emit("skip", {"player": skipped_seat})
    return False


def reverse(ctx: EffectContext, step: Step) -> bool:
    ctx.direction = direction = -ctx.direction
    ctx.emit("reverse", {"direction": direction})
    if ctx.players_in == 2:
        return skip(ctx, step)
    ctx.pos = ctx.actor
    return False


def play_again(ctx: EffectContext, step: Step) -> bool:
    """One more card (rules.md 2.4); the card played again never earns another (no chains)."""
    if ctx.options["skip_reverse_play_again"] != "always" or ctx.players_in == 2:
        return False
    if ctx.context == "play-again" or ctx.actor_out() or ctx.first_phase:
        return False
    if not ctx.may_play_again(ctx.actor):
        return False
    return ctx.ask(_PLAY_AGAIN, ctx.actor)


def hit(ctx: EffectContext, step: Step) -> bool:
    n = step.numbers.get("n", 1)
    who = step.text.get("who", "next")
    reason = step.text.get("reason") or f"hit{n}"
    if who == "self":
        if ctx.actor_out():
            return False
        victim = ctx.actor
    else:
        victim = _victim(ctx, who)
    total = ctx.stack + n  # a stack is never lost, even when the stacker went out
    if ctx.can_stack() and ctx.may_stack(victim):
        return ctx.stack_on(victim, total, reason, skips=False)
    ctx.stack = 0
    return ctx.presses(victim, total, reason)


def draw(ctx: EffectContext, step: Step) -> bool:
    if ctx.actor_out():
        return False
    return ctx.presses(ctx.actor, step.numbers.get("n", 1), step.text.get("reason") or "draw")


def target(ctx: EffectContext, step: Step) -> bool:
    if ctx.actor_out() and not any(s.text.get("who") == "target" for s in ctx.queue):
        return False
    return ctx.ask(_TARGET, ctx.actor)


def discard_color(ctx: EffectContext, step: Step) -> bool:
    ctx.discard_color()
    return False


def trade_hands(ctx: EffectContext, step: Step) -> bool:
    other = ctx.target
    if other is None or ctx.actor_out():
        return False
    ctx.trade(ctx.actor, other)
    ctx.emit("trade", {"player": ctx.actor, "target": other})
    return False


def everyone_hits(ctx: EffectContext, step: Step) -> bool:
    n = str(step.numbers.get("n", 1))
    reason = step.text.get("reason") or "all-hit"
    actor = ctx.actor
    seats = []
    seat = ctx.left_seat(actor)
    while seat != actor:
        seats.append(seat)
        seat = ctx.left_seat(seat)
    steps = [Step("press_seat", (("seat", str(s)), ("n", n), ("reason", reason))) for s in seats]
    ctx.queue.extendleft(reversed(steps))
    return False


def press_seat(ctx: EffectContext, step: Step) -> bool:
    """Internal: one seat of an ``everyone_hits`` presses (each press a chance move)."""
    return ctx.presses(step.numbers["seat"], step.numbers.get("n", 1), step.text.get("reason", ""))


def hit_until_fire(ctx: EffectContext, step: Step) -> bool:
    victim = _victim(ctx, step.text.get("who", "next"))
    cap = int(ctx.options["hit_fire_cap"])
    return ctx.presses(victim, cap, step.text.get("reason") or "hit-fire", until="fire")


def pass_card(ctx: EffectContext, step: Step) -> bool:
    if ctx.actor_out():
        return False
    return ctx.ask(_GIVE, ctx.actor)


def rotate_hands(ctx: EffectContext, step: Step) -> bool:
    if ctx.actor_out():
        return False
    ctx.rotate()
    return False


def challenge(ctx: EffectContext, step: Step) -> bool:
    victim = ctx.next_seat(ctx.pos)
    n = step.numbers.get("n", 4)
    reason = step.text.get("reason") or f"draw{n}"
    stackable = ctx.can_stack() and ctx.may_stack(victim)
    options = ctx.options
    can_challenge = (
        options["challenges"]
        and options["wild_draw_bluff"]
        and ctx.stack == 0
        and not ctx.actor_out()
        and not ctx.first_phase
    )
    if can_challenge or stackable:
        return ctx.challenge(victim, step, bool(can_challenge))
    total, ctx.stack = ctx.stack + n, 0
    ctx.pos = victim
    ctx.queue.appendleft(skipped_step(victim, "draw-card"))
    return ctx.presses(victim, total, reason)


@functools.cache
def skipped_step(seat: int, reason: str) -> Step:
    """Internal: log that ``seat`` loses the turn, after the presses that come with it.

    Made once per seat and reason (a step is immutable): a ``Step`` builds its argument
    dict when made, and a Draw Two or an accepted Wild Draw Four asks for one each time.
    """
    return Step("skipped", (("seat", str(seat)), ("reason", reason)))


def skipped(ctx: EffectContext, step: Step) -> bool:
    ctx.emit("skip", {"player": step.numbers["seat"], "reason": step.text.get("reason", "")})
    return False


def custom(ctx: EffectContext, step: Step) -> bool:
    ctx.queue.extendleft(_DEFAULT_CUSTOM_STEPS)
    return False


#: :data:`DEFAULT_CUSTOM`'s steps, made once and last first (``extendleft`` puts them back in
#: order). A step is immutable and shared; making one runs a dataclass ``__init__`` and builds
#: its two read-only maps: made at every Wild Customizable it cost about 320 instructions a
#: step of the ``env()`` loop (docs/performance.md, session 14).
_DEFAULT_CUSTOM_STEPS = tuple(reversed([Step(name) for name in DEFAULT_CUSTOM]))


def dealer_starts_reversed(ctx: EffectContext, step: Step) -> bool:
    ctx.direction = -1
    ctx.emit("reverse", {"direction": -1})
    ctx.pos = ctx.left_seat(ctx.actor)  # the dealer is "next" after the player on the left
    return False


def return_card(ctx: EffectContext, step: Step) -> bool:
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
RUNNERS: dict[str, Block] = {**BLOCKS, "press_seat": press_seat, "skipped": skipped}

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
        if key in _NUMERIC and not (value.isdecimal() and 0 < int(value) <= 50):
            raise RulesetError(f"{where}: {step.name} {key}={value!r} must be a whole number 1-50")
        if allowed[key] and value not in allowed[key]:
            raise RulesetError(
                f"{where}: {step.name} {key}={value!r}: expected one of {', '.join(allowed[key])}"
            )


def parse_step(raw: Any, where: str) -> Step:
    """Read ``"hit n=2 who=target"`` or ``{block = "hit", n = 2, who = "target"}``."""
    if isinstance(raw, Mapping):
        data = dict(raw)
        name = data.pop("block", None)
        if not isinstance(name, str):
            raise RulesetError(f'{where}: an effect table needs block = "NAME"')
        args = tuple(
            (str(k), str(v).lower() if isinstance(v, bool) else str(v)) for k, v in data.items()
        )
    elif isinstance(raw, str) and raw.split():
        name, *rest = raw.split()
        pairs = []
        for token in rest:
            key, sep, value = token.partition("=")
            pairs.append((key, value) if sep else ("n", key))
        args = tuple(pairs)
    else:
        raise RulesetError(f"{where}: expected an effect block, got {raw!r}")
    step = Step(name, args)
    check_step(step, where)
    return step
