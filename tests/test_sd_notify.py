"""systemd's notify protocol over a real AF_UNIX datagram socket, and `launcher serve` using it."""

from __future__ import annotations

import io
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from game.cli.launcher_serve import LinePresses, serve
from hardware.sd_notify import Notifier
from launcher.gpio import GpioLauncher
from launcher.spec import open_launcher


@pytest.fixture
def manager(tmp_path: Path) -> Iterator[tuple[socket.socket, str]]:
    """The service manager's end: a datagram socket, as systemd binds for Type=notify."""
    path = str(tmp_path / "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(path)
        sock.settimeout(5.0)
        yield sock, path


def _received(sock: socket.socket) -> list[str]:
    messages = []
    sock.setblocking(False)
    try:
        while True:
            messages.append(sock.recv(4096).decode())
    except BlockingIOError:
        return messages


def test_ready_status_and_stopping_arrive_as_datagrams(manager: tuple[socket.socket, str]) -> None:
    sock, path = manager
    notifier = Notifier({"NOTIFY_SOCKET": path})
    assert notifier.ready("serving gpio") and notifier.status("jam") and notifier.stopping()
    assert _received(sock) == ["READY=1\nSTATUS=serving gpio", "STATUS=jam", "STOPPING=1"]


def test_an_abstract_socket_address_is_understood() -> None:
    name = f"uno-attack-test-{os.getpid()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind("\0" + name)
        assert Notifier({"NOTIFY_SOCKET": "@" + name}).ready()
        assert _received(sock) == ["READY=1"]


def test_the_watchdog_is_pinged_at_a_quarter_of_its_interval(
    manager: tuple[socket.socket, str],
) -> None:
    sock, path = manager
    now = [100.0]
    env = {"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "4000000", "WATCHDOG_PID": str(os.getpid())}
    notifier = Notifier(env, clock=lambda: now[0])
    sent = []
    for step in range(12):  # 0.25 s apart, for 3 s: a ping each second
        now[0] = 100.0 + step * 0.25
        sent.append(notifier.watchdog())
    assert sent == [True, False, False, False] * 3
    assert _received(sock) == ["WATCHDOG=1"] * 3


def test_a_watchdog_meant_for_another_process_is_not_pinged(
    manager: tuple[socket.socket, str],
) -> None:
    _, path = manager
    env = {"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "4000000", "WATCHDOG_PID": "1"}
    assert Notifier(env, pid=4242).watchdog() is False


def test_without_a_service_manager_nothing_is_sent_and_nothing_fails(tmp_path: Path) -> None:
    assert Notifier({}).ready() is False
    assert Notifier({"NOTIFY_SOCKET": str(tmp_path / "gone")}).ready() is False  # no listener


def test_a_long_job_pings_from_the_drivers_loop_at_least_every_second() -> None:
    launcher = open_launcher("gpio://?mock=1&button=none&sounds=0&cards=90", default_seed=3)
    assert isinstance(launcher, GpioLauncher)
    driver = launcher.driver
    pings: list[float] = []
    driver.on_heartbeat = lambda: pings.append(driver.clock.now())
    with launcher:
        driver.run_for(5000.0)  # open loop: no card edge would wake the loop for 5 s
    gaps = [b - a for a, b in zip(pings, pings[1:], strict=False)]
    assert len(pings) >= 5 and max(gaps) <= 1.0 + 1e-9


def test_serve_says_ready_wires_the_job_loop_to_the_watchdog_and_says_stopping(
    manager: tuple[socket.socket, str],
) -> None:
    sock, path = manager
    launcher = open_launcher("gpio://?mock=1&button=none&sounds=0&cards=90", default_seed=3)
    assert isinstance(launcher, GpioLauncher)
    clock = launcher.driver.clock
    env = {"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "2000000", "WATCHDOG_PID": str(os.getpid())}
    notifier = Notifier(env, clock=clock.now)  # the mock rig's virtual clock
    wired: list[object] = []

    class Presses(LinePresses):
        def next(self, timeout: float, *, faulted: bool) -> str | None:
            wired.append(launcher.driver.on_heartbeat)
            return super().next(timeout, faulted=faulted)

    with launcher:
        serve(launcher, Presses(io.StringIO("\n\n")), None, out=io.StringIO(), notifier=notifier)
    messages = _received(sock)
    assert messages[0] == "READY=1\nSTATUS=serving gpio" and messages[-1] == "STOPPING=1"
    assert "WATCHDOG=1" in messages
    assert wired and all(hook == notifier.watchdog for hook in wired)
    assert launcher.driver.on_heartbeat is None  # unhooked when serving ends
