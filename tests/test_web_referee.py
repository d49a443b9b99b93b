"""The referee page's server side over its real WebSocket (Starlette's TestClient, real Referee).

The browser flow is tests/e2e/test_referee_page.py; here: who may referee, every field
checked, nothing changed by a refused entry, and a journaled game resumed with its links.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from game.tables.prompt import SeatSpec
from game.tables.web.app import create_app
from game.tables.web.auth import CLOSE_FORBIDDEN
from game.tables.web.settings import WebSettings

ORIGIN = {"origin": "http://testserver"}
PLAYERS = ["Ann", "Sam", "Kim"]


def _settings(**changes: Any) -> WebSettings:
    values: dict[str, Any] = {
        "seats": [SeatSpec(name) for name in PLAYERS],
        "launcher": "sim://",
        "seed": 4,
        "mode": "referee",
        "allowed_origins": (ORIGIN["origin"],),
    }
    values.update(changes)
    return WebSettings(**values)


#: The version of the last state each socket was sent (by id): what its page shows.
_SHOWN: dict[int, int] = {}


def _until(socket: Any, wanted: Any) -> dict[str, Any]:
    while True:
        message = socket.receive_json()
        if message["type"] == "state":
            _SHOWN[id(socket)] = message["version"]
        if message["type"] == "error" or wanted(message):
            return message


def _idle(socket: Any) -> dict[str, Any]:
    return _until(socket, lambda m: m["phase"] is not None and not m["busy"])


def _send(socket: Any, message: dict[str, Any], wanted: Any = lambda m: True) -> dict[str, Any]:
    """Send ``message`` as the page does, with the version of the state it shows."""
    socket.send_json({"version": _SHOWN.get(id(socket), 0), **message})
    return _until(socket, lambda m: not m["busy"] and m["phase"] is not None and wanted(m))


@pytest.fixture
def referee() -> Any:
    app = create_app(_settings())
    with TestClient(app) as client:
        yield client, app.state.context.tokens


def test_only_the_referee_and_host_links_open_the_referee_page(referee: Any) -> None:
    client, tokens = referee
    assert client.get(f"/referee/{tokens.referee}").status_code == 200
    assert client.get(f"/referee/{tokens.host}").status_code == 200
    for token in (tokens.seats[0], "x" * 43):
        assert client.get(f"/referee/{token}").status_code == 403
    with client.websocket_connect(f"/referee/ws?token={tokens.seats[0]}", headers=ORIGIN) as ws:
        assert ws.receive_json()["type"] == "error"
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
    assert closed.value.code == CLOSE_FORBIDDEN
    other = {"origin": "http://evil.example"}
    with pytest.raises(WebSocketDisconnect) as refused:
        with client.websocket_connect(f"/referee/ws?token={tokens.referee}", headers=other) as ws:
            ws.receive_json()
    assert refused.value.code == CLOSE_FORBIDDEN


@pytest.mark.parametrize(
    "message",
    [
        {"type": "entry", "op": "explode"},
        {"type": "entry", "op": "play", "card": "Z9"},
        {"type": "entry", "op": "play", "card": 7},
        {"type": "entry", "op": "play", "card": "B5"},  # does not match Red 7
        {"type": "entry", "op": "play", "card": "WAA", "color": "R"},  # no target
        {"type": "entry", "op": "play", "card": "WAA", "color": "R", "seat": 1},  # at oneself
        {"type": "entry", "op": "play", "card": "R5", "seat": "1"},
        {"type": "entry", "op": "play", "card": "R5", "uno": "yes"},
        {"type": "entry", "op": "catch", "seat": 9},
        {"type": "entry", "op": "catch", "seat": 0},  # Ann holds 7 cards
        {"type": "entry", "op": "play", "card": "RDA", "count": -1},
        {"type": "score", "hands": [[], [], []]},  # the round is not over
        {"type": "jam", "pulled": 3},  # no jam
        {"type": "nonsense"},
    ],
)
def test_a_refused_entry_says_why_and_changes_nothing(referee: Any, message: dict) -> None:
    client, tokens = referee
    with client.websocket_connect(f"/referee/ws?token={tokens.referee}", headers=ORIGIN) as ws:
        _idle(ws)
        before = _send(ws, {"type": "entry", "op": "play", "card": "R7"})
        assert before["phase"] == "playing" and before["current"] == 1
        reply = _send(ws, message)
        assert reply["type"] == "error" and reply["message"]
        after = _send(
            ws, {"type": "entry", "op": "play", "card": "R3"}, lambda m: m["current"] == 2
        )
    assert after["hands"] == [7, 6, 7]  # only the good R3 counted: the refused entry did nothing


def test_a_refereed_game_resumes_from_its_journal_with_the_same_link(tmp_path: Path) -> None:
    journal = tmp_path / "night.jsonl"
    plays = ({"op": "play", "card": "R7"}, {"op": "play", "card": "R2"})
    token, state = _journaled(journal, *plays, {"op": "press"})
    assert state["presses"] == 1
    resumed = create_app(_settings(resume=journal, seats=[SeatSpec("x"), SeatSpec("y")]))
    assert resumed.state.context.tokens.referee == token
    with TestClient(resumed) as client:
        with client.websocket_connect(f"/referee/ws?token={token}", headers=ORIGIN) as ws:
            again = _idle(ws)
    assert again["players"] == PLAYERS
    for key in ("hands", "top", "current", "phase", "pile"):
        assert again[key] == state[key], key


def test_the_pages_journal_is_a_referee_journal_the_terminal_replays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from game.cli import main

    journal = tmp_path / "night.jsonl"
    app = create_app(_settings(journal=journal))
    token = app.state.context.tokens.referee
    with TestClient(app) as client:
        with client.websocket_connect(f"/referee/ws?token={token}", headers=ORIGIN) as ws:
            _idle(ws)
            _send(ws, {"type": "entry", "op": "play", "card": "R7"})
            _send(ws, {"type": "entry", "op": "play", "card": "RH2"})
    assert main(["replay", str(journal)]) == 0
    shown = capsys.readouterr().out
    assert "a referee game" in shown and "Kim presses the launcher (hit2, press 2)" in shown


def test_a_double_tap_on_press_presses_once(referee: Any) -> None:
    client, tokens = referee
    with client.websocket_connect(f"/referee/ws?token={tokens.referee}", headers=ORIGIN) as ws:
        _idle(ws)
        shown = _send(ws, {"type": "entry", "op": "play", "card": "R7"})
        tap = {"type": "entry", "op": "press", "version": shown["version"]}
        ws.send_json(tap)
        ws.send_json(tap)
        refused = _until(ws, lambda m: False)
        assert refused["type"] == "error"  # the launcher is busy, or the table changed
        ws.send_json({"type": "entry", "op": "play", "card": "R3", "version": 0})
        assert _until(ws, lambda m: False)["type"] == "error"
        ws.send_json({"type": "hello"})
        state = _until(ws, lambda m: not m["busy"] and m["presses"] >= 1)
    assert state["presses"] == 1 and state["current"] == 2


def test_a_hand_count_is_corrected_from_the_page(referee: Any) -> None:
    client, tokens = referee
    with client.websocket_connect(f"/referee/ws?token={tokens.referee}", headers=ORIGIN) as ws:
        _idle(ws)
        _send(ws, {"type": "entry", "op": "play", "card": "R7"})
        fixed = _send(ws, {"type": "entry", "op": "fix", "seat": 2, "count": 9})
        assert fixed["hands"] == [7, 7, 9]
        refused = _send(ws, {"type": "entry", "op": "fix", "seat": 2, "count": 500})
    assert refused["type"] == "error"


def test_table_serve_referee_and_calibration_flags_choose_the_page() -> None:
    from game.cli import build_parser
    from game.cli.table import settings_from_args

    def parse(*words: str) -> Any:
        return settings_from_args(build_parser().parse_args(["table", "serve", *words]))

    refereed = parse("--referee", "--players", "3")
    assert refereed.mode == "referee"
    assert [seat.bot for seat in refereed.seats] == [None, None, None]  # no bots at a real table
    watched = parse("--calibration", "s.jsonl")
    assert watched.mode == "calibration" and watched.calibration == Path("s.jsonl")
    assert parse().mode == "virtual"


def test_table_serve_referee_prints_the_referee_link_saved_beside_the_journal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from game.cli import main
    from game.tables.web.auth import tokens_path
    from tests.web_client import fake_serving

    fake_serving(monkeypatch)
    journal = tmp_path / "night.jsonl"
    words = ["--seats", "Ann,Sam,Kim", "--launcher", "sim://", "--journal", str(journal)]
    assert main(["table", "serve", "--referee", *words]) == 0
    printed = capsys.readouterr().out
    token = json.loads(tokens_path(journal).read_text())["referee"]
    assert f"http://127.0.0.1:8000/referee/{token}" in printed
    assert "/seat/" not in printed  # a refereed table has no seat links


@pytest.mark.parametrize("version", [None, "1", 1.0, True])
def test_an_entry_without_a_whole_number_version_is_refused(referee: Any, version: Any) -> None:
    """A repeated PRESS without the state it was tapped on would press the launcher twice."""
    client, tokens = referee
    with client.websocket_connect(f"/referee/ws?token={tokens.referee}", headers=ORIGIN) as ws:
        _idle(ws)
        shown = _send(ws, {"type": "entry", "op": "play", "card": "R7"})
        tap = (
            {"type": "entry", "op": "press"}
            if version is None
            else {"type": "entry", "op": "press", "version": version}
        )
        for _ in range(2):
            ws.send_json(tap)
            refused = _until(ws, lambda m: m["version"] > shown["version"])  # were it pressed
            assert refused["type"] == "error" and "version" in refused["message"]
        ws.send_json({"type": "score", "hands": [[], [], []]})
        assert "version" in _until(ws, lambda m: False)["message"]
        state = _send(ws, {"type": "entry", "op": "press"}, lambda m: m["presses"] >= 1)
    assert state["presses"] == 1  # the press with its version, once; none before it
    assert state["version"] > shown["version"]


def _journaled(journal: Path, *entries: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A refereed game journaled to ``journal``: the referee token and the last state."""
    app = create_app(_settings(journal=journal))
    token = app.state.context.tokens.referee
    with TestClient(app) as client:
        with client.websocket_connect(f"/referee/ws?token={token}", headers=ORIGIN) as ws:
            state = _idle(ws)
            for entry in entries:
                state = _send(ws, {"type": "entry", **entry})
    return token, state


def test_a_resumed_referee_page_keeps_every_line_of_the_history(tmp_path: Path) -> None:
    journal = tmp_path / "night.jsonl"
    cards = ("R5", "RH2", "R2")  # R5: the card turned up
    token, before = _journaled(journal, *({"op": "play", "card": card} for card in cards))
    assert "Sam plays Red 5." in before["log"]
    resumed = create_app(_settings(resume=journal))
    with TestClient(resumed) as client:
        with client.websocket_connect(f"/referee/ws?token={token}", headers=ORIGIN) as ws:
            after = _idle(ws)
    assert after["log"] == [*before["log"], f"Resumed from {journal}."]
    assert after["version"] == before["version"]
