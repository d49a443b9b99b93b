"""``/favicon.ico``: the table's icon, so a browser's tab (and its log) shows no 404.

Browsers ask for ``/favicon.ico`` whatever the page says; the pages also name
``/static/favicon.svg`` with ``<link rel="icon">``. Both are the same small SVG (a red
card), served as ``image/svg+xml``, which every current browser draws as a tab icon.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute, Route

from game.tables.web.routes import WebContext

ICON = "favicon.svg"


def routes(context: WebContext) -> list[BaseRoute]:
    """The icon route (mounted through :data:`game.tables.web.routes.EXTRA_PAGES`)."""
    icon = context.static_dir / ICON

    async def favicon(request: Request) -> Response:
        return FileResponse(icon, media_type="image/svg+xml")

    return [Route("/favicon.ico", favicon)]
