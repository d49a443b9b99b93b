"""The live part of the table: one WebSocket per page, each sent its own view after each change.

Protocol (JSON text frames). The page opens ``/ws?token=TOKEN`` (no token: the public
table screen) and first sends ``{"type": "hello", "version": V}`` with the last version
it saw (``null`` when it has none). The server answers with an ``update`` and sends one
after every change::

    {"type": "update", "version": 57, "role": "seat:1",
     "events": [{"version": 57, "event": {...}, "text": "Ann plays Red 7."}],
     "view": {...}, "jam": null}

``version`` counts the game's events (it never goes down, and a resumed game numbers its
events as before the restart); ``events`` are the ones after the page's version (a
rejoining phone misses nothing), each cut down for this viewer; ``reset``: the page
remembered events this game does not have (a crash lost a move that was never
journaled), so it must forget its feed and take these events instead; ``view`` is the
viewer's own view (:mod:`game.tables.web.views`), absent while the game is busy pressing the
launcher (the events keep coming). Pages act with::

    {"type": "move", "moves": ["R5", "uno"], "version": 57}   a seat's moves
    {"type": "jam", "pulled": 2}   /  {"type": "jam", "pulled": null}   the host, after a jam
    {"type": "press"}   the host, when a launcher error (not a jam) left a press waiting
    {"type": "ping"}    answered by {"type": "pong"}: a phone back from sleep finds a dead link

and a refused action gets ``{"type": "error", "message": "..."}``. A token that is not
valid closes the socket with code 4403; a page from another origin or host, and a socket
for which there is no place (:mod:`game.tables.web.limits`), is refused before the handshake
completes; a page silent for :attr:`~game.tables.web.limits.Limits.hello_timeout` seconds after
it opened is closed with code 4408.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

import anyio.to_thread
from starlette.websockets import WebSocket, WebSocketDisconnect

from game.tables.web.auth import CLOSE_FORBIDDEN, HOST, TABLE, role_seat
from game.tables.web.limits import CLOSE_SLOW, Limits
from game.tables.web.routes import WebContext
from game.tables.web.session import ActionRefused, GameSession
from game.tables.web.views import NOBODY, describe, public_event, seat_view, table_view
from hardware.errors import UnoAttackError

#: Events sent to a page that remembers nothing (the feed's recent past).
FRESH_EVENTS = 40
MAX_MESSAGE = 4096
#: Actions of one page waiting for their turn at most (a page acts one move at a time).
MAX_PENDING = 3


class Hub:
    """Runs the session's changes one at a time in a worker thread, and wakes every page."""

    def __init__(self, session: GameSession) -> None:
        self.session = session
        self.lock = asyncio.Lock()
        self.busy = True  # until the game has been opened
        self.changed = asyncio.Event()
        self.loop = asyncio.get_running_loop()
        self.failure: str | None = None
        #: True once the game has been opened (or failed to): versions are final from then on.
        self.opened = False
        session.listeners.append(self._from_any_thread)

    def _from_any_thread(self) -> None:
        self.loop.call_soon_threadsafe(self.wake)

    def wake(self) -> None:
        """Tell every page to look again (each waits on the event it saw last)."""
        self.changed.set()
        self.changed = asyncio.Event()

    async def run(self, change: Callable[[], Any]) -> Any:
        """Run ``change`` on the session in a worker thread, alone; wake the pages after."""
        async with self.lock:
            self.busy = True
            try:
                return await anyio.to_thread.run_sync(change)
            finally:
                self.busy = False
                self.wake()

    async def open(self) -> None:
        """Start (or resume) the game; an error is shown on every page instead of a game."""
        try:
            await self.run(self.session.open)
        except UnoAttackError as error:
            self.failure = f"{error} ({error.hint})" if error.hint else str(error)
            print(f"uno-attack: error: {self.failure}", file=sys.stderr, flush=True)
        finally:
            self.opened = True
            self.wake()


@dataclass
class Viewer:
    """One connected page."""

    role: str
    seat: int | None
    version: int = 0


def view_message(hub: Hub, viewer: Viewer, events_from: int) -> dict[str, Any]:
    """The ``update`` for ``viewer``: its events since ``events_from`` and (if idle) its view."""
    session = hub.session
    whom = viewer.seat if viewer.seat is not None else NOBODY
    reset = hub.opened and events_from > session.version
    if reset:  # the page saw events this game no longer has (they were never journaled)
        events_from = max(0, session.version - FRESH_EVENTS)
    numbered = session.events_since(events_from)
    events = [
        {"version": v, "event": shown, "text": describe(shown, session.names)}
        for v, event in numbered
        for shown in [public_event(event, whom)]
    ]
    if numbered:
        viewer.version = numbered[-1][0]
    elif reset:
        viewer.version = events_from
    message: dict[str, Any] = {
        "type": "update",
        # the last event this page has been sent (never one it has not: a worker may be
        # adding events right now), so a page that rejoins with it misses nothing
        "version": viewer.version,
        "role": viewer.role,
        "events": events,
        "jam": session.jam,
        "stuck": session.stuck,
        "failure": hub.failure,
        "busy": hub.busy,
        "reset": reset,
    }
    game = session.game
    if game is not None and not hub.busy and viewer.version == session.version:
        names, bots = session.names, session.bot_names
        message["view"] = (
            seat_view(game, names, bots, viewer.seat)
            if viewer.seat is not None
            else table_view(game, names, bots)
        )
    return message


