"""The state of one round, in one place: :class:`RoundState`, held by a game
(:class:`~game.core.engine.Game`).

Everything that a new deal resets lives here (hands, discard pile, launcher
pile, turn pointer, the effect queue, pending decision and chance node, UNO
bookkeeping); what lasts the whole game (names, scores, eliminations, round
number, the chance source) lives on the Game. :meth:`RoundState.copy` is the
snapshot behind ``Game.push``/``Game.pop`` and ``Game.copy`` (python-chess's
board-state stack). The Game exposes the public fields as its own attributes
(``game.hands`` is ``game.round.hands``) through :func:`round_field`.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from dataclasses import dataclass, field
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from game.core.moves import Decision

if TYPE_CHECKING:
    from game.core.cards import Card, Color
    from game.core.moves import Move
    from game.core.rulesets import Step


@dataclass(slots=True)
class PressDue:
    """A pending chance node: ``seat`` must press the launcher ``presses`` more times.

    ``until``: ``count`` (exactly that many presses), ``fire`` (stop at the first
    press that shoots cards; ``presses`` is the cap left), ``playable`` (draw until
    a card that may be played comes out; ``presses`` is the cap left).
    """

    seat: int
    presses: int
    reason: str
    until: str = "count"


@dataclass(slots=True)
class RoundState:
    """Every field a deal resets. Seats are numbered from 0; -1 means "nobody"."""

    hands: list[list[Card]]
    discard: list[Card] = field(default_factory=list)  #: the discard pile, top card last
    pile: deque[Card] = field(default_factory=deque)  #: the launcher's cards, next out first
    active_color: Color | None = None
    direction: int = 1  #: 1 clockwise (left), -1 counter-clockwise
    dealer: int = 0
    current: int = 0  #: whose turn it is
    decider: int = 0  #: who must answer :attr:`pending` (a press, a colour, a challenge...)
    pending: Decision = Decision.TURN
    turns: int = 0
    round_winner: int | None = None
    # -- the card being resolved (game.core.effects.EffectContext) ----------------------
    queue: deque[Step] = field(default_factory=deque)  #: the effect blocks still to run
    actor: int = 0  #: the player whose card is resolving
    card: Card | None = None
    context: str = "turn"  #: how that card was played (turn, play-again, stack, drawn, jump-in)
    pos: int = 0  #: the turn pointer: "next" is the seat after it
    target: int | None = None  #: the seat a ``target`` block chose
    first_phase: bool = False  #: resolving the first card turned up
    out: int | None = None  #: the seat that just played its last card
    # -- stacks and challenges -------------------------------------------------------
    stack: int = 0  #: presses waiting on a stack
    stack_reason: str = "hit"
    stack_skips: bool = False  #: taking the stack also loses the turn (draw cards)
    challenge: tuple[int, int] | None = None  #: (guilty, innocent) presses of a pending challenge
    guilty: bool = False  #: was the challengeable wild just played illegal?
    # -- UNO ----------------------------------------------------------------------------
    uno_open: int | None = None  #: down to one card, may still be caught or call UNO
    uno_called: bool = False
    # -- drawing and chance nodes --------------------------------------------------------
    drawn: Card | None = None  #: the card a DRAWN decision is about
    due: PressDue | None = None  #: the pending chance node
    then: str = "run"  #: after the presses: run the effects, finish a draw, or resume
    resume_to: tuple[Decision, int] = (Decision.TURN, 0)
    drawer: int = 0  #: the seat whose draw the presses are for
    drawn_cards: int = 0  #: draw_until_playable: cards drawn so far
    draw_empties: int = 0  #: draw_until_playable: presses that brought nothing
    last_volley: tuple[Card, ...] = ()  #: the cards of the last press that brought any
    legal: list[Move] | None = None  #: cache of the decider's legal moves

    @classmethod
    def fresh(cls, players: int, dealer: int = 0) -> RoundState:
        """An empty table for ``players`` seats, before the deal."""
        return cls(hands=[[] for _ in range(players)], dealer=dealer)

    def copy(self) -> RoundState:
        """A snapshot that shares no mutable part with this state (cards are immutable)."""
        return dataclasses.replace(
            self,
            hands=[list(hand) for hand in self.hands],
            discard=list(self.discard),
            pile=deque(self.pile),
            queue=deque(self.queue),
            due=None if self.due is None else dataclasses.replace(self.due),
            legal=None if self.legal is None else list(self.legal),
        )


def round_field(name: str) -> Any:
    """A Game attribute that lives in its round state: ``game.hands`` is ``game.round.hands``.

    A plain property whose getter is :func:`operator.attrgetter` (it runs in C: these are
    read on every step of the engine); declare it with its type,
    ``hands: list[list[Card]] = round_field("hands")``.
    """

    def write(game: Any, value: Any) -> None:
        setattr(game.round, name, value)

    return property(attrgetter(f"round.{name}"), write, doc=f"``round.{name}``")
