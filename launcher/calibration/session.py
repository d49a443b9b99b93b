"""Calibration session files: JSON Lines, one header line then one line per press.

The header (``"type": "session"``) records the launcher spec, how many cards
are loaded, when to reload, batteries and notes, the start time and the
schema. Each press line records its number, the count, the load before the
press, the press number since the hopper was last (re)loaded and, when the
launcher reports it, the motor time. Lines are flushed and fsync'd one at a
time, so a crash or Ctrl-C loses at most the press in progress; a cut-off last
line is tolerated on reading and trimmed before a resumed session appends.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from hardware.errors import ConfigError
from hardware.files import MAX_DATA_BYTES, read_user_bytes

if TYPE_CHECKING:  # numpy is the analysis extra: `launcher serve --log` writes without it
    import numpy as np
    import numpy.typing as npt

SESSION_SCHEMA = 1


class SessionError(ConfigError):
    """A calibration session file that cannot be read or continued; names the file and line."""

    hint = (
        "a session is a JSON Lines file written by `uno-attack calibrate record`; "
        "only its last line may be cut off"
    )


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class SessionHeader:
    """What was measured, with what, under which conditions."""

    launcher: str
    cards_loaded: int
    reload_below: int
    presses_planned: int
    manual: bool = False
    batteries: str = ""
    notes: str = ""
    started: str = field(default_factory=now)
    seed: int | None = None
    schema: int = SESSION_SCHEMA

    def to_json(self) -> dict[str, Any]:
        return {"type": "session", **asdict(self)}


@dataclass(frozen=True)
class Press:
    """One press: ``count`` cards came out with ``loaded`` cards in the hopper beforehand."""

    n: int
    count: int
    loaded: int
    since_reload: int
    time: str = field(default_factory=now)
    motor_ms: float | None = None

    def to_json(self) -> dict[str, Any]:
        data = {"type": "press", **asdict(self)}
        if self.motor_ms is None:
            del data["motor_ms"]
        return data


@dataclass
class Session:
    """A session read back: its header, its presses and whether the last line was cut off."""

    path: Path
    header: SessionHeader
    presses: list[Press]
    truncated: bool = False
    good_bytes: int = 0

    @property
    def counts(self) -> npt.NDArray[np.int64]:
        import numpy as np

        return np.array([p.count for p in self.presses], dtype=np.int64)

    @property
    def loads(self) -> npt.NDArray[np.int64]:
        import numpy as np

        return np.array([p.loaded for p in self.presses], dtype=np.int64)

    @property
    def since_reload(self) -> npt.NDArray[np.int64]:
        import numpy as np

        return np.array([p.since_reload for p in self.presses], dtype=np.int64)

    @property
    def motor_ms(self) -> npt.NDArray[np.float64]:
        import numpy as np

        return np.array([np.nan if p.motor_ms is None else p.motor_ms for p in self.presses])

    @property
    def label(self) -> str:
        return self.path.name


# -- reading --------------------------------------------------------------------------
#: A press that shoots more cards than this is a typing or file error, not a measurement.
MAX_COUNT = 1000
#: More cards than any hopper holds; bounds ``cards_loaded``, ``reload_below`` and ``loaded``.
MAX_CARDS = 10_000

_WHOLE = "a whole number"
_TEXT = "a string"


def _is_whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _whole_in(low: int, high: int | None = None) -> tuple[Any, str]:
    def check(value: Any) -> bool:
        return _is_whole(value) and value >= low and (high is None or value <= high)

    bound = f" from {low} to {high}" if high is not None else f" >= {low}"
    return check, _WHOLE + bound


def _text(value: Any) -> bool:
    return isinstance(value, str)


def _optional_whole(value: Any) -> bool:
    return value is None or _is_whole(value)


def _optional_number(value: Any) -> bool:
    return value is None or (
        isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value < 1e9
    )


#: The one schema of each record kind: field -> (check, what is expected); required ones first.
HEADER_SCHEMA: dict[str, tuple[Any, str]] = {
    "launcher": (_text, _TEXT),
    "cards_loaded": _whole_in(0, MAX_CARDS),  # 0: a `launcher serve` log with no --cards
    "reload_below": _whole_in(0, MAX_CARDS),
    "presses_planned": _whole_in(0),  # 0: open-ended (`launcher serve`)
    "manual": (lambda v: isinstance(v, bool), "true or false"),
    "batteries": (_text, _TEXT),
    "notes": (_text, _TEXT),
    "started": (_text, _TEXT),
    "seed": (_optional_whole, "a whole number or null"),
    "schema": (lambda v: v == SESSION_SCHEMA, str(SESSION_SCHEMA)),
}
PRESS_SCHEMA: dict[str, tuple[Any, str]] = {
    "n": _whole_in(1),
    "count": _whole_in(0, MAX_COUNT),
    "loaded": _whole_in(0, MAX_CARDS),
    "since_reload": _whole_in(0),
    "time": (_text, _TEXT),
    "motor_ms": (_optional_number, "a number of milliseconds >= 0, or null"),
}
_REQUIRED = {
    "session": ("launcher", "cards_loaded", "reload_below", "presses_planned"),
    "press": ("n", "count", "loaded", "since_reload"),
}


def _validated(kind: str, record: Any, where: str) -> dict[str, Any]:
    """``record`` checked against the schema of ``kind``; a SessionError names line and field."""
    schema = HEADER_SCHEMA if kind == "session" else PRESS_SCHEMA
    if not isinstance(record, dict):
        raise SessionError(f"{where}: expected a JSON object (a {kind} record), got {record!r:.40}")
    fields = {k: v for k, v in record.items() if k != "type"}
    unknown = sorted(set(fields) - set(schema))
    if unknown:
        raise SessionError(f"{where}: unknown field {unknown[0]!r} in a {kind} record")
    for name in _REQUIRED[kind]:
        if name not in fields:
            raise SessionError(f"{where}: field {name!r} is missing from a {kind} record")
    for name, value in fields.items():
        check, expected = schema[name]
        if not check(value):
            raise SessionError(f"{where}: field {name} is {value!r:.40}, expected {expected}")
    return fields


def _parse_lines(path: Path, raw: bytes) -> tuple[list[tuple[int, Any]], bool, int]:
    """(line number, record) pairs, whether the last line was cut off, and the good byte length."""
    records: list[tuple[int, Any]] = []
    lines = raw.split(b"\n")
    good = 0
    for number, line in enumerate(lines, start=1):
        end = good + len(line) + (1 if number < len(lines) else 0)
        if line.strip():
            try:
                records.append((number, json.loads(line)))
            except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
                if number < len(lines) or any(rest.strip() for rest in lines[number:]):
                    raise SessionError(f"{path}:{number}: not a JSON record") from None
                return records, True, good
        good = end
    return records, False, good


def _presses(source: Path, records: list[tuple[int, Any]]) -> list[Press]:
    presses: list[Press] = []
    seen: dict[int, int] = {}
    for number, record in records:
        where = f"{source}:{number}"
        kind = record.get("type") if isinstance(record, dict) else None
        if kind != "press":
            raise SessionError(f'{where}: expected a press record with "type": "press"')
        press = Press(**_validated("press", record, where))
        if press.n in seen:
            raise SessionError(
                f"{where}: field n: press {press.n} is already on line {seen[press.n]}",
                hint="a session lists each press once; was a file appended to itself?",
            )
        seen[press.n] = number
        presses.append(press)
    return presses


def read_session(path: str | Path) -> Session:
    """Read and validate a session file; a cut-off final line is dropped (``truncated``).

    Every record is checked against :data:`HEADER_SCHEMA` or :data:`PRESS_SCHEMA`
    before anything uses it: a wrong type, an unknown field, a count over
    :data:`MAX_COUNT` or a repeated press number is a :class:`SessionError`
    naming the file, the line and the field.
    """
    source = Path(path)
    raw = read_user_bytes(source, what="session", limit=MAX_DATA_BYTES, error=SessionError)
    records, truncated, good = _parse_lines(source, raw)
    first = records[0] if records else (1, None)
    if not isinstance(first[1], dict) or first[1].get("type") != "session":
        raise SessionError(
            f'{source}:{first[0]}: expected a session header line with "type": "session"'
        )
    header = SessionHeader(**_validated("session", first[1], f"{source}:{first[0]}"))
    return Session(source, header, _presses(source, records[1:]), truncated, good)


def read_sessions(paths: Iterable[str | Path]) -> list[Session]:
    sessions = [read_session(p) for p in paths]
    if not sessions:
        raise SessionError("no session files given")
    return sessions


def pooled_counts(sessions: Sequence[Session]) -> npt.NDArray[np.int64]:
    """All presses of all sessions, in order."""
    import numpy as np

    return np.concatenate([s.counts for s in sessions]) if sessions else np.zeros(0, dtype=np.int64)


# -- writing --------------------------------------------------------------------------
class SessionWriter:
    """Appends press lines, each flushed and fsync'd before the next press starts.

    ``durable=False`` skips the fsync, for bulk simulated sessions where a
    crash costs nothing (tests, benchmarks); recording always uses the default.
    """

    def __init__(self, handle: IO[str], *, durable: bool = True) -> None:
        self._handle = handle
        self._durable = durable
        #: File size before each press appended by this writer: what :meth:`remove_last` cuts to.
        self._starts: list[int] = []

    @classmethod
    def create(cls, path: str | Path, header: SessionHeader) -> SessionWriter:
        target = Path(path)
        try:
            handle = target.open("x", encoding="utf-8")
        except FileExistsError:
            raise SessionError(
                f"{target}: already exists", hint="use --resume to continue it"
            ) from None
        except OSError as error:
            raise SessionError(f"{target}: cannot create session ({error.strerror})") from None
        writer = cls(handle)
        writer._write(header.to_json())
        return writer

    @classmethod
    def resume(cls, session: Session) -> SessionWriter:
        """Reopen for appending, first cutting off a partial last line.

        Checked before anything is changed: a file that cannot be written (read-only,
        owned by someone else) is a :class:`SessionError`, and the file stays as it was.
        """
        if not os.access(session.path, os.W_OK):
            raise SessionError(
                f"{session.path}: cannot resume, the file is not writable",
                hint="check its permissions (chmod u+w), or record into a new file",
            )
        try:
            with session.path.open("rb+") as raw:
                raw.truncate(session.good_bytes)
                if session.good_bytes:
                    raw.seek(session.good_bytes - 1)
                    if raw.read(1) != b"\n":
                        raw.write(b"\n")
            return cls(session.path.open("a", encoding="utf-8"))
        except OSError as error:
            raise SessionError(f"{session.path}: cannot resume ({error.strerror})") from None

    def append(self, press: Press) -> None:
        self._handle.flush()
        self._starts.append(self._handle.seek(0, os.SEEK_END))
        self._write(press.to_json())

    def remove_last(self) -> bool:
        """Cut the last press this writer appended off the file (an undo); False if there is none.

        Only presses of this run can be removed: the file before it (a resumed
        session's earlier presses) is never touched.
        """
        if not self._starts:
            return False
        self._handle.flush()
        self._handle.seek(self._starts.pop())  # a handle opened "x" writes where it stands
        self._handle.truncate()
        if self._durable:
            os.fsync(self._handle.fileno())
        return True

    def _write(self, record: dict[str, Any]) -> None:
        self._handle.write(json.dumps(record) + "\n")
        self._handle.flush()
        if self._durable:
            os.fsync(self._handle.fileno())

    def close(self) -> None:
        self._handle.close()

    def __enter__(self) -> SessionWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
