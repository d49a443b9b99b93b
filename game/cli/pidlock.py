"""The pid file of ``launcher serve``, locked, so ``launcher clear`` signals only our own server.

A pid file alone proves nothing: a stale file names a process id the kernel has since given
to another program, and a file in a shared folder (``/tmp``) can be planted by anyone. So:

* ``serve`` creates the file without following links, owned by us and mode 0600, writes its
  pid, and holds an exclusive ``flock`` on it for as long as it runs (the kernel drops the
  lock when the process dies, even by ``kill -9``);
* ``clear`` signals the pid in the file only if the file is ours (same user), the lock is
  held, and the kernel's lock table (``/proc/locks``) says the holder is that very pid.
  Anything else is a clear error, and nothing is signalled.

The default file is private: ``$XDG_RUNTIME_DIR/uno-attack/serve.pid`` (the runtime folder
is the user's own, mode 0700), never a name in ``/tmp`` that another user could create first.
"""

from __future__ import annotations

import errno
import fcntl
import os
import signal
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

from hardware.errors import ConfigError, LauncherError
from hardware.files import check_output


def default_pid_file() -> Path:
    """``$XDG_RUNTIME_DIR/uno-attack/serve.pid``; without it a private per-user temp folder."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isabs(runtime):
        return Path(runtime) / "uno-attack" / "serve.pid"
    return Path(tempfile.gettempdir()) / f"uno-attack-{os.getuid()}" / "serve.pid"


def private_folder(folder: Path) -> None:
    """Create ``folder`` mode 0700, or check that an existing one is ours and private."""
    try:
        folder.mkdir(mode=0o700, parents=False, exist_ok=True)
        info = os.lstat(folder)
    except OSError as error:
        raise ConfigError(f"{folder}: cannot create the pid folder ({error.strerror})") from None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise ConfigError(
            f"{folder}: not a private folder of yours (owner uid {info.st_uid}, "
            f"mode {stat.S_IMODE(info.st_mode):o}); refusing to keep a pid file there",
            hint="remove it, or give --pid-file a path in a folder only you can write",
        )


class PidLock:
    """The locked pid file of one running ``serve``; :meth:`release` removes it."""

    @staticmethod
    def check_path(path: Path) -> None:
        """Refuse, before anything starts, a ``--pid-file`` that is some other file.

        Only a new file or an old pid file (a short number) may become the pid file: the
        file-safety policy (``hardware.files.check_output``) guards everything else.
        """
        stale = path.is_file() and path.stat().st_size < 32 and path.read_bytes().strip().isdigit()
        check_output(path, what="--pid-file", force=stale)

    def __init__(self, path: Path) -> None:
        self.path = path
        if path == default_pid_file():
            private_folder(path.parent)
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            self._fd = os.open(path, flags, 0o600)
        except OSError as error:
            raise ConfigError(f"{path}: cannot open the pid file ({error.strerror})") from None
        try:
            self._lock()
            os.ftruncate(self._fd, 0)
            os.write(self._fd, f"{os.getpid()}\n".encode())
        except BaseException:
            os.close(self._fd)
            raise

    def _lock(self) -> None:
        info = os.fstat(self._fd)
        if info.st_uid != os.getuid() or not stat.S_ISREG(info.st_mode):
            raise ConfigError(f"{self.path}: the pid file belongs to uid {info.st_uid}, not you")
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise LauncherError(
                f"{self.path}: another `launcher serve` is running with this pid file "
                f"(pid {_read_pid(self.path) or '?'})",
                hint="stop it first, or give this one another --pid-file",
            ) from None

    def release(self) -> None:
        """Remove the file (while still holding the lock, so no one else's file goes) and unlock."""
        try:
            if os.fstat(self._fd).st_ino == os.stat(self.path).st_ino:
                os.unlink(self.path)
        except OSError:
            pass
        os.close(self._fd)


def signal_server(path: Path, *, kill: Callable[[int, int], None] = os.kill) -> int:
    """Send SIGUSR1 to the ``serve`` holding ``path``; returns its pid. Refuses any doubt."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as error:
        if error.errno == errno.ENOENT:
            raise LauncherError(
                f"{path}: no such pid file: no `launcher serve` is running with it",
                hint="start one with `uno-attack launcher serve` (or give its --pid-file)",
            ) from None
        raise ConfigError(f"{path}: cannot read the pid file ({error.strerror})") from None
    try:
        pid = _checked_pid(path, fd)
    finally:
        os.close(fd)
    try:
        kill(pid, signal.SIGUSR1)
    except ProcessLookupError:
        raise LauncherError(f"{path}: process {pid} has just ended; nothing signalled") from None
    except PermissionError:
        raise LauncherError(
            f"{path}: process {pid} belongs to another user; nothing signalled",
            hint="run `launcher clear` as the user that runs `launcher serve`",
        ) from None
    return pid


def _checked_pid(path: Path, fd: int) -> int:
    info = os.fstat(fd)
    if info.st_uid != os.getuid():
        raise LauncherError(
            f"{path}: the pid file belongs to uid {info.st_uid}, not you; nothing signalled",
            hint="run `launcher clear` as the user that runs `launcher serve`",
        )
    text = os.read(fd, 64).decode("ascii", "replace").strip()
    if not text.isdecimal():
        raise ConfigError(f"{path}: not a pid file written by `uno-attack launcher serve`")
    pid = int(text)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _flock_holder(info)
        if holder is None or holder == pid:
            return pid
        raise LauncherError(
            f"{path}: the lock is held by process {holder}, not {pid}; nothing signalled"
        ) from None
    raise LauncherError(
        f"{path}: stale pid file: no `launcher serve` holds it (process {pid} is not ours "
        "or not running); nothing signalled",
        hint="remove the file; start `uno-attack launcher serve` again if needed",
    )


def _flock_holder(info: os.stat_result) -> int | None:
    """The pid holding a FLOCK on the file ``info`` describes, from /proc/locks (Linux)."""
    wanted = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    try:
        lines = Path("/proc/locks").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        parts = line.split()
        if len(parts) >= 6 and parts[1] == "FLOCK" and parts[-3] == wanted:
            return int(parts[-4]) if parts[-4].isdecimal() else None
    return None


def _read_pid(path: Path) -> str:
    try:
        return path.read_text(encoding="ascii", errors="replace").split("\n", 1)[0].strip()
    except OSError:
        return ""


def holder_pid(path: Path) -> int | None:
    """The pid of the live ``serve`` holding ``path``'s lock, or None (no file, stale, unreadable).

    For reading a server's state (``launcher status``), never for signalling: it does not
    insist that the file is the caller's own, as :func:`signal_server` does.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        text = os.read(fd, 64).decode("ascii", "replace").strip()
        if not text.isdecimal():
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:  # held: by the pid in the file?
            holder = _flock_holder(os.fstat(fd))
            return int(text) if holder is None or holder == int(text) else None
        return None  # nobody holds it: stale
    finally:
        os.close(fd)
