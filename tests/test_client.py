"""The host client: its pure exactly-once logic, and its wire behaviour on a real pseudo-terminal.

The first half tests :mod:`firmware_bridge.session` (retransmit schedule, event
gaps, job outcome) with hypothesis. The second half opens a real ``serial.Serial``
on an ``os.openpty()`` pair and plays the microcontroller's side with a few lines
of script per test, to pin down exact bytes: the handshake comes first, a
retransmission repeats the very same frame, a wrong protocol version is refused.
The full firmware logic is exercised through the emulator in test_emu_backend.py,
test_link_faults.py and test_soak.py.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator

import pytest
import serial
from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge import protocol
from firmware_bridge.client import FirmwareClient, Timing
from firmware_bridge.errors import LinkLost, PortNotFound, ProtocolError
from firmware_bridge.link import Frame, open_port
from firmware_bridge.session import EventCounter, JobWatch, RetryPolicy, fault_error
from hardware.errors import LauncherFault, LauncherJam, LauncherUnavailable

FAST = Timing(retry=RetryPolicy((0.05, 0.05, 0.1)), keepalive=0.05, quiet=0.1, connect_timeout=0.5)


# -- retransmit schedule -----------------------------------------------------------------
def test_default_retry_schedule_is_the_protocols() -> None:
    assert RetryPolicy().timeouts == (0.1, 0.2, 0.4)
    assert RetryPolicy().total == pytest.approx(0.7)


def test_doubling_schedule() -> None:
    assert RetryPolicy.doubling(0.01, 4).timeouts == (0.01, 0.02, 0.04, 0.08)
    with pytest.raises(ValueError, match="tries"):
        RetryPolicy.doubling(0.01, 0)
    with pytest.raises(ValueError, match="positive"):
        RetryPolicy((0.1, 0.0))


# -- event counter -----------------------------------------------------------------------
def test_event_counter_classifies_next_duplicate_and_gap() -> None:
    counter = EventCounter(10)
    assert counter.observe(11) == EventCounter.NEW
    assert counter.observe(11) == EventCounter.STALE
    assert counter.observe(9) == EventCounter.STALE
    assert counter.observe(14) == EventCounter.GAP
    assert counter.observe(15) == EventCounter.NEW


def test_event_counter_wraps_at_256() -> None:
    counter = EventCounter(255)
    assert counter.observe(0) == EventCounter.NEW
    assert counter.observe(255) == EventCounter.STALE


@st.composite
def mangled_streams(draw: st.DrawFn) -> tuple[int, list[int], list[int]]:
    """A true event stream (counters start..start+n) as delivered: some lost, some repeated late."""
    start = draw(st.integers(0, 255))
    n = draw(st.integers(1, 300))
    delivered: list[int] = []
    kept: list[int] = []
    for i in range(1, n + 1):
        counter = (start + i) % 256
        run_of_losses = i - (kept[-1] if kept else 0)
        if draw(st.booleans()) or i == n or run_of_losses >= 100:  # 8 bits: < 128 lost in a row
            delivered.append(counter)
            kept.append(i)
            if draw(st.integers(0, 9)) == 0:  # a duplicate, up to 5 frames late
                back = draw(st.integers(0, min(5, len(delivered) - 1)))
                delivered.append(delivered[-1 - back])
    return start, delivered, kept


@given(mangled_streams())
def test_each_event_is_taken_once_and_every_loss_is_seen(
    stream: tuple[int, list[int], list[int]],
) -> None:
    start, delivered, kept = stream
    counter = EventCounter(start)
    taken = [c for c in delivered if counter.observe(c) != EventCounter.STALE]
    assert taken == [(start + i) % 256 for i in kept]  # no duplicate ever taken twice
    counter = EventCounter(start)
    gaps = sum(counter.observe(c) == EventCounter.GAP for c in delivered)
    lost = kept[-1] - len(kept)
    assert (gaps > 0) == (lost > 0)


def test_resync_only_moves_forward() -> None:
    counter = EventCounter(50)
    counter.resync(40)
    assert counter.last == 50
    counter.resync(60)
    assert counter.observe(61) == EventCounter.NEW


# -- job outcome -------------------------------------------------------------------------
def event(verb: str, **fields: object) -> Frame:
    return Frame("E", 0, verb, {k: str(v) for k, v in fields.items()})


def status(state: str, job: int, counted: int, total: int, fault: str = "none") -> Frame:
    fields = {
        "state": state,
        "job": job,
        "counted": counted,
        "total": total,
        "ev": 0,
        "fault": fault,
    }
    return Frame("R", 0, "STATUS", {k: str(v) for k, v in fields.items()})


@st.composite
def job_histories(draw: st.DrawFn) -> tuple[int, list[Frame]]:
    """Events of a FEED that counted ``k`` cards, with losses, repeats and other jobs' noise."""
    k = draw(st.integers(0, 12))
    frames = [event("CARD", job=7, counted=i, total=100 + i) for i in range(1, k + 1)]
    frames.append(event("DONE", job=7, counted=k, reason="count", total=100 + k))
    out: list[Frame] = []
    for frame in frames:
        if frame.verb == "DONE" or draw(st.booleans()):
            out.append(frame)
        if draw(st.integers(0, 4)) == 0:
            out.append(draw(st.sampled_from(frames[: frames.index(frame) + 1])))
        if draw(st.integers(0, 6)) == 0:
            out.append(event("CARD", job=6, counted=50, total=99))
    return k, out


