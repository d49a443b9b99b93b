"""Helpers for the web table tests: a page on the real WebSocket protocol (Starlette's TestClient).

A :class:`Page` keeps every message it received, so a test can check what a seat or the
table screen was ever sent, not just the last view.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from starlette.testclient import TestClient

from game.tables.web.app import create_app
from game.tables.web.settings import WebSettings, default_seats

#: Starlette's TestClient sends ``Host: testserver``: the tests' settings allow that name
#: as ``--allowed-origin http://testserver`` would (the Host allowlist refuses others).
ORIGIN = "http://testserver"
#: Seed 5, two people and two bots: the first round ends after 51 moves of the people.
QUICK_SEED = 5


def quick_settings(**changes: Any) -> WebSettings:
    values: dict[str, Any] = {
        "seats": default_seats(4, ("greedy", "random")),
        "seed": QUICK_SEED,
        "launcher": "sim://",
        "rounds": 1,
        "allowed_origins": (ORIGIN,),
    }
    values.update(changes)
    return WebSettings(**values)


@dataclass
class Page:
    """One open ``/ws`` connection and everything it was sent."""

    socket: Any
    messages: list[dict[str, Any]] = field(default_factory=list)

    def receive(self) -> dict[str, Any]:
        message = self.socket.receive_json()
        self.messages.append(message)
        return message

    def view_after(self, version: int = -1) -> dict[str, Any]:
        """Read until an update with a view newer than ``version`` (fails on an error message)."""
        while True:
            message = self.receive()
            assert message["type"] == "update", message
            if "view" in message and message["version"] > version:
                return message

    def move(self, moves: list[str], version: int | None) -> dict[str, Any]:
        """Send moves, return the first update with a newer view (or the error sent back)."""
        self.socket.send_json({"type": "move", "moves": moves, "version": version})
        while True:
            message = self.receive()
            if message["type"] == "error":
                return message
            if "view" in message and (version is None or message["version"] > version):
                return message

    @property
    def events(self) -> list[dict[str, Any]]:
        """Every event this page was sent, in order, each once."""
        seen: dict[int, dict[str, Any]] = {}
        for message in self.messages:
            for item in message.get("events", []):
                seen.setdefault(item["version"], item["event"])
        return [seen[v] for v in sorted(seen)]


def open_page(client: TestClient, token: str | None, version: int | None = None) -> Any:
    """The context manager of a WebSocket for ``token`` (None: the table screen)."""
    query = f"?token={token}" if token else ""
    return client.websocket_connect(f"/ws{query}", headers={"origin": ORIGIN})


def hello(socket: Any, version: int | None = None) -> Page:
    page = Page(socket)
    socket.send_json({"type": "hello", "version": version})
    return page


def app_and_tokens(settings: WebSettings) -> tuple[Any, Any]:
    app = create_app(settings)
    return app, app.state.context.tokens


def fake_serving(monkeypatch: Any) -> list[dict[str, Any]]:
    """Make ``table serve`` bind a free port and return at once instead of serving.

    Each run is recorded: the app, and the ``host`` and ``port`` it asked to listen on.
    """
    import socket

    import game.cli.table as table

    runs: list[dict[str, Any]] = []

    def listen(host: str, port: int) -> socket.socket:
        runs.append({"host": host, "port": port})
        return table.socket.create_server(("127.0.0.1", 0))

    def serve(app: Any, listening: socket.socket) -> None:
        runs[-1]["app"] = app
        listening.close()

    monkeypatch.setattr(table, "listen", listen)
    monkeypatch.setattr(table, "serve", serve)
    return runs
