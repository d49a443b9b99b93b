"""The live calibration page in Chromium while a real ``calibrate record`` session grows.

The first presses are recorded by :class:`~launcher.calibration.record.Recorder` (the
code ``calibrate record`` runs) from this process; the rest by ``uno-attack calibrate
record --resume`` itself, in a subprocess. The page must follow both without a reload.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from launcher.calibration.record import Recorder
from launcher.calibration.session import SessionHeader, SessionWriter, read_session
from launcher.spec import open_launcher
from tests.e2e.conftest import LAUNCH, Server

PLANNED = 60
FIRST = 25
SHOWS = "(n) => document.body.dataset.presses === String(n)"


def _record_first_presses(path: Path) -> None:
    header = SessionHeader(
        "sim://", cards_loaded=90, reload_below=10, presses_planned=PLANNED, seed=0
    )
    with (
        SessionWriter.create(path, header) as writer,
        open_launcher("sim://", default_seed=0) as sim,
    ):
        Recorder(sim, writer, header).run(FIRST)


def test_the_calibration_page_follows_a_recording_and_shows_the_fitted_profile(
    serve: Callable[..., Server],
    phones: Callable[..., Any],
    tmp_path: Path,
    screenshot: Callable[..., None],
) -> None:
    session = tmp_path / "launcher.jsonl"
    server = serve("--calibration", str(session), journal=False)
    page = phones()
    page.goto(f"{server.url}/calibration")
    page.wait_for_function("() => document.body.dataset.state === 'waiting'")
    assert "calibrate record" in page.inner_text("#count")

    _record_first_presses(session)
    page.wait_for_function(SHOWS, arg=FIRST)
    assert f"{FIRST} / {PLANNED} presses" in page.inner_text("#count")
    bars = page.locator("#histogram svg rect.bar").count()
    assert bars == page.locator("#histogram svg line.interval").count() > 0
    assert page.is_hidden("#profile")
    screenshot(page, "calibration-live")

    subprocess.run(
        [sys.executable, "-c", LAUNCH, "calibrate", "record", str(session), "--resume"],
        check=True,
        capture_output=True,
        cwd=tmp_path,
        timeout=120,
    )
    page.wait_for_function(SHOWS, arg=PLANNED)
    page.wait_for_selector("#profile:not(.hidden)")
    assert "Recording finished" in page.inner_text("#status")
    counts = [press.count for press in read_session(session).presses]
    # the table under the histogram agrees with the file, press for press
    rows = page.eval_on_selector_all(
        "#table tr", "(rows) => rows.map((r) => [...r.cells].map((c) => c.textContent))"
    )
    shown = {int(row[0]): int(row[1]) for row in rows[1:] if row[0].isdigit()}
    assert shown == {count: counts.count(count) for count in range(max(counts) + 1)}
    assert "kind = " in (page.text_content("#profile-toml") or "")
    screenshot(page, "calibration-done")


def _record_link(server: Server) -> str:
    """The phone-recording link the server printed (its host token), with the test's address."""
    found = re.search(r"record from a phone: \S+(/calibration/record/\S+)", server.log())
    assert found, server.log()
    return server.url + found.group(1)


def test_a_phone_records_a_session_with_big_buttons_and_an_undo(
    serve: Callable[..., Server],
    phones: Callable[..., Any],
    tmp_path: Path,
    screenshot: Callable[..., None],
) -> None:
    session = tmp_path / "phone.jsonl"
    server = serve("--calibration", str(session), journal=False)
    page = phones()
    page.goto(_record_link(server))
    page.wait_for_selector("#record:not(.hidden)")
    page.click("#reloaded")
    page.wait_for_function(
        "() => document.getElementById('record-prompt').textContent.includes('Press 1 (90')"
    )
    page.click("#digits button[data-count='3']")
    page.wait_for_function(SHOWS, arg=1)  # the live chart follows the file the taps wrote
    page.fill("#more-count", "95")  # more than the 87 cards left: refused, nothing written
    page.click("#more button")
    page.wait_for_function("() => document.body.dataset.tally === 'refused'")
    assert "only 87 cards are loaded" in page.inner_text("#record-message")
    page.fill("#more-count", "12")
    page.click("#more button")
    page.wait_for_function(SHOWS, arg=2)
    page.click("#undo")
    page.wait_for_function(SHOWS, arg=1)
    assert "undone: press 2 (12 card(s))" in page.inner_text("#record-message")
    page.click("#digits button[data-count='0']")
    page.wait_for_function(SHOWS, arg=2)
    screenshot(page, "calibration-phone")
    presses = read_session(session).presses
    assert [(p.count, p.loaded) for p in presses] == [(3, 90), (0, 87)]
    assert page.locator("#histogram svg text.y-tick").count() >= 3  # the chart's y axis
