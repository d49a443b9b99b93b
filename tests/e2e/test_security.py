"""Security checked from a real browser: hands stay private, other origins are refused."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.e2e.conftest import Server
from tests.e2e.test_virtual_round import GAME, SIM_SEED

#: What a page can find out through the WebSocket, run inside that page.
PROBE = """async ([url, token]) => new Promise((done) => {
  const socket = new WebSocket(url + (token ? '?token=' + token : ''));
  const got = [];
  socket.onopen = () => socket.send(JSON.stringify({type: 'hello', version: null}));
  socket.onmessage = (m) => { got.push(JSON.parse(m.data)); if (got.length >= 1) socket.close(); };
  socket.onclose = (e) => done({code: e.code, opened: got.length > 0, got});
  socket.onerror = () => {};
})"""


@pytest.fixture
def other_site() -> Iterator[str]:
    """Another web site on this machine (another origin), serving a blank page."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Blank)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join(timeout=10)


class _Blank(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
        body = b"<!doctype html><title>another site</title>"
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


def test_a_seat_page_shows_only_its_own_hand(
    serve: Callable[..., Server], phones: Callable[..., Any]
) -> None:
    server = serve(*GAME, "--seed", str(SIM_SEED), "--launcher", "sim://")
    mine, theirs = phones(), phones()
    mine.goto(server.seat_url(0))
    theirs.goto(server.seat_url(1))
    for page in (mine, theirs):
        page.wait_for_selector("#hand .card")
    ws = server.url.replace("http", "ws") + "/ws"
    # what seat 0's own socket is sent: its hand, and never seat 1's
    seen = mine.evaluate(PROBE, [ws, server.tokens["seats"][0]])
    views = [m["view"] for m in seen["got"] if m.get("view")]
    assert views and all(view["seat"] == 0 for view in views)
    assert mine.inner_text("#hand") != theirs.inner_text("#hand")
    # a made-up token opens no seat page and no socket
    response = mine.goto(f"{server.url}/seat/{'x' * 43}")
    assert response is not None and response.status == 403
    mine.goto(server.url + "/table")
    refused = mine.evaluate(PROBE, [ws, "x" * 43])
    assert refused["code"] == 4403
    assert not any(m.get("view") for m in refused["got"])


def test_a_page_from_another_origin_cannot_open_the_websocket(
    serve: Callable[..., Server], phones: Callable[..., Any], other_site: str
) -> None:
    server = serve(*GAME, "--seed", str(SIM_SEED), "--launcher", "sim://")
    page = phones()
    page.goto(other_site)
    ws = server.url.replace("http", "ws") + "/ws"
    # even holding a valid seat token, a page of another site gets nothing
    result = page.evaluate(PROBE, [ws, server.tokens["seats"][0]])
    assert result["got"] == []
    assert result["code"] != 1000


#: Open a socket (with ``token``, or none), wait for a view, send ``moves``, return the answer.
ACT = """async ([url, token, moves]) => new Promise((done) => {
  const socket = new WebSocket(url + (token ? '?token=' + token : ''));
  let sent = false;
  socket.onopen = () => socket.send(JSON.stringify({type: 'hello', version: null}));
  socket.onmessage = (m) => {
    const data = JSON.parse(m.data);
    if (data.type === 'update' && data.view && !sent) {
      sent = true;
      socket.send(JSON.stringify({type: 'move', moves, version: data.version}));
    } else if (data.type === 'error') { socket.close(); done(data.message); }
  };
  socket.onclose = () => done(null);
})"""


def test_a_move_without_a_token_or_through_another_seats_link_is_refused(
    serve: Callable[..., Server], phones: Callable[..., Any]
) -> None:
    server = serve(*GAME, "--seed", str(SIM_SEED), "--launcher", "sim://")
    tokens = server.tokens["seats"]
    pages = {seat: phones() for seat in range(4)}
    for seat, page in pages.items():
        page.goto(server.seat_url(seat))
        page.wait_for_selector("#status > *")
    # the one page that offers moves (every other page says whom it is waiting for)
    decider = next(s for s, p in pages.items() if p.locator("#moves button").count())
    other = (decider + 1) % 4
    move = pages[decider].get_attribute("#moves button", "data-move")
    ws = server.url.replace("http", "ws") + "/ws"
    hand = pages[decider].inner_text("#hand")
    # the decider's own move, sent by the table screen (no token) and by another seat's page
    no_token = pages[other].evaluate(ACT, [ws, None, [move]])
    wrong_seat = pages[other].evaluate(ACT, [ws, tokens[other], [move]])
    assert no_token and "no seat" in no_token
    assert wrong_seat and "not one of your moves" in wrong_seat
    # nothing happened: the decider still has the same question and the same cards
    pages[decider].reload()
    pages[decider].wait_for_selector("#moves button")
    assert pages[decider].inner_text("#hand") == hand
    assert pages[decider].get_attribute("#moves button", "data-move") == move