@given(job_histories())
def test_job_outcome_counts_every_card_once(history: tuple[int, list[Frame]]) -> None:
    k, frames = history
    watch = JobWatch(7, want=k)
    for frame in frames:
        watch.on_event(frame)
    assert watch.result is not None and watch.fault is None
    assert watch.result.counted == k
    assert watch.result.total == 100 + k


def test_lost_done_is_repaired_by_status() -> None:
    watch = JobWatch(3, want=2)
    watch.on_event(event("CARD", job=3, counted=1, total=11))
    watch.on_status(status("running", 3, 1, 11))
    assert not watch.finished
    watch.on_status(status("idle", 3, 2, 12))
    assert watch.result is not None and watch.result.counted == 2 and watch.result.reason == "count"


def test_lost_fault_is_repaired_by_status() -> None:
    watch = JobWatch(3, want=5)
    watch.on_status(status("fault", 3, 1, 11, fault="jam"))
    assert watch.fault == "jam" and watch.counted == 1


def test_status_for_another_job_marks_it_foreign() -> None:
    watch = JobWatch(3, want=5)
    watch.on_status(status("idle", 0, 0, 0))
    assert watch.foreign and watch.result is None


def test_fault_codes_map_to_the_hierarchy() -> None:
    jam = fault_error("beam_blocked", where="/dev/x", job=4, counted=2)
    assert isinstance(jam, LauncherJam) and jam.fault == "beam_blocked"
    assert "job 4" in str(jam) and "2 card(s)" in str(jam)
    silent = fault_error("host_silent", where="/dev/x")
    assert type(silent) is LauncherFault and silent.fault == "host_silent"


# -- on a real pseudo-terminal, the MCU side scripted --------------------------------------
Responder = Callable[[Frame], list[bytes]]


class ScriptedMcu:
    """The far end of a pty: decodes each command frame the host writes, answers via ``respond``.

    Deliberately tiny: it knows no protocol rules beyond the codec; each test scripts
    the replies it needs. Every raw command line is kept in ``received``.
    """

    def __init__(self, respond: Responder) -> None:
        self.master, slave = os.openpty()
        self.path = os.ttyname(slave)
        self._slave = slave  # keep it open so the host can (re)open the path
        self.respond = respond
        self.received: list[bytes] = []
        self.got_frame = threading.Condition()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        lines = protocol.LineBuffer()
        while True:
            try:
                data = os.read(self.master, 256)
            except OSError:
                return
            for line in lines.feed(data):
                kind, seq, verb, fields = protocol.decode(line)
                with self.got_frame:
                    self.received.append(line)
                    self.got_frame.notify_all()
                for reply in self.respond(Frame(kind, seq, verb, fields)):
                    os.write(self.master, reply)

    def close(self) -> None:
        for fd in (self.master, self._slave):
            try:
                os.close(fd)
            except OSError:
                pass


