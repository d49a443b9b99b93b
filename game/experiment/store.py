"""The results file: JSON Lines, one line per finished task, resumable.

Line 1 is the run header ``{"kind": "run", "schema", "seed", "chunk"}``; every other
line is one task's record (:func:`game.experiment.play.play_task`). Lines are appended
and flushed to disk as tasks finish, in any order; a rerun with the same seed and chunk
size skips the tasks already present, so a killed run loses at most the tasks in
flight. A last line cut short by a crash is dropped when the file is reopened.
Aggregation sorts records by cell and chunk, so the order of lines never matters.

One writer at a time: a run holds an exclusive ``flock`` on ``OUT.lock`` (created 0600,
never through a link, holding its pid, start time and command) for as long as it has the
file open, so a second ``experiment run`` on the same ``--out`` stops at once and names
the first (it used to append the same tasks again: 48 records for 33 tasks).
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from game.experiment.grid import SCHEMA, GridError
from hardware.files import (
    MAX_DATA_BYTES,
    PathError,
    atomic_write_text,
    check_output,
    read_user_bytes,
)


class ResultsError(GridError):
    """A results file that does not belong to this run, or is not a results file."""

    hint = "write to another --out file, or add --restart to start it over"


class ResultsUnreadable(ResultsError):
    """A results file that cannot be read at all (missing, not JSON Lines, another schema).

    Its hint names no option: ``experiment report`` has no ``--out`` or ``--restart``.
    """

    hint = "give the results file that `uno-attack experiment run --out FILE` wrote"


def read_records(path: str | os.PathLike[str]) -> tuple[dict[str, Any] | None, list[dict]]:
    """The header and the complete task records of a results file (a cut-short tail ignored)."""
    raw = read_user_bytes(path, what="results file", limit=MAX_DATA_BYTES, error=ResultsUnreadable)
    lines = raw.split(b"\n")
    if lines and lines[-1].strip():
        lines = lines[:-1]  # no newline yet: a record cut short by a crash
    header: dict[str, Any] | None = None
    records = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise ResultsUnreadable(f"{path}: line {number} is not JSON") from None
        if not isinstance(item, dict):
            raise ResultsUnreadable(f"{path}: line {number} is not a JSON object")
        if item.get("kind") == "run":
            header = item
        elif item.get("kind") == "task":
            records.append(item)
    if header is None and records:
        raise ResultsUnreadable(f"{path}: no run header line; is it an experiment results file?")
    if header is not None and header.get("schema") != SCHEMA:
        raise ResultsUnreadable(
            f"{path}: results of schema {header.get('schema')}, this version writes {SCHEMA}"
        )
    return header, records


class ResultsLocked(ResultsError):
    """Another process is writing the same results file."""

    hint = "wait for it to finish (or stop it), or write to another --out file"


class WriterLock:
    """The exclusive lock of one results file's writer, on ``OUT.lock`` beside it."""

    def __init__(self, results: Path) -> None:
        self.path = results.with_name(results.name + ".lock")
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            self._fd = os.open(self.path, flags, 0o600)
        except OSError as error:
            raise PathError(f"{self.path}: cannot open the lock ({error.strerror})") from None
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(self._fd, 4096, 0).decode("utf-8", "replace").strip()
            os.close(self._fd)
            raise ResultsLocked(
                f"--out {results} is being written by another experiment run "
                f"({holder or 'a process that left no name'}); nothing was run"
            ) from None
        started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime())
        who = f"pid {os.getpid()}, since {started}: {' '.join(sys.argv[:8])}"
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, who.encode("utf-8", "replace") + b"\n", 0)

    def release(self) -> None:
        """Remove the lock file (still holding the lock, so no newer one goes) and unlock."""
        if self._fd < 0:
            return
        try:
            if os.fstat(self._fd).st_ino == os.stat(self.path).st_ino:
                os.unlink(self.path)
        except OSError:
            pass
        os.close(self._fd)
        self._fd = -1


