"""The web table on a real uvicorn server, reached by a real WebSocket client and HTTP client."""

from __future__ import annotations

import json
import resource
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
import uvicorn
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from game.cli.table import listen
from game.tables.web.app import create_app
from game.tables.web.limits import CLOSE_SLOW, Limits
from tests.web_client import quick_settings


class _Server(uvicorn.Server):
    """uvicorn that says when it is listening (no polling, no sleeping)."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.ready = threading.Event()

    async def startup(self, sockets: list | None = None) -> None:  # type: ignore[type-arg]
        await super().startup(sockets)
        self.ready.set()


@contextmanager
def running(**changes: Any) -> Iterator[tuple[str, Any]]:
    """A real uvicorn serving ``quick_settings(**changes)`` on a free port, as ``table serve``
    does: the port is bound first, so the settings (and the allowlist) know it."""
    listening = listen("127.0.0.1", 0)
    port = listening.getsockname()[1]
    limits = changes.pop("limits", None)
    app = create_app(quick_settings(port=port, allowed_origins=(), **changes), limits=limits)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    server = _Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listening]}, daemon=True)
    thread.start()
    try:
        assert server.ready.wait(20), "uvicorn did not start"
        yield f"127.0.0.1:{port}", app
    finally:
        server.should_exit = True
        thread.join(20)
        listening.close()
    assert not thread.is_alive()


@pytest.fixture
def server() -> Iterator[tuple[str, object]]:
    with running() as (address, app):
        yield address, app


def test_a_phone_joins_a_real_server_and_sees_its_hand(server: tuple[str, object]) -> None:
    address, app = server
    tokens = app.state.context.tokens  # type: ignore[attr-defined]
    page = httpx.get(f"http://{address}/seat/{tokens.seats[0]}")
    assert page.status_code == 200 and "/static/hand.js" in page.text
    assert httpx.get(f"http://{address}/seat/wrong").status_code == 403
    url = f"ws://{address}/ws?token={tokens.seats[0]}"
    with connect(url, origin=f"http://{address}", open_timeout=10) as socket:  # type: ignore[arg-type]
        socket.send(json.dumps({"type": "hello", "version": None}))
        message = json.loads(socket.recv(timeout=10))
        while "view" not in message:
            message = json.loads(socket.recv(timeout=10))
    assert message["view"]["seat"] == 0 and len(message["view"]["hand"]) == 7


def test_a_real_server_refuses_a_cross_origin_websocket(server: tuple[str, object]) -> None:
    address, app = server
    tokens = app.state.context.tokens  # type: ignore[attr-defined]
    url = f"ws://{address}/ws?token={tokens.seats[0]}"
    with pytest.raises(Exception) as refused:
        with connect(url, origin="http://evil.example", open_timeout=10):  # type: ignore[arg-type]
            pass
    assert "403" in str(refused.value)


def _raw(address: str, request: str, source: str = "127.0.0.1") -> bytes:
    """Send one raw HTTP request (exactly the headers given) and read the response head."""
    host, port = address.split(":")
    with socket.create_connection((host, int(port)), timeout=10, source_address=(source, 0)) as s:
        s.sendall(request.replace("\n", "\r\n").encode() + b"\r\n")
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = s.recv(4096)
            if not chunk:
                break
            head += chunk
    return head


def _handshake(path: str, host: str, origin: str) -> str:
    return (
        f"GET {path} HTTP/1.1\nHost: {host}\nOrigin: {origin}\nUpgrade: websocket\n"
        "Connection: Upgrade\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\n"
        "Sec-WebSocket-Version: 13\n"
    )


def _status(head: bytes) -> int:
    return int(head.split(b" ", 2)[1])


def test_a_page_of_a_rebound_name_gets_neither_pages_nor_the_table(
    server: tuple[str, object],
) -> None:
    """DNS rebinding: evil.example resolves to this server; the browser sends its own Host."""
    address, app = server
    port = address.split(":")[1]
    evil = f"evil.example:{port}"
    assert _status(_raw(address, f"GET /table HTTP/1.1\nHost: {evil}\n")) == 400
    for path in ("/ws", "/referee/ws"):
        refused = _raw(address, _handshake(path, evil, f"http://{evil}"))
        assert 400 <= _status(refused) < 500, refused
    # the right Host, a foreign Origin that names itself in Host's place: still refused
    own = f"127.0.0.1:{port}"
    assert _status(_raw(address, _handshake("/ws", own, f"http://{evil}"))) == 403
    assert _status(_raw(address, _handshake("/ws", own, "http://127.0.0.1:1"))) == 403
    assert _status(_raw(address, _handshake("/ws", own, f"http://{own}"))) == 101
    assert _status(_raw(address, f"GET /table HTTP/1.1\nHost: localhost:{port}\n")) == 200


def test_no_redirect_names_the_host_it_was_sent(server: tuple[str, object]) -> None:
    address, _ = server
    for path in ("/table/", "/", "/seat/x/", "/static"):
        head = _raw(address, f"GET {path} HTTP/1.1\nHost: localhost:{address.split(':')[1]}\n")
        assert b"localhost" not in head.lower(), head


def _table_screen(
    pages: ExitStack, address: str, source: str = "127.0.0.1", hello: bool = True
) -> Any:
    """A table-screen WebSocket from ``source``, open until ``pages`` closes (hello said
    unless told not to)."""
    host, port = address.split(":")
    sock = socket.create_connection((host, int(port)), timeout=10, source_address=(source, 0))
    url, origin = f"ws://{address}/ws", f"http://{address}"
    page = pages.enter_context(connect(url, sock=sock, origin=origin, open_timeout=10))  # type: ignore[arg-type]
    if hello:
        page.send(json.dumps({"type": "hello", "version": None}))
        page.recv(timeout=10)
    return page


def _seat_sees_its_hand(address: str, token: str) -> None:
    url = f"ws://{address}/ws?token={token}"
    with connect(url, origin=f"http://{address}", open_timeout=10) as page:  # type: ignore[arg-type]
        page.send(json.dumps({"type": "hello", "version": None}))
        while "view" not in (message := json.loads(page.recv(timeout=10))):
            pass
    assert len(message["view"]["hand"]) == 7


def test_a_page_that_never_says_hello_is_closed() -> None:
    with running(limits=Limits(hello_timeout=0.2)) as (address, _), ExitStack() as pages:
        page = _table_screen(pages, address, hello=False)
        with pytest.raises(ConnectionClosed) as closed:
            page.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == CLOSE_SLOW


def test_public_sockets_are_capped_per_address_and_in_all_and_seats_still_join() -> None:
    with running(limits=Limits(per_address=3, public=5)) as (address, app), ExitStack() as pages:
        tokens = app.state.context.tokens
        for _ in range(3):
            _table_screen(pages, address)
        with pytest.raises(InvalidStatus, match="403"):
            _table_screen(pages, address)  # a 4th from the same address
        for _ in range(2):
            _table_screen(pages, address, "127.0.0.2")
        with pytest.raises(InvalidStatus, match="403"):
            _table_screen(pages, address, "127.0.0.3")  # a 6th in all
        _seat_sees_its_hand(address, tokens.seats[0])  # a token has places of its own


#: The open-file limit of the server in the test below (a common default is 1,024).
LOW_FILE_LIMIT = 160


def _low_file_limit() -> None:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (LOW_FILE_LIMIT, hard))


def test_idle_table_screens_never_use_up_the_servers_files(tmp_path: Path) -> None:
    """``table serve`` under ``ulimit -n 160``; 200 table screens that said hello (from 13
    addresses), and a seat's link still works."""
    listening = listen("127.0.0.1", 0)
    port = listening.getsockname()[1]
    listening.close()
    command = [
        sys.executable,
        "-m",
        "game",
        "table",
        "serve",
        "--players",
        "2",
        "--bots",
        "random",
        "--launcher",
        "sim://",
        "--seed",
        "5",
        "--port",
        str(port),
    ]
    server = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_low_file_limit,
        cwd=tmp_path,
    )
    try:
        assert server.stdout is not None
        while "/seat/" not in (line := server.stdout.readline()):
            assert line, server.stderr.read() if server.stderr else "the server stopped"
        token = line.rsplit("/seat/", 1)[1].strip()
        address, refused = f"127.0.0.1:{port}", 0
        with ExitStack() as pages:
            for number in range(200):
                try:
                    _table_screen(pages, address, f"127.0.0.{2 + number // 16}")
                except InvalidStatus:
                    refused += 1
            assert refused >= 200 - LOW_FILE_LIMIT // 2
            _seat_sees_its_hand(address, token)
    finally:
        server.terminate()
        server.communicate(timeout=20)
