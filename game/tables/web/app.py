"""The Starlette application of ``uno-attack table serve``: pages, the WebSocket, the host's links.

:func:`create_app` builds the game session (reading the journal and the tokens when it
resumes) synchronously, so a bad journal is an error before anything listens, and opens
the game when the server starts (the first card may already press the launcher).

Routes: ``/table`` (public table screen), ``/seat/{token}`` (a seat's hand), ``/host/{token}``
(join links, QR codes, jam dialog), ``/host/{token}/links.json``, ``/host/{token}/qr/{seat}.svg``,
``/ws`` (:mod:`game.tables.web.live`), ``/static/...``, plus the routes of the page modules in
:data:`game.tables.web.routes.EXTRA_PAGES`. Every response forbids framing, sniffing and referrers
(a token must never leak through a ``Referer``) and allows scripts from this server only;
every request and WebSocket naming another Host, and every WebSocket from another page
origin, is refused first (:mod:`game.tables.web.guard`). No redirect names the Host it was sent.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket

from game.tables.web.auth import HOST, Tokens, role_seat
from game.tables.web.guard import HostGuard, allowlist
from game.tables.web.limits import Admission, Limits
from game.tables.web.live import Hub, serve_socket
from game.tables.web.routes import WebContext, extra_routes
from game.tables.web.session import GameSession
from game.tables.web.settings import WebSettings

__all__ = ["WebSettings", "create_app", "join_links"]

#: Seconds the server waits at shut-down for a change in progress (a press) to finish.
SHUTDOWN_WAIT = 10.0
SECURITY_HEADERS = {
    "content-security-policy": "default-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "cache-control": "no-store",
}


def create_app(settings: WebSettings, limits: Limits | None = None) -> Starlette:
    """The web table for ``settings``: a virtual game (``mode="virtual"``) or pages only.

    ``limits``: the WebSocket caps and hello deadline (:mod:`game.tables.web.limits`; tests make
    them small).
    """
    session = GameSession(settings) if settings.mode == "virtual" else None
    tokens = session.tokens if session is not None else Tokens.new(len(settings.seats))
    # a resumed session's settings are the journal's (its seats, not the flags' defaults)
    settings = session.settings if session is not None else settings
    admission = Admission(limits or Limits())
    context = WebContext(settings=settings, tokens=tokens, session=session, admission=admission)
    guard = Middleware(HostGuard, allowed=allowlist(settings))
    app = Starlette(
        routes=_routes(context) + extra_routes(context),
        middleware=[Middleware(SecurityHeaders), guard],
        lifespan=_lifespan(context),
    )
    # Starlette's "/table/" -> "/table" redirect is an absolute URL built from the Host header
    app.router.redirect_slashes = False
    app.state.context = context
    app.state.hub = None
    return app


def _routes(context: WebContext) -> list[BaseRoute]:
    static = context.static_dir

    async def table(request: Request) -> Response:
        return FileResponse(static / "table.html")

    async def seat(request: Request) -> Response:
        role = context.tokens.role_of(request.path_params["token"])
        if role is None or role_seat(role) is None:
            return _forbidden()
        return FileResponse(static / "hand.html")

    async def host(request: Request) -> Response:
        if not context.tokens.check(request.path_params["token"], HOST):
            return _forbidden()
        return FileResponse(static / "host.html")

    async def links(request: Request) -> Response:
        if not context.tokens.check(request.path_params["token"], HOST):
            return _forbidden()
        return JSONResponse(join_links(context, base_url(context, request)))

    async def qr(request: Request) -> Response:
        if not context.tokens.check(request.path_params["token"], HOST):
            return _forbidden()
        seat = request.path_params["seat"]
        if not 0 <= seat < len(context.tokens.seats):
            return PlainTextResponse("no such seat", status_code=404)
        link = f"{base_url(context, request)}/seat/{context.tokens.seats[seat]}"
        svg = qr_svg(link)
        if svg is None:
            return PlainTextResponse("install qrcode for QR codes", status_code=404)
        return Response(svg, media_type="image/svg+xml")

    async def socket(websocket: WebSocket) -> None:
        await serve_socket(websocket, context, websocket.app.state.hub)

    return [
        Route("/", lambda request: RedirectResponse("/table")),
        Route("/table", table),
        Route("/seat/{token}", seat),
        Route("/host/{token}", host),
        Route("/host/{token}/links.json", links),
        Route("/host/{token}/qr/{seat:int}.svg", qr),
        WebSocketRoute("/ws", socket),
        Mount("/static", StaticFiles(directory=static), name="static"),
    ]


def _forbidden() -> Response:
    return PlainTextResponse(
        "This link is not valid on this table (ask the host for yours).", status_code=403
    )


def base_url(context: WebContext, request: Request | None = None) -> str:
    """Where phones reach this server: ``--public-url``, else the address the page used."""
    if context.settings.public_url:
        return context.settings.public_url.rstrip("/")
    if request is not None:
        return str(request.base_url).rstrip("/")
    return f"http://{context.settings.host}:{context.settings.port}"


def join_links(context: WebContext, base: str) -> dict[str, Any]:
    """The links the host hands out: one per seat played by a person, and the table's."""
    settings, tokens = context.settings, context.tokens
    seats = [
        {"seat": i, "name": settings.names[i], "url": f"{base}/seat/{tokens.seats[i]}"}
        for i in settings.people
    ]
    return {"table": f"{base}/table", "seats": seats}


def qr_svg(text: str) -> bytes | None:
    """``text`` as a QR code in SVG, or None when ``qrcode`` is not installed."""
    try:
        import qrcode
        import qrcode.image.svg
    except ImportError:
        return None
    image = qrcode.make(text, image_factory=qrcode.image.svg.SvgPathImage, box_size=12)
    buffer = io.BytesIO()
    image.save(buffer)
    return buffer.getvalue()


def _lifespan(context: WebContext) -> Any:
    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        hub = Hub(context.session) if context.session is not None else None
        app.state.hub = hub
        opening = asyncio.create_task(hub.open()) if hub is not None else None
        for start in context.on_startup:
            await start()
        try:
            yield
        finally:
            for stop in context.on_shutdown:
                await stop()
            if hub is not None and opening is not None:
                await _stop(hub, opening)

    return lifespan


async def _stop(hub: Hub, opening: asyncio.Task[None]) -> None:
    """Release a jam wait, let the change in progress end, then close launcher and journal."""
    hub.session.release()
    with suppress(asyncio.TimeoutError):
        await asyncio.wait_for(hub.lock.acquire(), SHUTDOWN_WAIT)
    opening.cancel()
    with suppress(BaseException):
        await opening
    hub.session.close()


class SecurityHeaders:
    """Adds :data:`SECURITY_HEADERS` to every HTTP response (pure ASGI, no buffering)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                for name, value in SECURITY_HEADERS.items():
                    if name.encode() not in present:
                        headers.append((name.encode(), value.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)
