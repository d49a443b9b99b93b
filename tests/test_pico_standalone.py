"""The standalone Pico on emulated silicon, in exact lockstep (issue 29 findings 2, 3, 5, 6, 8).

The real firmware under the real MicroPython rp2 build on rp2040js; :class:`ExactRig` owns
emulated time, so a 20 us glitch is exactly 20 us and a card reaches the beam at its
model nanosecond, however loaded the machine is. No host is attached unless a test sends
a frame (a host's command takes the link: standalone presses stop).
"""

from __future__ import annotations

import itertools
import os
import random
import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from pico_exact import BEAM, BUTTON, ExactRig

from firmware_bridge.firmware import logic
from firmware_bridge.pico_board import PicoBoard, emulator_missing, prepared_flash
from hardware.mechanism import MechanismParams

pytestmark = pytest.mark.skipif(  # in CI a missing emulator fails instead (the board won't start)
    emulator_missing() is not None and not os.environ.get("CI"),
    reason=f"the emulated Pico: {emulator_missing()}",
)
ROLLER = MechanismParams(cards_per_second=50.0, card_transit_ms=8.0)
LONG = logic.LONG_PRESS_MS + 100


@pytest.fixture
def board(tmp_path: Path) -> Iterator[PicoBoard]:
    image = tmp_path / "flash.bin"
    shutil.copyfile(prepared_flash(), image)
    with PicoBoard(flash=image, workdir=tmp_path) as started:
        yield started


def toy(board: PicoBoard, profile: str = "kind=iid p=0,0,1000", **kw: object) -> ExactRig:
    """A rig whose flash holds ``profile``, with the button handed back to the toy.

    Pushing the profile is a host command (it takes the link); the long press gives the
    button back, as a person does after unplugging the laptop from a battery-powered Pico.
    """
    rig = ExactRig(board, **kw)  # type: ignore[arg-type]
    rig.run_until(300)
    kind, _, p = profile.partition(" p=")
    rig.send("PROFILE", [("kind", kind.split("=")[1]), ("p", [int(v) for v in p.split(",")])])
    rig.press(400, LONG)
    rig.run_until(400 + LONG + 200)
    assert [f["_verb"] for f in rig.frames() if f["_kind"] == "R"] == ["OK"]
    return rig


def boot_id(rig: ExactRig) -> str:
    return rig.frames("BOOT")[-1]["boot"]


def presses_after(rig: ExactRig, count: int) -> list[dict[str, str]]:
    return rig.frames("PRESS")[count:]


def test_a_bouncy_release_fires_one_volley_and_button_glitches_fire_none(board: PicoBoard) -> None:
    """Finding 2: a bouncing release fired a second volley; a 20-100 us glitch fired one."""
    rig = toy(board, cards=10)
    start, before = rig.t_ms, len(rig.frames("PRESS"))
    for k, width in enumerate((20, 50, 100)):
        rig.low_pulse(BUTTON, start + 100 * (k + 1), width)
    rig.press(start + 500, 400, bounce_ms=(1, 2, 1, 3, 1, 2))
    rig.run_until(start + 2500)
    assert [p["want"] for p in presses_after(rig, before)] == ["2"]
    done = rig.frames("DONE")
    assert [(d["job"], d["counted"]) for d in done] == [("0", "2")]
    assert len(rig.motor_runs()) == 1 and rig.mechanism.ejected == 2
    rig.close()


def test_beam_spikes_are_not_cards_and_1000_cards_a_second_all_count(board: PicoBoard) -> None:
    """Finding 5: 50 us spikes counted as cards; the filter must still pass 1,000 cards/s."""
    rig = ExactRig(board, params=ROLLER)
    rig.run_until(300)
    boot = boot_id(rig)
    rig.send("FEED", [("job", 1), ("n", 3), ("jam_ms", 300), ("boot", boot)], seq=1)
    start = rig.t_ms
    for k, width in enumerate((20, 50, 100, 250)):  # the motor runs, no card passes
        rig.low_pulse(BEAM, start + 40 * (k + 1), width)
    rig.run_until(start + 600)
    done = rig.frames("DONE")
    assert [(d["job"], d["counted"], d["reason"]) for d in done] == [("1", "0", "empty")]
    assert rig.frames("CARD") == []

    rig.mechanism.params = replace(ROLLER, cards_per_second=1000.0, card_transit_ms=0.5)
    rig.mechanism.load(30)
    rig.send("FEED", [("job", 2), ("n", 20), ("boot", boot)], seq=2)
    rig.run_until(rig.t_ms + 400)
    done = rig.frames("DONE")[-1]
    assert (done["job"], done["counted"], done["reason"]) == ("2", "20", "count")
    # Every card counted; at 1,000 cards/s the emulated core (reporting each CARD costs ms of
    # CPU) stops the roller a few cards late: docs/firmware.md gives the figures.
    print("1000 cards/s: ejected", rig.mechanism.ejected, "motor", rig.motor_runs()[-1])
    assert rig.mechanism.ejected >= 20
    rig.close()


