"""`launcher clear --pid-file` signals only a running `serve` of ours (issue 17, section 3).

Real processes, real files, the kernel's own flock table; no sleeps: every wait is on a
child's output line or its exit.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from game.cli import main
from game.cli.pidlock import PidLock, default_pid_file, signal_server
from hardware.errors import ConfigError, LauncherError

HOLDER = (
    "import sys\nfrom pathlib import Path\nfrom game.cli.pidlock import PidLock\n"
    "PidLock(Path(sys.argv[1]))\nprint('locked', flush=True)\nsys.stdin.read()\n"
)


@pytest.fixture
def bystander() -> Iterator[subprocess.Popen[str]]:
    """An unrelated program of ours that SIGUSR1 would kill (its default action)."""
    child = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE, text=True
    )
    yield child
    if child.poll() is None:
        child.kill()
    child.wait()


def was_not_signalled(child: subprocess.Popen[str]) -> bool:
    assert child.stdin is not None
    child.stdin.close()
    return child.wait(timeout=30) == 0  # a SIGUSR1 would have ended it with -10


def test_a_stale_or_planted_pid_file_signals_nobody(
    tmp_path: Path, bystander: subprocess.Popen[str], capsys: pytest.CaptureFixture[str]
) -> None:
    planted = tmp_path / "serve.pid"
    planted.write_text(f"{bystander.pid}\n")  # a pid file nobody holds: stale, or planted
    assert main(["launcher", "clear", "--pid-file", str(planted)]) in (1, 2)
    err = capsys.readouterr().err
    assert "stale pid file" in err and "nothing signalled" in err and "Traceback" not in err
    assert was_not_signalled(bystander)


def test_a_pid_file_of_another_user_is_refused(
    tmp_path: Path, bystander: subprocess.Popen[str]
) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to give a file to another user")
    planted = tmp_path / "serve.pid"
    planted.write_text(f"{bystander.pid}\n")
    os.chown(planted, 65534, 65534)
    with pytest.raises(LauncherError, match="belongs to uid 65534, not you"):
        signal_server(planted)
    assert was_not_signalled(bystander)


def test_a_server_of_another_user_is_a_clear_error_not_a_traceback(tmp_path: Path) -> None:
    lock = PidLock(tmp_path / "serve.pid")
    try:

        def refused(pid: int, signum: int) -> None:
            raise PermissionError(1, "Operation not permitted")

        with pytest.raises(LauncherError, match="belongs to another user; nothing signalled"):
            signal_server(lock.path, kill=refused)
    finally:
        lock.release()
    assert not lock.path.exists()


def test_only_the_process_holding_the_lock_is_signalled_and_kill_9_leaves_nothing_to_signal(
    tmp_path: Path,
) -> None:
    path = tmp_path / "serve.pid"
    child = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == "locked\n"
        sent: list[tuple[int, int]] = []
        assert signal_server(path, kill=lambda pid, sig: sent.append((pid, sig))) == child.pid
        assert sent == [(child.pid, signal.SIGUSR1)]
        with pytest.raises(LauncherError, match="another `launcher serve` is running"):
            PidLock(path)
        child.kill()  # kill -9: no cleanup ran, the file stays, the kernel dropped the lock
        child.wait(timeout=30)
        assert path.exists()
        with pytest.raises(LauncherError, match="stale pid file"):
            signal_server(path, kill=lambda pid, sig: sent.append((pid, sig)))
        assert len(sent) == 1
    finally:
        if child.poll() is None:
            child.kill()
        child.wait()


def test_the_default_pid_file_is_in_a_private_runtime_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    path = default_pid_file()
    assert path == tmp_path / "uno-attack" / "serve.pid"
    lock = PidLock(path)
    try:
        assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    finally:
        lock.release()
    monkeypatch.delenv("XDG_RUNTIME_DIR")
    assert "/tmp/uno-attack.pid" != str(default_pid_file())
    assert default_pid_file().parent.name == f"uno-attack-{os.getuid()}"


def test_a_shared_folder_for_the_default_pid_file_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    (tmp_path / "uno-attack").mkdir(mode=0o777)
    os.chmod(tmp_path / "uno-attack", 0o777)  # someone made it first, writable by all
    with pytest.raises(ConfigError, match="not a private folder of yours"):
        PidLock(default_pid_file())


def test_a_symlink_planted_as_the_pid_file_is_not_followed(tmp_path: Path) -> None:
    victim = tmp_path / "precious.txt"
    victim.write_text("keep me\n")
    (tmp_path / "serve.pid").symlink_to(victim)
    with pytest.raises(ConfigError, match="cannot open the pid file"):
        PidLock(tmp_path / "serve.pid")
    assert victim.read_text() == "keep me\n"


def test_clear_without_a_file_name_uses_serves_default_and_says_when_none_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    assert main(["launcher", "clear", "--pid-file"]) != 0
    err = capsys.readouterr().err
    assert str(tmp_path / "uno-attack" / "serve.pid") in err and "no such pid file" in err
    assert "Traceback" not in err