async def serve_socket(websocket: WebSocket, context: WebContext, hub: Hub | None) -> None:
    """The ``/ws`` endpoint: a place for the socket (Host and Origin were checked by
    :mod:`game.tables.web.guard`), its token, its hello in time, then talk until the page goes."""
    token = websocket.query_params.get("token")
    role = context.tokens.role_of(token) if token else TABLE
    address = websocket.client.host if websocket.client else "?"
    with context.admission.place(role, address) as admitted:
        if not admitted:  # refused before the handshake completes: HTTP 403
            await websocket.close(code=CLOSE_FORBIDDEN)
            return
        await websocket.accept()
        if role is None or hub is None:
            reason = "this link is not valid here" if role is None else "no game is served here"
            await websocket.send_json({"type": "error", "message": reason, "fatal": True})
            await websocket.close(code=CLOSE_FORBIDDEN)
            return
        await _talk(websocket, hub, Viewer(role, role_seat(role)), context.admission.limits)


async def _talk(websocket: WebSocket, hub: Hub, viewer: Viewer, limits: Limits) -> None:
    """Wait for the page's hello (closing a page that is silent too long), then serve it."""
    try:
        hello = await asyncio.wait_for(_receive(websocket), limits.hello_timeout)
    except TimeoutError:
        with suppress(WebSocketDisconnect, RuntimeError):
            await websocket.close(code=CLOSE_SLOW)
        return
    except WebSocketDisconnect:
        return
    version = hello.get("version")
    start = version if isinstance(version, int) and version >= 0 else None
    viewer.version = start if start is not None else max(0, hub.session.version - FRESH_EVENTS)
    sender = asyncio.create_task(_send_updates(websocket, hub, viewer))
    try:
        await _receive_actions(websocket, hub, viewer)
    except WebSocketDisconnect:
        pass
    finally:
        sender.cancel()
        with suppress(asyncio.CancelledError, WebSocketDisconnect, RuntimeError):
            await sender


async def _send_updates(websocket: WebSocket, hub: Hub, viewer: Viewer) -> None:
    while True:
        changed = hub.changed
        await websocket.send_json(view_message(hub, viewer, viewer.version))
        await changed.wait()


async def _receive_actions(websocket: WebSocket, hub: Hub, viewer: Viewer) -> None:
    """Read actions; each runs as its own task, so a move waiting out a jam blocks nothing."""
    pending: set[asyncio.Task[None]] = set()
    try:
        while True:
            message = await _receive(websocket)
            if message.get("type") == "ping":  # the page checks that the link is alive
                await websocket.send_json({"type": "pong"})
                continue
            if len(pending) >= MAX_PENDING:
                await _reply(websocket, "one move at a time: wait for the last one")
                continue
            task = asyncio.create_task(_answer(websocket, hub, viewer, message))
            pending.add(task)
            task.add_done_callback(pending.discard)
    finally:
        for task in pending:
            task.cancel()


async def _answer(websocket: WebSocket, hub: Hub, viewer: Viewer, message: dict[str, Any]) -> None:
    try:
        note = await _act(hub, viewer, message)
    except UnoAttackError as error:
        note = str(error)
    except Exception as error:  # a bug: say so on the page, keep serving the others
        note = f"internal error (a bug in uno-attack): {type(error).__name__}: {error}"
    if note:
        with suppress(WebSocketDisconnect, RuntimeError):
            await _reply(websocket, note)


async def _reply(websocket: WebSocket, text: str) -> None:
    await websocket.send_json({"type": "error", "message": text})


async def _receive(websocket: WebSocket) -> dict[str, Any]:
    """The next text frame as a JSON object; anything else (binary, too long, not JSON): {}."""
    frame = await websocket.receive()
    if frame["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(frame.get("code", 1000))
    text = frame.get("text")
    if not isinstance(text, str) or len(text) > MAX_MESSAGE:
        return {}
    try:
        message = json.loads(text)
    except ValueError:
        return {}
    return message if isinstance(message, dict) else {}


def page_version(message: dict[str, Any]) -> int:
    """The ``version`` of the state a page acted on: a whole number, or the action is refused.

    The one check for every action that changes a game (a seat's moves, a referee's
    entries and scores): without it a double tap would act twice, on a state nobody saw.
    ``null``, ``"1"``, ``1.0``, ``NaN`` and ``true`` are not versions.
    """
    version = message.get("version")
    if type(version) is not int or version < 0:
        raise ActionRefused("version: the whole number of the state the page showed")
    return version


async def _act(hub: Hub, viewer: Viewer, message: dict[str, Any]) -> str | None:
    kind = message.get("type")
    session = hub.session
    if kind == "hello":  # a second hello changes nothing: updates already flow
        return None
    if kind == "jam":
        if viewer.role != HOST:
            raise ActionRefused("only the host may clear a jam or press the launcher")
        pulled = message.get("pulled")
        if pulled is not None and (not isinstance(pulled, int) or isinstance(pulled, bool)):
            raise ActionRefused("pulled: a number of cards, or null to press again")
        session.answer_jam(pulled)  # the waiting worker holds the lock: answer without it
        return None
    if kind == "press":
        if viewer.role != HOST:
            raise ActionRefused("only the host may clear a jam or press the launcher")
        await hub.run(session.press_again)
        return None
    if kind != "move":
        raise ActionRefused(f"unknown action {str(kind)[:20]!r}")
    seat = viewer.seat
    if seat is None:
        raise ActionRefused("this page has no seat: only a seat's own link may play")
    moves = message.get("moves")
    if not isinstance(moves, list):
        raise ActionRefused("moves: a list of move texts")
    version = page_version(message)
    result: str | None = await hub.run(lambda: session.act(seat, moves, version))
    return result
