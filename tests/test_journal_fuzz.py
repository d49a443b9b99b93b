"""A fuzzer for journal *contents*: damaged journals are refused cleanly (issue 17, §2).

It starts from real journals written by ``play`` (bots) and ``referee`` (scripted stdin)
and mutates them the way disks, editors and people do: a field of the wrong type, a
missing field, a cut line (with or without its newline), duplicated, reordered and
dropped lines, a huge record, a line in the wrong encoding. Each mutant is resumed
(``play --resume`` / ``referee --resume``) and replayed (``replay``) in-process with the
CLI fuzzer's runner, and must:

* exit 0, 1 or 2 with no traceback and no internal error;
* finish within the fuzzer's bound (an alarm; a hang is a failure);
* leave the file as it was: ``replay`` never writes, and a refused resume never writes;
  a resume that goes on may only cut a torn last line and append.

The CI run tries :data:`CI_EXAMPLES` mutants; ``-m slow`` tries :data:`SLOW_EXAMPLES`.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_cli_fuzz import run_in_process

CI_EXAMPLES = int(os.environ.get("UNO_ATTACK_JOURNAL_FUZZ_EXAMPLES", "30"))
SLOW_EXAMPLES = 400
ALLOWED_EXITS = {0, 1, 2}
REFEREE_INPUT = "R7\npress\nB7\npress\nuno Kim\nhit Kim 2\nG7\npress\nquit\n"
HOSTILE_VALUES: list[Any] = [
    "abc",
    "",
    -1,
    0,
    10**30,
    1e300,
    None,
    True,
    [],
    {},
    [1, 2],
    {"a": 1},
    "x" * 5000,
    "\udcff".encode("utf-8", "surrogateescape").decode("latin-1"),
    "fired:-1",
    "fired:99999999",
]


def _cli(*argv: str, stdin: str = "") -> None:
    subprocess.run(
        [sys.executable, "-m", "game", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )


@pytest.fixture(scope="module")
def originals(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[bytes]]:
    """Real journals, as lists of lines (without newlines)."""
    folder = tmp_path_factory.mktemp("journals")
    play = folder / "play.jsonl"
    _cli(
        "play",
        "--seats",
        "bot:greedy,bot:random",
        "--seed",
        "3",
        "--rounds",
        "1",
        "--journal",
        str(play),
        "--delay",
        "0",
    )
    referee = folder / "referee.jsonl"
    _cli(
        "referee",
        "--players",
        "Ann,Sam,Kim",
        "--launcher",
        "sim://?seed=1",
        "--seed",
        "2",
        "--journal",
        str(referee),
        "--delay",
        "0",
        stdin=REFEREE_INPUT,
    )
    journals = {"play": play.read_bytes(), "referee": referee.read_bytes()}
    assert all(data.count(b"\n") > 5 for data in journals.values())
    return {mode: data.splitlines() for mode, data in journals.items()}


def _retyped(draw: st.DrawFn, line: bytes) -> bytes:
    try:
        record = json.loads(line)
    except ValueError:
        return line
    if not isinstance(record, dict) or not record:
        return line
    key = draw(st.sampled_from(sorted(record)))
    if draw(st.booleans()):
        record[key] = draw(st.sampled_from(HOSTILE_VALUES))
    else:
        del record[key]
    return json.dumps(record).encode("utf-8", "surrogateescape")


@st.composite
def mutants(draw: st.DrawFn, lines: list[bytes]) -> tuple[bytes, str]:
    """A damaged copy of a journal and a word for what was done to it."""
    lines = list(lines)
    done = []
    for _ in range(draw(st.integers(1, 3))):
        index = draw(st.integers(0, len(lines) - 1))
        kind = draw(
            st.sampled_from(
                ["retype", "cut", "duplicate", "swap", "drop", "huge", "encoding", "junk"]
            )
        )
        done.append(f"{kind}@{index + 1}")
        if kind == "retype":
            lines[index] = _retyped(draw, lines[index])
        elif kind == "cut":
            lines[index] = lines[index][: draw(st.integers(0, len(lines[index])))]
        elif kind == "duplicate":
            lines.insert(index, lines[index])
        elif kind == "swap":
            other = draw(st.integers(0, len(lines) - 1))
            lines[index], lines[other] = lines[other], lines[index]
        elif kind == "drop" and len(lines) > 1:
            del lines[index]
        elif kind == "huge":
            lines.insert(index, json.dumps({"type": "note", "text": "x" * (1 << 20)}).encode())
        elif kind == "encoding":
            lines[index] = lines[index].decode("utf-8", "replace").encode("utf-16")
        elif kind == "junk":
            lines[index] = draw(st.sampled_from([b"", b"[1, 2, 3]", b"5", b"\xff\xfe{", b"null"]))
    torn = draw(st.booleans())  # the file ends without its last newline (a crash mid-write)
    data = b"\n".join(lines) + (b"" if torn else b"\n")
    return data, " ".join(done) + (" torn" if torn else "")


def _check(path: Path, argv: list[str], what: str, before: bytes, *, writes: bool) -> None:
    outcome = run_in_process(argv)
    assert outcome.code != -1, f"{argv} hung on a journal with {what}"
    assert outcome.code in ALLOWED_EXITS, (argv, what, outcome.err[-2000:])
    assert "Traceback" not in outcome.err and "internal error" not in outcome.err, (
        what,
        outcome.err[-2000:],
    )
    after = path.read_bytes()
    if not writes or outcome.code == 2:
        assert after == before, f"{argv} changed its input ({what})"
    else:
        kept = before if before.endswith(b"\n") else before[: before.rfind(b"\n") + 1]
        assert after.startswith(kept), f"{argv} rewrote journaled lines ({what})"


def _resume_and_replay(folder: Path, mode: str, data: bytes, what: str) -> None:
    path = folder / f"{hashlib.sha256(data).hexdigest()[:16]}.jsonl"
    path.write_bytes(data)
    _check(path, ["replay", str(path)], what, data, writes=False)
    _check(path, [mode, "--resume", str(path), "--delay", "0"], what, data, writes=True)
    path.unlink()


def _fuzz(examples: int) -> Any:
    return settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[
            HealthCheck.function_scoped_fixture,
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
        ],
    )


@_fuzz(CI_EXAMPLES)
@given(data=st.data())
def test_no_damaged_journal_crashes_hangs_or_is_changed(
    originals: dict[str, list[bytes]], tmp_path: Path, data: st.DataObject
) -> None:
    mode = data.draw(st.sampled_from(sorted(originals)))
    mutant, what = data.draw(mutants(originals[mode]))
    _resume_and_replay(tmp_path, mode, mutant, what)


@pytest.mark.slow
@_fuzz(SLOW_EXAMPLES)
@given(data=st.data())
def test_no_damaged_journal_crashes_hangs_or_is_changed_long(
    originals: dict[str, list[bytes]], tmp_path: Path, data: st.DataObject
) -> None:
    mode = data.draw(st.sampled_from(sorted(originals)))
    mutant, what = data.draw(mutants(originals[mode]))
    _resume_and_replay(tmp_path, mode, mutant, what)


def test_the_untouched_journals_resume_and_replay(
    originals: dict[str, list[bytes]], tmp_path: Path
) -> None:
    for mode, lines in originals.items():
        data = b"\n".join(lines) + b"\n"
        path = tmp_path / f"{mode}.jsonl"
        path.write_bytes(data)
        assert run_in_process(["replay", str(path)]).code == 0
        assert run_in_process([mode, "--resume", str(path), "--delay", "0"]).code == 0
