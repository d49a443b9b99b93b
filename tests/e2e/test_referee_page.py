"""A whole refereed round on the referee page, in Chromium, with the emulated launcher.

The table plays with physical cards; one person taps on a phone what is played. The
emulator (the firmware's logic on a pseudo-terminal) is told to jam on its first press,
so the jam dialog is used as at a real table: the referee says how many cards were
pulled out, and they go to the player who pressed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from game.core.cards import Card
from game.core.rulesets import load_ruleset
from tests.e2e.conftest import Server, resume

PLAYERS = ["Ann", "Sam", "Kim"]
LAUNCHER = "emu://?fast=1&seed=1&faults=jam@0s"
#: The page shows a state newer than version ``v`` and the launcher is not pressing (or the
#: server refused the tap: the error shows).
SETTLED = """(v) => (document.body.dataset.busy === 'false' &&
  Number(document.body.dataset.version) > v) ||
  !document.getElementById('error').classList.contains('hidden')"""
READY = "() => document.body.dataset.busy === 'false'"
VERSION = "() => Number(document.body.dataset.version)"
LEFT = {"Ann": ["R5", "WAA"], "Kim": ["B2"]}


def referee_page(server: Server, phone: Callable[..., Any]) -> Any:
    page = phone()
    page.goto(f"{server.url}/referee/{server.tokens['referee']}")
    page.wait_for_function(READY)
    return page


def tap(page: Any, selector: str, *, settle: bool = True) -> None:
    before = page.evaluate(VERSION)
    page.click(selector)
    if settle:
        page.wait_for_function(SETTLED, arg=before)
        assert not page.is_visible("#error"), page.inner_text("#error")


def hand_sizes(page: Any) -> dict[str, int]:
    sizes = {}
    for item in page.query_selector_all("#seats li"):
        name = PLAYERS[int(item.get_attribute("data-seat"))]
        sizes[name] = int(item.query_selector(".hand-size").inner_text().split()[0])
    return sizes


def current(page: Any) -> str:
    return PLAYERS[int(page.get_attribute("#seats li.turn", "data-seat"))]


def play(page: Any, code: str, *, uno: bool = False) -> None:
    colour = "W" if code.startswith("W") else code[0]
    page.click(f'#colours [data-color="{colour}"]')
    if uno:
        page.check("#uno-with")
    tap(page, f'#cards [data-card="{code}"]', settle=not code.startswith("W"))


def test_a_refereed_round_with_the_emulator_jam_and_scoring(
    serve: Callable[..., Server], phones: Callable[..., Any], screenshot: Callable[..., None]
) -> None:
    server = serve("--referee", "--seats", ",".join(PLAYERS), "--seed", "1", "--launcher", LAUNCHER)
    page = referee_page(server, phones)
    assert "tap the card turned up" in page.inner_text("#prompt")
    play(page, "R7")  # the card turned up
    assert page.inner_text("#status .card") == "Red 7"
    assert current(page) == "Sam"
    # Sam aims a Wild Attack-Attack at Kim, keeping red: Kim presses twice; the first press jams
    play(page, "WAA")
    tap(page, '[data-choose-color="R"]', settle=False)
    screenshot(page, "referee-target")
    page.click('[data-target="2"]')
    page.wait_for_selector("#jam:not(.hidden)")
    assert "Kim" in page.inner_text("#jam")
    screenshot(page, "referee-jam")
    page.fill("#pulled", "2")
    tap(page, "#jam-done")
    sizes = hand_sizes(page)
    assert sizes["Sam"] == 6 and sizes["Kim"] >= 9, sizes  # 2 pulled out, plus the second press
    assert "Kim presses the launcher" in page.inner_text("#feed")
    # Kim has no red card: PRESS
    assert current(page) == "Kim"
    before = hand_sizes(page)["Kim"]
    tap(page, "#press")
    assert hand_sizes(page)["Kim"] >= before
    # Kim finds one more card than the launcher counted (two stuck together): correct it
    counted = hand_sizes(page)["Kim"]
    page.click('[data-fix="2"]')
    page.click('.fixer button[aria-label="one more"]')
    tap(page, '[data-fix-set="2"]')
    assert hand_sizes(page)["Kim"] == counted + 1
    assert "Kim's hand corrected" in page.inner_text("#feed")
    # then red numbers until someone goes out, calling UNO on the last-but-one card
    number = 1
    while page.is_visible("#picker") and "scoring" not in page.inner_text("#prompt").lower():
        if "Round over" in page.inner_text("#prompt"):
            break
        who = current(page)
        if number == 5:
            screenshot(page, "referee")
        play(page, f"R{number}", uno=hand_sizes(page)[who] == 2)
        number = number % 9 + 1
    assert "Round over" in page.inner_text("#prompt")
    assert "Sam goes out and wins round 1" in page.inner_text("#feed")
    assert "Sam calls UNO!" in page.inner_text("#feed")
    # scoring: tap the cards left in each hand
    for name, cards in LEFT.items():
        page.click(f'#score-seats [data-score-seat="{PLAYERS.index(name)}"]')
        for code in cards:
            _tap_left(page, code)
    screenshot(page, "referee-scoring")
    tap(page, "#score-submit")
    rules = load_ruleset("attack", {})
    points = sum(rules.hand_points([Card.parse(c) for c in cards]) for cards in LEFT.values())
    sam = page.inner_text('#seats li[data-seat="1"] .hand-size')
    assert f"{points} pts" in sam
    assert "Round 2" in page.inner_text("#status")


def _tap_left(page: Any, code: str) -> None:
    colour = "W" if code.startswith("W") else code[0]
    page.click(f'#colours [data-color="{colour}"]')
    page.click(f'#cards [data-card="{code}"]')


def test_the_referee_page_reconnects_to_a_server_resumed_after_sigkill(
    serve: Callable[..., Server], phones: Callable[..., Any]
) -> None:
    server = serve("--referee", "--seats", ",".join(PLAYERS), "--seed", "2", "--launcher", "sim://")
    page = referee_page(server, phones)
    play(page, "R7")
    play(page, "RH2")  # Sam hits Kim: two presses
    before = (hand_sizes(page), page.inner_text("#status .card"), current(page))
    version = page.evaluate(VERSION)
    page.evaluate(
        "() => document.querySelectorAll('#status > *').forEach((n) => n.dataset.seen = 1)"
    )
    server.kill()
    page.wait_for_function(
        "() => document.getElementById('connection').textContent !== 'connected'"
    )
    resume(server, "--referee", "--launcher", "sim://")
    page.wait_for_function(
        "() => document.getElementById('connection').textContent === 'connected'", timeout=20_000
    )
    page.wait_for_selector("#status > :not([data-seen])")  # drawn from the resumed server
    # The feed's line comes in its own message, which may follow the status by a moment.
    page.wait_for_function(
        "() => document.getElementById('feed').innerText.includes('Resumed from')"
    )
    assert page.evaluate(VERSION) == version
    assert (hand_sizes(page), page.inner_text("#status .card"), current(page)) == before
    play(page, "R3")  # the same link goes on refereeing
    assert page.inner_text("#status .card") == "Red 3"
