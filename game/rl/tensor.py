"""Each seat's information-state tensor and action mask, kept between observations.

An RL loop observes every step, and from one observation of a seat to its next only a few
fields change: a card or two in its hand, the top card, the hand sizes, the pile. So each
seat (and each privacy setting) keeps its tensor as float32 bytes (:class:`SeatTensor`) and
its mask as bytes (:class:`SeatMask`), writes only the fields that changed since it was
last shown, and hands out a copy (``ndarray.copy``: about 1,900 instructions, the cheapest
fresh numpy array there is; ``frombuffer`` is about 3,000 and ``astype`` 4,100 more). A
float is written through a ``memoryview`` cast to ``"f"`` (about 300 instructions; a numpy
item write is 570, a ``bytearray`` slice write 1,800). docs/rl.md, "7 December 2026 (helper
``rl``, second pass)", has the measurements.

The layout (docs/rl.md, the tensor fields; ``n`` players, ``F`` card faces), in floats:
the seat's hand by face (``F``), the top card (``F``, one-hot), the active colour (4),
the hand sizes from the seat itself leftwards (``n``), the decider, the actor and the seat
UNO is open to (``n`` each, one-hot, relative to the seat), the pending decision, then
direction, stack and pile size; the information state adds every seat's played cards by
face (``n * F``, rows from the seat itself). A one-hot field with no value (no colour, a
chance node's actor, nobody open to UNO) writes its 1 to a scratch float past the end.

``SeatTensor`` and ``SeatMask`` here are the reference: where the install could compile
game/rl/_tensor.pyx (the same classes in Cython), this module hands out those instead
(:data:`COMPILED`; the end of this module).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from game.core.cards import COLORS, Card
from game.core.moves import Decision

if TYPE_CHECKING:
    from game.core.engine import Game

_DECISIONS = tuple(Decision)
_FLOAT32, _INT8 = np.dtype(np.float32), np.dtype(np.int8)


@dataclass(frozen=True)
class TensorLayout:
    """Where each field of a table's tensors is, in floats (module docstring)."""

    players: int
    #: ``range(players)`` as a tuple (no ``range`` object a loop).
    seats: tuple[int, ...]
    faces: int
    #: The card of each face index, and a hand block of no card (floats, for a recount).
    card: tuple[Card, ...]
    no_hand: memoryview[float]
    #: The face index of each card of the deck (cards are interned: hashed by identity).
    face: Mapping[Card, int]
    #: Absolute positions: the top card's hot float by card, the colour's by colour.
    top_at: Mapping[Card, int]
    color_at: Mapping[Any, int]
    #: First float of the hand sizes, of the decider's, actor's, UNO seat's blocks.
    sizes: int
    #: For each seat (whose tensor it is): the float of each seat's hand size, and the
    #: float a play (``seat * faces + face``, the table's play log) adds one to (so no
    #: modulo a field: ``%`` is one of the operations CPython 3.11 does not specialise).
    size_at: tuple[tuple[int, ...], ...]
    played_at: tuple[tuple[int, ...], ...]
    decider: int
    actor: int
    uno: int
    #: The hot float of each decision (looked up only when the decision changes).
    decision_at: Mapping[Decision, int]
    direction: int
    #: The observation's length; the played rows follow it.
    observation_size: int
    size: int
    #: The scratch float past the end: where a one-hot field with no value puts its 1.
    scratch: int

    @staticmethod
    @functools.cache
    def of(cards: tuple[str, ...], deck: frozenset[Card], players: int) -> TensorLayout:
        """The layout for a deck whose faces are ``cards`` (codes, in action order)."""
        index = {code: i for i, code in enumerate(cards)}
        face = {card: index[card.code] for card in deck}
        faces, n = len(cards), players
        color = 2 * faces
        sizes = color + len(COLORS)
        decisions = sizes + 4 * n
        direction = decisions + len(_DECISIONS)
        observation_size = direction + 3
        size = observation_size + n * faces
        return TensorLayout(
            players=n,
            seats=tuple(range(n)),
            faces=faces,
            card=tuple(sorted(face, key=face.__getitem__)),
            no_hand=memoryview(bytes(4 * faces)).cast("f"),
            face=face,
            top_at={card: faces + i for card, i in face.items()},
            color_at={None: size} | {c: color + i for i, c in enumerate(COLORS)},
            sizes=sizes,
            size_at=tuple(
                tuple(sizes + (other - seat) % n for other in range(n)) for seat in range(n)
            ),
            played_at=tuple(
                tuple(
                    observation_size + (play - seat * faces) % (n * faces)
                    for play in range(n * faces)
                )
                for seat in range(n)
            ),
            decider=sizes + n,
            actor=sizes + 2 * n,
            uno=sizes + 3 * n,
            decision_at={d: decisions + i for i, d in enumerate(_DECISIONS)},
            direction=direction,
            observation_size=observation_size,
            size=size,
            scratch=size,
        )


