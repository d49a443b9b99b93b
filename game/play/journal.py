"""Crash-safe game journals: append-only JSON Lines, one flushed and fsync'd line per record.

A journal is everything needed to rebuild a game, never a snapshot of its
state: the first line is a *header* (mode, ruleset, seed, options, seats,
launcher spec), then one line per completed decision (``move`` for a virtual
game, ``entry`` for a refereed one) and one ``press`` line per launcher press
with the number of cards that came out. Resuming rebuilds the game from the
header and re-applies the decisions, so the random stream continues exactly
where it stopped. Launcher presses are chance outcomes: the journaled counts
are fed back by the press driver (:class:`game.play.driver.Presser`) instead of
pressing, so a resume never presses a real launcher again for cards that are
already in someone's hand (a seeded ``sim://`` launcher is still pressed, to
keep its random stream in step).

A crash (``kill -9``, a power cut) can cut the last line short. Such a line is
detected (no newline at the end) and dropped; every complete line, the last one
included, must fit its record kind's schema (:mod:`game.play.journal_schema`), or the
journal is refused with a :class:`~game.core.errors.JournalError` that names the file,
the line and the field.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from game.core.errors import GameError, JournalError, RulesetError
from game.play.journal_schema import body_problem, header_problem, show
from hardware.files import MAX_DATA_BYTES, create_secret, read_user_bytes

JOURNAL_VERSION = 1
HEADER = "header"
MOVE = "move"  #: a player's moves, or (with ``"chance": true``) a press outcome ``fired:N``
ENTRY = "entry"
PRESS = "press"
NOTE = "note"
RECORD_TYPES = frozenset({HEADER, MOVE, ENTRY, PRESS, NOTE})

Record = dict[str, Any]


@dataclass
class Journal:
    """A journal read back from disk: its header and the complete records after it."""

    path: Path
    header: Record
    records: list[Record] = field(default_factory=list)
    #: True when a cut-off last line was found and dropped.
    dropped_tail: bool = False
    #: Length in bytes of the valid part of the file (what a resume keeps).
    valid_bytes: int = 0

    def of_type(self, kind: str) -> list[Record]:
        return [record for record in self.records if record["type"] == kind]

    def numbered(self, kind: str) -> list[tuple[int, Record]]:
        """(line number in the file, record) for each record of ``kind``, for error messages."""
        return [(i, r) for i, r in enumerate(self.records, start=2) if r["type"] == kind]

    @property
    def decisions(self) -> list[Record]:
        """The players' moves (virtual game) or entries (refereed game), in order."""
        return [
            record
            for record in self.records
            if record["type"] in (MOVE, ENTRY) and not record.get("chance")
        ]

    @property
    def press_counts(self) -> list[int]:
        """The chance outcomes (cards counted per press), in order.

        A ``play`` journal writes each as a move record ``{"chance": true, "moves":
        ["fired:N"]}``; a ``referee`` journal (and journals of older versions) as a
        ``press`` record with ``counted``.
        """
        counts = []
        for record in self.records:
            if record["type"] == PRESS:
                counts.append(int(record["counted"]))
            elif record["type"] == MOVE and record.get("chance"):
                counts += [int(text.partition(":")[2]) for text in record.get("moves", [])]
        return counts


def encode(record: Record) -> bytes:
    """One record as one JSON line (stable key order, so identical games give identical files)."""
    return (json.dumps(record, sort_keys=True, separators=(",", ":")) + "\n").encode("utf-8")


def check_replayed_moves(record: Record, seat: int, made: list[str], who: str) -> None:
    """While resuming, a bot's moves must be the ones its journal line holds.

    Bots are seeded, so a difference means the journal was written by another version of the
    bots or engine, or edited: continuing would fork the game silently.
    """
    expected = (record.get("seat"), list(record.get("moves", [])))
    if expected != (seat, made):
        raise JournalError(
            f"the journal says seat {expected[0]} made {expected[1]}, but {who} chose "
            f"{made}: it was written by a different version or edited"
        )


