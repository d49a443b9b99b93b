"""The hook through which other pages join the web table (the referee page, live calibration).

:data:`EXTRA_PAGES` names modules; :func:`game.tables.web.app.create_app` imports each one that
exists and calls its ``routes(context: WebContext) -> list[BaseRoute]``, mounting what it
returns beside the table's own routes. A module not written yet is skipped, so adding a
page is adding a module (and, if its name is new, one line here). ``context`` gives the
settings, the tokens (``context.tokens.check(token, REFEREE)``), the game session (None
until it has started) and the folder of static files.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.routing import BaseRoute

from game.tables.web.auth import Tokens
from game.tables.web.limits import Admission
from game.tables.web.settings import WebSettings

if TYPE_CHECKING:
    from game.tables.web.session import GameSession

#: Page modules mounted by ``create_app`` when they exist (each defines ``routes(context)``).
EXTRA_PAGES = ("game.tables.web.referee", "game.tables.web.calibration", "game.tables.web.favicon")

STATIC_DIR = Path(__file__).resolve().parent / "static"


@dataclass
class WebContext:
    """What a page module may use: settings, tokens, the session, static files, shared state."""

    settings: WebSettings
    tokens: Tokens
    session: GameSession | None = None
    static_dir: Path = STATIC_DIR
    #: Free room for page modules (e.g. a referee session), keyed by module name.
    state: dict[str, Any] = field(default_factory=dict)
    #: Coroutine factories run at server start-up / shut-down (page background tasks).
    on_startup: list[Callable[[], Any]] = field(default_factory=list)
    on_shutdown: list[Callable[[], Any]] = field(default_factory=list)
    #: The places of the open WebSockets (each page's socket takes one; game.tables.web.limits).
    admission: Admission = field(default_factory=Admission)


def extra_routes(context: WebContext, pages: tuple[str, ...] = EXTRA_PAGES) -> list[BaseRoute]:
    """The routes of every page module in ``pages`` that exists."""
    routes: list[BaseRoute] = []
    for name in pages:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as error:
            if error.name == name:
                continue
            raise
        routes.extend(module.routes(context))
    return routes