class ResultsFile:
    """Append task records to ``path``; :attr:`done` holds the keys already there."""

    def __init__(self, path: str, *, seed: int, chunk: int, restart: bool = False) -> None:
        self.path = Path(path)
        self._lock = WriterLock(self.path)
        try:
            self._open(seed=seed, chunk=chunk, restart=restart)
        except BaseException:
            self._lock.release()
            raise

    def _open(self, *, seed: int, chunk: int, restart: bool) -> None:
        self.header = {"kind": "run", "schema": SCHEMA, "seed": seed, "chunk": chunk}
        self.done: set[str] = set()
        self._stream: IO[str] | None = None
        exists = self.path.exists() or self.path.is_symlink()
        if exists and not restart:
            self._resume()
            return
        if exists:
            self._check_is_results()  # --restart discards experiment results, nothing else
        check_output(self.path, what="--out", force=restart, suffixes=["jsonl"])
        atomic_write_text(self.path, json.dumps(self.header, sort_keys=True) + "\n")

    def _check_is_results(self) -> None:
        header, _ = read_records(self.path)
        if header is None:
            raise ResultsError(
                f"--out {self.path} holds no experiment results; --restart only starts "
                "a results file over, nothing was written",
                hint="choose another --out",
            )

    def _resume(self) -> None:
        header, records = read_records(self.path)
        if header is None:
            raise ResultsError(
                f"--out {self.path} exists and holds no experiment results; nothing was run",
                hint="choose another --out",
            )
        for key in ("seed", "chunk"):
            if header.get(key) != self.header[key]:
                raise ResultsError(
                    f"--out {self.path} holds a run with {key} {header.get(key)}, "
                    f"not {self.header[key]}; nothing was run",
                    hint=f"rerun with --{key} {header.get(key)} to resume it, "
                    "or choose another --out (or --restart to start it over)",
                )
        self._drop_cut_tail()
        self.done = {r["key"] for r in records}

    def _drop_cut_tail(self) -> None:
        raw = self.path.read_bytes()
        end = raw.rfind(b"\n") + 1
        if end != len(raw):
            with self.path.open("r+b") as stream:
                stream.truncate(end)

    def append(self, record: dict[str, Any]) -> None:
        """Write one record and flush it to disk (a crash after this keeps it)."""
        if self._stream is None:
            try:
                self._stream = self.path.open("a", encoding="utf-8")
            except OSError as error:
                raise PathError(f"{self.path}: cannot write ({error.strerror})") from None
        self._stream.write(json.dumps(record, sort_keys=True, separators=(",", ":")) + "\n")
        self._stream.flush()
        os.fsync(self._stream.fileno())
        self.done.add(record["key"])

    def close(self) -> None:
        """Close the file (every record is on disk already) and let another writer in."""
        if self._stream is not None:
            self._stream.close()
            self._stream = None
        self._lock.release()

    def __enter__(self) -> ResultsFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def iter_games(records: list[dict[str, Any]]) -> Iterator[tuple[str, dict[str, Any], list]]:
    """(cell key, cell, games in order) per cell, cells sorted.

    A chunk present twice (a grid that grew: the short last chunk and later the full one)
    counts once, with its larger record, whose first games are the smaller one's.
    """
    by_cell: dict[str, dict[int, dict[str, Any]]] = {}
    cells: dict[str, dict[str, Any]] = {}
    for record in records:
        key = record["key"].rsplit("#", 1)[0]
        chunks = by_cell.setdefault(key, {})
        index = int(record["chunk"])
        if index not in chunks or len(record["games"]) > len(chunks[index]["games"]):
            chunks[index] = record
        cells[key] = record["cell"]
    for key in sorted(by_cell, key=lambda k: _order(cells[k])):
        chunks = by_cell[key]
        games = [g for c in sorted(chunks) for g in chunks[c]["games"]]
        yield key, cells[key], games


def _order(cell: dict[str, Any]) -> tuple[Any, ...]:
    """Cells in a reading order: ruleset, players, profile, bots, options."""
    options = sorted(cell["options"].items())
    return (cell["ruleset"], cell["players"], cell["profile"], cell["bots"], options)
