"""``uno-attack simulate`` and ``uno-attack rules`` in-process: output, JSON, logs, errors."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from event_checker import check_events

from game.cli import main
from game.play.events import read_jsonl

ROOT = Path(__file__).resolve().parent.parent


def test_defaults_simulate_attack_with_four_players(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--games", "2"]) == 0
    out, err = capsys.readouterr()
    assert "ruleset attack, 4 players" in out and "mean cards per hit" in out and "win rate" in out
    assert err == ""  # no progress bar when stderr is not a terminal


def test_json_summary_is_one_object(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "simulate",
                "--ruleset",
                "classic",
                "--players",
                "3",
                "--games",
                "2",
                "--seed",
                "4",
                "--bots",
                "random,greedy",
                "--json",
            ]
        )
        == 0
    )
    summary = json.loads(capsys.readouterr().out)
    assert summary["games"] == 2 and summary["ruleset"] == "classic" and len(summary["seats"]) == 3


def test_log_is_json_lines_that_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "games.jsonl"
    assert main(["simulate", "--games", "2", "--players", "3", "--log", str(log), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    events = read_jsonl(log)
    starts = [i for i, e in enumerate(events) if e["type"] == "sim_game"]
    assert len(starts) == 2
    hits = 0
    for begin, end in zip(starts, [*starts[1:], len(events)], strict=True):
        checker = check_events(events[begin + 1 : end])
        assert checker.finished
        hits += checker.hits
    assert hits == summary["hits"]


def test_a_log_written_by_two_workers_is_the_same_file_as_one_worker_writes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs = []
    for workers in ("1", "2"):
        log = tmp_path / f"workers{workers}.jsonl"
        argv = ["simulate", "--ruleset", "pocket", "--games", "3", "--seed", "8", "--json"]
        assert main([*argv, "--workers", workers, "--log", str(log)]) == 0
        logs.append((log.read_bytes(), capsys.readouterr().out))
    assert logs[0] == logs[1]
    assert logs[0][0].count(b'"type":"sim_game"') == 3


def test_options_and_custom_card_are_passed_through(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    card = tmp_path / "card.toml"
    card.write_text('effects = ["everyone_hits n=1"]\n')
    assert (
        main(
            [
                "simulate",
                "--games",
                "1",
                "--option",
                "hit_fire_cap=5",
                "--option",
                "scoring=lowest",
                "--custom",
                str(card),
                "--json",
            ]
        )
        == 0
    )
    summary = json.loads(capsys.readouterr().out)
    assert summary["options"] == {"hit_fire_cap": "5", "scoring": "lowest", "custom": str(card)}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--ruleset", "uno-flip"], "unknown ruleset 'uno-flip'"),
        (["--players", "11"], "is for 2-10 players, not 11"),
        (["--ruleset", "pocket", "--players", "6"], "is for 2-5 players, not 6"),
        (["--launcher", "sim://?profile=no-such-profile"], "no-such-profile"),
        (["--launcher", "bogus"], "has no scheme"),
        (["--launcher", "sim://?speed=3"], "unknown option"),
        (["--option", "hitfire=3"], "unknown option 'hitfire'"),
        (["--option", "nonsense"], "expected KEY=VALUE"),
        (["--bots", "smart"], "unknown bot 'smart'"),
        (["--games", "0"], "--games must be at least 1"),
        (["--custom", "/no/such/card.toml"], "cannot read the custom-card file"),
    ],
)
def test_bad_input_is_an_error_with_a_hint_never_a_traceback(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["simulate", "--games", "1", *argv]) == 2
    out, err = capsys.readouterr()
    assert "uno-attack: error: " in err and message in err and "uno-attack: hint: " in err
    assert "Traceback" not in err and out == ""


def test_rules_list_and_show(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "list"]) == 0
    out = capsys.readouterr().out
    for ruleset_id in ("attack", "attack-original", "attack-mega-hit", "classic", "pocket"):
        assert ruleset_id in out
    assert main(["rules", "show", "attack-original", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert (
        info["deck_size"] == 112 and info["options"]["skip_reverse_play_again"] == "two_player_only"
    )
    assert main(["rules", "show", "pocket"]) == 0
    assert "hit_fire_cap = 50" in capsys.readouterr().out
    assert main(["rules", "show", "nope"]) == 2
    assert "unknown ruleset 'nope'" in capsys.readouterr().err


def test_progress_bar_is_drawn_on_a_terminal() -> None:
    import sys

    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(
        sys.executable,
        ["-m", "game", "simulate", "--games", "3", "--players", "2"],
        encoding="utf-8",
        timeout=60,
    )
    child.expect(r"simulate \[#+\] 3/3")
    child.expect("mean cards per hit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


# -- issue 28, finding 7: Ctrl-C keeps the finished games ---------------------------------
def _games_logged(folder: Path) -> int:
    """Finished games in the log being written (the temporary file beside --log)."""
    return sum(
        path.read_text(encoding="utf-8").count('"type":"sim_game"')
        for path in folder.glob(".sim.jsonl.*")
    )


def test_ctrl_c_keeps_every_finished_game_in_the_log_and_prints_their_summary(
    tmp_path: Path,
) -> None:
    log = tmp_path / "sim.jsonl"
    child = subprocess.Popen(
        [sys.executable, "-m", "game", "simulate", "--games", "5000", "--log", str(log)],
        cwd=str(ROOT),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while _games_logged(tmp_path) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)  # sleep-ok: watching another process's log grow, bounded by the deadline
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=60)
    assert child.returncode == 130, err
    finished = int(re.search(r"interrupted: (\d+) of 5000 games finished", err).group(1))
    assert finished >= 3 and f"{log} keeps all {finished} of them" in err
    assert re.search(rf"games\s+{finished}\n", out)  # the partial summary
    events = read_jsonl(log)
    assert sum(1 for e in events if e["type"] == "sim_game") == finished
    assert not list(tmp_path.glob(".sim.jsonl.*"))  # no temporary left behind
