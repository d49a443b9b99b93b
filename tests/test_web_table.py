"""The web table over its real WebSocket protocol: a round played by phones, privacy, refusals.

Starlette's TestClient runs the real ASGI application (lifespan, routing, the WebSocket
handshake and frames); the game behind it is the real engine with a ``sim://`` launcher
and real bots.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from game.tables.web.auth import CLOSE_FORBIDDEN
from tests.web_client import ORIGIN, Page, app_and_tokens, hello, open_page, quick_settings

PEOPLE = (0, 1)


def _play_round(client: TestClient, tokens: Any) -> tuple[dict[int, Page], Page, int]:
    """Two phones play the first legal move whenever they decide; returns pages and moves made."""
    with ExitStack() as stack:
        seats = {s: hello(stack.enter_context(open_page(client, tokens.seats[s]))) for s in PEOPLE}
        table = hello(stack.enter_context(open_page(client, None)))
        views = {s: page.view_after() for s, page in seats.items()}
        made = 0
        while views[0]["view"]["pending"] not in ("round_over", "game_over"):
            decider = views[0]["view"]["decider"]
            assert decider in PEOPLE, "the server stops only where a person decides"
            mine = views[decider]
            reply = seats[decider].move([mine["view"]["moves"][0]["move"]], mine["version"])
            assert reply["type"] == "update", reply
            made += 1
            assert made < 200
            views[decider] = reply
            for seat in PEOPLE:
                if seat != decider:
                    views[seat] = _catch_up(seats[seat], reply["version"])
        _catch_up(table, views[0]["version"])
        return seats, table, made


def _catch_up(page: Page, version: int) -> dict[str, Any]:
    while True:
        message = page.view_after()
        if message["version"] >= version:
            return message


def test_two_phones_and_two_bots_play_a_round_to_its_end() -> None:
    app, tokens = app_and_tokens(quick_settings())
    with TestClient(app) as client:
        seats, table, made = _play_round(client, tokens)
        session = app.state.context.session
    kinds = [event["type"] for event in table.events]
    assert kinds[0] == "game_start" and "round_end" in kinds
    assert made == 23  # this seed's round, first move of the canonical list each time
    assert session.game.is_round_over()
    last = seats[0].messages[-1]["view"]
    assert last["pending"] in ("round_over", "game_over")
    assert sum(last["scores"]) > 0
    # the table screen saw every event, each exactly once, in order
    assert len(table.events) == session.version


def test_a_seat_is_never_sent_another_seats_cards() -> None:
    app, tokens = app_and_tokens(quick_settings())
    with TestClient(app) as client:
        seats, table, _ = _play_round(client, tokens)
        game = app.state.context.session.game
        own = [card["code"] for card in seats[1].messages[-1]["view"]["hand"]]
        assert own == [c.code for c in game.hand(1)]
    for viewer, page in ((1, seats[1]), (-1, table)):
        for message in page.messages:
            view = message.get("view", {})
            assert "hand" not in view or view["seat"] == viewer
            for event in (item["event"] for item in message.get("events", [])):
                _assert_private_fields_hidden(event, viewer)


def _assert_private_fields_hidden(event: dict[str, Any], viewer: int) -> None:
    kind = event["type"]
    if kind == "deal":
        for seat, hand in enumerate(event["hands"]):
            assert isinstance(hand, int) or seat == viewer, event
        assert isinstance(event["loaded"], int)
    if kind == "hit" and event["player"] != viewer:
        assert "cards" not in event
    if kind == "decision" and event["player"] != viewer:
        assert "moves" not in event
    if kind == "reload":
        assert "cards" not in event
    if kind == "challenge" and viewer not in (event["player"], event["accused"]):
        assert "hand" not in event
    if kind == "give" and viewer not in (event["player"], event["to"]):
        assert "card" not in event


def _decider_page(client: TestClient, tokens: Any) -> tuple[int, dict[str, Any]]:
    with open_page(client, tokens.seats[0]) as socket:
        view = hello(socket).view_after()
    return view["view"]["decider"], view


def test_a_move_without_a_token_or_with_another_seats_token_is_refused() -> None:
    app, tokens = app_and_tokens(quick_settings())
    with TestClient(app) as client:
        decider, first = _decider_page(client, tokens)
        other = 1 - decider
        move = None
        with open_page(client, tokens.seats[decider]) as socket:
            move = hello(socket).view_after()["view"]["moves"][0]["move"]
        version = first["version"]
        with open_page(client, None) as socket:
            table = hello(socket)
            table.view_after()
            refused = table.move([move], version)
        assert refused["type"] == "error" and "no seat" in refused["message"]
        with open_page(client, tokens.seats[other]) as socket:
            page = hello(socket)
            page.view_after()
            refused = page.move([move], version)
        assert refused["type"] == "error" and "not one of your moves" in refused["message"]
        with open_page(client, tokens.host) as socket:
            page = hello(socket)
            page.view_after()
            refused = page.move([move], version)
        assert refused["type"] == "error"
        assert app.state.context.session.version == version  # nothing changed
        with open_page(client, "not-a-token") as socket:
            assert socket.receive_json()["fatal"] is True
            with pytest.raises(WebSocketDisconnect) as closed:
                socket.receive_json()
        assert closed.value.code == CLOSE_FORBIDDEN


def test_pages_behind_a_token_refuse_a_wrong_token() -> None:
    app, tokens = app_and_tokens(quick_settings())
    with TestClient(app) as client:
        assert client.get(f"/seat/{tokens.seats[0]}").status_code == 200
        assert client.get(f"/host/{tokens.host}").status_code == 200
        assert client.get("/seat/guess").status_code == 403
        assert client.get(f"/seat/{tokens.host}").status_code == 403
        assert client.get(f"/host/{tokens.seats[0]}").status_code == 403
        assert client.get(f"/host/{tokens.seats[0]}/links.json").status_code == 403
        links = client.get(f"/host/{tokens.host}/links.json").json()
        assert [s["seat"] for s in links["seats"]] == [0, 1]  # people only, not the bots
        assert links["seats"][0]["url"].endswith(f"/seat/{tokens.seats[0]}")
        qr = client.get(f"/host/{tokens.host}/qr/0.svg")
        assert qr.status_code == 200 and qr.headers["content-type"].startswith("image/svg")
        page = client.get("/table")
        assert page.headers["referrer-policy"] == "no-referrer"
        assert "default-src 'self'" in page.headers["content-security-policy"]


@pytest.mark.parametrize("origin", ["http://evil.example", "http://testserver.evil.example", None])
def test_a_cross_origin_websocket_is_refused(origin: str | None) -> None:
    app, tokens = app_and_tokens(quick_settings())
    headers = {"origin": origin} if origin else {}
    with TestClient(app) as client:
        with pytest.raises(WebSocketDisconnect) as refused:
            with client.websocket_connect(f"/ws?token={tokens.seats[0]}", headers=headers):
                pass
    assert refused.value.code == CLOSE_FORBIDDEN


def test_an_allowed_origin_may_connect() -> None:
    app, tokens = app_and_tokens(quick_settings(allowed_origins=("https://pi.example",)))
    with TestClient(app) as client:
        headers = {"origin": "https://pi.example"}  # behind a proxy: Host pi.example too
        url = f"wss://pi.example/ws?token={tokens.seats[0]}"
        with client.websocket_connect(url, headers=headers) as ws:
            assert "view" in hello(ws).view_after()


def test_a_phone_that_reconnects_gets_every_event_it_missed() -> None:
    app, tokens = app_and_tokens(quick_settings())
    with TestClient(app) as client, open_page(client, None) as table_socket:
        table = hello(table_socket)
        table.view_after()
        decider, first = _decider_page(client, tokens)
        left_at = first["version"]
        # the other phone sleeps; the decider plays until the version has moved on
        with open_page(client, tokens.seats[decider]) as socket:
            page = hello(socket)
            view = page.view_after()
            for _ in range(3):
                if view["view"]["decider"] != decider or view["view"]["pending"] == "round_over":
                    break
                view = page.move([view["view"]["moves"][0]["move"]], view["version"])
        now = app.state.context.session.version
        assert now > left_at
        with open_page(client, tokens.seats[1 - decider]) as socket:
            back = hello(socket, version=left_at).view_after()
        table_now = table.view_after(now - 1)
    versions = [item["version"] for item in back["events"]]
    assert versions == list(range(left_at + 1, now + 1))
    assert [item["event"]["type"] for item in back["events"]] == [
        e["type"] for e in table.events[left_at:now]
    ]
    assert table_now["version"] == now


@contextmanager
def _deciding(client: TestClient, tokens: Any) -> Iterator[tuple[int, Any, Page, dict[str, Any]]]:
    """The deciding seat's open page: (seat, socket, page, its first view)."""
    decider, _ = _decider_page(client, tokens)
    with open_page(client, tokens.seats[decider]) as socket:
        page = hello(socket)
        yield decider, socket, page, page.view_after()


