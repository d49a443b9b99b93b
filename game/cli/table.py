"""``uno-attack table serve``: the table in a browser, served by the Pi that drives the launcher.

    uno-attack table serve --players 4 --bots greedy --journal game.jsonl
    uno-attack table serve --resume game.jsonl --lan

Phones join their seat through a per-seat link (printed, and shown as QR codes on the
host page); a TV shows ``/table``. By default the server listens on 127.0.0.1 only;
``--lan`` listens on every interface and prints the links with the LAN address.
See ``docs/table-web.md``.
"""

from __future__ import annotations

import argparse
import errno
import socket
import sys
from pathlib import Path
from typing import Any

from game.cli.common import add_rule_arguments, web_url

EXAMPLE = "uno-attack table serve --players 4 --bots rule,casual --journal game.jsonl --lan"
BACKLOG = 128
GAME_DEFINING = ("ruleset", "players", "bots", "seats", "seed", "option", "custom", "rounds")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "table",
        help="serve the table in a browser: phones as hands, a shared table screen",
        description=f"Serve the game to browsers. Example: {EXAMPLE}",
    )
    commands = parser.add_subparsers(dest="table_command", metavar="COMMAND", required=True)
    serve = commands.add_parser(
        "serve",
        help="start the web server (localhost only unless --lan)",
        description=f"Start the web table. Example: {EXAMPLE}",
    )
    _add_arguments(serve)
    serve.set_defaults(func=run)


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ruleset", metavar="ID", help="the ruleset (default attack)")
    parser.add_argument("--players", type=int, default=4, help="number of seats (default 4)")
    parser.add_argument(
        "--bots",
        default="rule",
        type=bot_list,
        help="bots for the last seats, comma-separated: rule, casual, search, greedy, random; "
        "'' for none (default rule; docs/bots.md)",
    )
    parser.add_argument(
        "--seats", help='names instead of --players/--bots, e.g. "Ann,Bob,bot:rule"'
    )
    parser.add_argument("--launcher", metavar="SPEC", help="launcher spec (default as `play`)")
    parser.add_argument("--seed", type=int, help="game seed (default: a fresh one)")
    add_rule_arguments(parser)
    parser.add_argument("--rounds", type=int, help="stop after this many rounds")
    parser.add_argument("--journal", metavar="FILE", help="write the game to FILE (crash-safe)")
    parser.add_argument(
        "--resume", metavar="FILE", help="continue the game in FILE with the same join links"
    )
    parser.add_argument("--host", help="address to listen on (default 127.0.0.1; --lan: 0.0.0.0)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument(
        "--lan",
        action="store_true",
        help="listen on every interface so phones on the network can join; prints the links",
    )
    parser.add_argument(
        "--allowed-origin",
        action="append",
        default=[],
        type=web_url,
        metavar="URL",
        help="another page origin allowed to open the WebSocket (e.g. https://pi.example)",
    )
    parser.add_argument(
        "--public-url",
        type=web_url,
        metavar="URL",
        help="the address phones use (default: found with --lan)",
    )
    parser.add_argument(
        "--referee",
        action="store_true",
        help="a game with physical cards: serve the tap-to-referee page (--seats names people)",
    )
    parser.add_argument(
        "--calibration",
        metavar="SESSION",
        help="serve the live page of a `calibrate record` session file (JSONL) as it grows",
    )


def bot_list(text: str) -> list[str]:
    """``--bots``: ``"rule,casual"`` -> the bots; ``''`` -> none (every seat a person)."""
    return [name.strip() for name in text.split(",") if name.strip()]


