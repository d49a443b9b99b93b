"""The file-safety policy of every command: nothing the user owns is lost, nothing is half-written.

The rules (``docs/errors.md``, "Files"), each enforced here so every layer uses the same code:

* an **output** is checked before any work (:func:`check_output`): a regular file or a new
  name in a folder that exists and is writable, with a supported extension, never one of
  the command's inputs, and never an existing file unless the user said ``--force``;
* an output is written **atomically** (:func:`atomic_path`, :func:`atomic_write_text`): to a
  temporary file in the same folder, renamed over the target only once complete, removed
  on any error, so a crash leaves either the old file or the new one;
* a **user text file** (profile, pin map, custom card, session) is read by
  :func:`read_user_text`: a regular file only (a directory or ``/dev/zero`` is refused, not
  read forever), at most a documented size, and a file that is not UTF-8 is an error that
  names the file, the line and the column.

* a file that holds a **secret** (a journal: the game's seed; its ``.tokens``; an event log
  with every hand) is readable by its owner only, mode 0600, from the moment it exists:
  :func:`create_secret` creates one exclusively, ``atomic_path(..., secret=True)`` writes
  one atomically (docs/index.md, "Secrets", lists those outputs).

Every failure is a :class:`PathError` (a :class:`~hardware.errors.ConfigError`) with a hint.
Append-only journals and calibration sessions keep their own rules (they refuse to
start over an existing file and only ever append).
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from hardware.errors import ConfigError, UnoAttackError

#: Largest config-like text file read (profiles, pin maps, custom cards): 1 MiB.
MAX_TEXT_BYTES = 1 << 20
#: Largest data file read (calibration sessions, journals, event logs): 256 MiB.
MAX_DATA_BYTES = 256 << 20
#: Every temporary file this policy creates has this in its name (so leftovers can be found).
TEMP_MARK = ".uno-attack-tmp"


class PathError(ConfigError):
    """A path the user named cannot be used as asked; nothing was read or written."""

    hint = "choose another path (outputs are never overwritten without --force)"


def _named(path: str | os.PathLike[str], what: str) -> Path:
    if not str(path).strip():
        raise PathError(f"{what}: the path is empty", hint="give a file name")
    return Path(path)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and a.samefile(b))
    except OSError:
        return False


def check_output(
    path: str | os.PathLike[str],
    *,
    what: str = "output",
    force: bool = False,
    inputs: Iterable[str | os.PathLike[str]] = (),
    suffixes: Iterable[str] | None = None,
) -> Path:
    """Check that ``path`` may be written, before any work; returns it as a Path.

    Refused: an empty path, one of ``inputs``, a directory or a device, an existing file
    without ``force``, a missing or read-only folder, an extension not in ``suffixes``.
    """
    target = _named(path, what)
    for source in inputs:
        if str(source).strip() and _same_file(target, Path(source)):
            raise PathError(
                f"{what} {target} is also an input of this command",
                hint="an input is never overwritten: write the output to another file",
            )
    if suffixes is not None:
        _check_suffix(target, what, sorted(suffixes))
    _check_existing(target, what, force)
    _check_folder(target, what)
    return target


def _check_suffix(target: Path, what: str, allowed: list[str]) -> None:
    suffix = target.suffix.lower().lstrip(".")
    if suffix not in allowed:
        raise PathError(
            f"{what} {target}: extension {target.suffix or '(none)'!r} is not supported",
            hint=f"use one of: {', '.join('.' + s for s in allowed)}",
        )


def _check_existing(target: Path, what: str, force: bool) -> None:
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        return
    except OSError as error:
        raise PathError(f"{what} {target}: cannot check it ({error.strerror})") from None
    if stat.S_ISDIR(mode):
        raise PathError(f"{what} {target} is a directory", hint="give a file name inside it")
    if not stat.S_ISREG(mode):
        raise PathError(
            f"{what} {target} is not a regular file (a device, pipe or socket)",
            hint="give the name of a regular file",
        )
    if not force:
        raise PathError(
            f"{what} {target} already exists; nothing was written",
            hint="add --force to replace it, or choose another file name",
        )


def _check_folder(target: Path, what: str) -> None:
    folder = target.parent
    if not folder.is_dir():
        raise PathError(
            f"{what} {target}: the folder {folder} does not exist",
            hint=f"create it first (mkdir -p {folder}) or choose another path",
        )
    if not os.access(folder, os.W_OK | os.X_OK):
        raise PathError(f"{what} {target}: the folder {folder} is not writable")


# -- writing ----------------------------------------------------------------------------------
#: The permissions of a file that holds a secret: the owner reads and writes it, nobody else.
SECRET_MODE = 0o600


def create_secret(path: str | os.PathLike[str], *, reuse_empty: bool = False) -> IO[bytes]:
    """Create ``path`` exclusively with mode 0600 and open it for appending (binary).

    Never follows a symbolic link and never opens a file that is already there, so no
    other user ever had a moment to open it. ``reuse_empty``: an existing *empty* regular
    file (e.g. from ``mktemp``) is taken over instead, its mode set to 0600 first.
    Raises :class:`OSError` as ``os.open`` does (``FileExistsError`` for a file there).
    """
    flags = os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(path, flags | os.O_CREAT | os.O_EXCL, SECRET_MODE)
    except FileExistsError:
        if not reuse_empty:
            raise
        fd = os.open(path, flags)
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > 0:
            os.close(fd)
            raise
        os.fchmod(fd, SECRET_MODE)
    return os.fdopen(fd, "ab")


@contextmanager
def atomic_path(path: str | os.PathLike[str], *, secret: bool = False) -> Iterator[Path]:
    """A temporary path beside ``path`` (same extension) that becomes ``path`` on success.

    Write the whole output to the yielded path; when the block ends normally it is renamed
    over ``path`` in one step, and on any error (Ctrl-C included) it is removed.
    ``secret``: the file is 0600 throughout, whatever the file it replaces allowed.
    """
    target = Path(path)
    handle, name = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}.", suffix=f"{TEMP_MARK}{target.suffix}"
    )
    os.close(handle)
    temporary = Path(name)
    if not secret:  # mkstemp's 0600 would hide the file from others
        os.chmod(temporary, _mode_for(target))
    try:
        yield temporary
        os.replace(temporary, target)
    except OSError as error:
        raise PathError(f"{target}: cannot write ({error.strerror or error})") from None
    finally:
        temporary.unlink(missing_ok=True)


def _mode_for(target: Path) -> int:
    """The replaced file's permissions, or what a plain ``open(path, "w")`` would give."""
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except OSError:
        umask = os.umask(0o022)
        os.umask(umask)
        return 0o666 & ~umask


