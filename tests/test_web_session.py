"""The web table's game session: journal, resume with the same links, jams, server-side checks.

The session is driven directly (the web layer calls the same methods from a worker
thread); the jam tests also go through the real WebSocket protocol.
"""

from __future__ import annotations

import json
import os
import stat
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from game.core.errors import JournalError
from game.play.journal import read_journal
from game.tables.web.auth import Tokens, tokens_path
from game.tables.web.session import ActionRefused, GameSession
from game.tables.web.settings import WebSettings
from game.tables.web.views import seat_options
from hardware.errors import LauncherError, LauncherJam, LauncherUnavailable
from launcher.sim import SimLauncher
from launcher.spec import ParsedSpec, register_scheme, unregister_scheme
from tests.web_client import ORIGIN, app_and_tokens, hello, open_page, quick_settings


def _people_play(session: GameSession, moves: int) -> None:
    """The people make ``moves`` moves, each the first legal one."""
    game = session.game
    assert game is not None
    for _ in range(moves):
        if game.is_round_over():
            return
        seat = game.decider
        session.act(seat, [str(seat_options(game, seat)[0])])


def _state(session: GameSession) -> tuple[Any, ...]:
    game = session.game
    assert game is not None
    return (
        session.version,
        session.log,
        [game.hand(s) for s in range(game.num_players)],
        game.scores,
        game.decider,
        game.pending,
        game.top_card,
    )


def test_a_resumed_session_has_the_same_game_and_the_same_links(tmp_path: Path) -> None:
    journal = tmp_path / "game.jsonl"
    first = GameSession(quick_settings(journal=journal, rounds=None, seed=23))
    first.open()
    _people_play(first, 6)
    before, tokens = _state(first), first.tokens
    del first  # the server died: nothing was closed, the journal is all that is left

    again = GameSession(WebSettings(resume=journal))
    again.open()
    assert again.tokens == tokens
    assert _state(again) == before
    mode = stat.S_IMODE(os.stat(tokens_path(journal)).st_mode)
    assert mode == 0o600


def test_a_resumed_game_goes_on_exactly_like_one_that_never_stopped(tmp_path: Path) -> None:
    journal = tmp_path / "game.jsonl"
    stopped = GameSession(quick_settings(journal=journal, rounds=None, seed=23))
    stopped.open()
    _people_play(stopped, 4)
    stopped.close()
    resumed = GameSession(WebSettings(resume=journal))
    resumed.open()
    _people_play(resumed, 8)
    never = GameSession(quick_settings(rounds=None, seed=23))
    never.open()
    _people_play(never, 12)
    assert _state(resumed) == _state(never)
    records = read_journal(journal).decisions
    assert {r["seat"] for r in records} == {0, 1, 2, 3}  # people and bots are journaled


def _played_journal(tmp_path: Path) -> tuple[Path, list[dict[str, Any]]]:
    """A journal of a few moves by people and bots, and its records (to edit)."""
    journal = tmp_path / "game.jsonl"
    session = GameSession(quick_settings(journal=journal, rounds=None))
    session.open()
    _people_play(session, 3)
    session.close()
    return journal, [json.loads(line) for line in journal.read_text().splitlines()]


def test_resume_refuses_a_journal_that_was_edited(tmp_path: Path) -> None:
    journal, records = _played_journal(tmp_path)
    person = next(r for r in records if r.get("seat") in (0, 1))
    person["moves"] = ["color:R"]  # good notation, but no colour is asked for at a turn
    journal.write_text("".join(json.dumps(r) + "\n" for r in records))
    with pytest.raises(JournalError, match="cannot be replayed"):
        GameSession(WebSettings(resume=journal)).open()


def test_resume_refuses_a_journal_whose_bot_moves_were_changed(tmp_path: Path) -> None:
    journal, records = _played_journal(tmp_path)
    bot = next(r for r in records if r.get("seat") in (2, 3) and r.get("moves"))
    bot["moves"] = ["draw"] if bot["moves"] != ["draw"] else ["uno"]
    journal.write_text("".join(json.dumps(r) + "\n" for r in records))
    with pytest.raises(JournalError, match="a different version or edited"):
        GameSession(WebSettings(resume=journal)).open()


def test_a_new_journal_gets_new_tokens_kept_beside_it(tmp_path: Path) -> None:
    journal = tmp_path / "game.jsonl"
    session = GameSession(quick_settings(journal=journal))
    assert Tokens.load(tokens_path(journal), 4) == session.tokens
    other = GameSession(quick_settings(journal=tmp_path / "other.jsonl"))
    assert other.tokens.seats[0] != session.tokens.seats[0]
    assert len(session.tokens.seats[0]) >= 40  # 32 random bytes, URL-safe