def hello_reply(seq: int, proto: int = protocol.PROTOCOL_VERSION) -> bytes:
    fields = [("proto", proto), ("fw", "0.1.0"), ("boot", "0A0B0C0D"), ("reset", "power")]
    return protocol.encode("R", seq, "HELLO", [*fields, ("state", "idle"), ("fault", "none")])


def idle_status(seq: int) -> bytes:
    fields = [("state", "idle"), ("job", 0), ("want", 0), ("counted", 0), ("total", 0), ("ev", 0)]
    return protocol.encode("R", seq, "STATUS", [*fields, ("fault", "none"), ("motor", 0)])


def basic(frame: Frame) -> list[bytes]:
    """A firmware that answers HELLO, STATUS and PING/STOP, and nothing else."""
    if frame.verb == "HELLO":
        return [hello_reply(frame.seq)]
    if frame.verb == "STATUS":
        return [idle_status(frame.seq)]
    if frame.verb == "PING":
        return [protocol.encode("R", frame.seq, "PONG")]
    if frame.verb == "STOP":
        return [protocol.encode("R", frame.seq, "OK")]
    return []


@pytest.fixture
def mcu() -> Iterator[ScriptedMcu]:
    peer = ScriptedMcu(basic)
    yield peer
    peer.close()


def test_session_starts_with_hello_then_status(mcu: ScriptedMcu) -> None:
    client = FirmwareClient(mcu.path, timing=FAST)
    hello = client.connect()
    client.close()
    assert hello.boot == "0A0B0C0D" and hello.reset == "power"
    verbs = [protocol.decode(line)[2] for line in mcu.received]
    assert verbs[:2] == ["HELLO", "STATUS"]


def test_wrong_protocol_version_is_refused(mcu: ScriptedMcu) -> None:
    mcu.respond = lambda f: [hello_reply(f.seq, proto=9)] if f.verb == "HELLO" else basic(f)
    client = FirmwareClient(mcu.path, timing=FAST)
    with pytest.raises(ProtocolError, match="speaks protocol 9, this host speaks 1"):
        client.connect()
    client.close()


def test_a_silent_device_is_a_clear_handshake_error(mcu: ScriptedMcu) -> None:
    mcu.respond = lambda f: []
    client = FirmwareClient(mcu.path, timing=FAST)
    with pytest.raises(LinkLost, match="no handshake") as caught:
        client.connect()
    assert "firmware install" in caught.value.hint
    client.close()


def test_retransmission_repeats_the_identical_frame(mcu: ScriptedMcu) -> None:
    ignored: list[Frame] = []

    def lose_first_feed(frame: Frame) -> list[bytes]:
        if frame.verb == "RUN" and not ignored:
            ignored.append(frame)
            return []
        if frame.verb == "RUN":
            job = frame.fields["job"]
            return [
                protocol.encode(
                    "R", frame.seq, "OK", [("job", job), ("dup", 0), ("state", "running")]
                ),
                protocol.encode(
                    "E", 1, "DONE", [("job", job), ("counted", 0), ("reason", "time"), ("total", 0)]
                ),
            ]
        return basic(frame)

    mcu.respond = lose_first_feed
    with FirmwareClient(mcu.path, timing=FAST) as client:
        result = client.run(5, duty=50)
    runs = [line for line in mcu.received if b" RUN " in line]
    assert len(runs) == 2 and runs[0] == runs[1]
    assert result.reason == "time" and result.job == 1


def test_unanswered_command_reports_link_lost(mcu: ScriptedMcu) -> None:
    client = FirmwareClient(mcu.path, timing=FAST)
    client.connect()
    with pytest.raises(LinkLost, match=r"no reply to CLEAR after 3 tries"):
        client.clear_fault()
    clears = [line for line in mcu.received if b" CLEAR" in line]
    assert len(clears) == 3 and len(set(clears)) == 1
    client.close()


def test_missing_port_lists_the_ports_that_exist(mcu: ScriptedMcu) -> None:
    with pytest.raises(PortNotFound, match="does not exist") as caught:
        open_port("/dev/does-not-exist-uno")
    assert "ports present:" in str(caught.value)
    assert isinstance(caught.value, LauncherUnavailable)


