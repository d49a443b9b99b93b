"""The live calibration page's server: it follows a session file as `calibrate record` writes.

The browser flow is tests/e2e/test_calibration_page.py; here the summary is checked
against the calibration package's own numbers, and the SVG histogram against the estimate.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient

from game.web.app import create_app
from game.web.calibration import SessionFollower
from game.web.settings import WebSettings
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
