"""The web table on a real uvicorn server, reached by a real WebSocket client and HTTP client."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx2 as httpx
import pytest
import uvicorn
from websockets.sync.client import connect

from game.cli.table import listen
from game.web.app import create_app
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
