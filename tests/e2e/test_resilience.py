"""A phone that reloads mid-turn, and a server killed with SIGKILL then resumed from its journal."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.e2e.conftest import Server, resume
from tests.e2e.driver import SEAT_READY, open_table
from tests.e2e.test_virtual_round import GAME, NAMES, PEOPLE, SIM_SEED

LAUNCHER = "sim://"
#: Taps after the reload or restart: the game goes on (the full round is test_virtual_round).
MORE = 3
CONNECTED = "() => document.getElementById('connection').textContent === 'connected'"


def _feed_lines(page: Any, count: int) -> list[str]:
    lines: list[str] = page.inner_text("#feed").splitlines()
    return [line for line in lines if line.strip()][:count]


def test_a_phone_reloaded_mid_turn_gets_its_seat_back_and_misses_nothing(
    serve: Callable[..., Server], phones: Callable[..., Any], screenshot: Callable[..., None]
) -> None:
    server = serve(*GAME, "--seed", str(SIM_SEED), "--launcher", LAUNCHER)
    table = open_table(server, phones, PEOPLE, NAMES)
    for _ in range(4):
        assert table.play_one()
    seat = table.decider()
    assert seat is not None
    phone = table.phones[seat]
    # the phone may draw the table's last view a moment after the table screen does
    phone.wait_for_function(SEAT_READY, arg=table.version())
    screenshot(phone, "hand")
    screenshot(table.screen, "table")
    question = phone.inner_text("#situation")
    hand = phone.inner_text("#hand")
    phone.reload()
    phone.wait_for_selector("#moves button")
    assert phone.inner_text("#situation") == question
    assert phone.inner_text("#hand") == hand
    assert phone.evaluate("() => Uno.version") == table.version()
    # the reloaded page shows the same recent events as the table screen, none missing
    assert _feed_lines(phone, 7) == _feed_lines(table.screen, 7)
    for _ in range(MORE):
        assert table.play_one()
    host = phones()
    host.goto(f"{server.url}/host/{server.tokens['host']}")
    host.wait_for_selector("#links img")
    screenshot(host, "host")


def test_a_server_killed_with_sigkill_resumes_and_the_pages_reconnect(
    serve: Callable[..., Server], phones: Callable[..., Any]
) -> None:
    server = serve(*GAME, "--seed", str(SIM_SEED), "--launcher", LAUNCHER)
    table = open_table(server, phones, PEOPLE, NAMES)
    for _ in range(5):
        assert table.play_one()
    table.wait_phones_current()
    hands = {seat: page.inner_text("#hand") for seat, page in table.phones.items()}
    version = table.mark_seen()
    server.kill()
    table.screen.wait_for_function(
        "() => document.getElementById('connection').textContent !== 'connected'"
    )
    resume(server, "--launcher", LAUNCHER)
    for page in [table.screen, *table.phones.values()]:
        page.wait_for_function(CONNECTED, timeout=20_000)
        page.wait_for_selector("#status > :not([data-seen])")
    # same links, same seats, same cards: nothing was dealt or fired twice
    assert {seat: page.inner_text("#hand") for seat, page in table.phones.items()} == hands
    assert table.version() == version
    for _ in range(MORE):
        assert table.play_one()
    assert table.version() > version
