"""The live calibration page: a ``calibrate record`` session watched from a phone or a TV.

``uno-attack table serve --calibration SESSION.jsonl`` serves ``/calibration``, a
read-only page (calibration counts are nobody's secret; the server still binds to
localhost unless ``--lan``). The server follows the session file that ``calibrate
record`` appends to (one fsync'd JSON line per press, :mod:`launcher.calibration.session`)
and pushes a snapshot over Server-Sent Events (``/calibration/events``) whenever the
file changes: the press count, the last press, the estimate of P(k) with its
*simultaneous* 95 % intervals (:func:`launcher.calibration.intervals.estimate`, the same
numbers ``calibrate fit`` prints) drawn as an inline SVG histogram, the mean with its
interval, and, once the planned presses are in, the fitted profile
(:func:`launcher.calibration.fit.fit_sessions`) as the TOML ``calibrate fit --out`` writes.

**Recording from a phone**: ``/calibration/record/HOST-TOKEN`` (the link the server
prints) is the same page with big buttons 0-9, a ``10+`` field, an undo and a "Loaded"
button: one person presses the launcher and taps the count. The taps go through
:class:`launcher.calibration.record.HandTally` into the same session file with the same
checks as ``calibrate record --manual`` (a count above the hopper refused with the number
loaded, undo of the last press, a reload asked below ``reload_below``). Only the host
token writes, only from the server's own origin (or ``--allowed-origin``), only as JSON;
a new file becomes a manual session of 90 cards, reload below 10, 100 presses planned.
Do not run ``calibrate record`` on the same file at the same time.

Needs the ``calibration`` extra (numpy, scipy) besides ``web``.
"""

from __future__ import annotations

import asyncio
import json
import math
import threading
from collections.abc import AsyncIterator
from html import escape
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from game.tables.web.auth import HOST
from game.tables.web.guard import allowlist
from game.tables.web.routes import WebContext
from hardware.errors import UnoAttackError

MODE = "calibration"
#: How often the server looks at the session file (seconds): a press takes longer.
POLL_S = 0.25
#: SSE comment sent when nothing changed for this long, so proxies keep the stream open.
KEEPALIVE_S = 15.0
WIDTH, HEIGHT, MARGIN = 360, 220, 28


def routes(context: WebContext) -> list[BaseRoute]:
    if context.settings.mode != MODE or context.settings.calibration is None:
        return []
    follower = SessionFollower(context.settings.calibration)
    context.state.setdefault("links", []).extend(
        [
            f"Live calibration of {follower.path}",
            "  page: {base}/calibration",
        ]
    )

    async def page(request: Request) -> Response:
        return FileResponse(context.static_dir / "calibration.html")

    async def events(request: Request) -> Response:
        return StreamingResponse(_stream(follower, request), media_type="text/event-stream")

    async def snapshot(request: Request) -> Response:
        return Response(json.dumps(follower.snapshot()), media_type="application/json")

    return [
        Route("/calibration", page),
        Route("/calibration/events", events),
        Route("/calibration/snapshot.json", snapshot),
        *_record_routes(context, follower.path),
    ]


# -- recording from a phone -------------------------------------------------------------------
#: A session the page creates: a full Attack load, topped up below 10, 100 presses planned.
NEW_CARDS, NEW_RELOAD_BELOW, NEW_PLANNED = 90, 10, 100


