"""The table screen on a 1920x1080 TV and two phones, through a whole game, in real Chromium.

What is checked is what someone three metres from the TV or holding the phone sees:
sizes and positions from the browser's layout (bounding boxes, computed font sizes),
not only that a text is somewhere in the page. The game: two people, first to 1 point
(one round is the whole game), each tapping the first move their phone offers.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.e2e.conftest import PHONE, Server
from tests.e2e.driver import Table

TV = {"width": 1920, "height": 1080}
NAMES = ["Ann", "Bob"]
GAME = ["--seats", "Ann,Bob", "--option", "target=1", "--seed", "11", "--launcher", "sim://"]
#: Big enough to read from about 3 m (a 1080p TV of 1.2 m: 1 CSS px is about 0.6 mm).
TV_TEXT_PX = 48
#: A stand-in for the browser's speech synthesis that records what would be said.
RECORD_SPEECH = """
window.__spoken = [];
if (window.speechSynthesis) {
  window.speechSynthesis.speak = (utterance) => window.__spoken.push(utterance.text);
}
"""
#: What a phone shows now: its notice, the cards marked new, and where things are on screen.
PHONE_STATE = """() => {
  const box = (sel) => {
    const n = document.querySelector(sel);
    return n && !n.classList.contains('hidden') ? n.getBoundingClientRect().top : null;
  };
  const text = (c) => c.textContent.replace(/^✓ /, '');
  return {
    news: [...document.querySelectorAll('#news p')].map((p) => p.textContent),
    newsTop: box('#news'), statusTop: box('#status'), handTop: box('#hand'),
    fresh: [...document.querySelectorAll('#hand .card.new')].map(text),
    version: Uno.version,
  };
}"""
PRESSED = re.compile(r"You press the launcher[^:]*: (\d+) cards? \((.*)\)\.")


def text_box(page: Any, selector: str) -> dict[str, float]:
    """The element's box and computed font size, in CSS pixels."""
    found: dict[str, float] = page.eval_on_selector(
        selector,
        """(n) => { const r = n.getBoundingClientRect();
          return {x: r.x, y: r.y, width: r.width, height: r.height,
                  font: parseFloat(getComputedStyle(n).fontSize),
                  visible: getComputedStyle(n).visibility === 'visible' && r.width > 0};}""",
    )
    return found


def open_tv_table(server: Server, phone: Callable[..., Any], tv: Any) -> Table:
    tv.goto(f"{server.url}/table")
    phones = {}
    for seat in range(len(NAMES)):
        page = phone(PHONE)
        page.goto(server.seat_url(seat))
        page.wait_for_selector("#status > *")
        phones[seat] = page
    tv.wait_for_selector("#status > *")
    return Table(tv, phones, NAMES)


def assert_readable_mid_game(tv: Any) -> None:
    turn = text_box(tv, "#turn")
    assert tv.inner_text("#turn").startswith("Turn: ")
    assert turn["visible"] and turn["font"] >= TV_TEXT_PX and turn["height"] >= TV_TEXT_PX
    assert turn["y"] + turn["height"] <= TV["height"]  # on screen without scrolling
    assert text_box(tv, "#status .card.big")["font"] >= TV_TEXT_PX
    # three columns side by side: the table, the players, the story
    status, seats, story = (text_box(tv, s) for s in ("#status", "#seats", "#feed"))
    assert status["x"] + status["width"] <= seats["x"] < story["x"]
    assert story["x"] + story["width"] > 0.9 * TV["width"]
    for name in NAMES:
        assert re.search(rf"{name}( — to play)?\n\d+ cards? .*· 0 pts", tv.inner_text("#seats"))
    assert tv.query_selector("#press") is None  # no press headline that goes stale


