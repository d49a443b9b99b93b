# cython: language_level=3
"""The compiled twins of :class:`game.rl.tensor.SeatTensor` and :class:`~game.rl.tensor.SeatMask`.

The same classes, line for line: each field compared with the value it shows and only a
changed one written, the hand block and the played rows kept. What differs is only what
a compiled loop makes cheap: a float is written straight into the tensor's bytes (a
``memoryview`` item write costs about 300 instructions in CPython 3.11) and each field's
compare is one C compare, where the interpreted refresh is the largest part of an
``env()`` step (docs/rl.md, "session 15"). Built at install where a C compiler is
(setup.py; without one, ``game.rl.tensor`` keeps its Python classes), and checked against
the Python classes at every step of random tables (tests/test_rl_tensor.py).

Every value read from the game goes through the Python API (attributes, lists, the
layout's dicts), so a tensor sees exactly what the Python one sees.
"""

from cpython.bytearray cimport PyByteArray_AS_STRING

import numpy as np

cdef object _FLOAT32 = np.dtype(np.float32)
cdef object _INT8 = np.dtype(np.int8)
cdef enum:
    MAX_SEATS = 32  # seats a table can have (each seat's hand size is kept in a C array)


cdef class SeatTensor:
    """One seat's information-state tensor (its hand shown or not), kept up to date."""

    cdef readonly object layout, array
    cdef readonly int seat
    cdef readonly bint private
    cdef object raw  # the tensor's bytes (a bytearray: numpy's view keeps it from resizing)
    cdef float* floats
    cdef int players, faces, scratch, decider_at, actor_at, uno_at, direction_at
    cdef object top_at, color_at, decision_at, face, card
    cdef tuple played_at
    #: What the floats show (module docstring of game.rl.tensor): the hand the hand block
    #: counts, each seat's hand size, each field's value, how many plays are counted.
    cdef list hand
    cdef int sizes[MAX_SEATS]
    cdef int size_at[MAX_SEATS]
    cdef object top, color, uno, pending
    cdef int decider, actor, direction, stack, pile, plays
    #: The hot float of each one-hot field: top, colour, decider, actor, UNO, decision.
    cdef int hot[6]

    def __init__(self, layout, int seat, bint private):
        if not 0 < layout.players <= MAX_SEATS:
            raise ValueError(f"a compiled tensor holds up to {MAX_SEATS} seats")
        self.layout, self.seat, self.private = layout, seat, private
        self.raw = bytearray(4 * (layout.size + 1))  # + the scratch float
        self.floats = <float*>PyByteArray_AS_STRING(self.raw)
        self.array = np.frombuffer(self.raw, _FLOAT32, layout.size)
        self.players, self.faces, self.scratch = layout.players, layout.faces, layout.scratch
        self.decider_at, self.actor_at, self.uno_at = layout.decider, layout.actor, layout.uno
        self.direction_at = layout.direction
        self.top_at, self.color_at = layout.top_at, layout.color_at
        self.decision_at, self.face, self.card = layout.decision_at, layout.face, layout.card
        self.played_at = layout.played_at[seat]
        cdef int i
        for i in range(self.players):
            self.sizes[i] = -1
            self.size_at[i] = layout.size_at[seat][i]
        for i in range(6):
            self.hot[i] = self.scratch
        self.hand = []
        self.top, self.color, self.uno, self.pending = None, -9, -9, None
        self.decider = self.actor = self.direction = self.stack = self.pile = -9
        self.plays = 0

    cdef inline void _move_hot(self, int field, int at):
        """One-hot ``field``: its 1 moves to the float ``at``."""
        self.floats[self.hot[field]] = 0.0
        self.floats[at] = 1.0
        self.hot[field] = at

    def refresh(self, game, int actor, pending, uno, list plays):
        """:meth:`game.rl.tensor.SeatTensor.refresh`."""
        cdef float* f = self.floats
        cdef int counted = self.plays, total = len(plays), i, size, other
        for i in range(counted, total):  # the plays not counted yet, into the played rows
            f[<int>self.played_at[<int>plays[i]]] += 1.0
        self.plays = total
        cdef list hands = game.hands
        cdef list hand
        if self.private:
            hand = hands[self.seat]
            if hand != self.hand:  # by identity first (cards are interned); lengths first
                self._count(hand, plays, counted, total)
        for other in range(self.players):
            size = len(<list>hands[other])
            if size != self.sizes[other]:
                self.sizes[other] = size
                f[self.size_at[other]] = size
        cdef list discard = game.discard
        top = discard[len(discard) - 1]
        if top is not self.top:
            self.top = top
            self._move_hot(0, self.top_at[top])
        color = game.active_color
        if color is not self.color:
            self.color = color
            self._move_hot(1, self.color_at[color])
        cdef int decider = game.decider
        if decider != self.decider:  # % as Python's: the decider is -1 once the round is over
            self.decider = decider
            self._move_hot(2, self.decider_at + (decider - self.seat) % self.players)
        if actor != self.actor:
            self.actor = actor
            if actor >= 0:
                self._move_hot(3, self.actor_at + (actor - self.seat) % self.players)
            else:  # chance or terminal: nobody
                self._move_hot(3, self.scratch)
        if uno is not self.uno:
            self.uno = uno
            if uno is None:
                self._move_hot(4, self.scratch)
            else:
                self._move_hot(4, self.uno_at + (<int>uno - self.seat) % self.players)
        if pending is not self.pending:
            self.pending = pending
            self._move_hot(5, self.decision_at[pending])
        cdef int direction = game.direction, stack = game.stack, pile = len(game.pile)
        if direction != self.direction:
            self.direction = direction
            f[self.direction_at] = direction
        if stack != self.stack:
            self.stack = stack
            f[self.direction_at + 1] = stack
        if pile != self.pile:
            self.pile = pile
            f[self.direction_at + 2] = pile

    cdef void _count(self, list hand, list plays, int start, int end) except *:
        """:meth:`game.rl.tensor.SeatTensor._count` over ``plays[start:end]``."""
        cdef float* f = self.floats
        cdef list shown = self.hand
        cdef int shift = self.seat * self.faces, i, j, played, k
        for i in range(start, end):
            played = <int>plays[i] - shift
            if 0 <= played < self.faces:  # the seat's own row: its play
                card = self.card[played]
                for j in range(len(shown)):  # its first copy (cards are interned)
                    if shown[j] is card:
                        del shown[j]
                        break
                else:  # not in the hand shown (drawn since): count again
                    self._recount(hand)
                    return
                f[played] -= 1.0
        k = len(shown)
        if len(hand) == k:  # no card drawn (the common case: a play)
            if hand == shown:
                return
        elif hand[:k] == shown:
            for i in range(k, len(hand)):
                f[<int>self.face[hand[i]]] += 1.0
            shown.extend(hand[k:])
            return
        self._recount(hand)

    cdef void _recount(self, list hand) except *:
        """The hand block counted card by card."""
        cdef float* f = self.floats
        cdef int i
        for i in range(self.faces):
            f[i] = 0.0
        for card in hand:
            f[<int>self.face[card]] += 1.0
        self.hand = hand[:]


cdef class SeatMask:
    """One seat's action mask as int8 bytes, rewritten only where the legal ids changed."""

    cdef readonly object array, legal
    cdef object raw
    cdef char* ids
    cdef Py_ssize_t size

    def __init__(self, Py_ssize_t size):
        self.raw = bytearray(size)
        self.ids = PyByteArray_AS_STRING(self.raw)
        self.size = size
        self.array = np.frombuffer(self.raw, _INT8)
        self.legal = ()

    def show(self, legal):
        """:meth:`game.rl.tensor.SeatMask.show`."""
        if legal is self.legal:
            return
        cdef Py_ssize_t action
        for action in self.legal:
            self.ids[action] = 0
        for action in legal:
            if not 0 <= action < self.size:
                raise IndexError(f"action {action} is not an id of this mask")
            self.ids[action] = 1
        self.legal = legal
