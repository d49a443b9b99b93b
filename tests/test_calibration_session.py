"""Session files: one JSON line per press, durable per press, a cut-off last line tolerated."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from launcher import ScriptedLauncher, open_launcher
from launcher.calibration.record import ManualLauncher, Recorder
from launcher.calibration.session import (
    Press,
    SessionError,
    SessionHeader,
    SessionWriter,
    read_session,
)


def _header(**changes: object) -> SessionHeader:
    values: dict[str, object] = dict(
        launcher="sim://", cards_loaded=12, reload_below=4, presses_planned=10
    )
    values.update(changes)
    return SessionHeader(**values)  # type: ignore[arg-type]


def test_each_press_is_on_disk_before_the_next_starts(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    seen: list[int] = []
    with SessionWriter.create(path, _header()) as writer:
        recorder = Recorder(
            ScriptedLauncher([2, 0, 5]),
            writer,
            _header(),
            on_press=lambda press: seen.append(len(read_session(path).presses)),
        )
        recorder.run(6)
    assert seen == [1, 2, 3, 4, 5, 6]  # readable from another process after every single press


def test_reloads_and_loads_are_recorded(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    with SessionWriter.create(path, _header()) as writer:
        Recorder(ScriptedLauncher([5]), writer, _header()).run(5)
    session = read_session(path)
    # 12 loaded; 5 -> 7 left; 5 -> 2 left (< 4: top up to 12 before the next press)
    assert [p.loaded for p in session.presses] == [12, 7, 12, 7, 12]
    assert [p.since_reload for p in session.presses] == [1, 2, 1, 2, 1]
    assert session.counts.tolist() == [5] * 5


def test_motor_time_from_volley_meta_is_kept(tmp_path: Path) -> None:
    launcher = open_launcher("gpio://?mock=1&seed=1") if _has_gpio() else None
    if launcher is None:
        pytest.skip("launcher/gpio.py is not there yet")
    path = tmp_path / "g.jsonl"
    header = _header(launcher="gpio://?mock=1", cards_loaded=40)
    with SessionWriter.create(path, header) as writer:
        Recorder(launcher, writer, header).run(10)
    assert all(p.motor_ms is not None for p in read_session(path).presses)


def _has_gpio() -> bool:
    return (Path(__file__).parent.parent / "launcher" / "gpio.py").exists()


def test_truncated_last_line_is_dropped_and_trimmed_on_resume(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    with SessionWriter.create(path, _header()) as writer:
        Recorder(ScriptedLauncher([1]), writer, _header()).run(3)
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"type": "press", "n": 4, "cou')  # the power went out mid-write
    session = read_session(path)
    assert session.truncated and len(session.presses) == 3
    with SessionWriter.resume(session) as writer:
        writer.append(Press(n=4, count=2, loaded=9, since_reload=1))
    again = read_session(path)
    assert not again.truncated and again.counts.tolist() == [1, 1, 1, 2]
    assert all(json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())


def test_a_bad_line_in_the_middle_is_an_error_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    with SessionWriter.create(path, _header()) as writer:
        Recorder(ScriptedLauncher([1]), writer, _header()).run(2)
    lines = path.read_text(encoding="utf-8").splitlines()
    lines.insert(2, "garbage")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(SessionError, match=r"s.jsonl:3: not a JSON record"):
        read_session(path)


@pytest.mark.parametrize(
    "content, message",
    [
        ('{"type": "press", "n": 1}\n', "expected a session header"),
        (
            '{"type": "session", "launcher": "x", "cards_loaded": 1, "reload_below": 0, '
            '"presses_planned": 1, '
            '"schema": 9}\n',
            "field schema is 9, expected 1",
        ),
        (
            '{"type": "session", "launcher": "x", "cards_loaded": 1, "reload_below": 0, '
            '"presses_planned": 1}\n'
            '{"type": "press", "n": 1, "count": -2, "loaded": 1, "since_reload": 1}\n',
            r"bad.jsonl:2: field count is -2, expected a whole number from 0 to 1000",
        ),
    ],
)
def test_malformed_sessions_are_refused_clearly(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(SessionError, match=message):
        read_session(path)


def test_existing_session_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    SessionWriter.create(path, _header()).close()
    with pytest.raises(SessionError, match="already exists"):
        SessionWriter.create(path, _header())


def test_manual_launcher_asks_with_the_session_press_number() -> None:
    asked: list[tuple[int, int]] = []
    told: list[str] = []

    def ask(number: int, loaded: int) -> int:
        asked.append((number, loaded))
        return 1

    launcher = ManualLauncher(ask, told.append, first_number=7)
    launcher.load(range(5))
    launcher.hit()
    launcher.hit()
    assert asked == [(7, 5), (8, 4)]
    assert "hopper holds 5 cards" in told[0]


_HEADER = (
    '{"type": "session", "launcher": "sim://", "cards_loaded": 90, "reload_below": 10, '
    '"presses_planned": 5}'
)


def _press(n: int, count: object = 1) -> str:
    return json.dumps({"type": "press", "n": n, "count": count, "loaded": 90, "since_reload": n})


@pytest.mark.parametrize(
    "lines, message",
    [
        ([_HEADER, "[1, 2, 3]", _press(2)], r"bad.jsonl:2: expected a press record"),
        ([_HEADER, "5", _press(2)], r"bad.jsonl:2: expected a press record"),
        ([_HEADER.replace("90", '"many"', 1), _press(1)], r"bad.jsonl:1: field cards_loaded is"),
        ([_HEADER, _press(1), _press(2), _press(2)], r"bad.jsonl:4: field n: press 2 is already"),
        ([_HEADER, _press(1, 100_000_000_000)], r"bad.jsonl:2: field count is 100000000000"),
        ([_HEADER, _press(1, 2.5)], r"bad.jsonl:2: field count is 2.5"),
        ([_HEADER, _press(1, True)], r"bad.jsonl:2: field count is True"),
        (["[1]", _press(1)], r"bad.jsonl:1: expected a session header"),
        ([_HEADER.replace('"sim://"', "null"), _press(1)], r"bad.jsonl:1: field launcher is None"),
        ([_HEADER, '{"type": "press", "n": 1}'], r"bad.jsonl:2: field 'count' is missing"),
        ([_HEADER, _press(1)[:-1] + ', "colour": 3}'], r"bad.jsonl:2: unknown field 'colour'"),
        ([_HEADER, "{not json", _press(2)], r"bad.jsonl:2: not a JSON record"),
        ([_HEADER, _press(1), "{not json"], r"bad.jsonl:3: not a JSON record"),
    ],
)
def test_every_record_is_checked_against_its_schema_on_read(
    tmp_path: Path, lines: list[str], message: str
) -> None:
    """Issue 17: wrong shapes and types, duplicates and absurd counts are refused by line/field."""
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(SessionError, match=message):
        read_session(path)


def test_only_a_last_line_without_newline_is_forgiven(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(_HEADER + "\n" + _press(1) + "\n" + '{"type": "pre', encoding="utf-8")
    session = read_session(path)
    assert session.truncated and session.counts.tolist() == [1]


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write a read-only file")
def test_resume_on_a_read_only_session_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(_HEADER + "\n" + _press(1) + "\n" + '{"cut', encoding="utf-8")
    before = path.read_bytes()
    path.chmod(0o444)
    try:
        with pytest.raises(SessionError, match="not writable"):
            SessionWriter.resume(read_session(path))
    finally:
        path.chmod(0o644)
    assert path.read_bytes() == before


def test_a_session_the_system_refuses_to_open_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same refusal when the kernel says no (as it does for root only on odd filesystems)."""
    path = tmp_path / "s.jsonl"
    path.write_text(_HEADER + "\n" + _press(1) + "\n", encoding="utf-8")
    session = read_session(path)

    def refuse(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "open", refuse)
    with pytest.raises(SessionError, match=r"s.jsonl: cannot resume \(Permission denied\)"):
        SessionWriter.resume(session)