def read_journal(path: str | os.PathLike[str]) -> Journal:
    """Read and check a journal; a cut-off last line is dropped, anything else bad is an error.

    Only a last line without its newline counts as cut off (a crash in the middle of a
    write). Every complete line must be a JSON object that fits its record kind's schema
    (:mod:`game.play.journal_schema`), the last one included.
    """
    path = Path(path)
    data = read_user_bytes(path, what="journal", limit=MAX_DATA_BYTES, error=JournalError)
    lines = list(_split_lines(data))
    if not lines:
        raise JournalError(f"journal {path} is empty: it has no header line")
    journal = Journal(path, header={})
    for number, (start, raw, complete) in enumerate(lines, start=1):
        if not complete:  # only ever the last line: the write a crash interrupted
            journal.dropped_tail = True
            break
        record = _decode(raw)
        if record is None:
            raise field_error(path, number, "(line)", "a JSON object", _preview(raw))
        _check_record(path, number, record, journal.header.get("mode", ""))
        if number == 1:
            journal.header = record
        else:
            journal.records.append(record)
        journal.valid_bytes = start + len(raw) + 1
    if not journal.header:
        raise JournalError(
            f"journal {path}: the header line is cut off; the game cannot be rebuilt"
        )
    return journal


@contextmanager
def blaming(journal: Journal, field: str) -> Iterator[None]:
    """Report a rules error found while building a game from a header as that header's field."""
    try:
        yield
    except (RulesetError, GameError) as error:
        raise JournalError(
            f"{journal.path}: line 1: field {field}: {error}", hint=error.hint
        ) from None


def field_error(path: Path, number: int, name: str, expected: str, got: str) -> JournalError:
    """The one way a bad journal line is reported: file, line, field, expected, got."""
    return JournalError(
        f"{path}: line {number}: field {name}: expected {expected}, got {got}",
        hint="the journal was changed or damaged after it was written; fix or remove that "
        "line (only a last line cut off mid-write, without its newline, is dropped for you)",
    )


def _split_lines(data: bytes) -> Iterator[tuple[int, bytes, bool]]:
    """(offset, line without newline, ended with a newline) for every line of ``data``."""
    start = 0
    while start < len(data):
        end = data.find(b"\n", start)
        if end < 0:
            yield start, data[start:], False
            return
        yield start, data[start:end], True
        start = end + 1


def _decode(raw: bytes) -> Record | None:
    try:
        value = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _preview(raw: bytes) -> str:
    text = raw[:40].decode("utf-8", errors="replace")
    return repr(text + ("…" if len(raw) > 40 else ""))


#: First lines of the project's other JSON Lines files, and what each file is.
OTHER_FILES = {
    "session": "a calibration session (written by `calibrate record`; `calibrate fit` reads it)",
    "sim_game": "a simulation log (written by `simulate --log`)",
}


def _check_record(path: Path, number: int, record: Record, mode: str) -> None:
    if number == 1 and record.get("type") in OTHER_FILES:
        raise JournalError(
            f"{path} is {OTHER_FILES[str(record.get('type'))]}, not a game journal",
            hint="a game journal is the file `play --journal FILE` or `referee --journal FILE` "
            "wrote",
        )
    if number == 1 and record.get("type") == HEADER and record.get("version") != JOURNAL_VERSION:
        raise JournalError(
            f"{path}: line 1: field version: journal version {show(record.get('version'))}, "
            f"this program reads {JOURNAL_VERSION}"
        )
    problem = header_problem(record) if number == 1 else body_problem(mode, record)
    if problem is not None:
        raise field_error(path, number, *problem)


