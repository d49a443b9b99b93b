"""Issue 28, finding 8: each message of the list says the right thing, in plain words."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from game.cli import main
from game.cli.config import BY_KEY
from game.cli.play import DEFAULT_SEATS
from game.tables.terminal import Narrator, PlaySeat

ROOT = Path(__file__).resolve().parent.parent


def _record(path: Path, *extra: str) -> None:
    args = ["calibrate", "record", str(path), "--launcher", "sim://", "--presses", "12"]
    assert main([*args, *extra]) == 0


def test_experiment_report_of_a_missing_file_hints_at_no_option_it_lacks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["experiment", "report", str(tmp_path / "nothere.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "cannot read results file" in err
    assert "--out FILE" in err and "--restart" not in err and "another --out" not in err


def test_play_resume_of_a_calibration_session_says_what_the_file_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = tmp_path / "s.jsonl"
    _record(session)
    capsys.readouterr()
    assert main(["play", "--resume", str(session)]) == 2
    err = capsys.readouterr().err
    assert "is a calibration session (written by `calibrate record`" in err
    assert "damaged" not in err


def test_a_profile_without_kind_says_the_field_is_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "nokind.toml"
    path.write_text('schema = 1\nname = "x"\np = [1.0]\n', encoding="utf-8")
    assert main(["profile", "show", str(path)]) == 2
    err = capsys.readouterr().err
    assert 'field kind is missing; add a line kind = "iid"' in err and "None" not in err


def test_a_whole_number_option_says_what_it_expects(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--games", "1", "--option", "target=abc"]) == 2
    err = capsys.readouterr().err
    assert "target='abc': expected a whole number >= 1" in err and "invalid literal" not in err


def test_config_shows_the_default_seats_play_really_uses() -> None:
    assert BY_KEY["seats"].default == DEFAULT_SEATS == "You,bot:greedy,bot:random"


def test_you_are_skipped() -> None:
    narrator = Narrator(None, [PlaySeat("You"), PlaySeat("Ann")])  # type: ignore[arg-type]
    assert narrator._describe("skip", {"type": "skip", "player": 0}) == "You are skipped."
    assert narrator._describe("skip", {"type": "skip", "player": 1}) == "Ann is skipped."


def test_the_final_line_of_a_game_stopped_after_one_round_names_the_round_winner(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["play", "--seats", "bot:greedy,bot:random", "--rounds", "1", "--seed", "3"]
    assert main(argv) == 0
    final = [line for line in capsys.readouterr().out.splitlines() if line.startswith("Final:")]
    assert final and "none yet" not in final[0]
    assert final[0].startswith("Final: winner none (stopped; round 1 won by ")


def test_help_lists_only_the_cards_of_the_ruleset_played() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "game", "play", "--ruleset", "classic", "--seats", "You,bot:greedy"],
        input="?\nquit\n",
        capture_output=True,
        text=True,
        cwd=str(ROOT),
        timeout=60,
    )
    shown = done.stdout.split("Action cards and calls:")[1]
    assert "draw2" in shown and "wild-draw4" in shown and "uno" in shown
    assert "hit2" not in shown and "wild-attack-attack" not in shown  # Attack's cards


def test_fit_of_a_session_of_one_count_prints_no_nan(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    never = tmp_path / "never.toml"
    never.write_text(
        'schema = 1\nname = "ones"\nkind = "iid"\nsource = "s"\np = [0.0, 1.0]\n',
        encoding="utf-8",
    )
    session = tmp_path / "ones.jsonl"
    _record(session, "--launcher", f"sim://?profile={never}")
    capsys.readouterr()
    assert main(["calibrate", "fit", str(session)]) == 0
    out = capsys.readouterr().out
    assert "nan" not in out and "p = 1 (nothing to test)" not in out
    assert "independence checks: nothing to test, every press gave the same count" in out
    assert "Every press gave the same count" in out.splitlines()[1]


def test_a_session_of_one_press_says_one_press() -> None:
    """An outside recipe check read "end of input: 1 presses saved"."""
    from game.cli.calibrate import _presses

    assert [_presses(n) for n in (0, 1, 2)] == ["0 presses", "1 press", "2 presses"]


def test_simulate_compares_bots_only_when_the_seats_differ(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 28, item 6: "bot rule wins 100 %" was printed when every seat is the same bot."""
    words = ["simulate", "--games", "3", "--players", "2", "--seed", "4"]
    assert main(words) == 0
    same = capsys.readouterr().out
    assert main([*words, "--bots", "rule,random"]) == 0
    mixed = capsys.readouterr().out
    assert "per seat" not in same and "per seat" in mixed
