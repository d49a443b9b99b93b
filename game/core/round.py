"""The state of one round, declared in one place: :class:`RoundState`.

Everything that a new deal resets (hands, discard pile, launcher pile, turn pointer,
the effect queue, pending decision and chance node, UNO bookkeeping) is a plain
attribute of the game (:class:`~game.core.engine.Game`): ``game.hands``,
``game.pending``. :class:`RoundState` declares those fields once, with their types and
meaning, and :meth:`RoundState.reset_round` gives them their values before a deal.
What lasts the whole game (names, scores, eliminations, round number, the chance
source) is declared by the Game itself.

Why attributes of the game: the engine reads and writes these fields on every step, and
so do the bots, the tables and the effect blocks (through
:class:`~game.core.effects.EffectContext`); a field of a separate round object behind a
property costs a call a read (docs/performance.md, "A data-oriented core"). The Game keeps
them in ``__slots__`` (:data:`ROUND_FIELDS`): with the game's own fields they are over 30
attributes, more than CPython 3.11 keeps in an instance's fast attribute layout, and a
slot is its fastest read and write. A snapshot for ``Game.push``/``Game.pop``
and ``Game.copy`` takes the game's attributes and, with :func:`round_fields`, the
round's, and copies their containers (:func:`copy_round_fields`).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Protocol

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


class RoundState(Protocol):
    """Every field a deal resets, as attributes of the game. Seats are numbered from 0.

    A protocol that :class:`~game.core.engine.Game` subclasses: the Game inherits
    :meth:`reset_round`, and the turn flow (:mod:`game.core.turns`), the table
    (:mod:`game.core.table`) and the legal moves (:mod:`game.core.legal`) are typed
    against these fields without importing the Game.
    """

    hands: list[list[Card]]
    discard: list[Card]  #: the discard pile, top card last
    pile: deque[Card]  #: the launcher's cards, next out first
    active_color: Color | None
    direction: int  #: 1 clockwise (left), -1 counter-clockwise
    dealer: int
    current: int  #: whose turn it is
    decider: int  #: who must answer :attr:`pending` (a press, a colour, a challenge...); -1: nobody
    pending: Decision
    turns: int
    round_winner: int | None
    # -- the card being resolved (game.core.effects.EffectContext) ----------------------
    queue: deque[Step]  #: the effect blocks still to run
    actor: int  #: the player whose card is resolving
    card: Card | None
    context: str  #: how that card was played (turn, play-again, stack, drawn, jump-in)
    pos: int  #: the turn pointer: "next" is the seat after it
    target: int | None  #: the seat a ``target`` block chose
    first_phase: bool  #: resolving the first card turned up
    out: int | None  #: the seat that just played its last card
    # -- stacks and challenges -------------------------------------------------------
    stack: int  #: presses waiting on a stack
    stack_reason: str
    stack_skips: bool  #: taking the stack also loses the turn (draw cards)
    challenge_presses: tuple[int, int] | None  #: (guilty, innocent) presses of a pending challenge
    guilty: bool  #: was the challengeable wild just played illegal?
    # -- UNO ----------------------------------------------------------------------------
    uno_open: int | None  #: down to one card, may still be caught or call UNO
    uno_called: bool
    # -- drawing and chance nodes --------------------------------------------------------
    drawn: Card | None  #: the card a DRAWN decision is about
    # the pending chance node (Game.press_due builds its PressDue): who presses, how many
    # more times, why, and until what (PressDue.until); plain fields, set at every draw
    due_seat: int
    due_presses: int
    due_reason: str
    due_until: str
    then: str  #: after the presses: run the effects, finish a draw, or resume
    resume_to: tuple[Decision, int]
    drawer: int  #: the seat whose draw the presses are for
    drawn_cards: int  #: draw_until_playable: cards drawn so far
    draw_empties: int  #: draw_until_playable: presses that brought nothing
    last_volley: tuple[Card, ...]  #: the cards of the last press that brought any
    legal: list[Move] | None  #: cache of the decider's legal moves

    def reset_round(self, players: int, dealer: int) -> None:
        """An empty table for ``players`` seats before the deal, ``dealer`` dealing."""
        self.hands = [[] for _ in range(players)]
        self.discard = []
        self.pile = deque()
        self.active_color = None
        self.direction = 1
        self.dealer = dealer
        self.current = self.decider = 0
        self.pending = Decision.TURN
        self.turns = 0
        self.round_winner = None
        self.queue = deque()
        self.actor = self.pos = 0
        self.card = None
        self.context = "turn"
        self.target = None
        self.first_phase = False
        self.out = None
        self.stack = 0
        self.stack_reason = "hit"
        self.stack_skips = False
        self.challenge_presses = None
        self.guilty = False
        self.uno_open = None
        self.uno_called = False
        self.drawn = None
        self.due_seat = self.due_presses = 0
        self.due_reason, self.due_until = "", "count"
        self.then = "run"
        self.resume_to = (Decision.TURN, 0)
        self.drawer = self.drawn_cards = self.draw_empties = 0
        self.last_volley = ()
        self.legal = None


#: The names of the round's fields, in declaration order: the Game keeps them in slots.
ROUND_FIELDS: tuple[str, ...] = tuple(RoundState.__annotations__)
_read_round = attrgetter(*ROUND_FIELDS)  # every field in one C call: a snapshot is taken per push


def round_fields(game: RoundState) -> dict[str, Any]:
    """The round fields of ``game`` by name, as they are (:func:`copy_round_fields` copies)."""
    return dict(zip(ROUND_FIELDS, _read_round(game), strict=True))


def set_round_fields(game: RoundState, fields: dict[str, Any]) -> None:
    """Give ``game`` the round fields of a snapshot (:func:`round_fields`), as they are."""
    for name, value in fields.items():
        setattr(game, name, value)


def copy_round_fields(fields: dict[str, Any]) -> None:
    """In a snapshot of round fields, replace the containers by copies.

    Every other round field holds an immutable value (cards are immutable), so the
    snapshot shares nothing mutable with the game it was taken from.
    """
    fields["hands"] = [list(hand) for hand in fields["hands"]]
    fields["discard"] = list(fields["discard"])
    fields["pile"] = deque(fields["pile"])
    fields["queue"] = deque(fields["queue"])
    legal = fields["legal"]
    fields["legal"] = None if legal is None else list(legal)