class JournalWriter:
    """Appends records to a journal file; every record is on disk before :meth:`append` returns."""

    def __init__(self, path: Path, handle: IO[bytes], *, sync: bool = True) -> None:
        self.path = path
        self._handle = handle
        self._sync = sync

    @classmethod
    def create(
        cls, path: str | os.PathLike[str], header: Record, *, sync: bool = True
    ) -> JournalWriter:
        """Start a new journal; refuses to overwrite a journal that already has content.

        The journal holds the game's seed (it replays every hand), so it is created 0600.
        """
        path = Path(path)
        try:
            handle = create_secret(path, reuse_empty=True)
        except FileExistsError:
            raise JournalError(
                f"journal {path} already exists",
                hint=f"continue it with --resume {path}, or choose another file name",
            ) from None
        except OSError as error:
            raise JournalError(f"cannot create journal {path}: {error.strerror or error}") from None
        writer = cls(path, handle, sync=sync)
        writer.append({**header, "type": HEADER, "version": JOURNAL_VERSION})
        return writer

    @classmethod
    def reopen(cls, journal: Journal, *, sync: bool = True) -> JournalWriter:
        """Continue a journal read by :func:`read_journal`.

        A truncated tail is cut off only when the first new record is written, so a resume
        that is refused while the journal is replayed leaves the file exactly as it was.
        """
        try:
            handle = open(journal.path, "r+b")  # noqa: SIM115 - closed by JournalWriter.close
        except OSError as error:
            raise JournalError(
                f"cannot append to journal {journal.path}: {error.strerror or error}"
            ) from None
        writer = cls(journal.path, handle, sync=sync)
        writer._cut_at = journal.valid_bytes
        return writer

    _cut_at: int | None = None

    def append(self, record: Record) -> None:
        if self._cut_at is not None:
            self._handle.truncate(self._cut_at)
            self._handle.seek(self._cut_at)
            self._cut_at = None
        self._handle.write(encode(record))
        self._handle.flush()
        if self._sync:
            os.fsync(self._handle.fileno())

    def close(self) -> None:
        if not self._handle.closed:
            self._handle.close()

    def __enter__(self) -> JournalWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextmanager
def journal_session(
    resume: str | None,
    journal_path: str | None,
    fresh: Callable[[], Record],
    resumed: Callable[[Journal], Record],
) -> Iterator[tuple[Record, Journal | None, JournalWriter | None]]:
    """The settings, the journal being resumed and the writer for a ``--journal``/``--resume`` pair.

    ``fresh()`` builds settings for a new game, ``resumed(journal)`` from a journal's header;
    the writer (if any) is closed when the block ends, whatever happens in it.
    """
    if resume and journal_path:
        raise JournalError("--resume FILE continues writing FILE; do not also give --journal")
    journal = read_journal(resume) if resume else None
    settings = resumed(journal) if journal else fresh()
    if journal:
        writer: JournalWriter | None = JournalWriter.reopen(journal)
    else:
        writer = JournalWriter.create(journal_path, settings) if journal_path else None
    try:
        yield settings, journal, writer
    finally:
        if writer is not None:
            writer.close()


#: Launcher schemes that never move hardware: a journal may name them freely.
SIMULATED_SCHEMES = frozenset({"sim", "emu", "pile", "pico-sim"})


def confirm_launcher(
    journal: Journal,
    given: str | None,
    *,
    interactive: bool,
    ask: Callable[[str], str],
) -> str:
    """The launcher a resumed game may use: the journal's, and hardware only if the user agrees.

    A journal is a file anyone can hand over; its header must not make the command drive
    a GPIO pin or a serial device the user never named. A hardware launcher is used only
    when ``--launcher`` names it again, or the user confirms it at a terminal.
    """
    spec = str(journal.header["launcher"])
    mode = journal.header.get("mode")
    again = f"uno-attack {mode} --resume {journal.path} --launcher '{spec}'"
    if given is not None and given != spec:
        raise JournalError(
            f"--launcher {given} is not the launcher of {journal.path} ({spec}): "
            "a resumed game keeps its launcher",
            hint=f"to resume on it, run: {again}",
        )
    if given == spec or spec.partition("://")[0].lower() in SIMULATED_SCHEMES:
        return spec
    refusal = JournalError(
        f"{journal.path} names the hardware launcher {spec}; it is not used unless you "
        "name it again or confirm it",
        hint=f"if it is your launcher, run: {again}",
    )
    if not interactive:
        raise refusal
    try:
        answer = ask(f"{journal.path} drives the launcher {spec}. Use it for this game? [y/N] ")
    except EOFError:
        raise refusal from None
    if answer.strip().lower() not in ("y", "yes"):
        raise refusal
    return spec
