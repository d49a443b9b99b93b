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
def _build(cls: type[Any], data: dict[str, Any], where: str) -> Any:
    data = {k: v for k, v in data.items() if k != "type"}
    try:
        return cls(**data)
    except TypeError as error:
        raise SessionError(f"{where}: unexpected fields ({error})") from None


def _check_press(press: Press, where: str) -> Press:
    numbers = (press.n, press.count, press.loaded, press.since_reload)
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in numbers) or min(numbers) < 0:
        raise SessionError(f"{where}: n, count, loaded and since_reload must be whole numbers >= 0")
    return press


def _parse_lines(path: Path, raw: bytes) -> tuple[list[dict[str, Any]], bool, int]:
    """Records, whether the last line was cut off, and the byte length of the good part."""
    records: list[dict[str, Any]] = []
    lines = raw.split(b"\n")
    good = 0
    for number, line in enumerate(lines, start=1):
        end = good + len(line) + (1 if number < len(lines) else 0)
        if line.strip():
            try:
                records.append(json.loads(line))
            except (json.JSONDecodeError, UnicodeDecodeError):
                if any(rest.strip() for rest in lines[number:]):
                    raise SessionError(f"{path}:{number}: not a JSON record") from None
                return records, True, good
        good = end
    return records, False, good


def read_session(path: str | Path) -> Session:
    """Read a session file; a cut-off final line is dropped and reported in ``truncated``."""
    source = Path(path)
    raw = read_user_bytes(source, what="session", limit=MAX_DATA_BYTES, error=SessionError)
    records, truncated, good = _parse_lines(source, raw)
    if not records or records[0].get("type") != "session":
        raise SessionError(f'{source}:1: expected a session header line with "type": "session"')
    header: SessionHeader = _build(SessionHeader, records[0], f"{source}:1")
    if header.schema != SESSION_SCHEMA:
        raise SessionError(
            f"{source}:1: field schema is {header.schema!r}, expected {SESSION_SCHEMA}"
        )
    presses = [
        _check_press(_build(Press, r, f"{source}:{i}"), f"{source}:{i}")
        for i, r in enumerate(records[1:], start=2)
        if r.get("type") == "press"
    ]
    return Session(source, header, presses, truncated, good)


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
        """Reopen for appending, first cutting off a partial last line."""
        with session.path.open("rb+") as raw:
            raw.truncate(session.good_bytes)
            if session.good_bytes:
                raw.seek(session.good_bytes - 1)
                if raw.read(1) != b"\n":
                    raw.write(b"\n")
        return cls(session.path.open("a", encoding="utf-8"))

    def append(self, press: Press) -> None:
        self._write(press.to_json())

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
