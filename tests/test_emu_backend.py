"""The ``emu://`` backend: the real firmware logic on a pty, opened through the real serial client.

Every test here goes through ``open_launcher("emu://...")``: the emulator thread serves
the firmware on an ``os.openpty()`` pair and the host talks to it with ``serial.Serial``.
"""

from __future__ import annotations

import importlib.util
import json
import threading
from collections.abc import Iterator

import pytest

from hardware.errors import LauncherJam
from launcher.emu import EmuLauncher
from launcher.errors import BadSpec
from launcher.spec import open_launcher

FAST = "emu://?fast=1"


@pytest.fixture
def launcher() -> Iterator[EmuLauncher[object]]:
    opened = open_launcher(f"{FAST}&seed=3&profile=irc-bot")
    assert isinstance(opened, EmuLauncher)
    with opened:
        yield opened


def test_every_card_is_accounted_for(launcher: EmuLauncher[object]) -> None:
    cards = [f"card{i}" for i in range(60)]
    launcher.load(cards)
    handed_out: list[object] = []
    presses = 0
    while launcher.remaining and presses < 100:
        volley = launcher.hit()
        handed_out.extend(volley.cards)
        assert volley.shortfall == 0
        presses += 1
    assert handed_out == cards  # every card, once, bottom of the hopper first
    assert launcher.cards_fed == 60  # what left the emulated hopper = what the host counted
    assert launcher.remaining == 0 and launcher.emulator.mechanism.hopper == 0


def test_volley_meta_and_jobs(launcher: EmuLauncher[object]) -> None:
    launcher.load(range(50))
    volleys = [launcher.hit() for _ in range(8)]
    fired = [v for v in volleys if v.meta["requested"] > 0]
    assert fired, "irc-bot fires on most presses"
    for volley in fired:
        assert volley.counted == volley.meta["requested"]
        assert volley.meta["reason"] == "count" and volley.meta["motor_ms"] >= 0
    job_ids = [job.job for job in launcher.jobs]
    assert job_ids == sorted(set(job_ids))  # fresh, increasing ids
    assert [job for _, job in launcher.emulator.jobs_executed] == job_ids


def test_same_seed_same_presses() -> None:
    def counts() -> list[int]:
        with open_launcher(f"{FAST}&seed=11&profile=bookmarklet") as emu:
            emu.load(range(40))
            return [emu.hit().counted for _ in range(12)]

    assert counts() == counts()


def test_motor_never_runs_past_its_bound(launcher: EmuLauncher[object]) -> None:
    launcher.load(range(80))
    for _ in range(10):
        launcher.hit()
    bound = max(launcher.settings.job_max_ms(n) for n in range(1, 11))
    spans = launcher.emulator.motor_on_spans()
    assert spans and all(off - on <= bound for on, off in spans)


def test_a_caught_card_jams_and_is_cleared(launcher: EmuLauncher[object]) -> None:
    launcher.load(range(40))
    launcher.emulator.jam()  # the next card catches in the mouth
    with pytest.raises(LauncherJam) as caught:
        for _ in range(20):
            launcher.hit()
    assert caught.value.fault == "beam_blocked"
    assert caught.value.volley.counted == caught.value.counted  # type: ignore[attr-defined]
    assert launcher.emulator.motor_history[-1][1] == 0
    with pytest.raises(LauncherJam):
        launcher.hit()  # latched: the motor does not restart by itself
    assert launcher.clear_fault() is True
    assert launcher.status().state == "idle"
    before = launcher.remaining
    volleys = [launcher.hit() for _ in range(5)]
    assert before - launcher.remaining == sum(v.counted for v in volleys)


def test_run_motor_counts_what_the_beam_saw(launcher: EmuLauncher[object]) -> None:
    launcher.load(range(30))
    fed_before = launcher.cards_fed
    counted = launcher.run_motor(10)
    assert counted == launcher.cards_fed - fed_before > 0
    launcher.ms_per_card = 4.0
    assert launcher.settings.ms_per_card == 4.0


def test_a_standalone_press_during_a_host_game_is_refused(launcher: EmuLauncher[object]) -> None:
    """Issue 29 finding 6: the press shot cards the host's hopper model never saw."""
    launcher.push_profile("bookmarklet")
    assert launcher.emulator.board.flash["profile.txt"].startswith("kind=iid p=500,100")
    launcher.load(range(20))
    launcher.emulator.press_button()
    fw = launcher.emulator.board.firmware
    assert launcher.emulator.wait_until(lambda: fw is not None and fw.refused_presses == 1)
    assert launcher.status().total == 0 and launcher.cards_fed == 0
    assert launcher.remaining == 20  # the host's model is still the truth


def test_bad_emu_options_are_clear() -> None:
    with pytest.raises(BadSpec, match="unknown option"):
        open_launcher("emu://?speed=9")
    with pytest.raises(BadSpec, match="fault plan item 'drop:2'"):
        open_launcher("emu://?faults=drop:2")
    with pytest.raises(BadSpec, match="cards_per_second"):
        open_launcher("emu://?cps=-1")
    with pytest.raises(BadSpec, match="takes no path"):
        open_launcher("emu:///dev/ttyACM0")


@pytest.mark.skipif(
    importlib.util.find_spec("game.cli.simulate") is None, reason="simulate not written yet"
)
def test_simulate_plays_whole_games_over_emu(capsys: pytest.CaptureFixture[str]) -> None:
    from game.cli import main

    spec = f"{FAST}&profile=web-game"
    args = [
        "simulate",
        "--games",
        "1",
        "--players",
        "2",
        "--seed",
        "5",
        "--launcher",
        spec,
        "--json",
    ]
    assert main(args) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["games"] == 1 and summary["hits"] > 0 and summary["cards_launched"] > 0


def test_presses_from_two_threads_share_the_launcher_safely(launcher: EmuLauncher[object]) -> None:
    launcher.load(range(200))
    volleys: list[object] = []
    errors: list[BaseException] = []

    def press(times: int) -> None:
        try:
            volleys.extend(launcher.hit() for _ in range(times))
        except BaseException as error:  # surfaced below
            errors.append(error)

    threads = [threading.Thread(target=press, args=(15,)) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not errors and len(volleys) == 30
    dealt = [card for volley in volleys for card in volley.cards]  # type: ignore[attr-defined]
    assert sorted(dealt) == list(range(len(dealt)))  # no card twice, none skipped
    assert len(dealt) == launcher.cards_fed