def check_phones(
    table: Table, seen: dict[str, Any], screenshot: Callable[[Any, str], None]
) -> None:
    """After a tap: a phone told it pressed shows that first, and marks the cards that came."""
    table.wait_phones_current()
    for seat, page in table.phones.items():
        state = page.evaluate(PHONE_STATE)
        if not state["news"]:
            continue
        assert state["newsTop"] < state["statusTop"] < state["handTop"]  # first on the page
        assert state["newsTop"] < PHONE["height"] / 4
        pressed = [PRESSED.search(line) for line in state["news"]]
        got = [card for m in pressed if m for card in m.group(2).split(", ")]
        if got and state["fresh"] and "marked" not in seen:
            # every card marked new is one the notice says came out of the launcher
            assert set(state["fresh"]) <= set(got), state
            seen["marked"] = NAMES[seat]
            screenshot(page, "phone-news")
        seen.setdefault("news", state["news"])


def test_the_tv_shows_the_game_large_and_the_phones_say_what_happened_to_them(
    serve: Callable[..., Server],
    phones: Callable[..., Any],
    screenshot: Callable[[Any, str], None],
) -> None:
    server = serve(*GAME)
    tv = phones(TV)
    table = open_tv_table(server, phones, tv)
    seen: dict[str, Any] = {}
    for taps in range(400):
        if taps == 6:
            assert_readable_mid_game(tv)
            screenshot(tv, "tv-midgame")
        if not table.play_one():
            break
        check_phones(table, seen, screenshot)
    assert "marked" in seen and seen["news"], seen
    # the end: a banner across the TV with the winner and the round's points
    tv.wait_for_selector("#banner:not(.hidden)")
    banner = text_box(tv, "#banner")
    assert banner["visible"] and banner["width"] >= 0.8 * TV["width"]
    assert text_box(tv, "#banner .banner-title")["font"] >= 64
    assert tv.evaluate("() => document.documentElement.scrollHeight") <= TV["height"]
    title = tv.inner_text("#banner")
    found = re.search(r"★ (Ann|Bob) wins the game! ★\n\+(\d+) points this round", title)
    assert found, title
    winner = NAMES.index(found.group(1))
    screenshot(tv, "tv-gameover")
    for seat, page in table.phones.items():
        page.wait_for_function("() => document.getElementById('situation').textContent !== ''")
        expected = "You win!" if seat == winner else f"{NAMES[winner]} wins the game."
        assert page.inner_text("#situation") == expected
        assert "undefined" not in page.inner_text("body")
        assert page.query_selector("#moves button") is None
    assert "undefined" not in tv.inner_text("body")
    assert tv.inner_text("#turn") == "Game over"
    screenshot(table.phones[winner], "phone-win")


def test_announcements_are_off_until_one_tap_and_the_icon_is_served(
    serve: Callable[..., Server], phones: Callable[..., Any]
) -> None:
    server = serve("--seats", "Ann,bot:greedy", "--seed", "4", "--launcher", "sim://")
    tv = phones(TV)
    tv.add_init_script(RECORD_SPEECH)
    table = open_tv_table_one(server, phones, tv)
    assert tv.evaluate("() => typeof window.speechSynthesis.speak") == "function"
    for _ in range(4):
        table.play_one()
    assert tv.evaluate("() => window.__spoken") == []  # off by default
    assert tv.get_attribute("#speak", "aria-pressed") == "false"
    tv.click("#speak")
    assert tv.get_attribute("#speak", "aria-pressed") == "true"
    for _ in range(60):
        table.play_one()
        spoken = tv.evaluate("() => window.__spoken")
        if any("presses" in s for s in spoken) and any("turn" in s for s in spoken):
            break
    assert spoken[0] == "Announcements on."
    assert any(re.fullmatch(r"(Ann|GreedyBot2)'s turn\.", s) for s in spoken), spoken
    assert any(re.fullmatch(r"\w+ presses the launcher: (nothing|\d+ cards?)!", s) for s in spoken)
    icon = tv.request.get(f"{server.url}/favicon.ico")
    assert icon.status == 200 and icon.headers["content-type"].startswith("image/svg+xml")
    assert b"<svg" in icon.body()


def open_tv_table_one(server: Server, phone: Callable[..., Any], tv: Any) -> Table:
    tv.goto(f"{server.url}/table")
    page = phone(PHONE)
    page.goto(server.seat_url(0))
    page.wait_for_selector("#status > *")
    tv.wait_for_selector("#status > *")
    return Table(tv, {0: page}, ["Ann", "GreedyBot2"])