def test_a_launcher_that_is_not_there_is_an_error_before_any_file_is_made(
    tmp_path: Path,
) -> None:
    journal = tmp_path / "game.jsonl"
    with pytest.raises(LauncherError):
        GameSession(quick_settings(journal=journal, launcher="serial:///dev/no-such-launcher"))
    assert list(tmp_path.iterdir()) == []


def test_an_existing_journal_is_refused_and_its_links_are_kept(tmp_path: Path) -> None:
    journal = tmp_path / "game.jsonl"
    first = GameSession(quick_settings(journal=journal))
    with pytest.raises(JournalError, match="already exists"):
        GameSession(quick_settings(journal=journal))
    assert Tokens.load(tokens_path(journal), 4) == first.tokens


def test_a_journal_naming_hardware_is_resumed_only_if_named_again(tmp_path: Path) -> None:
    journal = tmp_path / "game.jsonl"
    records = [json.loads(line) for line in _journal_text(journal).splitlines()]
    records[0]["launcher"] = "serial:///dev/ttyACM0"
    journal.write_text("".join(json.dumps(r) + "\n" for r in records))
    with pytest.raises(JournalError) as refused:
        GameSession(WebSettings(resume=journal))
    assert "table serve --resume" in refused.value.hint


def _journal_text(journal: Path) -> str:
    session = GameSession(quick_settings(journal=journal))
    session.open()
    session.close()
    return journal.read_text()


def test_the_server_accepts_only_the_seats_own_legal_moves() -> None:
    session = GameSession(quick_settings())
    session.open()
    game = session.game
    assert game is not None
    decider = game.decider
    other = 1 - decider
    legal = str(seat_options(game, decider)[0])
    version = session.version
    for seat, moves in ((other, [legal]), (decider, ["R99"]), (decider, ["fired:3"])):
        with pytest.raises(ActionRefused):
            session.act(seat, moves)
    with pytest.raises(ActionRefused):
        session.act(decider, [legal], version=version - 1)
    held = [c for c in game.hand(decider) if str(c) not in {str(m) for m in game.legal_moves()}]
    if held:  # a card in the hand that does not match is still refused
        with pytest.raises(ActionRefused):
            session.act(decider, [held[0].code])
    assert session.version == version
    session.act(decider, [legal], version=version)
    assert session.version > version


# -- jams -----------------------------------------------------------------------------------
class JammingLauncher(SimLauncher[Any]):
    """A ``sim://`` launcher that jams when armed (after ``armed`` cards), or loses its link."""

    armed: int | None = None
    lose_link = False

    def _press(self, loaded: int) -> int:
        if JammingLauncher.lose_link:
            JammingLauncher.lose_link = False
            raise LauncherUnavailable("the launcher stopped answering")
        if JammingLauncher.armed is not None:
            counted, JammingLauncher.armed = JammingLauncher.armed, None
            jam = LauncherJam("a card is stuck in the mouth")
            jam.counted = counted
            raise jam
        return super()._press(loaded)


def _open_jamming(parsed: ParsedSpec, default_seed: int | None) -> JammingLauncher:
    parsed.options.finish("jamtest://")
    return JammingLauncher(seed=default_seed)


@pytest.fixture
def jamming() -> Iterator[str]:
    register_scheme("jamtest", _open_jamming, replace=True)
    JammingLauncher.armed, JammingLauncher.lose_link = None, False
    yield "jamtest://"
    unregister_scheme("jamtest")


def test_a_jam_waits_for_the_host_and_the_pulled_cards_go_to_the_presser(jamming: str) -> None:
    session = GameSession(quick_settings(launcher=jamming))
    session.open()
    game = session.game
    assert game is not None
    seat = game.decider
    size = len(game.hands[seat])
    jammed = threading.Event()
    session.listeners.append(lambda: session.jam is not None and jammed.set())
    JammingLauncher.armed = 1
    worker = threading.Thread(target=session.act, args=(seat, ["draw"]))
    worker.start()
    assert jammed.wait(10)
    assert session.jam is not None and session.jam["counted"] == 1
    assert session.jam["name"] == session.names[seat]
    with pytest.raises(ActionRefused):
        session.act(1 - seat, ["uno"])  # nobody plays while the launcher is jammed
    session.answer_jam(2)
    worker.join(10)
    assert not worker.is_alive()
    hits = [e for e in session.log if e["type"] == "hit" and e["reason"] == "draw"]
    assert hits[-1]["counted"] == 3 and hits[-1]["player"] == seat
    assert len(game.hands[seat]) >= size + 3 or game.decider != seat
    assert session.jam is None