def test_port_is_opened_exclusively(mcu: ScriptedMcu) -> None:
    first = open_port(mcu.path)
    try:
        with pytest.raises(LauncherUnavailable, match="in use by another program"):
            open_port(mcu.path)
    finally:
        first.close()
    assert isinstance(first, serial.Serial)


# -- issue 17: exactly once across restarts and reconnects -------------------------------------
def ok_reply(seq: int, fields: list[tuple[str, object]]) -> bytes:
    return protocol.encode("R", seq, "OK", fields)


def test_every_feed_names_the_boot_it_was_meant_for(mcu: ScriptedMcu) -> None:
    def rebooted(frame: Frame) -> list[bytes]:
        if frame.verb == "FEED":  # the board restarted since the handshake
            return [protocol.encode("R", frame.seq, "ERR", [("code", "rebooted"), ("boot", "B")])]
        return basic(frame)

    mcu.respond = rebooted
    with FirmwareClient(mcu.path, timing=FAST) as client:
        client.connect()
        with pytest.raises(LauncherFault, match="restarted .*during job 1") as caught:
            client.feed(4, max_ms=1000, jam_ms=100, block_ms=50, duty=100)
    feed = next(protocol.decode(line)[3] for line in mcu.received if b" FEED " in line)
    assert feed["boot"] == "0A0B0C0D" and feed["job"] == "1"
    error = caught.value
    assert error.fault == "restart" and error.counted == 0
    assert error.unknown == 4  # type: ignore[attr-defined]  # it may have run on the old boot


def test_an_interrupted_job_is_kept_until_its_final_count_is_known(mcu: ScriptedMcu) -> None:
    """A STOP lost during the settling must not forget the job; the retry gets its count."""
    phase = ["connect"]
    stops: list[dict[str, str]] = []

    def respond(frame: Frame) -> list[bytes]:
        if frame.verb == "FEED":
            phase[0] = "silent"  # the cable goes bad right after the job started
            return [ok_reply(frame.seq, [("job", 1), ("dup", 0), ("state", "running")])]
        if phase[0] == "silent":
            return []
        if frame.verb == "STATUS" and phase[0] != "connect":
            fields = [("state", "running"), ("job", 1), ("want", 5), ("counted", 2)]
            fields += [("total", 2), ("ev", 0), ("fault", "none"), ("motor", 1)]
            return [protocol.encode("R", frame.seq, "STATUS", fields)]
        if frame.verb == "STOP":
            stops.append(frame.fields)
            if phase[0] == "stop_lost":
                return []
            fields = [("job", 1), ("dup", int(len(stops) > 4)), ("state", "done")]
            return [ok_reply(frame.seq, [*fields, ("counted", 3), ("end", "stopped")])]
        return basic(frame)

    mcu.respond = respond
    client = FirmwareClient(mcu.path, timing=FAST)
    client.connect()
    with pytest.raises(LinkLost, match="during job 1"):
        client.feed(5, max_ms=1000, jam_ms=500, block_ms=50, duty=100)
    phase[0] = "stop_lost"
    with pytest.raises(LinkLost, match="no reply to STOP"):
        client.status()
    assert client.take_late() == []
    phase[0] = "back"
    client.status()
    late = client.take_late()
    assert [(r.job, r.counted, r.reason) for r in late] == [(1, 3, "interrupted")]
    assert stops and all(s == {"job": "1", "boot": "0A0B0C0D"} for s in stops)
    client.status()
    assert client.take_late() == []  # learned once
    client.close()


def test_cards_that_stop_coming_are_not_called_a_stuck_card() -> None:
    """Issue 12: the hopper running out mid-press said "remove the stuck card"."""
    ran_out = fault_error("jam", where="emu", job=3, counted=2)
    assert isinstance(ran_out, LauncherJam) and "stuck" not in ran_out.hint
    assert "run out" in ran_out.hint and ran_out.counted == 2
    stuck = fault_error("beam_blocked", where="emu", job=3, counted=2)
    assert "stuck card" in stuck.hint
