"""The referee page: tap what is played at a table of physical cards; the launcher fires for it.

Mounted through :data:`game.tables.web.routes.EXTRA_PAGES` when the server runs a refereed game
(``uno-attack table serve --referee``, ``settings.mode == "referee"``). Routes:

* ``/referee/{token}``: the page (the referee token, or the host's);
* ``/referee/ws?token=TOKEN``: its WebSocket (same Host, Origin and place rules as ``/ws``).

Protocol (JSON text frames). The server sends ``{"type": "state", ...}`` (the table as
the referee knows it: hand sizes from the launcher's counts, scores, top card, whose
turn, the log, a jam) after every change, with the deck's cards on the first one. The
page sends::

    {"type": "entry", "op": "play", "card": "WAA", "color": "B", "seat": 2, "uno": false}
    {"type": "entry", "op": "press"}  /  "done"  /  {"op": "uno", "seat": 1}  /  "catch"
    {"type": "score", "hands": [["R7", "BS"], [], ["WH4"]]}   cards left, one list a seat
    {"type": "jam", "pulled": 2}  /  {"type": "jam", "pulled": null}   after a jam

Entries and scores carry the ``version`` of the state the page showed (a whole number:
one without it, or from an older state, is refused, so a double tap never presses twice),
and a refused one gets ``{"type": "error", "message": "..."}``; nothing changed.
Every field is checked on the server (:func:`game.tables.web.referee_table.entry_from_page`).
"""

from __future__ import annotations

import asyncio
from contextlib import suppress
from typing import Any, cast

from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from game.tables.web.auth import CLOSE_FORBIDDEN, HOST, REFEREE, Tokens
from game.tables.web.live import Hub, _receive, page_version
from game.tables.web.referee_table import EntryRefused, RefereeTable, entry_from_page, journal_of
from game.tables.web.routes import WebContext
from hardware.errors import UnoAttackError

MODE = "referee"
KEY = "game.tables.web.referee"


def routes(context: WebContext) -> list[BaseRoute]:
    """The referee page's routes, or none when this server plays a virtual game."""
    if context.settings.mode != MODE:
        return []
    table = RefereeTable(context.settings)
    context.tokens = Tokens.for_journal(
        journal_of(context.settings), len(table.players), resume=table.resumed is not None
    )
    state: dict[str, Any] = {"table": table, "hub": None}
    context.state.setdefault("links", []).extend(
        [
            "UNO Attack referee (physical cards), players " + ", ".join(table.players),
            f"  referee page (keep it private): {{base}}/referee/{context.tokens.referee}",
        ]
    )
    context.state[KEY] = state

    async def start() -> None:
        hub = Hub(cast(Any, table))
        state["hub"] = hub
        state["opening"] = asyncio.create_task(hub.open())

    async def stop() -> None:
        table.release()
        hub = state["hub"]
        if hub is not None:
            with suppress(asyncio.TimeoutError):
                await asyncio.wait_for(hub.lock.acquire(), 10.0)
        with suppress(BaseException):
            await state["opening"]
        table.close()

    context.on_startup.append(start)
    context.on_shutdown.append(stop)

    async def page(request: Request) -> Response:
        if not _may_referee(context, request.path_params["token"]):
            return PlainTextResponse("This link is not valid on this table.", status_code=403)
        return FileResponse(context.static_dir / "referee.html")

    async def socket(websocket: WebSocket) -> None:
        await serve_referee(websocket, context, table, state["hub"])

    return [Route("/referee/{token}", page), WebSocketRoute("/referee/ws", socket)]


def _may_referee(context: WebContext, token: str | None) -> bool:
    return context.tokens.role_of(token) in (REFEREE, HOST)


async def serve_referee(
    websocket: WebSocket, context: WebContext, table: RefereeTable, hub: Hub | None
) -> None:
    """``/referee/ws``: a place for the socket (Host and Origin were checked by
    :mod:`game.tables.web.guard`), the referee's or host's token, then entries until it goes."""
    token = websocket.query_params.get("token")
    address = websocket.client.host if websocket.client else "?"
    role = context.tokens.role_of(token) if token else None
    with context.admission.place(role, address) as admitted:
        if not admitted:  # refused before the handshake completes: HTTP 403
            await websocket.close(code=CLOSE_FORBIDDEN)
            return
        await websocket.accept()
        if hub is None or role not in (REFEREE, HOST):
            await websocket.send_json({"type": "error", "message": "this link is not valid here"})
            await websocket.close(code=CLOSE_FORBIDDEN)
            return
        await _serve_entries(websocket, table, hub)


async def _serve_entries(websocket: WebSocket, table: RefereeTable, hub: Hub) -> None:
    sender = asyncio.create_task(_send_states(websocket, table, hub))
    working: set[asyncio.Task[None]] = set()
    try:
        while True:
            # an entry runs as its own task: a press that jams waits for the jam's answer,
            # which arrives on this same socket
            task = asyncio.create_task(
                _act_and_answer(websocket, table, hub, await _receive(websocket))
            )
            working.add(task)
            task.add_done_callback(working.discard)
    except WebSocketDisconnect:
        pass
    finally:
        sender.cancel()
        with suppress(asyncio.CancelledError, WebSocketDisconnect, RuntimeError):
            await sender


async def _act_and_answer(
    websocket: WebSocket, table: RefereeTable, hub: Hub, message: dict[str, Any]
) -> None:
    try:
        await _act(table, hub, message)
    except UnoAttackError as error:
        with suppress(WebSocketDisconnect, RuntimeError):
            await websocket.send_json({"type": "error", "message": str(error)})


async def _send_states(websocket: WebSocket, table: RefereeTable, hub: Hub) -> None:
    first = True
    while True:
        changed = hub.changed
        message = {"type": "state", "busy": hub.busy, "failure": hub.failure, **table.view()}
        if first and table.referee is not None:
            message["deck"] = table.deck()
            first = False
        await websocket.send_json(message)
        await changed.wait()


async def _act(table: RefereeTable, hub: Hub, message: dict[str, Any]) -> None:
    kind = message.get("type")
    if kind == "jam":
        table.answer_jam(message.get("pulled"))  # the waiting worker holds the lock
        return
    if kind == "hello":
        return
    if kind not in ("entry", "score"):
        raise EntryRefused(f"unknown action {str(kind)[:20]!r}")
    version = page_version(message)
    if kind == "entry":
        entry = entry_from_page(message, len(table.players))
    else:
        entry = table.score_entry(message.get("hands"))
    if hub.busy:
        raise EntryRefused("the launcher is busy: wait for it")
    await hub.run(lambda: table.apply(entry, version))