def test_a_page_that_is_behind_cannot_move() -> None:
    """A double tap sends the same move twice: the second is refused, not played again."""
    app, tokens = app_and_tokens(quick_settings())
    with TestClient(app) as client:
        with _deciding(client, tokens) as (_, socket, page, view):
            move = view["view"]["moves"][-1]["move"]
            page.move([move], view["version"])
            again = page.move([move], view["version"])
        assert again["type"] == "error" and "changed" in again["message"]


def test_origin_header_is_required_for_the_table_screen_too() -> None:
    app, _ = app_and_tokens(quick_settings())
    with TestClient(app) as client:
        with pytest.raises(WebSocketDisconnect):
            with client.websocket_connect("/ws", headers={"origin": ORIGIN + ".evil"}):
                pass


def test_the_hand_marks_the_cards_that_can_be_played() -> None:
    app, tokens = app_and_tokens(quick_settings())
    with TestClient(app) as client:
        decider, _ = _decider_page(client, tokens)
        with open_page(client, tokens.seats[decider]) as socket:
            view = hello(socket).view_after()["view"]
    plays = {m["move"] for m in view["moves"] if m["kind"] == "play"}
    assert {c["code"] for c in view["hand"] if c["playable"]} == plays


@pytest.mark.parametrize(
    "message",
    ["not json", "[1, 2]", '{"type": "fly"}', '{"type": "move", "moves": "R5"}', b"\x00binary"],
)
def test_a_malformed_message_gets_an_error_and_changes_nothing(message: str | bytes) -> None:
    app, tokens = app_and_tokens(quick_settings())
    with TestClient(app) as client:
        with open_page(client, tokens.seats[0]) as socket:
            page = hello(socket)
            before = page.view_after()["version"]
            for _ in range(2):  # and the connection stays open for the next message
                if isinstance(message, bytes):
                    socket.send_bytes(message)
                else:
                    socket.send_text(message)
                while page.receive()["type"] != "error":
                    pass
            assert app.state.context.session.version == before


