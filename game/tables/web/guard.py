"""Which names the server answers to: the Host allowlist and the WebSocket Origin check.

A page on another site can make a browser talk to this server by *DNS rebinding*: its name
(``evil.example``) first resolves to the attacker's machine, then to the Pi's address, and
the browser, seeing the same origin, lets the page read the answers. The browser still
sends ``Host: evil.example``, so every HTTP request and WebSocket handshake whose Host is
not one of the server's own names is refused (HTTP 400, WebSocket 403), before any route.

The server's names (:func:`allowlist`): the loopback names and addresses; the address it
listens on when that is one address; with ``--lan`` (or a wildcard ``--host``) the LAN
address the links print and this machine's name (``pi``, ``pi.local``); ``--public-url``'s
host; each ``--allowed-origin``'s host. A WebSocket's ``Origin`` must be one of the origins
built from those names on the listening port, ``--public-url``'s, or an ``--allowed-origin``
(compared as ``scheme://host[:port]``): never "whatever the Host header says".
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from game.tables.web.auth import CLOSE_FORBIDDEN
from game.tables.web.settings import WebSettings, lan_address

LOOPBACK = ("localhost", "127.0.0.1", "::1")
WILDCARDS = ("0.0.0.0", "::", "")


@dataclass(frozen=True)
class Allowlist:
    """The host names a request may name, and the page origins a WebSocket may come from."""

    hosts: frozenset[str]
    origins: frozenset[str]

    def host_allowed(self, host_header: str | None) -> bool:
        """Is the ``Host`` header one of ours (its port, if any, is not looked at)?"""
        name = host_name(host_header or "")
        return name is not None and name in self.hosts

    def origin_allowed(self, origin: str | None) -> bool:
        """May a page from ``origin`` open a WebSocket here? A missing Origin is refused:
        every browser sends one, so only a non-browser omits it, and it can name one."""
        if not origin or origin == "null":
            return False
        return normal_origin(origin) in self.origins


def allowlist(settings: WebSettings) -> Allowlist:
    """The names and origins of a server run with ``settings`` (see the module docstring)."""
    hosts = set(LOOPBACK)
    if settings.host not in WILDCARDS:
        hosts.add(settings.host.lower())
    if settings.lan or settings.host in WILDCARDS:
        hosts.add(lan_address())
        name = socket.gethostname().lower()
        hosts.update({name, f"{name}.local"})
    origins = {normal_origin(o) for o in settings.allowed_origins}
    if settings.public_url:
        origins.add(normal_origin(settings.public_url))
    own = {_origin("http", h, settings.port) for h in hosts}
    hosts.update(n for n in (urlsplit(o).hostname for o in origins) if n)
    return Allowlist(frozenset(hosts), frozenset(origins | own))


def host_name(netloc: str) -> str | None:
    """``Pi.Local:8000`` -> ``pi.local``, ``[::1]:80`` -> ``::1``; None if it is not a name."""
    try:
        parts = urlsplit(f"//{netloc.strip()}")
        name, _ = parts.hostname, parts.port  # .port raises on a port that is not a number
    except ValueError:
        return None
    return name or None


def normal_origin(origin: str) -> str:
    """``HTTP://Pi.local:80/`` -> ``http://pi.local``: scheme, host and a port not the default."""
    parts = urlsplit(origin.strip())
    try:
        port = parts.port
    except ValueError:
        return origin.strip().lower()
    if not parts.hostname:
        return origin.strip().lower()
    return _origin(parts.scheme.lower(), parts.hostname, port)


def _origin(scheme: str, host: str, port: int | None) -> str:
    shown = f"[{host}]" if ":" in host else host
    default = {"http": 80, "https": 443}.get(scheme)
    return f"{scheme}://{shown}" if port in (None, default) else f"{scheme}://{shown}:{port}"


class HostGuard:
    """Pure ASGI: refuses a foreign Host (HTTP and WebSocket) and a foreign WebSocket Origin."""

    def __init__(self, app: ASGIApp, allowed: Allowlist) -> None:
        self.app = app
        self.allowed = allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        if not self.allowed.host_allowed(headers.get("host")):
            await _refuse(scope, receive, send, "this server does not answer to that name")
        elif scope["type"] == "websocket" and not self.allowed.origin_allowed(
            headers.get("origin")
        ):
            await _refuse(scope, receive, send, "a page of another site may not connect")
        else:
            await self.app(scope, receive, send)


async def _refuse(scope: Scope, receive: Receive, send: Send, why: str) -> None:
    """HTTP 400 with ``why``; a WebSocket handshake closed before it opens (HTTP 403)."""
    if scope["type"] == "websocket":
        await receive()  # websocket.connect
        await send({"type": "websocket.close", "code": CLOSE_FORBIDDEN})
        return
    await PlainTextResponse(why, status_code=400)(scope, receive, send)
