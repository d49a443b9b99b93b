"""The casual human (``casual``): plays like :class:`~game.bots.rule.RuleBot`, with slips.

People at a kitchen table forget to call UNO, overlook a card they could have
played, and rarely catch a neighbour who forgot UNO. Each slip has a
probability, set in the constructor or in the spec
``casual:forget_uno=0.3:miss_play=0.1:miss_catch=0.5`` (defaults in
:attr:`CasualBot.PARAMS`; the values are assumptions, see docs/bots.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar

from game.bots.rule import RuleBot
from game.core.errors import RulesetError
from game.core.moves import Decision, Move, MoveKind

if TYPE_CHECKING:
    from game.core.observe import Observation


class CasualBot(RuleBot):
    """A rule bot that forgets UNO, overlooks playable cards and seldom catches."""

    name = "casual"
    PARAMS: ClassVar[dict[str, float]] = {
        "forget_uno": 0.25,  #: chance of not calling UNO when down to one card
        "miss_play": 0.10,  #: chance, on a turn with a playable card, of drawing instead
        "miss_catch": 0.60,  #: chance of not catching a player who forgot UNO
    }

    def __init__(
        self,
        seed: int | None = None,
        *,
        forget_uno: float = PARAMS["forget_uno"],
        miss_play: float = PARAMS["miss_play"],
        miss_catch: float = PARAMS["miss_catch"],
    ) -> None:
        super().__init__(seed)
        for label, p in (
            ("forget_uno", forget_uno),
            ("miss_play", miss_play),
            ("miss_catch", miss_catch),
        ):
            if not 0.0 <= p <= 1.0:
                raise RulesetError(
                    f"casual bot: {label}={p} is not a probability", hint="use 0 to 1, e.g. 0.2"
                )
        self.forget_uno, self.miss_play, self.miss_catch = forget_uno, miss_play, miss_catch
        #: One roll per slip per UNO window (a seat is offered UNO again after each move
        #: of the same turn; a person who forgot does not remember halfway through).
        self._rolled: dict[tuple[MoveKind, int, int], bool] = {}

    @classmethod
    def from_params(cls, seed: int | None, params: Mapping[str, float]) -> CasualBot:
        return cls(seed, **params)

    def decide(self, view: Observation) -> Move:
        if view.decision is Decision.TURN:
            moves = view.moves
            if len(moves) > 1 and self.rng.random() < self.miss_play:
                return next(m for m in moves if m.kind is MoveKind.DRAW)
        return super().decide(view)

    def react(self, view: Observation, moves: list[Move]) -> Move | None:
        move = super().react(view, moves)
        if move is None:
            return None
        if move.kind is MoveKind.UNO and self._slips(view, move.kind, self.forget_uno):
            return None
        if move.kind is MoveKind.CATCH and self._slips(view, move.kind, self.miss_catch):
            return None
        return move

    def _slips(self, view: Observation, kind: MoveKind, chance: float) -> bool:
        """Roll once per kind and turn; later offers in the same turn get the same answer."""
        key = (kind, view.round_number, view.total_turns)
        if key not in self._rolled:
            if len(self._rolled) > 64:
                self._rolled.clear()
            self._rolled[key] = self.rng.random() < chance
        return self._rolled[key]
