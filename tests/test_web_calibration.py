"""The live calibration page's server: it follows a session file as `calibrate record` writes.

The browser flow is tests/e2e/test_calibration_page.py; here the summary is checked
against the calibration package's own numbers, and the SVG histogram against the estimate.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from game.tables.web.app import create_app
from game.tables.web.calibration import SessionFollower
from game.tables.web.settings import WebSettings
from launcher.calibration.intervals import estimate
from launcher.calibration.record import Recorder
from launcher.calibration.session import SessionHeader, SessionWriter, read_session
from launcher.spec import open_launcher
from tests.web_client import ORIGIN

pytest.importorskip("scipy")


def _record(path: Path, presses: int, planned: int) -> None:
    header = SessionHeader("sim://", cards_loaded=90, reload_below=10, presses_planned=planned)
    with (
        SessionWriter.create(path, header) as writer,
        open_launcher("sim://", default_seed=3) as sim,
    ):
        Recorder(sim, writer, header).run(presses)


def test_the_summary_follows_the_file_and_matches_the_calibration_numbers(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    follower = SessionFollower(path)
    assert follower.snapshot()["state"] == "waiting"
    _record(path, 20, planned=40)
    live = follower.snapshot()
    counts = [p.count for p in read_session(path).presses]
    expected = estimate(counts)
    assert live["state"] == "recording" and live["presses"] == 20 and live["last"] == counts[-1]
    assert [row["observed"] for row in live["distribution"]] == list(expected.counts)
    assert [row["high"] for row in live["distribution"]] == pytest.approx(list(expected.high))
    # one bar and one interval per count shown, each with its numbers in words
    assert (
        live["svg"].count('class="bar"')
        == live["svg"].count('class="interval"')
        == len(expected.counts)
    )
    assert "profile" not in live


def test_the_fitted_profile_appears_when_the_planned_presses_are_in(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    _record(path, 30, planned=30)
    done = SessionFollower(path).snapshot()
    assert done["state"] == "done"
    assert "kind" in done["profile"]["toml"]


def test_the_page_and_its_snapshot_are_served_in_calibration_mode(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    _record(path, 12, planned=50)
    app = create_app(WebSettings(mode="calibration", calibration=path, allowed_origins=(ORIGIN,)))
    with TestClient(app) as client:
        assert client.get("/calibration").status_code == 200
        assert client.get("/calibration/snapshot.json").json()["presses"] == 12
    # a virtual table does not serve it
    with TestClient(
        create_app(WebSettings(launcher="sim://", seed=1, allowed_origins=(ORIGIN,)))
    ) as client:
        assert client.get("/calibration").status_code == 404


# -- issue 28: recording from a phone -------------------------------------------------------
OWN_ORIGIN = {"origin": ORIGIN}


def _tap(client: TestClient, token: str, **body: object) -> dict:
    response = client.post(f"/calibration/record/{token}/action", json=body, headers=OWN_ORIGIN)
    assert response.status_code == 200, response.text
    return dict(response.json())


def test_taps_write_the_session_with_the_checks_of_the_typed_prompt(tmp_path: Path) -> None:
    path = tmp_path / "phone.jsonl"
    app = create_app(WebSettings(mode="calibration", calibration=path, allowed_origins=(ORIGIN,)))
    token = app.state.context.tokens.host
    with TestClient(app) as client:
        assert client.get(f"/calibration/record/{token}").status_code == 200
        assert client.get("/calibration/record/not-the-token").status_code == 403
        first = _tap(client, token, action="press", count=2)
        assert not first["ok"] and "load the hopper with 90 cards first" in first["message"]
        assert _tap(client, token, action="reloaded")["tally"]["loaded"] == 90
        assert (
            _tap(client, token, action="press", count=3)["message"] == "recorded press 1: 3 card(s)"
        )
        refused = _tap(client, token, action="press", count=95)
        assert not refused["ok"] and "only 87 cards are loaded" in refused["message"]
        assert not _tap(client, token, action="press", count="x")["ok"]
        assert _tap(client, token, action="press", count=80)["tally"]["awaiting_reload"]  # 7 left
        undone = _tap(client, token, action="undo")
        assert undone["message"] == "undone: press 2 (80 card(s)); tap it again"
        assert undone["tally"] == {
            **undone["tally"],
            "next": 2,
            "loaded": 87,
            "awaiting_reload": False,
        }
        _tap(client, token, action="press", count=1)
        # writes need the host token, the page's own origin, and JSON
        url = f"/calibration/record/{token}/action"
        assert client.post(url, json={"action": "undo"}).status_code == 403  # no Origin
        evil = {"origin": "http://evil.example"}
        assert client.post(url, json={"action": "undo"}, headers=evil).status_code == 403
        form = client.post(
            url, content=b"action=undo", headers={**OWN_ORIGIN, "content-type": "text/plain"}
        )
        assert form.status_code == 415
        wrong = client.post(
            "/calibration/record/x/action", json={"action": "undo"}, headers=OWN_ORIGIN
        )
        assert wrong.status_code == 403
    session = read_session(path)
    assert session.header.manual and session.header.launcher == "manual"
    assert [(p.n, p.count, p.loaded, p.since_reload) for p in session.presses] == [
        (1, 3, 90, 1),
        (2, 1, 87, 2),
    ]


def test_taps_never_go_into_a_session_of_another_launcher(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    _record(path, 5, planned=50)
    before = path.read_bytes()
    app = create_app(WebSettings(mode="calibration", calibration=path, allowed_origins=(ORIGIN,)))
    with TestClient(app) as client:
        answer = _tap(client, app.state.context.tokens.host, action="reloaded")
    assert not answer["ok"] and "taps only go into a manual session" in answer["message"]
    assert path.read_bytes() == before


def test_the_chart_has_a_y_axis_with_percent_labels(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    _record(path, 30, planned=40)
    svg = SessionFollower(path).snapshot()["svg"]
    assert 'class="y-axis"' in svg
    ticks = re.findall(r'class="y-tick"[^>]*>([^<]+)<', svg)
    assert ticks[0] == "0 %" and len(ticks) >= 3 and all(t.endswith(" %") for t in ticks)
