"""``uno-attack experiment run|report|tune|paper`` in-process: output, resuming, files, errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from game.cli import main

GRID_TOML = """
rulesets = ["attack"]
players = [2, 3]
profiles = ["default", "web-game@p0=0.3"]
bots = ["greedy"]
games = 4

[time_model]
turn = 5
"""


def _grid(tmp_path: Path) -> Path:
    path = tmp_path / "grid.toml"
    path.write_text(GRID_TOML)
    return path


def test_run_resumes_and_report_reads_the_same_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.jsonl"
    argv = ["experiment", "run", str(_grid(tmp_path)), "--out", str(out), "--chunk", "2"]
    assert main(argv) == 0
    first, err = capsys.readouterr()
    assert "4 cells, 8 tasks, 0 already in" in err
    assert "attack 3p web-game@p0=0.3 greedy: 4 games" in first
    assert "turn 5," in first  # the grid file's time model
    lines = out.read_text().splitlines()
    assert len(lines) == 9 and json.loads(lines[0])["kind"] == "run"
    assert main(argv) == 0  # nothing left to do: the same summary
    again, err = capsys.readouterr()
    assert "8 already in" in err and again == first
    assert out.read_text().splitlines() == lines
    assert main(["experiment", "report", str(out), "--time-model", "turn=5"]) == 0
    assert capsys.readouterr().out == first


def test_command_line_axes_override_the_grid_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.jsonl"
    argv = ["experiment", "run", str(_grid(tmp_path)), "--players", "4", "--games", "2",
            "--bots", "greedy+random", "--out", str(out), "--json"]  # fmt: skip
    assert main(argv) == 0
    cells = json.loads(capsys.readouterr().out)["cells"]
    assert {(c["cell"]["players"], c["games"]) for c in cells} == {(4, 2)}
    bots = cells[0]["bot_win_rate"]
    assert bots["greedy"]["seats"] == [0, 2] and bots["random"]["seats"] == [1, 3]


def test_plots_are_written_and_never_overwritten_without_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, plots = tmp_path / "r.jsonl", tmp_path / "plots"
    plots.mkdir()
    assert (
        main(["experiment", "run", "--games", "2", "--out", str(out), "--plots", str(plots)]) == 0
    )
    names = sorted(p.name for p in plots.iterdir())
    assert names == ["hand_sizes.png", "minutes_per_round.png", "seat_win_rates.png"]
    assert all((plots / n).read_bytes().startswith(b"\x89PNG") for n in names)
    capsys.readouterr()
    assert main(["experiment", "report", str(out), "--plots", str(plots)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert main(["experiment", "report", str(out), "--plots", str(plots), "--force"]) == 0
    capsys.readouterr()
    # --force replaces figures only: the results are resumed, never thrown away
    argv = ["experiment", "run", "--games", "2", "--out", str(out), "--plots", str(plots)]
    assert main([*argv, "--force"]) == 0
    assert "1 tasks, 1 already in" in capsys.readouterr().err
    assert main([*argv, "--force", "--restart"]) == 0
    assert "1 tasks, 0 already in" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--profile", "no-such-profile"], "no-such-profile"),
        (["--players", "two"], "whole numbers"),
        (["--executor", "ray://x"], "dask://HOST:PORT"),
        (["--workers", "0"], "--workers"),
        (["--time-model", "nap=3"], "--time-model"),
        (["--ruleset", "attack", "--players", "1"], "player"),
    ],
)
def test_bad_grids_are_refused_before_any_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    out = tmp_path / "r.jsonl"
    assert main(["experiment", "run", "--games", "1", "--out", str(out), *argv]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_a_grid_file_with_a_typo_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    grid = tmp_path / "g.toml"
    grid.write_text("player = [4]\n")
    assert main(["experiment", "run", str(grid), "--out", str(tmp_path / "r.jsonl")]) == 2
    assert "unknown keys ['player']" in capsys.readouterr().err


def test_tune_prints_the_setting_and_its_interval(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["experiment", "tune", "--target-minutes", "8", "--players", "3", "--games", "6",
            "--steps", "1", "--json"]  # fmt: skip
    assert main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["knob"] == "p0" and 0.05 < result["value"] < 0.9
    assert result["low"] < result["value"] < result["high"]
    assert len(result["evaluations"]) == 3


def test_paper_writes_the_page_and_its_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The tiny CI version of `uno-attack experiment paper --out docs/experiments.md`."""
    page = tmp_path / "experiments.md"
    assert main(["experiment", "paper", "--out", str(page), "--games", "2"]) == 0
    text = page.read_text()
    assert text.startswith("# What the launcher does to UNO Attack")
    assert f"uno-attack experiment paper --out {page} --games 2" in text
    sections = ("against P(0)", "mean cards per press", "1999 pattern", "2 to 8 players", "Tuning")
    for section in sections:
        assert section in text
    figures = sorted(p.name for p in (tmp_path / "images").iterdir())
    assert len(figures) == 4 and all(f"images/{name}" in text for name in figures)
    assert main(["experiment", "paper", "--out", str(page), "--games", "2"]) == 2
    assert "already exists" in capsys.readouterr().err


def test_ctrl_c_keeps_the_finished_tasks_and_the_same_command_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from game.cli import experiment as command

    argv = ["experiment", "run", "--players", "2,3", "--games", "4", "--chunk", "2", "--json"]
    whole, cut = tmp_path / "whole.jsonl", tmp_path / "cut.jsonl"
    assert main([*argv, "--out", str(whole)]) == 0
    expected = capsys.readouterr().out
    real = command.run_tasks

    def interrupted(tasks: list[Any], executor: str, workers: int) -> Iterator[dict[str, Any]]:
        records = real(tasks, executor, workers)
        yield next(records)
        raise KeyboardInterrupt

    monkeypatch.setattr(command, "run_tasks", interrupted)
    assert main([*argv, "--out", str(cut)]) == 130
    assert "1 of 4 tasks are in" in capsys.readouterr().err
    monkeypatch.setattr(command, "run_tasks", real)
    assert main([*argv, "--out", str(cut)]) == 0
    out, err = capsys.readouterr()
    assert "1 already in" in err and out == expected


# -- issue 28, finding 7: one writer per results file ---------------------------------------
def test_a_second_run_on_the_same_out_stops_and_names_the_first(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    from game.experiment.store import ResultsFile

    out = tmp_path / "r.jsonl"
    root = Path(__file__).resolve().parent.parent
    with ResultsFile(str(out), seed=1, chunk=25):  # this process is the first writer
        before = out.read_bytes()
        second = subprocess.run(
            [sys.executable, "-m", "game", "experiment", "run", "--games", "2", "--out", str(out)],
            capture_output=True,
            text=True,
            cwd=str(root),
            timeout=120,
        )
        assert second.returncode == 2, second.stderr
        assert f"--out {out} is being written by another experiment run (pid {os.getpid()}" in (
            second.stderr
        )
        assert "Traceback" not in second.stderr and out.read_bytes() == before
    assert not (tmp_path / "r.jsonl.lock").exists()  # released with the file
    argv = ["experiment", "run", "--games", "2", "--out", str(out)]
    assert main(argv) == 0  # the first one gone, the next run goes ahead