def test_a_jam_is_cleared_by_a_long_press_and_the_led_shows_each_state(board: PicoBoard) -> None:
    """Finding 3: after a jam nothing worked until a power cycle; there was no LED."""
    rig = toy(board, cards=10, params=replace(ROLLER, catch_rate=1.0))
    start, before = rig.t_ms, len(rig.frames("PRESS"))
    rig.press(start + 50, 60)
    rig.run_until(start + 1200)
    assert [f["code"] for f in rig.frames("FAULT")] == ["beam_blocked"]
    rig.press(start + 1300, 60)  # a short press while the fault is latched: nothing
    rig.press(start + 1500, LONG)  # a long press with the card still in the mouth: nothing
    rig.run_until(start + 1500 + LONG + 300)
    assert len(presses_after(rig, before)) == 1 and len(rig.motor_runs()) == 1

    rig.mechanism.clear_jam()  # a person pulls the card out
    rig.mechanism.params = ROLLER
    rig.board.exact_input(BEAM, 1)
    cleared = rig.t_ms + 100
    rig.press(cleared, LONG)
    rig.press(cleared + LONG + 300, 60)
    rig.run_until(cleared + LONG + 1500)
    assert [p["want"] for p in presses_after(rig, before)] == ["2", "2"]
    assert rig.frames("DONE")[-1]["counted"] == "2"

    led = [(on, off) for on, off in rig.led_runs() if on >= start]
    firing = [off - on for on, off in led if start + 70 < on < start + 550]
    fault = [off - on for on, off in led if start + 700 < on < start + 1400]
    assert firing and all(45 <= ms <= 55 for ms in firing)  # 10 Hz while the motor runs
    assert len(fault) >= 2 and all(245 <= ms <= 255 for ms in fault)  # 2 Hz while latched
    ready = led[-1]
    assert ready[1] == float("inf") and ready[0] < rig.t_ms - 500  # steady on: ready
    rig.close()


def test_a_press_during_a_host_game_is_refused(board: PicoBoard) -> None:
    """Finding 6: a press during a host game shot cards the host's hopper model never saw."""
    rig = ExactRig(board, cards=10, params=ROLLER)
    rig.run_until(300)
    rig.send("HELLO", seq=1)
    rig.press(rig.t_ms + 50, 100)
    rig.run_until(rig.t_ms + 600)
    rig.send("SELFTEST", seq=2)
    rig.run_until(rig.t_ms + 200)
    assert rig.frames("PRESS") == [] and rig.motor_runs() == [] and rig.mechanism.ejected == 0
    (selftest,) = rig.frames("SELFTEST")
    assert (selftest["host"], selftest["refused"], selftest["beam"]) == ("1", "1", "clear")
    rig.close()


def feed_jobs(rig: ExactRig, jobs: int, gaps_ms: Iterator[float]) -> list[float]:
    """Run ``jobs`` FEEDs of 4 cards, each after an idle gap; the roller's run-on of each (ms).

    The run-on is the time from the last card's leading edge (the model's) to the motor
    going off (the pin's): the beam interrupt should stop it within microseconds.
    """
    boot = boot_id(rig)
    run_ons = []
    for job in range(1, jobs + 1):
        rig.run_until(rig.t_ms + next(gaps_ms))
        edges_before = len(rig.beam_edges)
        rig.send("FEED", [("job", job), ("n", 4), ("boot", boot)], seq=job % 250 + 1)
        rig.run_until(rig.t_ms + 200)
        leading = [t for t, blocked in rig.beam_edges[edges_before:] if blocked]
        assert len(leading) == 4, f"job {job}: {len(leading)} cards reached the beam"
        _, stopped = rig.motor_runs()[-1]
        run_ons.append(stopped - leading[-1])
    done = rig.frames("DONE")
    assert [(d["counted"], d["reason"]) for d in done] == [("4", "count")] * jobs
    assert rig.mechanism.ejected == 4 * jobs
    return run_ons