class PhoneRecorder:
    """The page's writer: opens the session at the first tap, one tap at a time."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._tally: Any = None

    def _open(self) -> Any:
        from launcher.calibration.record import HandTally
        from launcher.calibration.session import (
            SessionError,
            SessionHeader,
            SessionWriter,
            read_session,
        )

        if not self.path.exists():
            header = SessionHeader(
                "manual",
                NEW_CARDS,
                NEW_RELOAD_BELOW,
                NEW_PLANNED,
                manual=True,
                notes="tapped on the live calibration page",
            )
            return HandTally(SessionWriter.create(self.path, header), header, [])
        session = read_session(self.path)
        if session.header.launcher != "manual":
            raise SessionError(
                f"{self.path.name} records {session.header.launcher}: taps only go into a manual "
                "session",
                hint="serve a new file, or one made by `calibrate record --manual`",
            )
        return HandTally(SessionWriter.resume(session), session.header, session.presses)

    def act(self, action: str, count: Any = None) -> dict[str, Any]:
        """Do ``action`` (press, undo, reloaded, state) and say what happened."""
        with self._lock:
            try:
                if self._tally is None:
                    self._tally = self._open()
                message = self._do(self._tally, action, count)
            except UnoAttackError as error:
                return {"ok": False, "message": str(error), "tally": self._state()}
            return {"ok": True, "message": message, "tally": self._state()}

    @staticmethod
    def _do(tally: Any, action: str, count: Any) -> str:
        from launcher.calibration.session import SessionError

        if action == "press":
            if not isinstance(count, int) or isinstance(count, bool):
                raise SessionError(f"{count!r} refused: type how many cards came out (0 if none)")
            press = tally.record(count)
            return f"recorded press {press.n}: {press.count} card(s)"
        if action == "undo":
            undone = tally.undo()
            if undone is None:
                return "nothing to undo: no press tapped on this page yet"
            return f"undone: press {undone.n} ({undone.count} card(s)); tap it again"
        if action == "reloaded":
            tally.reloaded()
            return f"hopper loaded with {tally.header.cards_loaded} cards"
        if action == "state":
            return ""
        raise SessionError(f"unknown action {action!r}")

    def _state(self) -> dict[str, Any] | None:
        return None if self._tally is None else dict(self._tally.state())

    def close(self) -> None:
        with self._lock:
            if self._tally is not None:
                self._tally.writer.close()
                self._tally = None


def _record_routes(context: WebContext, path: Path) -> list[BaseRoute]:
    recorder = PhoneRecorder(path)
    origins = allowlist(context.settings)  # the server's names: worked out once, not per tap
    context.state["links"].append(
        f"  record from a phone: {{base}}/calibration/record/{context.tokens.host}"
    )

    def allowed(request: Request) -> bool:
        return context.tokens.check(request.path_params["token"], HOST)

    async def record_page(request: Request) -> Response:
        if not allowed(request):
            return Response("this link is not valid here", status_code=403)
        return FileResponse(context.static_dir / "calibration.html")

    async def action(request: Request) -> Response:
        headers = request.headers
        if not allowed(request) or not origins.origin_allowed(headers.get("origin")):
            return Response("this link is not valid here", status_code=403)
        if headers.get("content-type", "").split(";")[0].strip() != "application/json":
            return Response("expected JSON", status_code=415)
        try:
            body = json.loads(await request.body())
        except ValueError:
            body = None
        if not isinstance(body, dict):
            return Response("expected a JSON object", status_code=400)
        answer = await asyncio.to_thread(recorder.act, str(body.get("action")), body.get("count"))
        return Response(json.dumps(answer), media_type="application/json")

    async def close() -> None:
        recorder.close()

    context.on_shutdown.append(close)
    return [
        Route("/calibration/record/{token}", record_page),
        Route("/calibration/record/{token}/action", action, methods=["POST"]),
    ]


async def _stream(follower: SessionFollower, request: Request) -> AsyncIterator[str]:
    sent: object = _NOTHING_SENT
    quiet = 0.0
    while not await request.is_disconnected():
        stamp = follower.stamp()
        if stamp != sent:
            sent = stamp
            quiet = 0.0
            data = await asyncio.to_thread(follower.snapshot)
            yield f"data: {json.dumps(data)}\n\n"
        elif quiet >= KEEPALIVE_S:
            quiet = 0.0
            yield ": still here\n\n"
        await asyncio.sleep(POLL_S)  # sleep-ok: following a file another process writes
        quiet += POLL_S


_NOTHING_SENT = object()


class SessionFollower:
    """Reads the session file when it changed and summarises it for the page."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._cached: tuple[tuple[int, int] | None, dict[str, Any]] | None = None

    def stamp(self) -> tuple[int, int] | None:
        try:
            status = self.path.stat()
        except OSError:
            return None
        return (status.st_size, status.st_mtime_ns)

    def snapshot(self) -> dict[str, Any]:
        stamp = self.stamp()
        if self._cached is not None and self._cached[0] == stamp:
            return self._cached[1]
        data = self._summary() if stamp is not None else self._waiting()
        self._cached = (stamp, data)
        return data

    def _waiting(self) -> dict[str, Any]:
        return {
            "file": str(self.path),
            "presses": 0,
            "state": "waiting",
            "message": f"waiting for {self.path.name}: start `uno-attack calibrate record "
            f"{self.path}`",
        }

    def _summary(self) -> dict[str, Any]:
        try:
            from launcher.calibration.session import read_session

            session = read_session(self.path)
        except ImportError:
            return {
                **self._waiting(),
                "state": "error",
                "message": "install 'uno-attack[calibration]'",
            }
        except UnoAttackError as error:
            return {**self._waiting(), "state": "error", "message": str(error)}
        return summarise(session)