class SeatTensor:
    """One seat's information-state tensor (its hand shown or not), kept up to date.

    :meth:`refresh` writes what changed since the last one; :attr:`array` is a view of the
    floats (copy it before handing it out). Each field remembers the value (or the hot
    float) it shows, so an unchanged field costs one comparison.
    """

    __slots__ = (
        "layout",
        "seat",
        "private",
        "floats",
        "array",
        "hand",
        "sizes",
        "top",
        "color",
        "decider",
        "actor",
        "uno",
        "pending",
        "direction",
        "stack",
        "pile",
        "plays",
        "hot",
        "size_at",
        "played_at",
    )

    def __init__(self, layout: TensorLayout, seat: int, private: bool) -> None:
        self.layout, self.seat, self.private = layout, seat, private
        raw = bytearray(4 * (layout.size + 1))  # + the scratch float
        self.floats = memoryview(raw).cast("f")
        self.array = np.frombuffer(raw, _FLOAT32, layout.size)
        #: What the floats show: the hand the hand block counts (a copy), every seat's hand
        #: size, the other fields' values (None or -9: nothing shown yet).
        self.hand: list[Card] = []
        self.sizes = [-1] * layout.players
        self.top: Card | None = None
        self.color: Any = -9
        self.decider = self.actor = -9
        self.uno: int | None = -9
        self.pending: Decision | None = None
        self.direction = self.stack = self.pile = -9
        #: How many entries of the table's play log are counted in the played rows.
        self.plays = 0
        #: The hot float of each one-hot field: top, colour, decider, actor, UNO, decision
        #: (the scratch float at first: the floats are all zero).
        self.hot = [layout.scratch] * 6
        self.size_at, self.played_at = layout.size_at[seat], layout.played_at[seat]

    def refresh(
        self, game: Game, actor: int, pending: Decision, uno: int | None, plays: list[int]
    ) -> None:
        """Bring the floats up to ``game``'s state. ``actor``: the table's (negative at
        chance and terminal nodes); ``pending``: the game's pending decision (the table
        has read it); ``uno``: the seat UNO is open to; ``plays``: the table's
        play log (one ``seat * faces + face`` a play; it only grows: a copy of the table
        makes new tensors). Each field is compared with the value it shows, by identity
        where it can (cards, colours and decisions are interned), and only a changed one
        is looked up and written.
        """
        layout, f, seat, hot = self.layout, self.floats, self.seat, self.hot
        counted = self.plays
        new = plays[counted:] if counted < len(plays) else ()  # the plays not counted yet
        if new:  # into the played rows from this seat rightwards
            played_at = self.played_at
            for play in new:
                f[played_at[play]] += 1.0
            self.plays = len(plays)
        hands = game.hands
        if self.private:
            hand = hands[seat]
            if hand != self.hand:  # by identity first (cards are interned); lengths first
                self._count(hand, new)
        sizes, size_at = self.sizes, self.size_at
        for other in layout.seats:
            size = len(hands[other])
            if size != sizes[other]:
                sizes[other] = f[size_at[other]] = size
        top = game.discard[-1]
        if top is not self.top:
            self.top, at = top, layout.top_at[top]
            f[hot[0]], f[at], hot[0] = 0.0, 1.0, at
        color = game.active_color
        if color is not self.color:
            self.color, at = color, layout.color_at[color]
            f[hot[1]], f[at], hot[1] = 0.0, 1.0, at
        decider = game.decider
        if decider != self.decider:
            self.decider, at = decider, layout.decider + (decider - seat) % layout.players
            f[hot[2]], f[at], hot[2] = 0.0, 1.0, at
        if actor != self.actor:
            self.actor = actor
            at = layout.actor + (actor - seat) % layout.players if actor >= 0 else layout.scratch
            f[hot[3]], f[at], hot[3] = 0.0, 1.0, at
        if uno is not self.uno and uno != self.uno:  # mostly None: None != None is slow
            self.uno = uno
            at = layout.scratch if uno is None else layout.uno + (uno - seat) % layout.players
            f[hot[4]], f[at], hot[4] = 0.0, 1.0, at
        if pending is not self.pending:
            self.pending, at = pending, layout.decision_at[pending]
            f[hot[5]], f[at], hot[5] = 0.0, 1.0, at
        direction, stack, pile = game.direction, game.stack, len(game.pile)
        if direction != self.direction:
            self.direction = f[layout.direction] = direction
        if stack != self.stack:
            self.stack = f[layout.direction + 1] = stack
        if pile != self.pile:
            self.pile = f[layout.direction + 2] = pile

    def _count(self, hand: list[Card], plays: Sequence[int]) -> None:
        """The hand block for ``hand``, from the one shown: the block of the hand shown,
        less the seat's plays since (``plays``: the table's play log since it was shown),
        plus the cards after them. That is exact when the hand is the shown one with those
        cards taken out (the engine takes a played card's first copy) and cards drawn at
        the end, which is checked (list comparisons by identity, in C); else the hand is
        counted again, at about 900 instructions a card (docs/rl.md).

        The hand shown (this tensor's own copy) is brought to ``hand`` in place: a play's
        card is removed from it, drawn cards are added at its end. A play is taken off the
        block as it is found; if the check then fails, the recount overwrites the block.
        """
        layout, f = self.layout, self.floats
        shown, card = self.hand, layout.card
        n_faces = layout.faces
        shift = self.seat * n_faces
        for play in plays:
            played = play - shift
            if 0 <= played < n_faces:  # the seat's own row: its play
                try:  # its first copy, found in C (a card compares by identity: interned)
                    shown.remove(card[played])
                except ValueError:  # not in the hand shown (drawn since): count again
                    break
                f[played] -= 1.0
        else:
            k = len(shown)
            if len(hand) == k:  # no card drawn (the common case: a play)
                if hand == shown:
                    return
            elif hand[:k] == shown:
                face, drawn = layout.face, hand[k:]
                for drawn_card in drawn:
                    f[face[drawn_card]] += 1.0
                shown += drawn
                return
        self._recount(hand)

    def _recount(self, hand: list[Card]) -> None:
        """The hand block counted card by card (about 900 instructions a card)."""
        layout, f = self.layout, self.floats
        face = layout.face
        f[: layout.faces] = layout.no_hand
        for card in hand:
            f[face[card]] += 1.0
        self.hand = hand[:]