def test_the_last_card_of_a_feed_stops_the_roller_at_its_edge(board: PicoBoard) -> None:
    """The beam interrupt stops the motor on the last card; the loop must not restart it.

    A race restarted it: an interrupt that came between the loop's reading of the beam and
    its check of the interrupt stop looked like a glitch (the filter had not seen the edge
    yet), so the roller ran on until the loop counted the card, and at 50 cards/s a host
    command decoded meanwhile let one more card out, uncounted (the contract tests' jam).
    """
    rig = ExactRig(board, cards=40, params=ROLLER)
    rig.run_until(300)
    run_ons = feed_jobs(rig, 8, itertools.repeat(0.0))
    print("run-on after the last card (us):", [round(1000 * r) for r in run_ons])
    assert max(run_ons) < 0.2, "the roller ran on past the last card"
    assert rig.mechanism.hopper == 8
    rig.close()


@pytest.mark.parametrize(
    "jobs", [pytest.param(40, id="short"), pytest.param(400, id="long", marks=pytest.mark.slow)]
)
def test_no_phase_of_the_main_loop_delays_the_stop_on_the_last_card(
    board: PicoBoard, jobs: int
) -> None:
    """Jobs started at every phase of the loop; the roller stops on the last card each time.

    Firmware 0.2.1's beam interrupt was soft: MicroPython ran it between bytecodes, so a
    garbage collection (or a long C call) of the loop delayed the stop, and 2 of 150 jobs
    ran the roller on 7 ms (one in this test's 8-job sibling failed CI). The long version
    (``-m slow``, ~7 minutes) fails on that firmware in most runs; the short one rarely.
    """
    rng = random.Random(11)
    rig = ExactRig(board, cards=4 * jobs + 8, params=ROLLER)
    rig.run_until(300)
    run_ons = feed_jobs(rig, jobs, (rng.uniform(0, 25) for _ in itertools.count()))
    late = [(job, round(1000 * r)) for job, r in enumerate(run_ons, 1) if r >= 0.2]
    print(f"{jobs} jobs: worst run-on {1000 * max(run_ons):.0f} us")
    assert late == [], f"(job, run-on us) past the last card: {late}"
    rig.close()


def test_a_host_that_stops_reading_neither_stalls_the_pico_nor_lets_the_roller_overrun(
    board: PicoBoard,
) -> None:
    """Finding 8 on real MicroPython: a host that holds the port open but does not read.

    The USB host stops taking the board's output (``PicoBoard.host_reading``), so TinyUSB's
    FIFO fills and each write blocks up to MicroPython's 500 ms CDC timeout. While the host
    still sends PINGs, the firmware must keep its 2 s watchdog fed (no reboot), stop the
    roller exactly at the count although the loop sat in a write while the cards flew (the
    interrupt counts them down), and answer again once the host reads.
    """
    rig = ExactRig(board, cards=40, params=ROLLER)
    rig.run_until(300)
    boot = boot_id(rig)
    rig.send("FEED", [("job", 1), ("n", 12), ("jam_ms", 2000), ("boot", boot)], seq=1)
    rig.run_until(rig.t_ms + 50)  # two or three cards out, reported
    assert board.host_reading(False) == 0
    for seq in range(2, 32):  # 3 s of PINGs whose replies nobody reads
        rig.send("PING", seq=seq)
        rig.run_until(rig.t_ms + 100)
    held = board.host_reading(True)
    rig.run_until(rig.t_ms + logic.WRITE_BACKOFF_MS + 100)
    rig.send("STATUS", seq=40)
    rig.run_until(rig.t_ms + 200)
    assert held > 0  # the board's writes were really held back
    assert rig.rebooted == 0 and len(rig.frames("BOOT")) == 1  # the watchdog never fired
    assert rig.mechanism.ejected == 12 and len(rig.motor_runs()) == 1
    status = [f for f in rig.frames("STATUS") if f["_kind"] == "R"][-1]
    assert (status["state"], status["job"], status["counted"]) == ("idle", "1", "12")
    rig.close()