def summarise(session: Any) -> dict[str, Any]:
    """What the page shows for a session read by :func:`read_session`."""
    from launcher.calibration.intervals import estimate, mean_interval

    counts = [press.count for press in session.presses]
    header = session.header
    planned = int(header.presses_planned)
    data: dict[str, Any] = {
        "file": str(session.path),
        "launcher": header.launcher,
        "planned": planned,
        "presses": len(counts),
        "last": counts[-1] if counts else None,
        "state": "recording" if len(counts) < planned else "done",
    }
    if not counts:
        return data
    est = estimate(counts)
    mean = mean_interval(counts)
    data["distribution"] = [
        {"count": k, "observed": int(c), "p": float(p), "low": float(lo), "high": float(hi)}
        for k, c, p, lo, hi in zip(
            est.values, est.counts, est.probabilities, est.low, est.high, strict=True
        )
    ]
    data["tail"] = {"count_at_least": est.tail_from, "high": float(est.tail_high)}
    data["mean"] = {"estimate": mean.mean, "low": _finite(mean.low), "high": _finite(mean.high)}
    data["svg"] = histogram_svg(data["distribution"], len(counts))
    if data["state"] == "done":
        data["profile"] = _fitted(session)
    return data


def _fitted(session: Any) -> dict[str, Any]:
    from launcher.calibration.fit import fit_sessions
    from launcher.profiles.loading import profile_to_toml

    name = session.path.stem or "fitted"
    report = fit_sessions([session], name=name)
    return {
        "kind": report.profile.kind,
        "structure": report.structure,
        "independent": report.independent,
        "toml": profile_to_toml(report.profile),
        "notes": list(report.notes),
    }


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


#: Room on the left for the y axis' labels ("100 %").
LEFT = 46


def _y_ticks(top: float) -> list[float]:
    """0 and a round step (5, 10, 20, 25 or 50 points) up to ``top``: at most 5 labels."""
    step = next((s for s in (0.05, 0.1, 0.2, 0.25, 0.5) if top / s <= 4), 1.0)
    return [round(step * i, 6) for i in range(int(top / step + 1e-9) + 1)]


def histogram_svg(distribution: list[dict[str, Any]], presses: int) -> str:
    """P(k) as bars with their simultaneous intervals as whiskers; a y axis in percent.

    Text labels on every bar (its count) and on the y axis' ticks, so the chart
    reads without hovering.
    """
    cells = max(len(distribution), 1)
    plot_w, plot_h = WIDTH - LEFT - MARGIN, HEIGHT - 2 * MARGIN
    step = plot_w / cells
    top = max([row["high"] for row in distribution] + [0.05])

    def y(p: float) -> float:
        return MARGIN + plot_h * (1 - p / top)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="cards per press over {presses} presses, with 95 % simultaneous intervals">',
        f'<line x1="{LEFT}" y1="{MARGIN + plot_h}" x2="{WIDTH - MARGIN}" '
        f'y2="{MARGIN + plot_h}" stroke="#a9b0bb"/>',
        f'<line class="y-axis" x1="{LEFT}" y1="{MARGIN}" x2="{LEFT}" '
        f'y2="{MARGIN + plot_h}" stroke="#a9b0bb"/>',
    ]
    for tick in _y_ticks(top):
        parts.append(
            f'<line x1="{LEFT - 4}" y1="{y(tick):.1f}" x2="{LEFT}" y2="{y(tick):.1f}" '
            f'stroke="#a9b0bb"/><text class="y-tick" x="{LEFT - 6}" y="{y(tick) + 4:.1f}" '
            f'fill="#a9b0bb" font-size="11" text-anchor="end">{100 * tick:g} %</text>'
        )
    for i, row in enumerate(distribution):
        x = LEFT + i * step
        middle = x + step / 2
        parts.append(
            f'<rect class="bar" x="{x + step * 0.15:.1f}" y="{y(row["p"]):.1f}" '
            f'width="{step * 0.7:.1f}" height="{MARGIN + plot_h - y(row["p"]):.1f}" '
            f'fill="#2f6fd6"><title>{escape(_bar_title(row))}</title></rect>'
        )
        parts.append(
            f'<line class="interval" x1="{middle:.1f}" y1="{y(row["low"]):.1f}" '
            f'x2="{middle:.1f}" y2="{y(row["high"]):.1f}" stroke="#ffd24a" stroke-width="3"/>'
        )
        parts.append(
            f'<text x="{middle:.1f}" y="{HEIGHT - 8}" fill="#f2f2f2" font-size="12" '
            f'text-anchor="middle">{row["count"]}</text>'
        )
    parts.append(
        f'<text x="{LEFT}" y="{MARGIN - 10}" fill="#a9b0bb" font-size="12">'
        f"bars: P(k cards), lines: 95 % simultaneous</text>"
    )
    parts.append("</svg>")
    return "".join(parts)


def _bar_title(row: dict[str, Any]) -> str:
    return (
        f"{row['count']} card(s): {row['observed']} presses, "
        f"{row['p']:.1%} [{row['low']:.1%}, {row['high']:.1%}]"
    )
