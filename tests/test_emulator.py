"""The emulator on a real pseudo-terminal, opened with a real ``serial.Serial``.

Every wait here is on data (a serial read with a timeout) or on the emulator's condition
variable (:meth:`Emulator.wait_until`); nothing sleeps.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import serial

from firmware_bridge import protocol as P
from firmware_bridge.emulator import Emulator
from firmware_bridge.faults import FaultPlan, LinkFaulter, LinkFaults, Scheduled, faulters
from firmware_bridge.firmware import logic
from hardware.errors import ConfigError, LauncherError
from hardware.mechanism import MechanismParams

FAST = MechanismParams(cards_per_second=500.0, card_transit_ms=1.0, stall_duty=0.0)
SLOW = MechanismParams(cards_per_second=2.0, card_transit_ms=5.0, stall_duty=0.0)


class Host:
    """A minimal host: stop-and-wait commands with retries, events collected on the side."""

    def __init__(self, port: str) -> None:
        self.serial = serial.Serial(port, 115200, timeout=0.01, exclusive=True)
        self.lines = P.LineBuffer()
        self.events: list[tuple[int, str, dict[str, str]]] = []
        self._consumed = 0
        self._last_event: tuple[int, str, dict[str, str]] | None = None
        self.seq = 0
        #: The boot id of the last HELLO: FEED and RUN must carry it (``boot=``).
        self.boot = ""

    def close(self) -> None:
        self.serial.close()

    def _frames(self) -> Iterator[tuple[str, int, str, dict[str, str]]]:
        for line in self.lines.feed(self.serial.read(self.serial.in_waiting or 1)):
            try:
                yield P.decode(line)
            except ValueError:
                continue

    def command(
        self, verb: str, fields: Any = (), retries: tuple[float, ...] = (0.1, 0.2, 0.4, 0.8)
    ) -> dict:
        self.seq = (self.seq + 1) & 0xFF
        fields = list(fields)
        if verb in ("FEED", "RUN") and not any(key == "boot" for key, _ in fields):
            if not self.boot:
                self.command("HELLO", retries=retries)
                self.seq = (self.seq + 1) & 0xFF
            fields.append(("boot", self.boot))
        fields = [(key, value) for key, value in fields if value is not None]  # None: omit
        frame = P.encode("C", self.seq, verb, fields)
        for wait in retries:
            self.serial.write(frame)
            reply = self._reply(wait)
            if reply is not None:
                if reply["_verb"] == "HELLO":
                    self.boot = reply["boot"]
                return reply
        raise TimeoutError(f"no reply to {frame!r}")

    def _reply(self, wait: float) -> dict | None:
        """Read for up to ``wait`` s; events go to ``events``, our reply is returned."""
        deadline = time.monotonic() + wait
        reply = None
        while True:
            for kind, seq, verb, fields in list(self._frames()):
                if kind == "E" and (seq, verb, fields) != self._last_event:  # else a duplicate
                    self._last_event = (seq, verb, fields)
                    self.events.append((seq, verb, fields))
                elif kind == "R" and seq == self.seq and reply is None:
                    reply = {"_verb": verb, **fields}
            if reply is not None or time.monotonic() >= deadline:
                return reply

    def wait_event(
        self, verbs: tuple[str, ...], timeout: float = 5.0, keepalive: bool = True
    ) -> dict:
        """The next event (in arrival order, each consumed once) whose verb is in ``verbs``.

        While waiting it sends a PING every 100 ms when ``keepalive`` (a host's duty while
        a job runs) and reads events in between.
        """
        deadline = time.monotonic() + timeout
        next_ping = time.monotonic()
        while time.monotonic() < deadline:
            while self._consumed < len(self.events):
                _seq, verb, fields = self.events[self._consumed]
                self._consumed += 1
                if verb in verbs:
                    return {"_verb": verb, **fields}
            if keepalive and time.monotonic() >= next_ping:
                next_ping = time.monotonic() + 0.1
                self.command("PING", retries=(0.1,) * 8)
            else:
                self._reply(0.0)  # one read: returns as soon as anything arrives
        raise TimeoutError(f"no {verbs} event")


@pytest.fixture
def emu() -> Iterator[Emulator]:
    with Emulator(seed=3, mechanism=FAST, cards=200) as emulator:
        emulator.start()
        yield emulator


@pytest.fixture
def host(emu: Emulator) -> Iterator[Host]:
    assert emu.port is not None
    h = Host(emu.port)
    yield h
    h.close()


def test_a_serial_port_opens_it_and_the_handshake_names_this_boot(
    emu: Emulator, host: Host
) -> None:
    hello = host.command("HELLO")
    assert hello["_verb"] == "HELLO" and hello["proto"] == "1"
    assert hello["boot"] == emu.boot_id and hello["reset"] == "power"


def test_a_feed_job_over_the_pty(emu: Emulator, host: Host) -> None:
    host.command("HELLO")
    assert host.command("FEED", [("job", 1), ("n", 4)])["state"] == "running"
    done = host.wait_event(("DONE", "FAULT"))
    assert (done["_verb"], done["counted"], done["reason"]) == ("DONE", "4", "count")
    # the 4th card is counted as it enters the beam, ejected a transit later
    assert emu.wait_until(lambda: emu.mechanism.ejected == 4)
    assert [job for _, job in emu.jobs_executed] == [1]
    assert [int(f["counted"]) for _, verb, f in host.events if verb == "CARD"] == [1, 2, 3, 4]


def test_the_port_is_exclusive_and_reopens_after_close(emu: Emulator, host: Host) -> None:
    assert emu.port is not None
    with pytest.raises(serial.SerialException):
        serial.Serial(emu.port, exclusive=True)
    host.close()
    again = Host(emu.port)
    try:
        assert again.command("PING")["_verb"] == "PONG"
    finally:
        again.close()


def test_unplug_mid_job_looks_like_usb_and_replug_is_a_fresh_boot(tmp_path: Path) -> None:
    link = str(tmp_path / "launcher")
    with Emulator(seed=1, mechanism=SLOW, link=link) as emu:
        emu.start()
        host = Host(link)
        first = host.command("HELLO")["boot"]
        host.command("FEED", [("job", 1), ("n", 10), ("jam_ms", 5000)])
        emu.unplug()
        with pytest.raises(serial.SerialException):
            for _ in range(3):
                host.serial.read(1)
        host.close()
        assert emu.motor_history[-1][1] == 0  # power went with the cable
        new_port = emu.replug()
        assert os.path.realpath(link) == new_port
        host = Host(link)
        hello = host.command("HELLO")
        assert hello["boot"] != first and hello["reset"] == "power" and hello["state"] == "idle"
        assert host.command("STATUS")["job"] == "0"
        assert [job for _, job in emu.jobs_executed] == [1]  # nothing replayed
        host.close()
    assert not os.path.lexists(link)


def test_reboot_mid_job_stops_the_motor_and_announces_a_new_boot(emu: Emulator, host: Host) -> None:
    first = host.command("HELLO")["boot"]
    host.command("FEED", [("job", 1), ("n", 100)])
    new_boot = emu.reboot("soft")
    boot = host.wait_event(("BOOT",), keepalive=False)
    while boot["boot"] != new_boot:  # the first boot's BOOT may still sit in the pty
        boot = host.wait_event(("BOOT",), keepalive=False)
    assert new_boot != first and boot["reset"] == "soft"
    assert emu.motor_history[-1][1] == 0
    status = host.command("STATUS")
    assert (status["state"], status["motor"], status["job"]) == ("idle", "0", "0")


def test_a_self_powered_pico_left_unplugged_stops_on_host_silence() -> None:
    with Emulator(seed=2, mechanism=SLOW) as emu:
        port = emu.start()
        host = Host(port)
        boot = host.command("HELLO")["boot"]
        host.command("FEED", [("job", 1), ("n", 10), ("jam_ms", 5000)])
        host.close()
        emu.unplug(powered=True)
        fw = emu.board.firmware
        assert fw is not None
        assert emu.wait_until(lambda: fw.fault == "host_silent")
        spans = emu.motor_on_spans()
        assert len(spans) == 1 and spans[0][1] - spans[0][0] == P.HOST_SILENCE_MS
        host = Host(emu.replug())
        hello = host.command("HELLO")
        assert (hello["boot"], hello["state"], hello["fault"]) == (boot, "fault", "host_silent")
        host.close()


def test_stuck_beam_jam_and_slip_become_latched_faults(emu: Emulator, host: Host) -> None:
    host.command("HELLO")
    emu.jam()
    host.command("FEED", [("job", 1), ("n", 5), ("block_ms", 50)])
    assert host.wait_event(("FAULT",))["code"] == "beam_blocked"
    assert emu.mechanism.jammed
    emu.clear_jam()
    assert host.command("CLEAR")["_verb"] == "OK"
    emu.slip(1000)
    host.command("FEED", [("job", 2), ("n", 5), ("jam_ms", 100)])
    # not one card: to a beam, a roller that slips from the start looks like an empty hopper
    assert host.wait_event(("DONE",))["reason"] == "empty"
    emu.stick_beam(1000)
    host.command("FEED", [("job", 3), ("n", 5), ("block_ms", 30)])
    assert host.wait_event(("FAULT",))["code"] == "beam_blocked"


def test_corrupt_frames_never_reach_the_logic() -> None:
    with Emulator(seed=1, faults="mcu.corrupt:1.0") as bad:
        port = bad.start()
        host = Host(port)
        with pytest.raises(TimeoutError):
            host.command("PING", retries=(0.1, 0.1))
        fw = bad.board.firmware
        assert fw is not None
        assert bad.wait_until(lambda: fw.rejected >= 2)  # both tries refused by their CRC
        assert fw.job_starts == 0
        host.close()


def test_duplicated_replies_arrive_twice_and_delayed_ones_late() -> None:
    with Emulator(seed=1, faults="host.dup:1.0,host.delay:1.0,delay_ms:80") as emu:
        host = Host(emu.start())
        started = time.monotonic()
        host.command("PING", retries=(1.0,))
        assert time.monotonic() - started >= 0.08
        assert emu.fault_counts()["to_host"]["dup"] >= 1
        host.close()


def test_frames_split_in_pieces_are_reassembled_in_order() -> None:
    with Emulator(seed=1, mechanism=FAST, faults="split:1.0,delay_ms:20") as emu:
        host = Host(emu.start())
        for _ in range(5):
            assert host.command("PING", retries=(1.0,))["_verb"] == "PONG"
        assert host.command("FEED", [("job", 1), ("n", 3)], retries=(1.0,))["state"] == "running"
        assert host.wait_event(("DONE",))["counted"] == "3"
        counts = emu.fault_counts()
        assert counts["to_mcu"]["split"] >= 6 and counts["to_host"]["split"] >= 6
        host.close()


def test_a_crash_in_the_emulator_thread_unplugs_and_is_reported_at_stop(monkeypatch: Any) -> None:
    emu = Emulator(seed=1)
    host = Host(emu.start())

    def broken(line: bytes) -> None:
        raise RuntimeError("bug in the board")

    monkeypatch.setattr(emu.board, "receive", broken)
    host.serial.write(P.encode("C", 1, "PING"))
    assert emu.wait_until(lambda: emu.error is not None)
    with pytest.raises(serial.SerialException):
        for _ in range(3):
            host.serial.read(1)
    host.close()
    with pytest.raises(LauncherError, match="bug in the board"):
        emu.stop()


def test_scheduled_faults_happen_on_time(tmp_path: Path) -> None:
    with Emulator(seed=1, faults="reboot@50ms,silence@0ms+100ms") as emu:
        emu.start()
        assert emu.wait_until(lambda: len(emu.board.boots) == 2)
        assert emu.board.firmware is not None and emu.board.firmware.reset == "soft"


def test_stop_is_idempotent_and_leaves_the_motor_off() -> None:
    emu = Emulator(seed=1, mechanism=SLOW)
    host = Host(emu.start())
    host.command("FEED", [("job", 1), ("n", 10)])
    emu.stop()
    emu.stop()
    host.close()
    assert emu.motor_history[-1][1] == 0 and emu.mechanism.duty == 0.0


#: ~12 % of round trips fail at 3 % per frame per fault per direction; 8 tries make a
#: lost command (0.12 ** 8) vanishingly rare, as a host that reconnects would.
PATIENT = (0.1,) * 8


def test_a_small_soak_through_a_lossy_link_counts_every_card_once() -> None:
    plan = "drop:0.03,corrupt:0.03,dup:0.03"
    with Emulator(seed=5, mechanism=FAST, cards=2000, faults=plan) as emu:
        host = Host(emu.start())
        host.command("HELLO")
        counted = 0
        for job in range(1, 101):
            reply = host.command("FEED", [("job", job), ("n", 1 + job % 3)], retries=PATIENT)
            assert reply["_verb"] == "OK"
            counted += _finish(host, job)
        host.close()
        jobs = [job for _, job in emu.jobs_executed]
        assert jobs == list(range(1, 101))  # each job executed exactly once
        assert counted == sum(1 + j % 3 for j in jobs)
        assert emu.wait_until(lambda: emu.mechanism.ejected == counted)
        spans = emu.motor_on_spans()
        assert len(spans) == 100 and max(off - on for on, off in spans) < 100
        assert emu.fault_counts()["to_mcu"]["drop"] > 0


def _finish(host: Host, job: int) -> int:
    """Wait for the job's DONE; a lost DONE event is repaired from STATUS."""
    try:
        done = host.wait_event(("DONE", "FAULT"), timeout=0.2)
        while done["job"] != str(job):  # a late DONE of an earlier job that STATUS repaired
            done = host.wait_event(("DONE", "FAULT"), timeout=0.2)
        assert done["_verb"] == "DONE"
    except TimeoutError:
        pass
    status = host.command("STATUS", retries=PATIENT)
    assert (status["state"], status["job"], status["fault"]) == ("idle", str(job), "none")
    return int(status["counted"])


