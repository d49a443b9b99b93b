"""The python-chess-style part of a :class:`~game.core.engine.Game`: copy, push/pop, outcome, views.

A mixin: every method reads or snapshots the game's state (its round fields, events, scores,
chance source) and none of it is on the engine's hot path, so it lives apart from
:mod:`game.core.engine`. The game holds no device, so none of these can press a launcher:
a pushed move that reaches a press stops at the chance node (feed ``fired:N`` or pop).
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from game.core.moves import Move
from game.core.observe import Observation, Outcome, Termination, copied_seat_logs, observe
from game.core.round import copy_round_fields, round_fields, set_round_fields

if TYPE_CHECKING:
    import random
    from typing import Self

    from game.core.chance import Chance
    from game.core.eventlog import EventLog
    from game.core.rulesets import Ruleset


#: A game's fields at one moment: its own (``__dict__``) and its round's (game.core.round).
Snapshot = tuple[dict[str, Any], dict[str, Any]]


class History:
    """Copies, undo and views of a game (python-chess's ``copy``, ``push``/``pop``, ``outcome``)."""

    if TYPE_CHECKING:  # provided by Game
        event_log: EventLog
        scores: list[int]
        eliminated: list[bool]
        winner: int | None
        round_number: int
        ruleset: Ruleset
        on_event: Any
        move_stack: list[Move]
        _stack_of_states: list[Snapshot]
        _chance: Chance

        def play(self, move: Move | str) -> None: ...

    def copy(self, *, stack: bool = True) -> Self:
        """An independent copy of the game with no event callback.

        Its chance stream continues like this game's. ``stack=False`` leaves out the
        pushed moves (a search's copy: cheaper, and :meth:`pop` cannot go behind it).
        """
        new = object.__new__(type(self))
        own, round_now = self._state()
        if stack:
            own["_stack_of_states"] = [_copied(snapshot) for snapshot in self._stack_of_states]
        else:
            own["_stack_of_states"], own["move_stack"] = [], []
        new._restore((own, round_now))
        new.on_event = None
        return new

    def push(self, move: Move | str) -> None:
        """Make ``move`` and remember the state before it, so :meth:`pop` can undo it."""
        made = Move.parse(move) if isinstance(move, str) else move
        snapshot = self._state()
        self.play(made)
        self._stack_of_states.append(snapshot)
        self.move_stack.append(made)

    def pop(self) -> Move:
        """Undo the last :meth:`push` and return its move (the events it caused are dropped)."""
        if not self._stack_of_states:
            raise IndexError("pop from a game with no pushed moves")
        snapshot = self._stack_of_states.pop()
        move = self.move_stack.pop()
        states, moves = self._stack_of_states, self.move_stack
        self._restore(snapshot)
        self._stack_of_states, self.move_stack = states, moves
        return move

    def peek(self) -> Move:
        """The last pushed move (IndexError when there is none)."""
        if not self.move_stack:
            raise IndexError("peek at a game with no pushed moves")
        return self.move_stack[-1]

    def _state(self) -> Snapshot:
        """A snapshot of every mutable part of the game (shallow where values are immutable)."""
        return _copied((self.__dict__, round_fields(self)))  # type: ignore[arg-type]  # a Game

    def _restore(self, snapshot: Snapshot) -> None:
        """Take the fields of a snapshot (:meth:`_state`), as they are."""
        own, round_then = snapshot
        self.__dict__.update(own)
        set_round_fields(self, round_then)  # type: ignore[arg-type]  # self is a Game

    def outcome(self) -> Outcome | None:
        """How the game ended, or None while it is on."""
        if self.winner is None:
            return None
        termination = (
            Termination.ELIMINATION
            if self.ruleset.options["scoring"] == "elimination"
            else Termination.TARGET
        )
        return Outcome(self.winner, tuple(self.scores), self.round_number, termination)

    def observation(self, seat: int, *, history: bool = True) -> Observation:
        """What ``seat`` may see now (its hand, the sizes of the others, the public history).

        ``history=False``: without the history (a bot that never reads it decides faster).
        """
        return observe(self, seat, history=history)  # type: ignore[arg-type]  # self is a Game

    def resample_from_infostate(self, seat: int, rng: random.Random) -> Self:
        """A game identical in everything ``seat`` knows, the rest dealt again (OpenSpiel's name).

        The other hands, the pile order and the chance source are drawn by ``rng`` from
        the cards ``seat`` has not seen (:mod:`game.core.infostate`); for search and learning.
        """
        from game.core.infostate import resample_from_infostate

        return resample_from_infostate(self, seat, rng)  # type: ignore[arg-type,return-value]


def _copied(snapshot: Snapshot) -> Snapshot:
    """A game's fields (or a snapshot of them) sharing no mutable part with the original."""
    fields, round_then = snapshot
    round_copy = dict(round_then)
    copy_round_fields(round_copy)
    state = dict(fields)
    state["event_log"] = fields["event_log"].copy()
    state["scores"] = list(fields["scores"])
    state["eliminated"] = list(fields["eliminated"])
    state["_stack_of_states"] = list(fields["_stack_of_states"])
    state["move_stack"] = list(fields["move_stack"])
    state["_chance"] = copy.deepcopy(fields["_chance"])
    state["_seat_logs"] = copied_seat_logs(fields.get("_seat_logs", {}))
    return state, round_copy
