"""Outside checks of the Pico firmware, written from its documentation only.

The promises checked here are quoted from docs/firmware.md ("What the firmware does on its
own", "Beam glitch filter", "Standalone mode") and docs/protocol.md ("Commands and replies",
"Events", "Faults"). The firmware's own code and tests were not read: the host below is a
minimal stop-and-wait host of our own, and the launcher's roller is
``hardware.mechanism.Mechanism`` driven from the motor pin, both in the exact lockstep of
the emulated Pico (``PicoBoard.exact_*``), so every figure is in emulated time, however
slowly the emulated core runs on this machine.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from firmware_bridge import protocol
from firmware_bridge.pico_board import PicoBoard, SerialTap, emulator_missing, prepared_flash
from hardware.mechanism import Mechanism, MechanismParams

pytestmark = pytest.mark.skipif(  # in CI a missing emulator fails instead (the board won't start)
    emulator_missing() is not None and not os.environ.get("CI"),
    reason=f"the emulated Pico: {emulator_missing()}",
)

MOTOR_PIN = 16  # GP16, H-bridge IN1 (docs/firmware.md, "Wiring")
BEAM_PIN = 15  # GP15, LOW = beam broken
BUTTON_PIN = 14  # GP14, push button to GND (pressed = LOW)
MS = 1_000_000  # ns
US = 1_000  # ns
#: "The beam interrupt itself stops the motor on the last card's raw leading edge ... so the
#: stop never waits for the loop, which may be decoding a command (~15 ms)": the doc gives no
#: figure, so we allow an interrupt's latency: 1 ms, under the loop's 1 ms poll plus a
#: decode (measured here: 0.1 ms, whether or not the host reads).
STOP_BOUND_NS = 1 * MS
#: The test roller of docs/firmware.md: 50 cards/s, a card shadows the beam for 8 ms.
ROLLER = MechanismParams(cards_per_second=50, card_transit_ms=8, stall_duty=0)


@dataclass
class Line:
    """One decoded frame from the board, with the emulated time the host first saw it."""

    kind: str
    seq: int
    verb: str
    fields: dict[str, str]
    seen_ns: int


@dataclass
class Rig:
    """The emulated Pico in exact lockstep, a host of our own and (optionally) a roller.

    The host owns emulated time: :meth:`run` moves it in small steps, feeding the motor
    pin's on/off edges to the mechanism at their exact instants and driving the beam pin at
    each of the mechanism's transitions (so no card edge is ever late). An off edge is only
    reported once the pin has stayed low 1 ms (pico-sim's rule for a PWM pin), which is the
    rig's resolution for a card fed just before a stop.
    """

    board: PicoBoard
    tap: SerialTap
    mechanism: Mechanism | None = None
    chunk_ns: int = 2 * MS
    now_ns: int = 0
    origin_ns: int = 0
    seq: int = 0
    boot: str = ""
    keepalive_ns: int | None = None
    last_command_ns: int = 0
    motor_edges: list[tuple[int, bool]] = field(default_factory=list)
    beam_edges: list[tuple[int, bool]] = field(default_factory=list)
    resets_seen: set[int] = field(default_factory=set)
    rebooted: bool = False
    _parsed: int = 0
    _lines: list[Line] = field(default_factory=list)

    # -- time -------------------------------------------------------------------------------
    def hold(self) -> None:
        """Take over emulated time; the roller's clock starts now."""
        self.now_ns = self.origin_ns = self.board.exact_hold([MOTOR_PIN])
        self.board.exact_input(BEAM_PIN, 1)
        self.board.exact_input(BUTTON_PIN, 1)

    def _model_s(self, t_ns: int) -> float:
        return (t_ns - self.origin_ns) / 1e9

    def _step_to(self, target_ns: int) -> None:
        step = self.board.exact_step(max(1, target_ns - self.now_ns))
        self.now_ns = step.t_ns
        self.resets_seen.add(step.resets)
        self.rebooted |= step.rebooted
        for t_ns, pin, on in step.edges:
            if pin != MOTOR_PIN:
                continue
            self.motor_edges.append((t_ns, on))
            if self.mechanism is not None:
                self._drive_beam(self.mechanism.advance_to(self._model_s(t_ns)))
                self.mechanism.set_duty(1.0 if on else 0.0)
        if self.mechanism is not None:
            self._drive_beam(self.mechanism.advance_to(self._model_s(self.now_ns)))
        self._read_lines()

    def _drive_beam(self, transitions: list[tuple[float, bool]]) -> None:
        for _, blocked in transitions:
            self.beam(blocked)

    def beam(self, blocked: bool) -> None:
        """Drive the beam pin now (LOW = blocked) and remember the edge."""
        self.board.exact_input(BEAM_PIN, 0 if blocked else 1)
        self.beam_edges.append((self.now_ns, blocked))

    def button(self, pressed: bool) -> None:
        self.board.exact_input(BUTTON_PIN, 0 if pressed else 1)

    def run(self, ns: int, until: Callable[[], bool] | None = None) -> bool:
        """Run ``ns`` of emulated time (or until ``until()``), the roller in lockstep."""
        end = self.now_ns + ns
        while self.now_ns < end:
            if until is not None and until():
                return True
            target = min(end, self.now_ns + self.chunk_ns)
            if self.mechanism is not None:
                nxt = self.mechanism.next_transition_s()
                if nxt is not None:
                    target = min(target, self.origin_ns + math.ceil(nxt * 1e9))
            self._step_to(max(target, self.now_ns + 1))
            if self.keepalive_ns is not None and (
                self.now_ns - self.last_command_ns >= self.keepalive_ns
            ):
                self.send("PING")
        return until is not None and until()

    # -- the host ---------------------------------------------------------------------------
    def send(self, verb: str, fields: list[tuple[str, object]] | None = None) -> int:
        """Write one command frame (no wait); returns its SEQ."""
        self.seq = (self.seq + 1) % 256
        self.tap.send(protocol.encode("C", self.seq, verb, fields or []))
        self.last_command_ns = self.now_ns
        return self.seq

    def command(
        self, verb: str, fields: list[tuple[str, object]] | None = None, timeout_ns: int = 400 * MS
    ) -> dict[str, str]:
        """Send a command and run emulated time until its reply; returns the reply's fields."""
        seq = self.send(verb, fields)
        mark = len(self._lines)
        if not self.run(timeout_ns, lambda: self._reply(seq, mark) is not None):
            raise AssertionError(f"no reply to {verb} within {timeout_ns / MS:g} ms")
        reply = self._reply(seq, mark)
        assert reply is not None
        return {"verb": reply.verb, **reply.fields}

    def _reply(self, seq: int, mark: int) -> Line | None:
        return next((x for x in self._lines[mark:] if x.kind == "R" and x.seq == seq), None)

    def _read_lines(self) -> None:
        data = self.tap.data
        end = data.rfind(b"\n") + 1
        for raw in data[self._parsed : end].split(b"\n"):
            try:
                kind, seq, verb, fields = protocol.decode(raw)
            except ValueError:
                continue
            self._lines.append(Line(kind, seq, verb, fields, self.now_ns))
        self._parsed = max(self._parsed, end)

    def events(self, verb: str) -> list[Line]:
        return [x for x in self._lines if x.kind == "E" and x.verb == verb]

    def hello(self) -> dict[str, str]:
        reply = self.command("HELLO")
        self.boot = reply["boot"]
        return reply

    def motor_runs(self) -> list[tuple[int, int | None]]:
        """Every motor run as (on, off) in emulated ns; off None if still running."""
        runs: list[tuple[int, int | None]] = []
        for t_ns, on in self.motor_edges:
            if on:
                runs.append((t_ns, None))
            elif runs and runs[-1][1] is None:
                runs[-1] = (runs[-1][0], t_ns)
        return runs

    def leading_edges(self) -> list[int]:
        return [t for t, blocked in self.beam_edges if blocked]


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    """A freshly booted board with our firmware, held in exact lockstep, after HELLO."""
    board = PicoBoard(workdir=tmp_path)
    board.flash.write_bytes(prepared_flash().read_bytes())
    board.start()
    tap = board.tap()
    try:
        tap.wait_for(b"BOOT", timeout=60)
        rig = Rig(board, tap)
        rig.hold()
        rig.hello()
        yield rig
    finally:
        tap.close()
        board.stop()


def feed(rig: Rig, job: int, n: int, **limits: int) -> dict[str, str]:
    fields: list[tuple[str, object]] = [("job", job), ("n", n), *limits.items()]
    return rig.command("FEED", [*fields, ("boot", rig.boot)])


def test_a_feed_stops_on_the_nth_leading_edge_and_exactly_n_cards_leave(rig: Rig) -> None:
    """docs/firmware.md: "at the n-th card the motor goes off first, then its CARD and DONE
    reason=count are written. The beam interrupt itself stops the motor on the last card's
    raw leading edge"; docs/protocol.md: the OK shows the clamped limits (defaults
    max_ms 10000, jam_ms 1500, block_ms 500, duty 100) and STATUS the job's state."""
    rig.mechanism = Mechanism(ROLLER, seed=3, cards=10)
    rig.keepalive_ns = 150 * MS
    ok = feed(rig, 1, 3)
    assert ok == {
        "verb": "OK", "job": "1", "dup": "0", "state": "running", "n": "3",
        "max_ms": "10000", "jam_ms": "1500", "block_ms": "500", "duty": "100",
    }  # fmt: skip
    assert rig.run(2000 * MS, lambda: bool(rig.events("DONE")))
    rig.run(200 * MS)  # let anything that still flies land
    rig.keepalive_ns = None

    [(on, off)] = rig.motor_runs()
    assert off is not None
    third = rig.leading_edges()[2]
    assert 0 <= off - third <= STOP_BOUND_NS, f"motor off {(off - third) / MS:.3f} ms after"
    assert rig.mechanism.ejected == 3 and rig.mechanism.hopper == 7
    assert [c.fields["counted"] for c in rig.events("CARD")] == ["1", "2", "3"]
    [done] = rig.events("DONE")
    assert done.fields == {"job": "1", "counted": "3", "reason": "count", "total": "3"}
    assert off <= rig.events("CARD")[-1].seen_ns  # off first, then the last CARD
    status = rig.command("STATUS")
    keys = ("state", "job", "want", "counted", "total", "fault", "motor")
    assert {k: status[k] for k in keys} == {
        "state": "idle", "job": "1", "want": "3", "counted": "3", "total": "3",
        "fault": "none", "motor": "0",
    }  # fmt: skip


def test_a_host_that_stops_reading_but_pings_neither_reboots_nor_overruns(rig: Rig) -> None:
    """docs/firmware.md, "A host that does not read": writes block up to 500 ms, the gate
    drops the frames of the next second, "no loop pass comes near the 2 s watchdog", the
    beam interrupt "counts down every card ... so a long write cannot delay" the stop; once
    the host reads again STATUS says idle, job 1, 12 counted."""
    rig.mechanism = Mechanism(ROLLER, seed=5, cards=20)
    rig.keepalive_ns = 150 * MS
    feed(rig, 1, 12)
    assert rig.run(1000 * MS, lambda: len(rig.events("CARD")) >= 2)
    rig.board.host_reading(False)
    rig.run(3000 * MS)  # still PINGing every 150 ms, nobody reading the replies
    rig.board.host_reading(True)
    rig.keepalive_ns = None
    rig.run(1200 * MS)  # past the gate's one second of dropped frames

    assert not rig.rebooted and rig.resets_seen == {min(rig.resets_seen)}
    assert len(rig.events("BOOT")) == 1  # only the power-up one the fixture waited for
    [(on, off)] = rig.motor_runs()
    assert off is not None
    twelfth = rig.leading_edges()[11]
    assert 0 <= off - twelfth <= STOP_BOUND_NS, f"motor off {(off - twelfth) / MS:.3f} ms after"
    assert rig.mechanism.ejected == 12
    status = rig.command("STATUS")
    assert (status["state"], status["job"], status["want"], status["counted"]) == (
        "idle", "1", "12", "12",
    )  # fmt: skip
    assert (status["fault"], status["motor"], status["total"]) == ("none", "0", "12")


def test_a_host_that_stops_reading_and_sending_latches_host_silent(rig: Rig) -> None:
    """docs/protocol.md: "no valid command frame for 500 ms while a host job was running"
    latches host_silent; docs/firmware.md: the motor stops "within one blocked write of the
    host-silence bound" and the timers keep running while writes block."""
    rig.mechanism = Mechanism(ROLLER, seed=7, cards=100)
    rig.keepalive_ns = 150 * MS
    feed(rig, 1, 90, max_ms=30000)
    assert rig.run(1000 * MS, lambda: len(rig.events("CARD")) >= 2)
    rig.board.host_reading(False)
    rig.keepalive_ns = None
    last_command = rig.last_command_ns
    rig.run(1500 * MS)
    rig.board.host_reading(True)
    rig.run(1200 * MS)

    assert not rig.rebooted
    status = rig.command("STATUS")
    assert (status["state"], status["fault"], status["motor"]) == ("fault", "host_silent", "0")
    [(on, off)] = rig.motor_runs()
    assert off is not None
    # "each ends the job with a latched fault, motor off at once": no card after the count
    assert rig.mechanism.ejected == int(status["counted"]) < 90
    assert off - last_command <= (500 + 500 + 30) * MS, f"{(off - last_command) / MS:.1f} ms"


def spike(rig: Rig, widths_us: tuple[int, ...]) -> None:
    """Block the beam for each of ``widths_us``, 10 ms apart."""
    for width_us in widths_us:
        rig.beam(True)
        rig.run(width_us * US)
        rig.beam(False)
        rig.run(10 * MS)


def test_every_spike_the_filter_rejects_is_counted_in_selftest_glitches(rig: Rig) -> None:
    """docs/firmware.md: "A change that reverts sooner is a glitch: never a card, counted in
    SELFTEST glitches="; docs/protocol.md: "beam changes the glitch filter rejected".

    (This check found the doc wrong: a spike shorter than the soft interrupt's response is
    never seen at all; the doc now says so, with 20 us unseen and 50-250 us counted.)"""
    before = int(rig.command("SELFTEST")["glitches"])
    spike(rig, (20,))
    unseen = int(rig.command("SELFTEST")["glitches"]) - before
    spikes = (50, 100, 250)
    spike(rig, spikes)
    assert int(rig.command("SELFTEST")["glitches"]) - before - unseen == len(spikes)
    assert unseen in (0, 1)


def test_beam_spikes_shorter_than_the_filter_are_not_cards(rig: Rig) -> None:
    """docs/firmware.md, "Beam glitch filter": a change counts once it has held 300 us;
    "20, 50, 100 and 250 us spikes during a job count nothing", each is counted in
    SELFTEST glitches=; a glitch on the last card's edge restarts the motor; "Spikes of
    0.3-1 ms still count"."""
    feed(rig, 1, 1, jam_ms=5000)
    rig.keepalive_ns = 150 * MS
    rig.run(20 * MS)
    spike(rig, (20, 50, 100, 250))
    rig.run(50 * MS)
    status = rig.command("STATUS")
    assert (status["state"], status["counted"], status["motor"]) == ("running", "0", "1")
    assert rig.events("CARD") == []

    rig.beam(True)  # a 500 us shadow: longer than the filter, so a card
    rig.run(500 * US)
    rig.beam(False)
    assert rig.run(200 * MS, lambda: bool(rig.events("DONE")))
    rig.keepalive_ns = None
    [done] = rig.events("DONE")
    assert (done.fields["counted"], done.fields["reason"]) == ("1", "count")
    assert rig.command("STATUS")["motor"] == "0"


def test_a_feed_that_sees_no_card_within_jam_ms_ends_empty(rig: Rig) -> None:
    """docs/protocol.md: "A FEED that sees not one card within jam_ms ends DONE reason=empty
    (the hopper is empty; nothing is latched)"."""
    rig.mechanism = Mechanism(ROLLER, seed=1, cards=0)
    rig.keepalive_ns = 150 * MS
    sent = rig.now_ns
    feed(rig, 1, 2, jam_ms=200)
    assert rig.run(1000 * MS, lambda: bool(rig.events("DONE")))
    rig.keepalive_ns = None
    [done] = rig.events("DONE")
    assert (done.fields["counted"], done.fields["reason"]) == ("0", "empty")
    [(on, off)] = rig.motor_runs()  # jam_ms runs from the job's start (its FEED), not the motor's
    assert off is not None
    assert 200 * MS <= off - sent <= 230 * MS, f"motor off {(off - sent) / MS:.1f} ms after FEED"
    status = rig.command("STATUS")
    assert (status["state"], status["fault"], status["motor"]) == ("idle", "none", "0")
    assert feed(rig, 2, 1, jam_ms=200)["dup"] == "0"  # nothing latched: the next job runs


def press(rig: Rig, hold_ns: int, chatter_ms: tuple[int, ...] = ()) -> None:
    """Hold the button ``hold_ns``, then release it, its contacts chattering ``chatter_ms``."""
    rig.button(True)
    rig.run(hold_ns)
    for i, width in enumerate(chatter_ms):
        rig.button(i % 2 == 1)  # release, bounce closed, release, ...
        rig.run(width * MS)
    rig.button(False)


def test_the_button_debounces_and_is_refused_while_a_host_holds_the_link(rig: Rig) -> None:
    """docs/firmware.md, "Standalone mode": a press is the button held low 20 ms; "a release
    whose contacts chatter never fires a second volley, and a spike from the motor's noise
    (20-100 us) is never a press"; a press draws a count from the stored profile and runs it
    as job 0 (PRESS, then CARD/DONE); a host holds the link from its first command until a
    reboot, and then "such presses are refused and counted in SELFTEST refused=".
    """
    assert rig.command("PROFILE", [("kind", "iid"), ("p", "0,1000")])["verb"] == "OK"
    boots = len(rig.events("BOOT"))
    rig.board.power_cycle()  # a reboot gives the button back; the profile stays on flash
    assert rig.run(3000 * MS, lambda: len(rig.events("BOOT")) > boots)
    rig.mechanism = Mechanism(ROLLER, seed=2, cards=5)
    rig.run(200 * MS)

    for width_us in (20, 50, 100):
        press(rig, width_us * US)
        rig.run(20 * MS)
    press(rig, 10 * MS)  # shorter than the 20 ms debounce
    rig.run(100 * MS)
    assert rig.events("PRESS") == []

    press(rig, 400 * MS, chatter_ms=(1, 2, 3, 1, 2, 3))
    assert rig.run(500 * MS, lambda: bool(rig.events("DONE")))
    rig.run(300 * MS)
    [fired] = rig.events("PRESS")
    assert fired.fields["want"] == "1"
    [done] = rig.events("DONE")
    assert (done.fields["job"], done.fields["counted"], done.fields["reason"]) == (
        "0",
        "1",
        "count",
    )
    assert rig.mechanism.ejected == 1

    rig.boot = rig.events("BOOT")[-1].fields["boot"]
    selftest = rig.command("SELFTEST")  # this host now holds the link
    assert (selftest["host"], selftest["refused"]) == ("1", "0")
    press(rig, 100 * MS)
    rig.run(300 * MS)
    assert len(rig.events("PRESS")) == 1 and rig.mechanism.ejected == 1
    assert rig.command("SELFTEST")["refused"] == "1"


def test_job_ids_run_exactly_once_and_limits_are_clamped(rig: Rig) -> None:
    """docs/protocol.md, "Commands and replies" and "Exactly-once jobs": a FEED of the last
    job id answers dup=1 with its state and never runs again; STOP job= fences a job never
    started (its FEED then answers dup=1); an older id is stale; boot= is required and a
    wrong one is refused (rebooted); out-of-range values are clamped, never refused."""
    rig.mechanism = Mechanism(ROLLER, seed=4, cards=10)
    rig.keepalive_ns = 150 * MS
    feed(rig, 1, 1)
    assert rig.run(1000 * MS, lambda: bool(rig.events("DONE")))
    again = feed(rig, 1, 1)
    assert {k: again.get(k) for k in ("verb", "job", "dup", "state", "counted", "end")} == {
        "verb": "OK", "job": "1", "dup": "1", "state": "done", "counted": "1", "end": "count",
    }  # fmt: skip
    fenced = rig.command("STOP", [("job", 5), ("boot", rig.boot)])
    assert (fenced["verb"], fenced["dup"], fenced["counted"], fenced["end"]) == (
        "OK", "0", "0", "stopped",
    )  # fmt: skip
    assert feed(rig, 5, 1)["dup"] == "1"
    assert rig.command("STOP", [("job", 5), ("boot", rig.boot)])["dup"] == "1"
    stale = feed(rig, 4, 1)
    assert (stale["verb"], stale["code"]) == ("ERR", "stale")
    no_boot = rig.command("FEED", [("job", 6), ("n", 1)])
    assert (no_boot["verb"], no_boot["code"], no_boot["field"]) == ("ERR", "bad_arg", "boot")
    wrong = "00000000" if rig.boot != "00000000" else "00000001"
    other = rig.command("FEED", [("job", 6), ("n", 1), ("boot", wrong)])
    assert (other["verb"], other["code"], other["boot"]) == ("ERR", "rebooted", rig.boot)
    rig.run(50 * MS)
    assert len(rig.motor_runs()) == 1 and rig.mechanism.ejected == 1  # nothing ran again

    clamped = feed(rig, 7, 500, max_ms=5, jam_ms=1, block_ms=9999, duty=150)
    assert {k: clamped[k] for k in ("dup", "n", "max_ms", "jam_ms", "block_ms", "duty")} == {
        "dup": "0", "n": "108", "max_ms": "10", "jam_ms": "5", "block_ms": "2000", "duty": "100",
    }  # fmt: skip
