"""The table in a browser: ``uno-attack table serve`` (phones hold hands, a screen the table).

Layout (this package is the top layer beside the CLI: it may import ``game`` and
``launcher``, nothing imports it but ``game.cli.table``):

* :mod:`game.tables.web.settings` — :class:`~game.tables.web.settings.WebSettings`, what is served;
* :mod:`game.tables.web.auth` — tokens per role (``host``, ``referee``, ``seat:N``);
* :mod:`game.tables.web.guard` — the Host allowlist and the WebSocket Origin check (every route);
* :mod:`game.tables.web.limits` — how many WebSockets, per address and in total; the hello deadline;
* :mod:`game.tables.web.session` — :class:`~game.tables.web.session.GameSession`: the game,
  its launcher, journal and bots; every change goes through it, one at a time, in a worker thread;
* :mod:`game.tables.web.views` — what each viewer may see (a seat's hand, the public table);
* :mod:`game.tables.web.live` — the WebSocket protocol (versions, rejoin, actions);
* :mod:`game.tables.web.app` — :func:`~game.tables.web.app.create_app`, the Starlette application;
* ``static/`` — plain HTML, CSS and small vanilla JavaScript (no build step, no CDN).

**Adding a page (the hook).** A page module (e.g. ``game/tables/web/referee.py``) defines
``routes(context: WebContext) -> list[starlette.routing.BaseRoute]`` and is named in
:data:`game.tables.web.routes.EXTRA_PAGES` (``game.tables.web.referee`` and
``game.tables.web.calibration`` are there already; a missing module is skipped).
``create_app`` mounts what it returns.
The :class:`~game.tables.web.routes.WebContext` gives the settings, the tokens (check a page's
token with ``context.tokens.check(token, REFEREE)`` or ``context.tokens.role_of(token)``),
the virtual game's session (None when ``settings.mode`` is not ``"virtual"``), the static
folder, a free ``state`` dict, and ``on_startup``/``on_shutdown`` lists of coroutine
functions run by the server's lifespan. Pages should reuse ``/static/style.css`` and
``/static/app.js`` (``Uno.el``, ``Uno.card``); the Host and Origin checks of
:mod:`game.tables.web.guard` cover their routes and WebSockets by themselves (a middleware), and
their WebSockets take a place from :mod:`game.tables.web.limits` like ``/ws``.

Install: ``pip install 'uno-attack[web]'`` (starlette, uvicorn, qrcode).
"""