def test_a_ping_gets_a_pong() -> None:
    app, tokens = app_and_tokens(quick_settings())
    with TestClient(app) as client, open_page(client, tokens.seats[0]) as socket:
        page = hello(socket)
        page.view_after()
        socket.send_json({"type": "ping"})
        while page.receive()["type"] != "pong":
            pass


def test_a_page_that_remembers_more_than_the_game_has_starts_its_feed_again() -> None:
    app, tokens = app_and_tokens(quick_settings())
    with TestClient(app) as client:
        with open_page(client, tokens.seats[0]) as socket:
            first = hello(socket).view_after()
        with open_page(client, tokens.seats[0]) as socket:
            again = hello(socket, version=first["version"] + 100).view_after()
    assert again["reset"] is True and not first["reset"]
    assert [item["version"] for item in again["events"]][-1] == first["version"]


@pytest.mark.parametrize(
    "version",
    [
        "",
        ', "version": null',
        ', "version": "1"',
        ', "version": NaN',
        ', "version": 1.0',
        ', "version": true',
        ', "version": -1',
        ', "version": [1]',
    ],
)
def test_a_move_without_a_whole_number_version_is_refused(version: str) -> None:
    """The page must say which state it saw: omitted, null, text, NaN, 1.0, true are not that."""
    app, tokens = app_and_tokens(quick_settings())
    with TestClient(app) as client:
        with _deciding(client, tokens) as (decider, socket, page, view):
            move = view["view"]["moves"][-1]["move"]
            socket.send_text(f'{{"type": "move", "moves": ["{move}"]{version}}}')
            refused = page.receive()  # an error, or (were it played) a newer state
            while refused["type"] != "error" and refused["version"] <= view["version"]:
                refused = page.receive()
        assert "version" in refused.get("message", ""), refused
        assert app.state.context.session.version == view["version"]  # nothing was played


def test_a_move_list_is_played_whole_or_not_at_all() -> None:
    """``["G1", "G5"]``: the second card is not playable after the first, so neither is played."""
    app, tokens = app_and_tokens(quick_settings())
    with TestClient(app) as client:
        with _deciding(client, tokens) as (decider, socket, page, view):
            plays = [m["move"] for m in view["view"]["moves"] if m["kind"] == "play"]
            held = [card["code"] for card in view["view"]["hand"]]
            second = next(code for code in held if code != plays[0])
            refused = page.move([plays[0], second], view["version"])
        assert refused["type"] == "error" and "nothing was played" in refused["message"]
        session = app.state.context.session
        assert session.version == view["version"]
        assert sorted(c.code for c in session.game.hands[decider]) == sorted(held)