def settings_from_args(args: argparse.Namespace) -> Any:
    """The :class:`~game.tables.web.settings.WebSettings` the flags ask for (no file is touched)."""
    from game.bots import BOT_NAMES
    from game.cli.simulate import parse_options
    from game.core.errors import JournalError
    from game.core.rulesets import DEFAULT_RULESET
    from game.tables.prompt import parse_seats
    from game.tables.web.settings import ALL_INTERFACES, LOCALHOST, WebSettings, default_seats

    if args.resume and args.journal:
        raise JournalError("--resume FILE continues writing FILE; do not also give --journal")
    if not 0 < args.port < 65536:
        raise JournalError(f"--port {args.port}: give 1 to 65535")
    host = args.host or (ALL_INTERFACES if args.lan else LOCALHOST)
    if args.resume:
        given = [
            f"--{n}"
            for n in ("ruleset", "seats", "seed", "option", "custom", "rounds")
            if getattr(args, n, None)
        ]
        if given:
            raise JournalError(f"{', '.join(given)} cannot be changed when resuming")
        seats = default_seats(2, ())
        options: dict[str, Any] = {}
    else:
        options = parse_options(args.option, args.custom)
        if args.seats:
            seats = parse_seats(args.seats, bots=BOT_NAMES)
        else:
            bots = bot_list(args.bots) if isinstance(args.bots, str) else args.bots
            seats = default_seats(args.players, [] if args.referee else bots)
    return WebSettings(
        ruleset=args.ruleset or DEFAULT_RULESET,
        options=options,
        seats=seats,
        launcher=args.launcher,
        seed=args.seed,
        rounds=args.rounds,
        journal=Path(args.journal) if args.journal else None,
        resume=Path(args.resume) if args.resume else None,
        host=host,
        port=args.port,
        allowed_origins=tuple(args.allowed_origin),
        lan=args.lan,
        public_url=args.public_url or (lan_url(args.port) if args.lan else None),
        mode="referee" if args.referee else "calibration" if args.calibration else "virtual",
        calibration=Path(args.calibration) if args.calibration else None,
    )


def lan_url(port: int) -> str:
    """``http://LAN-ADDRESS:PORT``: where phones on the network reach this server."""
    from game.tables.web.settings import lan_address

    return f"http://{lan_address()}:{port}"


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn  # noqa: F401 - the web extra is checked before anything is bound

        from game.tables.web.app import create_app, join_links
    except ModuleNotFoundError as error:
        from game.cli import MissingExtra

        raise MissingExtra(
            f"`uno-attack table serve` needs {error.name}, which is not installed",
            hint="install the web extra: pip install 'uno-attack[web]'",
        ) from None
    settings = settings_from_args(args)
    listening = listen(settings.host, settings.port)  # before any link is printed or file made
    try:
        app = create_app(settings)
    except BaseException:
        listening.close()
        raise
    context = app.state.context
    base = settings.public_url or f"http://{settings.host}:{settings.port}"
    if settings.mode == "virtual":
        _print_links(join_links(context, base), f"{base}/host/{context.tokens.host}", settings.lan)
    else:  # the referee or calibration page prints its own link
        for line in context.state.get("links", []):
            sys.stdout.write(f"{line.format(base=base)}\n")
        sys.stdout.flush()
    # the launcher opens on a worker thread, where no signal handler can be installed: install
    # the motor-stopping ones here (uvicorn takes SIGINT/SIGTERM while serving, then re-raises)
    from hardware import safety

    safety.install_stop_handlers()
    serve(app, listening)
    return 0


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` and listening, or a clear error (nothing else done)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listening = socket.socket(family, socket.SOCK_STREAM)
    try:
        listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listening.bind((host, port))
        listening.listen(BACKLOG)
    except OSError as error:
        listening.close()
        raise _listen_error(host, port, error) from None
    return listening


def _listen_error(host: str, port: int, error: OSError) -> Exception:
    from hardware.errors import ConfigError

    if error.errno == errno.EADDRINUSE:
        another = port + 1 if port < 65535 else port - 1
        return ConfigError(
            f"port {port} on {host} is already in use (another server, or this one still "
            "running?); nothing was started or written",
            hint=f"stop the other server, or choose another port: --port {another}",
        )
    return ConfigError(
        f"cannot listen on {host}:{port}: {error.strerror or error}; nothing was written",
        hint="ports below 1024 need root: use --port 8000"
        if error.errno == errno.EACCES
        else "check --host (an address of this machine) and --port",
    )


def serve(app: Any, listening: socket.socket) -> None:
    """Run uvicorn on the socket :func:`listen` bound, until SIGINT or SIGTERM."""
    import uvicorn

    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,  # the request lines carry the tokens
        ws_max_size=65536,  # a page's messages are a few hundred bytes: refuse big frames
    )
    uvicorn.Server(config).run(sockets=[listening])


def _print_links(links: dict[str, Any], host_link: str, lan: bool) -> None:
    out = sys.stdout
    where = "on your network" if lan else "on this machine only (add --lan for phones)"
    out.write(f"UNO Attack table, {where}\n")
    out.write(f"  host page (keep it private): {host_link}\n")
    out.write(f"  table screen: {links['table']}\n")
    for seat in links["seats"]:
        out.write(f"  {seat['name']}: {seat['url']}\n")
        if lan:
            _print_qr(seat["url"])
    out.flush()


def _print_qr(url: str) -> None:
    try:
        import qrcode
    except ImportError:
        return
    code = qrcode.QRCode(border=1)
    code.add_data(url)
    code.print_ascii(out=sys.stdout, invert=True)
