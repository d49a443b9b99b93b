"""The python-chess-style part of a :class:`~game.engine.Game`: copy, push/pop, outcome, views.

A mixin: every method reads or snapshots the game's state (its round state, events, scores,
chance source) and none of it is on the engine's hot path, so it lives apart from
:mod:`game.engine`.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from game.observe import Observation, Outcome, observe

if TYPE_CHECKING:
    import random
    from typing import Self

    from game.chance import Chance
    from game.engine import Game
    from game.moves import Move
    from game.round import RoundState
    from game.rulesets import Ruleset


class History:
    """Copies, undo and views of a game (python-chess's ``copy``, ``push``/``pop``, ``outcome``)."""

    if TYPE_CHECKING:  # provided by Game
        round: RoundState
        events: list[dict[str, Any]]
        scores: list[int]
        eliminated: list[bool]
        winner: int | None
        round_number: int
        ruleset: Ruleset
        presser: Any
        on_event: Any
        _owns_launcher: bool
        _stack_of_states: list[dict[str, Any]]
        _chance: Chance

        def play(self, move: Move | str) -> None: ...

    def copy(self) -> Self:
        """An independent copy of the game with no launcher and no event callback.

        Its chance stream continues like this game's; its presses are chance
        nodes the caller feeds (``fired:N``), so a search never touches a device.
        """
        new = object.__new__(type(self))
        new.__dict__.update(self._state())
        new.presser = None
        new.on_event = None
        new._owns_launcher = False
        return new

    def push(self, move: Move | str) -> None:
        """Make ``move`` and remember the state before it, so :meth:`pop` can undo it."""
        snapshot = self._state()
        self.play(move)
        self._stack_of_states.append(snapshot)

    def pop(self) -> None:
        """Undo the last :meth:`push` (the events it caused are dropped too)."""
        if not self._stack_of_states:
            raise IndexError("pop from a game with no pushed moves")
        snapshot = self._stack_of_states.pop()
        keep = self._stack_of_states
        self.__dict__.update(snapshot)
        self._stack_of_states = keep

    def _state(self) -> dict[str, Any]:
        """A snapshot of every mutable part of the game (shallow where values are immutable)."""
        state = dict(self.__dict__)
        state["round"] = self.round.copy()
        state["events"] = list(self.events)
        state["scores"] = list(self.scores)
        state["eliminated"] = list(self.eliminated)
        state["_stack_of_states"] = list(self._stack_of_states)
        state["_chance"] = copy.deepcopy(self._chance)
        return state

    def outcome(self) -> Outcome | None:
        """How the game ended, or None while it is on."""
        if self.winner is None:
            return None
        termination = (
            "elimination" if self.ruleset.options["scoring"] == "elimination" else "target"
        )
        return Outcome(self.winner, tuple(self.scores), self.round_number, termination)

    def observation(self, seat: int) -> Observation:
        """What ``seat`` may see now (its hand, the sizes of the others, the public history)."""
        return observe(self, seat)  # type: ignore[arg-type]  # self is a Game

    def resample_from_infostate(self, seat: int, rng: random.Random) -> Game:
        """A game identical in everything ``seat`` knows, the rest dealt again (OpenSpiel's name).

        The other hands, the pile order and the chance source are drawn by ``rng`` from
        the cards ``seat`` has not seen (:mod:`game.infostate`); for search and learning.
        """
        from game.infostate import resample_from_infostate

        return resample_from_infostate(self, seat, rng)  # type: ignore[arg-type]  # a Game
