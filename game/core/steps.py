"""What the turn flow, the table and the views may use of a game: the :class:`Engine` protocol.

:class:`~game.core.engine.Game` sits on top of the rules core and implements this protocol;
:mod:`game.core.turns`, :mod:`game.core.table`, :mod:`game.core.explain` and
:mod:`game.core.observe` are plain functions typed against it, so they import nothing above
them and the core's modules import each other in one direction: cards, moves, rulesets,
legal, round and effects at the bottom, this protocol, the step functions over it, ``Game`` on top.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from game.core.round import RoundState

if TYPE_CHECKING:
    from game.core.cards import Card
    from game.core.chance import Chance
    from game.core.eventlog import EventLog
    from game.core.legal import CompiledRules
    from game.core.moves import Decision, Move
    from game.core.rulesets import Ruleset


class Engine(RoundState, Protocol):
    """A game's state and its engine steps (moves' effects that skip the legality check).

    The round's fields (``hands``, ``pending``...) are :class:`~game.core.round.RoundState`'s.
    """

    # -- what lasts the whole game -------------------------------------------------------
    rules: CompiledRules
    ruleset: Ruleset
    names: list[str]
    num_players: int
    seed: int | None
    launcher_name: str
    scores: list[int]
    eliminated: list[bool]
    in_play: tuple[int, ...]
    winner: int | None
    round_number: int
    pile_generation: int
    event_log: EventLog
    events: list[dict[str, Any]]
    on_event: Callable[[dict[str, Any]], None] | None

    turns_before: int

    @property
    def total_turns(self) -> int: ...

    @property
    def chance(self) -> Chance: ...
    @property
    def seats_in_play(self) -> list[int]: ...
    @property
    def players_in(self) -> int: ...
    @property
    def hand_sizes(self) -> list[int]: ...
    @property
    def drawn_card(self) -> Card | None: ...
    @property
    def stacked(self) -> int: ...
    @property
    def uno_pending(self) -> int | None: ...

    # -- queries ------------------------------------------------------------------------
    def hand(self, seat: int) -> list[Card]: ...
    def legal_moves(self) -> list[Move]: ...
    def compute_legal(self) -> list[Move]: ...
    def table_moves(self) -> list[Move]: ...
    def seat_of(self, move: Move) -> int | None: ...
    def is_round_over(self) -> bool: ...
    def next_seat(self, seat: int) -> int: ...
    def left_seat(self, seat: int) -> int: ...
    def can_stack(self) -> bool: ...

    # -- engine steps ---------------------------------------------------------------------
    def emit(self, kind: str, fields: Mapping[str, Any]) -> None: ...
    def ask(self, decision: Decision, seat: int) -> bool: ...
    def presses(
        self, seat: int, presses: int, reason: str, *, until: str = "count", then: str = "run"
    ) -> bool: ...
    def play_card(self, seat: int, card: Card, context: str, *, keep_pos: bool = False) -> None: ...
    def hand_shrank(self, seat: int) -> None: ...
    def run_effects(self) -> None: ...
    def after_effects(self) -> None: ...
    def deal_next_round(self) -> None: ...


__all__ = ["Engine"]