def test_only_the_host_clears_a_jam_over_the_websocket(jamming: str) -> None:
    app, tokens = app_and_tokens(quick_settings(launcher=jamming))
    with TestClient(app) as client:
        session = app.state.context.session
        with (
            open_page(client, tokens.host) as host_socket,
            open_page(client, None) as table_socket,
        ):
            host, table = hello(host_socket), hello(table_socket)
            host.view_after()
            table.view_after()
            seat = session.game.decider
            with open_page(client, tokens.seats[seat]) as socket:
                page = hello(socket)
                start = page.view_after()
                JammingLauncher.armed = 0
                socket.send_json({"type": "move", "moves": ["draw"], "version": start["version"]})
                assert _until_jam(page)["jam"]["fault"] == "jam"
                assert _until_jam(table)["jam"]["name"] == session.names[seat]
                socket.send_json({"type": "jam", "pulled": None})
                refused = _until_error(page)
                assert "only the host" in refused["message"]
                _until_jam(host)
                host_socket.send_json({"type": "jam", "pulled": None})  # cleared: press again
                after = page.view_after(start["version"])
            assert after["jam"] is None
    presses = [e for e in session.log if e["type"] == "hit"]
    assert presses, "the press was made again once the host cleared the jam"


def _until_jam(page: Any) -> dict[str, Any]:
    while True:
        message = page.receive()
        if message.get("jam"):
            return message


def _until_error(page: Any) -> dict[str, Any]:
    while True:
        message = page.receive()
        if message["type"] == "error":
            return message


def test_a_launcher_failure_waits_for_the_host_and_the_journal_keeps_up(
    jamming: str, tmp_path: Path
) -> None:
    journal = tmp_path / "game.jsonl"
    session = GameSession(quick_settings(launcher=jamming, journal=journal))
    session.open()
    game = session.game
    assert game is not None
    seat = game.decider
    JammingLauncher.lose_link = True
    with pytest.raises(LauncherUnavailable):
        session.act(seat, ["draw"])
    assert session.stuck and "stopped answering" in session.stuck
    assert read_journal(journal).decisions[-1] == {"type": "move", "seat": seat, "moves": ["draw"]}
    with pytest.raises(ActionRefused, match="host"):
        session.act(seat, ["draw"])
    session.press_again()
    assert session.stuck is None
    assert [e for e in session.log if e["type"] == "hit"][-1]["player"] == seat
    with pytest.raises(ActionRefused):
        session.press_again()  # nothing waits now


def test_with_the_emulator_each_press_fires_it_and_a_resume_fires_nothing_again(
    tmp_path: Path,
) -> None:
    journal = tmp_path / "game.jsonl"
    first = GameSession(quick_settings(launcher="emu://?fast=1", journal=journal))
    first.open()
    for _ in range(40):  # until the game has pressed the launcher at least once
        _people_play(first, 1)
        if any(e["type"] == "hit" for e in first.log):
            break
    assert first.table is not None
    fired = first.table.launcher.presses
    hits = [e for e in first.log if e["type"] == "hit"]
    assert fired == len(hits) > 0  # every hit of the game was a press of the emulated launcher
    before = _state(first)
    first.close()
    again = GameSession(WebSettings(resume=journal))
    again.open()
    assert again.game is not None and again.table is not None
    assert again.table.launcher.presses == 0  # the journal's counts were fed back, not re-fired
    assert _state(again) == before
    _people_play(again, 400)
    assert again.game.is_round_over()
    again.close()


def test_a_journal_that_cannot_be_replayed_is_shown_on_every_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = tmp_path / "game.jsonl"
    session = GameSession(quick_settings(journal=journal, rounds=None))
    session.open()
    _people_play(session, 3)
    session.close()
    records = [json.loads(line) for line in journal.read_text().splitlines()]
    next(r for r in records if r.get("seat") in (0, 1))["moves"] = ["color:R"]
    journal.write_text("".join(json.dumps(r) + "\n" for r in records))
    app, tokens = app_and_tokens(WebSettings(resume=journal, allowed_origins=(ORIGIN,)))
    with TestClient(app) as client, open_page(client, None) as socket:
        page = hello(socket)
        while not (message := page.receive()).get("failure"):
            pass
    assert "cannot be replayed" in message["failure"]
    assert "cannot be replayed" in capsys.readouterr().err
