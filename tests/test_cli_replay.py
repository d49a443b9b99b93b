"""``uno-attack replay --json``: the end state of a journaled game, for scripts (issue 13)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from game.cli import main


@pytest.fixture
def play_journal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    journal = tmp_path / "game.jsonl"
    argv = ["play", "--seats", "bot:greedy,bot:random", "--rounds", "1", "--seed", "3"]
    assert main([*argv, "--journal", str(journal)]) == 0
    capsys.readouterr()
    return journal


def test_replay_json_gives_the_same_end_state_as_the_replay_text(
    play_journal: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", str(play_journal)]) == 0
    final = capsys.readouterr().out.strip().splitlines()[-1]
    assert main(["replay", str(play_journal), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["mode"] == "play" and report["seed"] == 3
    scores = " ".join(f"{n}={s}" for n, s in zip(report["players"], report["scores"], strict=True))
    assert f"scores {scores}" in final and f"digest {report['digest']}" in final
    assert report["events"][0]["type"] == "game_start"


def test_replay_json_and_step_are_refused_together(
    play_journal: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", str(play_journal), "--json", "--step"]) == 2
    assert "do not go together" in capsys.readouterr().err


def test_a_game_with_tuned_bots_replays_and_resumes_to_the_same_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--seats bot:casual:forget_uno=0.5`` is written to the journal and read back as such."""
    journal = tmp_path / "tuned.jsonl"
    seats = "bot:casual:forget_uno=0.5:miss_play=0.3,bot:rule"
    argv = ["play", "--seats", seats, "--rounds", "1", "--seed", "5", "--journal", str(journal)]
    assert main(argv) == 0
    played = capsys.readouterr().out.strip().splitlines()[-1]
    header = json.loads(journal.read_text().splitlines()[0])
    bots = [seat["bot"] for seat in header["seats"]]
    assert bots == ["casual:forget_uno=0.5:miss_play=0.3", "rule"]
    assert main(["replay", str(journal)]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == played


@pytest.mark.parametrize("bot", ["bot:search:iterations=-3", "bot:casual:forget_uno=3"])
def test_a_bot_with_a_senseless_number_is_refused_before_the_journal_is_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bot: str
) -> None:
    journal = tmp_path / "game.jsonl"
    argv = ["play", "--seats", f"{bot},bot:rule", "--seed", "1", "--journal", str(journal)]
    assert main(argv) == 2
    assert capsys.readouterr().err.startswith("uno-attack: error: --seats: ")
    assert not journal.exists()