def atomic_write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically; flushed to disk before the rename."""
    with atomic_path(path) as temporary, temporary.open("w", encoding="utf-8") as stream:
        stream.write(text)
        stream.flush()
        os.fsync(stream.fileno())
    return Path(path)


def leftover_temporaries(folder: str | os.PathLike[str]) -> list[Path]:
    """Temporary files of this policy left in ``folder`` (there should never be any)."""
    return sorted(p for p in Path(folder).rglob(f"*{TEMP_MARK}*"))


# -- reading ----------------------------------------------------------------------------------
def read_user_bytes(
    path: str | os.PathLike[str],
    *,
    what: str = "file",
    limit: int = MAX_TEXT_BYTES,
    error: type[UnoAttackError] = PathError,
) -> bytes:
    """The bytes of a regular file the user named, at most ``limit`` of them."""
    source = _named(path, what)
    try:
        info = source.stat()
    except OSError as failure:
        raise error(f"{source}: cannot read {what} ({failure.strerror})") from None
    if stat.S_ISDIR(info.st_mode):
        raise error(f"{source}: cannot read {what}: it is a directory, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise error(f"{source}: cannot read {what}: not a regular file (a device, pipe or socket)")
    if info.st_size > limit:
        raise error(
            f"{source}: {what} of {info.st_size} bytes is over the limit of {limit} bytes",
            hint="is it the right file? (docs/errors.md lists the limits)",
        )
    try:
        with source.open("rb") as stream:
            raw = stream.read(limit + 1)
    except OSError as failure:
        raise error(f"{source}: cannot read {what} ({failure.strerror})") from None
    if len(raw) > limit:  # it grew since we looked
        raise error(f"{source}: {what} is over the limit of {limit} bytes")
    return raw


def decode_utf8(raw: bytes, where: str, *, error: type[UnoAttackError] = PathError) -> str:
    """UTF-8 text, or an error naming the line and column of the first bad byte."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as failure:
        before = raw[: failure.start]
        line = before.count(b"\n") + 1
        column = failure.start - (before.rfind(b"\n") + 1) + 1
        raise error(
            f"{where}: line {line}, column {column}: byte 0x{raw[failure.start]:02x} "
            "is not UTF-8 text",
            hint="save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8 FILE > NEW)",
        ) from None


def read_user_text(
    path: str | os.PathLike[str],
    *,
    what: str = "file",
    limit: int = MAX_TEXT_BYTES,
    error: type[UnoAttackError] = PathError,
) -> str:
    """The UTF-8 text of a regular file the user named; every failure is ``error``."""
    raw = read_user_bytes(path, what=what, limit=limit, error=error)
    return decode_utf8(raw, str(path), error=error)
