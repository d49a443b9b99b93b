"""What the host does when the link or the board fails in the middle of a press.

Each test starts the emulator with a scheduled fault (times are from the emulator's
start; a press of 30 cards at 20 cards/s runs from ~0.02 s to ~1.5 s, so a fault at
0.2 s lands mid-job) and checks what a user cares about: a clear error, the motor off,
the interrupted job never replayed (``emulator.jobs_executed``), every card that came
out accounted for, and the launcher usable again afterwards.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from firmware_bridge.client import Timing
from firmware_bridge.errors import LinkLost
from firmware_bridge.session import RetryPolicy
from hardware.errors import LauncherFault
from hardware.mechanism import MechanismParams
from launcher.emu import FAST_FEED, EmuLauncher, open_emulated
from launcher.profiles import IIDProfile
from launcher.serial import FeedSettings

SLOW = MechanismParams(cards_per_second=20.0, card_transit_ms=5.0)
SETTINGS = FeedSettings(ms_per_card=50.0, jam_ms=500, block_ms=100)
FAST = MechanismParams(cards_per_second=2000.0, card_transit_ms=0.2)
QUICK = Timing(retry=RetryPolicy.doubling(0.01, 6), keepalive=0.05, quiet=0.015)


def always(n: int) -> IIDProfile:
    """A profile that asks for exactly ``n`` cards on every press."""
    return IIDProfile(
        name=f"always-{n}", source="test", description="", probabilities=(0.0,) * n + (1.0,)
    )


def start(faults: str, n: int = 30) -> EmuLauncher[object]:
    launcher = open_emulated(always(n), seed=1, faults=faults, mechanism=SLOW, settings=SETTINGS)
    launcher.load(range(100))
    return launcher


@pytest.fixture
def closing() -> Iterator[list[EmuLauncher[object]]]:
    opened: list[EmuLauncher[object]] = []
    yield opened
    for launcher in opened:
        launcher.close()


def motor_is_off(launcher: EmuLauncher[object]) -> bool:
    history = launcher.emulator.motor_history
    return bool(history) and history[-1][1] == 0


def test_a_long_press_is_kept_alive(closing: list[EmuLauncher[object]]) -> None:
    launcher = start("")
    closing.append(launcher)
    volley = launcher.hit()  # 1.5 s of motor: without keep-alives the firmware stops at 0.5 s
    assert volley.counted == 30 and volley.meta["reason"] == "count"
    assert launcher.status().fault == "none"


def test_unplug_mid_job(closing: list[EmuLauncher[object]]) -> None:
    launcher = start("unplug@200ms")
    closing.append(launcher)
    first_boot = launcher.emulator.boot_id
    with pytest.raises(LinkLost, match=r"during job 1 .*will NOT be replayed") as caught:
        launcher.hit()
    counted = caught.value.counted
    assert 0 < counted < 30 and caught.value.volley.counted == counted  # type: ignore[attr-defined]
    assert launcher.remaining == 100 - counted
    assert motor_is_off(launcher)  # a bus-powered Pico loses power with the cable
    launcher.emulator.replug()
    # the board lost power with the cable: what it counted after the error died with it,
    # so the next press reports that restart, with a bound on the cards it may hide
    with pytest.raises(LauncherFault, match="restarted .*during job 1") as restart:
        launcher.hit()
    assert restart.value.fault == "restart" and restart.value.job == 1  # type: ignore[attr-defined]
    assert restart.value.unknown == 30 - counted  # type: ignore[attr-defined]
    assert restart.value.counted == 0  # its counted cards were handed out with the LinkLost
    volley = launcher.hit()  # the client reopens the port and shakes hands again
    assert volley.counted == 30
    assert launcher.client.reconnects == 1 and launcher.client.restarts == 1
    assert launcher.emulator.jobs_executed == [(first_boot, 1), (launcher.emulator.boot_id, 2)]


def pull_cable_at(
    launcher: EmuLauncher[object], seconds: float, replug_at: float | None
) -> list[threading.Timer]:
    """Unplug a self-powered board (the firmware keeps running) mid-press, maybe replug later.

    The emulator's fault schedule only pulls bus-powered cables, hence timers here.
    """
    timers = [threading.Timer(seconds, launcher.emulator.unplug, kwargs={"powered": True})]
    if replug_at is not None:
        timers.append(threading.Timer(replug_at, launcher.emulator.replug))
    for timer in timers:
        timer.start()
    return timers


def test_quick_replug_of_a_powered_board_stops_the_orphan_job(
    closing: list[EmuLauncher[object]],
) -> None:
    launcher = start("")
    closing.append(launcher)
    timers = pull_cable_at(launcher, 0.2, replug_at=None)
    with pytest.raises(LinkLost, match="during job 1") as caught:
        launcher.hit()
    timers[0].join()
    launcher.emulator.replug()  # back within the firmware's 500 ms: job 1 is still running
    volley = launcher.hit()  # reconnects, STOPs job 1 (never resumed), then presses anew
    late = volley.meta.get("late_cards", 0)
    assert volley.meta["job"] == 2 and volley.counted == 30 + late
    assert caught.value.counted + late + 30 == launcher.cards_fed
    assert launcher.remaining == 100 - launcher.cards_fed  # the hopper model matches the hopper
    assert [job for _, job in launcher.emulator.jobs_executed] == [1, 2]


def test_late_replug_of_a_powered_board_finds_host_silent(
    closing: list[EmuLauncher[object]],
) -> None:
    launcher = start("")
    closing.append(launcher)
    timers = pull_cable_at(launcher, 0.2, replug_at=1.0)
    with pytest.raises(LinkLost, match="during job 1") as lost:
        launcher.hit()
    with pytest.raises(LauncherFault, match="host_silent") as caught:
        launcher.hit()  # keeps reopening the port (with backoff) until the replug at 1 s
    for timer in timers:
        timer.join()
    (on, off), *_ = launcher.emulator.motor_on_spans()
    assert off - on <= 200 + 500 + 100  # the firmware stopped the motor on its own
    assert caught.value.fault == "host_silent"
    assert launcher.client.reconnects == 1 and launcher.client.restarts == 0  # same boot
    assert launcher.clear_fault() is True
    volley = launcher.hit()
    late = volley.meta["late_cards"]  # shot between the unplug and the firmware's stop
    assert late > 0 and volley.counted == 30 + late
    assert lost.value.counted + late + 30 == launcher.cards_fed
    assert launcher.remaining == 100 - launcher.cards_fed
    # job 2 was refused (fault latched) and its id is never used again
    assert [job for _, job in launcher.emulator.jobs_executed] == [1, 3]


def test_reboot_mid_job_is_reported_and_not_replayed(closing: list[EmuLauncher[object]]) -> None:
    launcher = start("reboot@200ms")
    closing.append(launcher)
    first_boot = launcher.emulator.boot_id
    with pytest.raises(LauncherFault, match=r"restarted .*during job 1 .*NOT replayed") as caught:
        launcher.hit()
    assert caught.value.fault == "restart"
    assert motor_is_off(launcher)
    second_boot = launcher.emulator.boot_id
    assert second_boot != first_boot and launcher.client.hello is not None
    assert launcher.client.hello.boot == second_boot
    assert launcher.hit().counted == 30
    assert launcher.emulator.jobs_executed == [(first_boot, 1), (second_boot, 2)]


def test_reboot_whose_boot_event_was_lost_is_still_caught(
    closing: list[EmuLauncher[object]],
) -> None:
    launcher = start("silence@190ms+20ms,reboot@200ms")
    closing.append(launcher)
    with pytest.raises(LauncherFault, match="restarted") as caught:
        launcher.hit()
    assert caught.value.fault == "restart"
    assert [job for _, job in launcher.emulator.jobs_executed] == [1]


def test_silence_mid_job_stops_the_motor_and_latches(closing: list[EmuLauncher[object]]) -> None:
    launcher = start("silence@200ms+900ms")
    closing.append(launcher)
    with pytest.raises(LinkLost, match=r"no reply to .* after 3 tries .*during job 1"):
        launcher.hit()
    (on, off), *_ = launcher.emulator.motor_on_spans()
    assert off - on <= 200 + 500 + 50
    with pytest.raises(LauncherFault, match="host_silent"):
        launcher.hit()
    assert [job for _, job in launcher.emulator.jobs_executed] == [1]


def test_damaged_bytes_and_reordered_frames_lose_nothing(
    closing: list[EmuLauncher[object]],
) -> None:
    """Byte-level damage (a lost newline merges two frames) and late frames overtaking others."""
    faults = "byte_drop:0.0005,byte_corrupt:0.0005,host.delay:0.05,delay_ms:5"
    launcher = open_emulated(
        always(2), seed=4, faults=faults, mechanism=FAST, settings=FAST_FEED, timing=QUICK
    )
    closing.append(launcher)
    launcher.load(range(400))
    counted = sum(launcher.hit().counted for _ in range(150))
    assert counted == 300 == launcher.cards_fed
    assert [job for _, job in launcher.emulator.jobs_executed] == list(range(1, 151))
    injected = launcher.emulator.fault_counts()
    assert injected["to_host"]["bytes"] > 0 and injected["to_host"]["delay"] > 0
