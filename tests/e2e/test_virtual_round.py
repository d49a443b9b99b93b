"""Four phones in four browser contexts play a whole round against each other and two bots.

Real headless Chromium, the real ``uno-attack table serve`` process; the people tap
the first move their page offers, as someone who only ever taps the top button would.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e.conftest import Server
from tests.e2e.driver import ROUND_OVER, open_table

NAMES = ["Seat 1", "Seat 2", "Seat 3", "Seat 4", "GreedyBot5", "RandomBot6"]
PEOPLE = [0, 1, 2, 3]
SIM_SEED = 3
GAME = ["--players", "6", "--bots", "greedy,random", "--rounds", "1"]


@pytest.mark.parametrize("launcher", ["sim://", "emu://?fast=1&seed=1"], ids=["sim", "emulator"])
def test_four_phones_and_two_bots_play_a_round(
    serve: Callable[..., Server], phones: Callable[..., Any], launcher: str
) -> None:
    server = serve(*GAME, "--seed", str(SIM_SEED), "--launcher", launcher)
    table = open_table(server, phones, PEOPLE, NAMES)
    taps = table.play_round()
    assert taps > 0
    assert ROUND_OVER in table.feed()
    # every phone saw the end of the round, and the table screen shows the scores
    for page in table.phones.values():
        page.wait_for_function(
            "(t) => document.getElementById('feed').innerText.includes(t)", arg=ROUND_OVER
        )
    assert "pts" in table.screen.inner_text("#seats")