# -- fault plans ----------------------------------------------------------------------
def test_fault_plans_parse_from_text() -> None:
    plan = FaultPlan.parse(
        "drop:0.02,host.corrupt:0.1,delay_ms:30,reboot@2s,stuck@1500ms+0.5s", seed=4
    )
    assert plan.to_mcu == LinkFaults(drop=0.02, delay_ms=30.0)
    assert plan.to_host == LinkFaults(drop=0.02, corrupt=0.1, delay_ms=30.0)
    assert plan.schedule == (Scheduled("stuck", 1500.0, 500.0), Scheduled("reboot", 2000.0))
    assert plan.seed == 4


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("drop=0.1", "drop=0.1"),
        ("drop:2", "between 0 and 1"),
        ("side.drop:0.1", "side"),
        ("melt:0.1", "melt"),
        ("explode@1s", "explode"),
        ("reboot@soon", "soon"),
    ],
)
def test_bad_fault_plans_name_the_item(text: str, names: str) -> None:
    with pytest.raises(ConfigError, match=names) as error:
        FaultPlan.parse(text)
    assert "name:rate" in error.value.hint


def test_link_faults_are_deterministic_and_near_their_rates() -> None:
    plan = FaultPlan.parse("drop:0.05,corrupt:0.05,dup:0.05", seed=9)
    frame = P.encode("R", 1, "PONG")
    runs = []
    for _ in range(2):
        to_host, _to_mcu = faulters(plan)
        runs.append([to_host.frame(frame) for _ in range(4000)])
    assert runs[0] == runs[1]
    dropped = sum(1 for r in runs[0] if not r)
    duplicated = sum(1 for r in runs[0] if len(r) == 2)
    damaged = sum(1 for r in runs[0] if r and r[0][1] != frame)
    assert 120 < dropped < 280 and 100 < duplicated < 280 and 100 < damaged < 280