class SeatMask:
    """One seat's action mask as int8 bytes, rewritten only where the legal ids changed."""

    __slots__ = ("raw", "array", "legal")

    def __init__(self, size: int) -> None:
        self.raw = bytearray(size)
        self.array = np.frombuffer(self.raw, _INT8)
        #: The ids set to 1: the legal-move dict they came from (compared by identity).
        self.legal: Iterable[int] = ()

    def show(self, legal: Iterable[int]) -> None:
        """Set exactly the ids of ``legal`` (the table's legal dict, a new one a decision
        and not changed after: it is kept as the ids shown)."""
        if legal is self.legal:
            return
        raw = self.raw
        for action in self.legal:
            raw[action] = 0
        for action in legal:
            raw[action] = 1
        self.legal = legal


#: The classes above, under names of their own: the reference the compiled ones are
#: checked against (tests/test_rl_tensor.py).
PySeatTensor, PySeatMask = SeatTensor, SeatMask

# Their compiled twins (game/rl/_tensor.pyx, the same code), where the install could build
# them: the refresh is the largest part of an env() step, and compiled it costs about a
# fifth (docs/rl.md, "session 15"). Without a C compiler the Python classes stay.
try:
    from game.rl._tensor import SeatMask, SeatTensor  # type: ignore[no-redef]
except ImportError:
    COMPILED = False
else:
    COMPILED = True
