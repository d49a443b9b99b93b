"""``game.experiment``: seeds per task, the per-round numbers, intervals, resuming, tuning.

The executor tests (several processes, Dask) are in tests/test_experiment_executors.py.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from game.bots import make_bot
from game.core.chance import derive_seed
from game.core.rulesets import load_ruleset
from game.experiment.executors import run_tasks
from game.experiment.grid import (
    Cell,
    Grid,
    GridError,
    derived_profile,
    grid_from_dict,
    launcher_for,
    task_seed,
)
from game.experiment.play import play_cell_game, play_task
from game.experiment.stats import TimeModel, aggregate, mean_ci, ratio_ci, wilson
from game.experiment.store import ResultsError, ResultsFile, read_records
from game.experiment.tune import Tuner
from game.play.driver import Table
from game.play.simulate import run_game

ATTACK4 = Cell("attack", 4, "default", ("greedy",))


# -- seeds and tasks ----------------------------------------------------------------------------
def test_task_seeds_depend_on_master_cell_and_chunk_only() -> None:
    grid = Grid(players=[2, 3], games=50)
    first = {t.key: t.seed for t in grid.tasks(7, chunk=10)}
    again = {t.key: t.seed for t in Grid(players=[3, 2], games=50).tasks(7, chunk=10)}
    assert first == again  # the order of the axes does not change any task's seed
    assert len(set(first.values())) == len(first) == 10
    assert task_seed(7, ATTACK4.key, 0) != task_seed(8, ATTACK4.key, 0)
    # a fixed digest, not Python's salted hash(): the same in every process and version
    assert (
        task_seed(1, "x", 0)
        == task_seed(1, "x", 0)
        == int.from_bytes(__import__("hashlib").sha256(b"1\x1fx\x1f0").digest()[:8], "big") >> 1
    )


def test_last_chunk_is_short_and_games_add_up() -> None:
    tasks = Grid(games=55).tasks(1, chunk=25)
    assert [t.games for t in tasks] == [25, 25, 5]


# -- what one game is boiled down to ------------------------------------------------------------
def _events_of_same_game(cell: Cell, seed: int) -> list[dict]:
    """The same game played by the simulate loop, for its event log."""
    rules = load_ruleset(cell.ruleset)
    bots = [make_bot(cell.bot_for(s), derive_seed(seed, f"bot:{s}")) for s in range(cell.players)]
    launcher = launcher_for(cell.profile, rules.draws_from_pile, derive_seed(seed, "launcher"))
    with Table.new(rules, cell.players, launcher=launcher, seed=seed) as game:
        run_game(game, bots)
    launcher.close()
    return game.events


@pytest.mark.parametrize(
    "cell",
    [
        ATTACK4,
        Cell("classic", 3, "default", ("greedy", "random")),
        Cell("attack", 2, "irc-bot", ("greedy",)),
    ],
)
def test_round_numbers_match_the_event_log(cell: Cell) -> None:
    seed = 12345
    game = play_cell_game(cell, seed)
    events = _events_of_same_game(cell, seed)
    ends = [e for e in events if e["type"] == "round_end"]
    assert [r[0] for r in game["rounds"]] == [e["turns"] for e in ends]  # turns
    assert [r[4] for r in game["rounds"]] == [e["winner"] for e in ends]
    assert sum(r[1] for r in game["rounds"]) == sum(e["type"] == "play" for e in events)
    hits = [e for e in events if e["type"] == "hit"]
    assert sum(r[2] for r in game["rounds"]) == len(hits)
    assert sum(r[3] for r in game["rounds"]) == sum(len(e["cards"]) for e in hits)
    assert game["winner"] == next(e for e in events if e["type"] == "game_end")["winner"]
    assert all(len(d) == 10 and all(0 < x < 40 for x in d) for d in game["deciles"])


def test_a_brutal_launcher_empties_the_hopper_and_a_task_replays_exactly() -> None:
    task = Grid(profiles=["irc-bot"], games=6).tasks(3, chunk=6)[0]
    record = play_task(task)
    assert record == play_task(task)
    rounds = [r for g in record["games"] for r in g["rounds"]]
    assert any(r[7] for r in rounds)  # 5 cards a press: the launcher runs dry
    assert all(r[5] in (0, 1, None) for r in rounds)


# -- profiles -----------------------------------------------------------------------------------
def test_derived_profiles_have_the_asked_p0_and_mean() -> None:
    p = derived_profile("web-game@p0=0.2").probabilities
    assert math.isclose(sum(p), 1) and math.isclose(p[0], 0.2)
    q = derived_profile("@mean=2.5").probabilities
    assert math.isclose(sum(q), 1) and math.isclose(sum(k * x for k, x in enumerate(q)), 2.5)
    assert math.isclose(q[0], 0.45)  # web-game's P(0) kept


@pytest.mark.parametrize(
    "text", ["web-game@p0=1.2", "web-game@mean=40", "original-1999@p0=0.3", "web-game@speed=2"]
)
def test_impossible_derived_profiles_are_refused(text: str) -> None:
    with pytest.raises(GridError):
        derived_profile(text)


# -- grid files ---------------------------------------------------------------------------------
def test_grid_file_axes_and_errors() -> None:
    grid = grid_from_dict(
        {
            "rulesets": ["attack"],
            "players": [2, 4],
            "bots": ["greedy", "greedy+random"],
            "options": [{}, {"jump_in": True}],
            "games": 10,
        }
    )
    cells = grid.cells()
    assert len(cells) == 8 and ("greedy", "random") in {c.bots for c in cells}
    assert ("jump_in", "true") in {o for c in cells for o in c.options}
    with pytest.raises(GridError, match="unknown keys"):
        grid_from_dict({"player": [4]})
    with pytest.raises(GridError, match="whole numbers"):
        grid_from_dict({"players": ["four"]})
    with pytest.raises(Exception, match="bot"):
        Grid(bots=[("nobody",)]).validate()


# -- intervals ----------------------------------------------------------------------------------
def test_intervals_match_textbook_values() -> None:
    w = wilson(8, 10)  # Wilson 95 %: [0.490, 0.943]
    assert (round(w.low, 3), round(w.high, 3)) == (0.49, 0.943)
    m = mean_ci([1.0, 2.0, 3.0, 4.0])
    assert m.mean == 2.5 and math.isclose(
        m.high - m.mean, 1.96 * math.sqrt(5 / 3 / 4), rel_tol=1e-3
    )
    # one round per game: the ratio estimator is the plain mean with the plain interval
    r = ratio_ci([1.0, 2.0, 3.0, 4.0], [1, 1, 1, 1])
    assert (r.mean, r.low, r.high) == (m.mean, m.low, m.high)
    assert ratio_ci([0, 0, 1], [3, 3, 3], share=True).low == 0.0


def test_time_model_is_parsed_and_applied() -> None:
    model = TimeModel.parse("turn=10, deal=0")
    assert model.turn == 10 and model.deal == 0 and model.play == TimeModel().play
    # turns, plays, presses, cards: 10 s per turn plus the defaults for the rest
    assert model.seconds([3, 2, 1, 4, 0, 0, 0, 0]) == 30 + 2 * 2 + 3 + 4 * 2
    for bad in ("turn", "lunch=5", "turn=-1", "turn=nan"):
        with pytest.raises(GridError):
            TimeModel.parse(bad)


# -- the results file -----------------------------------------------------------------------------
def test_a_run_cut_short_resumes_to_the_same_summary(tmp_path: Path) -> None:
    grid = Grid(players=[2, 3], games=12)
    tasks = grid.tasks(5, chunk=4)
    whole = tmp_path / "whole.jsonl"
    with ResultsFile(str(whole), seed=5, chunk=4) as results:
        for record in run_tasks(tasks):
            results.append(record)
    cut = tmp_path / "cut.jsonl"
    with ResultsFile(str(cut), seed=5, chunk=4) as results:
        for record in run_tasks(tasks[:4]):
            results.append(record)
    with cut.open("a") as stream:  # the process died in the middle of a line
        stream.write('{"kind": "task", "key": "half')
    with ResultsFile(str(cut), seed=5, chunk=4) as results:
        assert len(results.done) == 4
        for record in run_tasks([t for t in tasks[::-1] if t.key not in results.done]):
            results.append(record)
    model = TimeModel()
    summary = aggregate(read_records(cut)[1], model)
    assert json.dumps(summary) == json.dumps(aggregate(read_records(whole)[1], model))
    assert [c["games"] for c in summary["cells"]] == [12, 12]


def test_results_file_of_another_run_or_kind_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    ResultsFile(str(path), seed=1, chunk=4).close()
    with pytest.raises(ResultsError, match="seed 1, not 2"):
        ResultsFile(str(path), seed=2, chunk=4)
    notes = tmp_path / "notes.jsonl"
    notes.write_text('{"a": 1}\n')
    with pytest.raises(ResultsError, match="no experiment results"):
        ResultsFile(str(notes), seed=1, chunk=4)
    with pytest.raises(ResultsError, match="--restart only starts a results file over"):
        ResultsFile(str(notes), seed=1, chunk=4, restart=True)
    assert notes.read_text() == '{"a": 1}\n'
    ResultsFile(str(path), seed=2, chunk=4, restart=True).close()  # results: started over
    assert read_records(path)[0] == {"kind": "run", "schema": 1, "seed": 2, "chunk": 4}


# -- tune -----------------------------------------------------------------------------------------
def test_tune_finds_a_p0_whose_length_is_the_target() -> None:
    tuner = Tuner("attack", 3, ("greedy",), "p0", "web-game", target=0.0, games=16, chunk=8)
    ends = [tuner.evaluate(v, run_tasks)["mean"] for v in (0.1, 0.8)]
    tuner.target = round(sum(ends) / 2, 2)
    result = tuner.search(run_tasks, 0.1, 0.8, steps=3)
    assert 0.1 < result.value < 0.8 and result.low < result.value < result.high
    check = tuner.evaluate(result.value, run_tasks)
    assert check["low"] <= tuner.target <= check["high"]
    assert result.high - result.low < 0.7  # 16 games already narrow P(0) down
    with pytest.raises(GridError, match="outside what the range gives"):
        Tuner("attack", 3, ("greedy",), "p0", "web-game", target=1000.0, games=4).search(
            run_tasks, 0.1, 0.8
        )


def test_a_grown_grid_plays_only_new_games_and_matches_a_fresh_run(tmp_path: Path) -> None:
    def run(path: Path, games: int) -> list[dict]:
        with ResultsFile(str(path), seed=2, chunk=4) as results:
            todo = [t for t in Grid(games=games).tasks(2, chunk=4) if t.key not in results.done]
            for record in run_tasks(todo):
                results.append(record)
        return todo

    grown, fresh = tmp_path / "grown.jsonl", tmp_path / "fresh.jsonl"
    run(grown, 5)  # chunks of 4 and 1 games
    todo = run(grown, 8)  # the short chunk becomes a full one; the first is kept
    assert [(t.chunk, t.games) for t in todo] == [(1, 4)]
    run(fresh, 8)
    model = TimeModel()
    summary = aggregate(read_records(grown)[1], model)
    assert summary == aggregate(read_records(fresh)[1], model)
    assert summary["cells"][0]["games"] == 8