def test_byte_faults_are_caught_by_the_crc() -> None:
    import random

    faulter = LinkFaulter(LinkFaults(byte_corrupt=0.02, byte_drop=0.02), random.Random(1))
    frame = P.encode("E", 1, "CARD", [("job", 1), ("counted", 1), ("total", 1)])
    outcomes = [faulter.frame(frame)[0][1] for _ in range(500)]
    for data in outcomes:
        if data not in (frame, frame[:-1]):  # a lost newline alone merges lines, tested elsewhere
            with pytest.raises(ValueError):
                P.decode(data)
    assert sum(1 for data in outcomes if data != frame) > 100


# -- the command line ------------------------------------------------------------------------------
def test_emulate_command_serves_a_link_until_sigterm(tmp_path: Path) -> None:
    link = tmp_path / "pico"
    command = [
        sys.executable,
        "-m",
        "game",
        "emulate",
        "--link",
        str(link),
        "--fast",
        "--seed",
        "4",
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        ready, _, _ = select.select([process.stdout], [], [], 30)
        assert ready, "emulate printed nothing"
        banner = process.stdout.readline()
        assert "emulating the launcher on /dev/" in banner and str(link) in banner
        host = Host(str(link))
        assert host.command("FEED", [("job", 1), ("n", 2)])["state"] == "running"
        host.wait_event(("DONE",))
        host.close()
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0
    assert "1 jobs, 2 cards ejected" in err
    assert not link.exists()


def test_emulate_rejects_bad_options_with_a_clear_error() -> None:
    from game.cli import main
    from game.cli.emulate import mechanism_params

    assert main(["emulate", "--faults", "drop:7"]) == 2
    with pytest.raises(ConfigError, match="speed"):
        mechanism_params("speed=9", fast=False)
    with pytest.raises(ConfigError, match="cps"):
        mechanism_params("cps=-1", fast=True)


def test_the_standalone_button_fires_the_flash_profile_and_reports_it() -> None:
    from game.cli.emulate import profile_text

    text = profile_text("original-1999")
    assert text is not None and text.startswith("kind=pattern cycle=96 fires=")
    with Emulator(seed=1, mechanism=FAST, profile=text) as emu:
        host = Host(emu.start())  # only listens: a host's command would take the button
        wants = []
        for _ in range(2):  # presses 1 and 2 of the 1999 pattern: quiet, then 3..8 cards
            pressed_at = emu.now_ms()
            emu.press_button()  # held 100 ms; it fires after BUTTON_DEBOUNCE_MS
            wants.append(int(host.wait_event(("PRESS",), keepalive=False)["want"]))
            debounced = pressed_at + 100 + logic.BUTTON_DEBOUNCE_MS  # released and re-armed

            def debounce_passed(at: float = debounced) -> bool:
                return emu.now_ms() > at

            assert emu.wait_until(debounce_passed)  # the next press comes at a person's pace
        assert wants[0] == 0 and 3 <= wants[1] <= 8
        done = host.wait_event(("DONE",), keepalive=False)
        assert (done["job"], done["counted"]) == ("0", str(wants[1]))
        host.close()


def test_the_same_feed_frame_after_a_reboot_is_refused_not_fed_twice(
    emu: Emulator, host: Host
) -> None:
    """Issue 17's repro: FEED job=5, Emulator.reboot(), the same frame again."""
    host.command("HELLO")
    legacy = host.command("FEED", [("job", 5), ("n", 2), ("boot", None)])  # no boot=
    assert legacy == {"_verb": "ERR", "code": "bad_arg", "field": "boot"}
    frame = P.encode("C", 0x40, "FEED", [("job", 5), ("n", 2), ("boot", host.boot)])
    host.seq = 0x40
    host.serial.write(frame)
    assert host._reply(2.0) == {
        "_verb": "OK",
        "job": "5",
        "dup": "0",
        "state": "running",
        "n": "2",
        "max_ms": "10000",
        "jam_ms": "1500",
        "block_ms": "500",
        "duty": "100",
    }
    assert host.wait_event(("DONE",))["counted"] == "2"
    new_boot = emu.reboot()
    host.seq = 0x40
    host.serial.write(frame)  # the host's retransmission, after the restart
    assert host._reply(2.0) == {"_verb": "ERR", "code": "rebooted", "boot": new_boot}
    assert [job for _, job in emu.jobs_executed] == [5]
    assert emu.wait_until(lambda: emu.cards_ejected == 2)
