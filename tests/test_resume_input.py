"""Nothing read back is trusted: `play`/`referee`/`replay` refuse damaged journals (issue 17, §2).

Every refusal is exit 2 with ``uno-attack: error: FILE: line N: field F: expected ..., got ...``
and a hint, never a traceback. Only a last line cut off mid-write (no final newline) is
forgiven. A journal's hardware launcher is used only when the user names or confirms it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from game.cli import main
from game.core.errors import JournalError
from game.play import journal as journal_module
from game.play.journal import read_journal

PLAY_HEADER: dict[str, Any] = {
    "type": "header",
    "version": 1,
    "mode": "play",
    "ruleset": "attack",
    "options": {},
    "seed": 3,
    "seats": [{"name": "A", "bot": "greedy"}, {"name": "B", "bot": "random"}],
    "launcher": "sim://",
    "rounds": 1,
}
REFEREE_HEADER: dict[str, Any] = {
    "type": "header",
    "version": 1,
    "mode": "referee",
    "ruleset": "attack",
    "options": {},
    "seed": 3,
    "players": ["Ann", "Sam", "Kim"],
    "launcher": "sim://",
}


def write(path: Path, *records: Any, tail: bytes = b"") -> Path:
    lines = [r if isinstance(r, bytes) else json.dumps(r).encode() for r in records]
    path.write_bytes(b"".join(line + b"\n" for line in lines) + tail)
    return path


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return status, captured.err


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("seed", "abc", "a whole number"),
        ("seats", "x", "a list of"),
        ("options", "fast", "an object"),
        ("rounds", "many", "a whole number"),
        ("seats", [{"name": 5}], "a list of"),
        ("rounds", 0, ">= 1"),
    ],
)
def test_play_resume_refuses_a_header_field_of_the_wrong_type(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str, value: Any, expected: str
) -> None:
    path = write(tmp_path / "g.jsonl", {**PLAY_HEADER, field: value})
    status, err = run_cli(capsys, "play", "--resume", str(path))
    assert status == 2
    assert f"uno-attack: error: {path}: line 1: field {field}: expected" in err
    assert expected in err and json.dumps(value)[:10] in err
    assert "hint:" in err or "hint" in err.lower()


@pytest.mark.parametrize(
    ("command", "header", "field", "words"),
    [
        ("play", {**PLAY_HEADER, "seats": [{"name": "A", "bot": "greedy"}]}, "seats", "not 1"),
        ("play", {**PLAY_HEADER, "seats": [{"name": "", "bot": None}] * 2}, "seats", "names"),
        ("play", {**PLAY_HEADER, "seats": [{"name": "A", "bot": "x"}] * 2}, "seats", "names"),
        ("play", {**PLAY_HEADER, "ruleset": "chess"}, "ruleset", "unknown ruleset"),
        ("play", {**PLAY_HEADER, "options": {"target": "x"}}, "ruleset", "target"),
        ("replay", {**PLAY_HEADER, "ruleset": "chess"}, "ruleset", "unknown ruleset"),
        ("referee", {**REFEREE_HEADER, "players": ["Ann"]}, "players", "not 1"),
        ("referee", {**REFEREE_HEADER, "players": ["Ann", "Ann"]}, "players", "different"),
        ("referee", {**REFEREE_HEADER, "ruleset": "classic"}, "ruleset", "pile"),
    ],
)
def test_a_header_the_rules_refuse_is_blamed_on_its_field(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    command: str,
    header: dict[str, Any],
    field: str,
    words: str,
) -> None:
    path = write(tmp_path / "g.jsonl", header)
    argv = [command, str(path)] if command == "replay" else [command, "--resume", str(path)]
    status, err = run_cli(capsys, *argv)
    assert status == 2
    assert f"{path}: line 1: field {field}: " in err and words in err


@pytest.mark.parametrize(
    ("entry", "field"),
    [
        ({"op": "explode"}, "op"),
        ({"card": 5}, "op"),
        ({}, "op"),
        ({"op": "play", "card": 5}, "card"),
        ({"op": "play", "card": "Q9"}, "card"),
        ({"op": "hit", "seat": -1}, "seat"),
    ],
)
def test_referee_resume_refuses_a_bad_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], entry: dict[str, Any], field: str
) -> None:
    path = write(
        tmp_path / "r.jsonl",
        REFEREE_HEADER,
        {"type": "entry", **entry},
        {"type": "press", "counted": 1},
    )
    status, err = run_cli(capsys, "referee", "--resume", str(path))
    assert status == 2
    assert f"{path}: line 2: field {field}: expected" in err


@pytest.mark.parametrize(
    ("field", "value"), [("seed", None), ("players", "Ann"), ("players", []), ("launcher", 7)]
)
def test_referee_resume_refuses_a_bad_header(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str, value: Any
) -> None:
    path = write(tmp_path / "r.jsonl", {**REFEREE_HEADER, field: value})
    status, err = run_cli(capsys, "referee", "--resume", str(path))
    assert status == 2
    assert f"{path}: line 1: field {field}: expected" in err


@pytest.mark.parametrize(
    "last",
    [b"[1, 2, 3]", b"5", b'{"type": "move", "seat": "x", "moves": []}', b"not json", b"\xff\xfe"],
)
def test_a_complete_damaged_last_line_is_refused_not_dropped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], last: bytes
) -> None:
    path = write(tmp_path / "g.jsonl", PLAY_HEADER, last)
    before = path.read_bytes()
    status, err = run_cli(capsys, "play", "--resume", str(path))
    assert status == 2 and f"{path}: line 2: field" in err
    assert path.read_bytes() == before  # nothing was cut off or appended


def test_only_a_last_line_without_its_newline_is_forgiven(tmp_path: Path) -> None:
    path = write(tmp_path / "g.jsonl", PLAY_HEADER, tail=b'{"type":"move","se')
    journal = read_journal(path)
    assert journal.dropped_tail and journal.records == []
    assert journal.valid_bytes == len(json.dumps(PLAY_HEADER)) + 1


def test_replay_refuses_what_resume_refuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "g.jsonl", {**PLAY_HEADER, "seed": "abc"})
    status, err = run_cli(capsys, "replay", str(path))
    assert status == 2 and f"{path}: line 1: field seed" in err


def _cli(*argv: str, stdin: Any = subprocess.DEVNULL) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "game", *argv],
        stdin=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_dev_zero_a_fifo_and_an_oversized_file_are_refused_quickly(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    big = tmp_path / "big.jsonl"
    with big.open("wb") as handle:
        handle.truncate((256 << 20) + 1)  # sparse: no disk used
    for target, words in (
        ("/dev/zero", "not a regular file"),
        (str(fifo), "not a regular file"),
        (str(big), "over the limit"),
    ):
        done = _cli("play", "--resume", target)  # the timeout fails the test if it hangs
        assert done.returncode == 2, done.stderr
        assert words in done.stderr and "Traceback" not in done.stderr


HARDWARE = {**REFEREE_HEADER, "launcher": "gpio://"}


def test_a_hardware_launcher_from_a_journal_is_refused_without_a_terminal(tmp_path: Path) -> None:
    path = write(tmp_path / "r.jsonl", HARDWARE)
    done = _cli("referee", "--resume", str(path))
    assert done.returncode == 2
    assert "names the hardware launcher gpio://" in done.stderr
    assert f"--resume {path} --launcher 'gpio://'" in done.stderr  # the hint says how
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("spec", ["serial:///dev/ttyACM0", "gpio://?motor=17"])
def test_confirm_launcher_needs_the_same_spec_or_a_yes(tmp_path: Path, spec: str) -> None:
    journal = read_journal(write(tmp_path / "r.jsonl", {**HARDWARE, "launcher": spec}))

    def never(_: str) -> str:
        raise AssertionError("asked")

    assert journal_module.confirm_launcher(journal, spec, interactive=False, ask=never) == spec
    assert (
        journal_module.confirm_launcher(journal, None, interactive=True, ask=lambda _: "yes")
        == spec
    )
    for answer in ("", "n", "no thanks"):

        def reply(_: str, answer: str = answer) -> str:
            return answer

        with pytest.raises(JournalError, match="hardware launcher"):
            journal_module.confirm_launcher(journal, None, interactive=True, ask=reply)
    with pytest.raises(JournalError, match="hardware launcher"):
        journal_module.confirm_launcher(journal, None, interactive=False, ask=never)
    with pytest.raises(JournalError, match="is not the launcher of"):
        journal_module.confirm_launcher(journal, "sim://", interactive=True, ask=never)


@pytest.mark.parametrize("spec", ["sim://?seed=1", "emu://", "pico-sim://", "pile://"])
def test_a_simulated_launcher_resumes_without_asking(tmp_path: Path, spec: str) -> None:
    journal = read_journal(write(tmp_path / "r.jsonl", {**REFEREE_HEADER, "launcher": spec}))
    assert journal_module.confirm_launcher(journal, None, interactive=False, ask=input) == spec


@pytest.mark.parametrize(("answer", "expected"), [("n", "names the hardware launcher"), ("y", "")])
def test_at_a_terminal_the_hardware_launcher_is_asked_for(
    tmp_path: Path, answer: str, expected: str
) -> None:
    import pexpect

    spec = f"serial://{tmp_path}/no-such-port"
    path = write(tmp_path / "r.jsonl", {**REFEREE_HEADER, "launcher": spec})
    child = pexpect.spawn(
        sys.executable,
        ["-m", "game", "referee", "--resume", str(path), "--delay", "0"],
        encoding="utf-8",
        timeout=60,
    )
    child.expect(rf"drives the launcher {spec}\. Use it for this game\? \[y/N\] ")
    child.sendline(answer)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2 and "Traceback" not in (child.before or "")
    # "y": the journal's launcher is really opened (here: a port that does not exist)
    assert expected in (child.before or "") if expected else "no-such-port" in child.before


@pytest.mark.parametrize("command", ["referee", "replay"])
def test_an_entry_the_rules_refuse_names_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    entry = {"type": "entry", "op": "hit", "seat": 99, "count": 1}
    start = {"type": "entry", "op": "play", "card": "R7"}
    path = write(
        tmp_path / "r.jsonl", REFEREE_HEADER, start, {"type": "press", "counted": 0}, entry
    )
    before = path.read_bytes()
    argv = [command, str(path)] if command == "replay" else [command, "--resume", str(path)]
    status, err = run_cli(capsys, *argv)
    assert status == 2 and f"{path}: line 4: this entry cannot be replayed" in err
    assert path.read_bytes() == before
