"""Play one task (a chunk of one cell's games) and boil each round down to a few numbers.

This runs in the worker (a local process or a Dask worker), so it imports nothing
heavy and returns a plain JSON-ready dict: the record the results file stores. The
time model is applied later, at aggregation, so changing it needs no rerun.

Per round, :data:`ROUND_FIELDS`; per round also the mean hand size in each tenth of
the round's turns (``deciles``). "From behind": at the middle turn of the round the
eventual winner held more cards than the smallest hand at the table. "Ran empty": the
draw pile / hopper was empty after some turn or press of the round, or was reloaded.
"""

from __future__ import annotations

from typing import Any

from game.bots import make_bot
from game.core.chance import derive_seed
from game.core.engine import Game
from game.core.moves import NEXT_ROUND, Move
from game.core.rulesets import load_ruleset
from game.experiment.grid import SCHEMA, Cell, Task, launcher_for
from game.play.driver import Table, play_out

#: The numbers kept for each round, in this order.
ROUND_FIELDS = ("turns", "plays", "presses", "cards", "winner", "behind", "reloads", "empty")
DECILES = 10


class _RoundTally:
    """Counts one round's events as the engine emits them (``Game.new(on_event=...)``)."""

    def __init__(self) -> None:
        self.game: Game | None = None
        self.turns_seen = 0
        self.rounds: list[list[Any]] = []
        self.deciles: list[list[float]] = []
        self._reset()

    def _reset(self) -> None:
        self.plays = self.presses = self.cards = self.reloads = 0
        self.empty = False
        self.snapshots: list[list[int]] = []

    def __call__(self, event: dict[str, Any]) -> None:
        kind = event["type"]
        if kind == "deal":
            self._reset()
        elif kind == "play":
            self.plays += 1
        elif kind == "hit":
            self.presses += 1
            self.cards += len(event["cards"])
            self._check_empty()
        elif kind == "reload":
            self.reloads += 1
            self.empty = True
        elif kind == "round_end":
            self._finish(event)

    def _check_empty(self) -> None:
        if self.game is not None and not self.game.pile:
            self.empty = True

    def after_move(self, game: Game, move: Move | str | None) -> None:
        """After each move of the loop: a hand-size snapshot when a turn went by."""
        turns, self.turns_seen = self.turns_seen, game.total_turns
        if move is not NEXT_ROUND and game.total_turns != turns and not game.is_round_over():
            self.snapshot(game)

    def snapshot(self, game: Game) -> None:
        """The hand sizes of the seats in play after a turn."""
        self.snapshots.append([len(game.hands[s]) for s in game.seats_in_play])
        if not game.pile:
            self.empty = True

    def _finish(self, event: dict[str, Any]) -> None:
        winner = event["winner"]
        self.rounds.append(
            [
                event["turns"],
                self.plays,
                self.presses,
                self.cards,
                winner,
                _from_behind(self.snapshots, winner, self.game),
                self.reloads,
                int(self.empty),
            ]
        )
        self.deciles.append(_deciles(self.snapshots))


def _from_behind(snapshots: list[list[int]], winner: int | None, game: Game | None) -> int | None:
    """1 if at mid-round the winner held more cards than the smallest hand; None: no data."""
    if winner is None or not snapshots or game is None:
        return None
    seats = game.seats_in_play
    if winner not in seats:
        return None
    middle = snapshots[len(snapshots) // 2]
    if len(middle) != len(seats):
        return None
    mine = middle[seats.index(winner)]
    return int(mine > min(middle))


def _deciles(snapshots: list[list[int]]) -> list[float]:
    """Mean hand size in each tenth of the round (by turn), rounded for a compact file."""
    if not snapshots:
        return []
    n = len(snapshots)
    out = []
    for d in range(DECILES):
        part = snapshots[d * n // DECILES : max((d + 1) * n // DECILES, d * n // DECILES + 1)]
        sizes = [size for snap in part for size in snap]
        out.append(round(sum(sizes) / len(sizes), 3))
    return out


def play_cell_game(cell: Cell, seed: int) -> dict[str, Any]:
    """Play one complete game of ``cell`` from ``seed``; its per-round numbers and winner."""
    rules = load_ruleset(cell.ruleset, dict(cell.options))
    bots = [make_bot(cell.bot_for(s), derive_seed(seed, f"bot:{s}")) for s in range(cell.players)]
    launcher = launcher_for(cell.profile, rules.draws_from_pile, derive_seed(seed, "launcher"))
    tally = _RoundTally()
    try:
        table = Table.new(rules, cell.players, launcher=launcher, seed=seed, on_event=tally)
        tally.game = game = table.game
        tally.turns_seen = game.total_turns
        play_out(game, bots, table.presser, on_step=tally.after_move)
    finally:
        launcher.close()
    return {"winner": game.winner, "rounds": tally.rounds, "deciles": tally.deciles}


def play_task(task: Task, version: str = "") -> dict[str, Any]:
    """The results-file record of one task: every game of the chunk, in order."""
    games = [
        play_cell_game(task.cell, derive_seed(task.seed, f"game:{i}")) for i in range(task.games)
    ]
    return {
        "kind": "task",
        "schema": SCHEMA,
        "version": version,
        "key": task.key,
        "cell": task.cell.to_dict(),
        "chunk": task.chunk,
        "seed": task.seed,
        "games": games,
    }
