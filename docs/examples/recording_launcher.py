"""A launcher of your own, at a table: here one that records every press.

The rules engine never sees a launcher; the table's press driver (game.play.driver.Presser)
presses it and only calls load(), hit(), unload() and remaining, so any Launcher subclass
can stand in for the simulated one. Subclass `launcher.Launcher`, implement
`_press(loaded)` (how many cards physically came out) and optionally `_on_load`; the base
class keeps the hopper model and hands out the cards. A launcher object you pass to
`Table.new` is used as is and never closed by the table.
"""

from dataclasses import dataclass
from typing import Any

from game import Table
from game.bots import GreedyBot, RandomBot
from game.play.simulate import run_game
from launcher import Launcher
from launcher.profiles import load_profile


@dataclass(frozen=True)
class Shot:
    number: int
    loaded: int
    count: int


class RecordingLauncher(Launcher[Any]):
    """Shoots by a profile, like sim://, and keeps a log of every press and reload."""

    backend = "recording"

    def __init__(self, profile: str, seed: int) -> None:
        super().__init__()
        self._sampler = load_profile(profile).sampler(seed)
        self.shots: list[Shot] = []
        self.reloads = 0

    def _press(self, loaded: int) -> int:
        count = min(self._sampler.next(loaded), loaded)
        self.press_meta["loaded"] = loaded  # becomes volley.meta
        self.shots.append(Shot(len(self.shots) + 1, loaded, count))
        return count

    def _on_load(self, loaded: int) -> None:
        self._sampler.reset()  # a pattern launcher restarts its sequence when reloaded
        self.reloads += 1


with RecordingLauncher("original-1999", seed=3) as recorder:
    table = Table.new("attack-original", players=3, launcher=recorder, seed=11)
    run_game(table, [GreedyBot(seed=1), RandomBot(seed=2), GreedyBot(seed=3)])
    game = table.game

    hits = [event for event in game.events if event["type"] == "hit"]
    assert [len(event["cards"]) for event in hits] == [shot.count for shot in recorder.shots]
    empty = sum(1 for shot in recorder.shots if shot.count == 0)
    print(f"{recorder!r}: {len(recorder.shots)} presses, {recorder.reloads} loads, {empty} empty")
    print("first presses:", [(s.number, s.loaded, s.count) for s in recorder.shots[:8]])
    print(f"winner P{game.winner}; the game never closed our launcher: closed={recorder.closed}")
