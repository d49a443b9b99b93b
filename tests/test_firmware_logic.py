"""The firmware's job/fault/standalone state machine, on an emulated board in virtual time.

The real ``firmware/logic.py`` runs on :class:`EmulatedBoard` (the mechanism model behind
emulated pins); time only moves when a test says so, so every timer is exact and nothing
sleeps.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from firmware_bridge import protocol as P
from firmware_bridge.emulated_hal import WATCHDOG_MS, WRITE_BLOCK_MS, EmulatedBoard
from firmware_bridge.firmware import logic
from hardware.mechanism import Mechanism, MechanismParams

#: 50 feed attempts a second at full duty, a card blocks the beam 5 ms.
FAST = MechanismParams(cards_per_second=50.0, card_transit_ms=5.0, stall_duty=0.0)


class Rig:
    """A board plus a minimal host: sends commands, collects replies and events."""

    def __init__(
        self, params: MechanismParams = FAST, *, cards: int = 90, reset: str = "power", **kw: Any
    ):
        self.frames: list[bytes] = []
        self.mechanism = Mechanism(params, seed=kw.pop("seed", 1), cards=cards)
        self.board = EmulatedBoard(self.mechanism, output=self.frames.append, seed=1, **kw)
        self.board.power_on(reset)
        self.seq = 0

    def raw(self, frame: bytes) -> dict[str, Any]:
        """Deliver ``frame``; return the reply's typed fields plus its verb under ``_verb``."""
        before = len(self.frames)
        self.board.receive(frame)
        replies = [P.decode(f) for f in self.frames[before:] if f.startswith(b"R")]
        assert len(replies) == 1, self.frames[before:]
        kind, seq, verb, fields = replies[0]
        assert seq == P.decode(frame)[1]
        return {"_verb": verb, **P.typed(kind, verb, fields)}

    def send(self, verb: str, **fields: Any) -> dict[str, Any]:
        """Send a command; FEED and RUN get this boot's ``boot=`` unless given (None: omit)."""
        self.seq = (self.seq + 1) & 0xFF
        return self.raw(self.frame(verb, **fields))

    def frame(self, verb: str, **fields: Any) -> bytes:
        if verb in ("FEED", "RUN") and "boot" not in fields:
            fields["boot"] = self.board.firmware.boot_id if self.board.firmware else "0"
        items = [(key, value) for key, value in fields.items() if value is not None]
        return P.encode("C", self.seq, verb, items)

    def run(self, ms: float, *, keepalive: bool = True, step: float = 100.0) -> None:
        """Let ``ms`` pass, PINGing every ``step`` ms like a well-behaved host."""
        end = self.board.now_ms + ms
        while self.board.now_ms < end:
            self.board.advance_to(min(end, self.board.now_ms + step))
            if keepalive:
                self.send("PING")

    def events(self, verb: str | None = None) -> list[dict[str, Any]]:
        out = []
        for frame in self.frames:
            kind, seq, name, fields = P.decode(frame)
            if kind == "E" and (verb is None or name == verb):
                out.append({"_verb": name, "_seq": seq, **P.typed(kind, name, fields)})
        return out

    def motor_spans(self) -> list[tuple[int, int]]:
        return self.board.motor_on_spans()


def test_boot_drives_the_motor_low_first_then_announces() -> None:
    rig = Rig()
    assert rig.board.motor_history[0][1] == 0
    boot = rig.events()[0]
    assert boot["_verb"] == "BOOT" and boot["_seq"] == 0
    assert boot["proto"] == P.PROTOCOL_VERSION and boot["fw"] == logic.FIRMWARE_VERSION
    assert len(boot["boot"]) == 8 and int(boot["boot"], 16) >= 0
    assert (boot["reset"], boot["state"], boot["fault"]) == ("power", "idle", "none")
    hello = rig.send("HELLO")
    assert hello["boot"] == boot["boot"]


def test_feed_counts_n_cards_then_stops() -> None:
    rig = Rig()
    reply = rig.send("FEED", job=1, n=3)
    assert (reply["_verb"], reply["job"], reply["dup"], reply["state"], reply["n"]) == (
        "OK",
        1,
        0,
        "running",
        3,
    )
    assert (reply["max_ms"], reply["jam_ms"], reply["block_ms"], reply["duty"]) == (
        10000,
        1500,
        500,
        100,
    )
    rig.run(1000)
    assert [e["counted"] for e in rig.events("CARD")] == [1, 2, 3]
    done = rig.events("DONE")
    assert [(d["job"], d["counted"], d["reason"], d["total"]) for d in done] == [(1, 3, "count", 3)]
    assert rig.mechanism.ejected == 3
    assert len(rig.motor_spans()) == 1
    assert rig.send("STATUS")["motor"] == 0


def test_retransmitted_feed_gets_the_cached_reply_and_never_runs_twice() -> None:
    rig = Rig()
    frame = P.encode("C", 9, "FEED", [("job", 5), ("n", 2), ("boot", rig.board.boots[0])])
    first = rig.raw(frame)
    rig.run(50, keepalive=False)
    again = rig.raw(frame)  # the reply was "lost": the host sends the same bytes
    assert again == first
    rig.run(1000)
    assert rig.board.jobs_started == [(rig.board.boots[0], 5)]
    assert rig.mechanism.ejected == 2


def test_feed_for_a_job_already_run_answers_its_state_even_with_a_new_seq() -> None:
    rig = Rig()
    rig.send("FEED", job=7, n=2)
    rig.run(1000)
    dup = rig.send("FEED", job=7, n=2)
    assert dup == {"_verb": "OK", "job": 7, "dup": 1, "state": "done", "counted": 2, "end": "count"}
    rig.run(1000)
    assert rig.mechanism.ejected == 2 and len(rig.board.jobs_started) == 1


def test_a_late_copy_of_an_older_feed_is_refused_as_stale_and_never_runs() -> None:
    rig = Rig()
    rig.send("FEED", job=7, n=1)
    rig.run(1000)
    rig.send("FEED", job=8, n=1)
    rig.run(1000)
    late = rig.send("FEED", job=7, n=1)  # delayed in a buffer, overtaken by job 8
    assert late == {"_verb": "ERR", "code": "stale", "job": 8}
    rig.run(1000)
    assert [job for _, job in rig.board.jobs_started] == [7, 8]
    assert rig.mechanism.ejected == 2


def test_job_ids_wrap_around_without_being_called_stale() -> None:
    assert not P.job_is_stale(1, P.MAX_JOB_ID)
    assert P.job_is_stale(P.MAX_JOB_ID, 1)
    assert P.job_is_stale(4, 5) and not P.job_is_stale(6, 5)


def test_a_second_job_while_running_is_refused_as_busy() -> None:
    rig = Rig()
    rig.send("FEED", job=1, n=20)
    assert rig.send("FEED", job=2, n=1) == {"_verb": "ERR", "code": "busy", "job": 1}
    assert rig.send("RUN", job=3, ms=100)["code"] == "busy"


def test_an_empty_hopper_ends_the_feed_as_empty_after_jam_ms_and_latches_nothing() -> None:
    """Issue 12: not one card within jam_ms is an empty hopper, not a stuck card."""
    rig = Rig(cards=0)
    rig.send("FEED", job=1, n=1, jam_ms=300)
    rig.run(1000)
    assert rig.events("FAULT") == []
    done = rig.events("DONE")
    assert [(d["reason"], d["job"], d["counted"]) for d in done] == [("empty", 1, 0)]
    ((on, off),) = rig.motor_spans()
    assert off - on == 300
    status = rig.send("STATUS")
    assert (status["state"], status["counted"], status["fault"]) == ("idle", 0, "none")
    rig.mechanism.load(5)  # load cards and press again: no CLEAR needed
    assert rig.send("FEED", job=2, n=1)["state"] == "running"


def test_cards_that_stop_coming_mid_feed_latch_jam_until_clear() -> None:
    rig = Rig(cards=2)
    rig.send("FEED", job=1, n=3, jam_ms=300)
    rig.run(1500)
    fault = rig.events("FAULT")
    assert [(f["code"], f["job"], f["counted"]) for f in fault] == [("jam", 1, 2)]
    assert rig.send("FEED", job=2, n=1) == {"_verb": "ERR", "code": "fault", "fault": "jam"}
    rig.run(5000)
    assert len(rig.motor_spans()) == 1  # the motor never restarts by itself
    assert rig.send("CLEAR") == {"_verb": "OK"}
    rig.mechanism.load(5)
    assert rig.send("FEED", job=2, n=1)["state"] == "running"


def test_a_card_caught_in_the_mouth_latches_beam_blocked() -> None:
    rig = Rig(MechanismParams(cards_per_second=50, card_transit_ms=5, stall_duty=0, catch_rate=1.0))
    rig.send("FEED", job=1, n=3, block_ms=200)
    rig.run(1000)
    assert [(f["code"], f["counted"]) for f in rig.events("FAULT")] == [("beam_blocked", 1)]
    ((on, off),) = rig.motor_spans()
    assert off - on == 20 + 200  # first card at 20 ms, then blocked for block_ms
    assert rig.mechanism.jammed


def test_a_stuck_beam_sensor_faults_a_job_before_any_card() -> None:
    rig = Rig()
    rig.board.stick_beam(2000)
    rig.send("FEED", job=1, n=3, block_ms=100)
    rig.run(500)
    assert [f["code"] for f in rig.events("FAULT")] == ["beam_blocked"]
    assert rig.mechanism.ejected == 0 or rig.events("CARD") == []


def test_slow_feeding_hits_max_time() -> None:
    slow = MechanismParams(cards_per_second=2, card_transit_ms=5, stall_duty=0)
    rig = Rig(slow)
    rig.send("FEED", job=1, n=10, max_ms=1200, jam_ms=2000)
    rig.run(3000)
    assert [(f["code"], f["counted"]) for f in rig.events("FAULT")] == [("max_time", 2)]
    ((on, off),) = rig.motor_spans()
    assert off - on == 1200


def test_host_silence_while_running_stops_the_motor() -> None:
    rig = Rig(MechanismParams(cards_per_second=5, card_transit_ms=5, stall_duty=0))
    rig.send("FEED", job=1, n=10)
    rig.run(2000, keepalive=False)
    assert [f["code"] for f in rig.events("FAULT")] == ["host_silent"]
    ((on, off),) = rig.motor_spans()
    assert off - on == P.HOST_SILENCE_MS


def test_keepalive_every_200_ms_keeps_a_long_job_going() -> None:
    rig = Rig(MechanismParams(cards_per_second=5, card_transit_ms=5, stall_duty=0))
    rig.send("FEED", job=1, n=10)
    rig.run(3000, step=P.HOST_KEEPALIVE_MS)
    assert rig.events("FAULT") == [] and rig.events("DONE")[0]["counted"] == 10


def test_stop_ends_the_job_at_once() -> None:
    rig = Rig()
    rig.send("FEED", job=1, n=50)
    rig.run(100)
    counted = rig.events("CARD")[-1]["counted"]
    assert rig.send("STOP") == {"_verb": "OK", "job": 1, "counted": counted}
    assert rig.events("DONE")[-1]["reason"] == "stopped"
    assert rig.send("STATUS")["state"] == "idle" and rig.send("STOP") == {"_verb": "OK"}


def test_run_is_timed_and_counts_what_passes() -> None:
    rig = Rig()
    assert rig.send("RUN", job=1, ms=300)["ms"] == 300
    rig.run(1000)
    done = rig.events("DONE")[0]
    assert done["reason"] == "time" and done["counted"] == len(rig.events("CARD")) > 10
    # a card fed at the very millisecond the run ends leaves uncounted, as on a real launcher
    assert 0 <= rig.mechanism.ejected - done["counted"] <= 1
    ((on, off),) = rig.motor_spans()
    assert off - on == 300


def test_parameters_are_clamped_and_the_reply_says_so() -> None:
    rig = Rig()
    reply = rig.send("FEED", job=1, n=999, max_ms=10**8, jam_ms=1, block_ms=99999, duty=250)
    assert (reply["n"], reply["max_ms"], reply["jam_ms"], reply["block_ms"], reply["duty"]) == (
        108,
        30000,
        P.LIMITS["jam_ms"][0],
        2000,
        100,
    )


def test_bad_commands_get_clear_errors() -> None:
    rig = Rig()
    assert rig.send("DANCE") == {"_verb": "ERR", "code": "unknown"}
    assert rig.send("FEED", job=1) == {"_verb": "ERR", "code": "bad_arg", "field": "n"}
    assert rig.send("FEED", job=0, n=1) == {"_verb": "ERR", "code": "bad_arg", "field": "job"}
    assert rig.send("FEED", job="x", n=1)["field"] == "job"
    assert rig.frames[-1].startswith(b"R")


def test_corrupt_and_foreign_frames_are_ignored() -> None:
    rig = Rig()
    before = len(rig.frames)
    good = P.encode("C", 1, "PING")
    rig.board.receive(good[:-3] + b"00")
    rig.board.receive(P.encode("R", 1, "PONG"))
    assert len(rig.frames) == before and rig.board.firmware is not None
    assert rig.board.firmware.rejected == 1


def test_idempotent_commands_always_execute() -> None:
    rig = Rig()
    status = P.encode("C", 4, "STATUS")
    assert rig.raw(status)["state"] == "idle"
    rig.board.receive(rig.frame("FEED", job=1, n=50))
    assert rig.raw(status)["state"] == "running"  # same bytes, fresh answer


def test_beat_every_250_ms_and_event_counter_wraps() -> None:
    rig = Rig(MechanismParams(cards_per_second=1, card_transit_ms=5, stall_duty=0))
    rig.send("FEED", job=1, n=2, jam_ms=5000, max_ms=30000)
    rig.run(1000, step=50)
    beats = rig.events("BEAT")
    assert len(beats) == 4 and all(b["job"] == 1 for b in beats)
    seqs = [e["_seq"] for e in rig.events()]
    assert seqs == list(range(len(seqs)))
    assert rig.send("STATUS")["ev"] == seqs[-1]


def test_event_counter_wraps_at_256() -> None:
    rig = Rig(MechanismParams(cards_per_second=100, card_transit_ms=1, stall_duty=0), cards=400)
    for job in range(1, 4):
        rig.send("FEED", job=job, n=100)
        rig.run(1500)
    seqs = [e["_seq"] for e in rig.events()]
    assert len(seqs) > 256 and all((b - a) % 256 == 1 for a, b in zip(seqs, seqs[1:], strict=False))


def test_watchdog_reset_latches_a_fault_at_boot() -> None:
    rig = Rig(reset="wdt")
    boot = rig.events("BOOT")[0]
    assert (boot["reset"], boot["state"], boot["fault"]) == ("wdt", "fault", "watchdog")
    assert rig.send("FEED", job=1, n=1)["fault"] == "watchdog"


# -- standalone mode ---------------------------------------------------------------------------
def test_profile_survives_reboot_and_the_button_fires_it() -> None:
    rig = Rig()
    assert rig.send("PROFILE", kind="iid", p=[0, 0, 1000]) == {"_verb": "OK"}
    rig.board.power_on("soft")  # flash survives; the new boot has no host
    rig.run(10, keepalive=False)
    rig.board.press_button()
    rig.run(1000, keepalive=False)
    press = rig.events("PRESS")
    assert [(p["press"], p["want"]) for p in press] == [(1, 2)]
    done = rig.events("DONE")[-1]
    assert (done["job"], done["counted"], done["reason"]) == (0, 2, "count")


def test_pattern_profile_fires_only_on_its_presses() -> None:
    rig = Rig()
    mask = P.fires_mask([2, 3])
    assert rig.send("PROFILE", kind="pattern", cycle=4, fires=mask, p=[0, 1000])["_verb"] == "OK"
    rig.board.press_button(logic.LONG_PRESS_MS + 10)  # take the button back from the host
    rig.run(logic.LONG_PRESS_MS + 100, keepalive=False)
    first = len(rig.events("PRESS"))
    wants = []
    for _ in range(8):
        rig.board.press_button()
        rig.run(400, keepalive=False)
        wants.append(rig.events("PRESS")[-1]["want"])
    assert first == 0 and wants == [0, 1, 1, 0, 0, 1, 1, 0]  # the long press was refused


def standalone(profile: str = "kind=iid p=0,0,0,1000", **kw: Any) -> Rig:
    return Rig(profile=profile, **kw)


def bounce(rig: Rig, levels: list[tuple[bool, float]]) -> None:
    """Drive the button through ``(level, ms)`` steps in model time."""
    for level, ms in levels:
        rig.board.set_button(level)
        rig.board.advance_to(rig.board.now_ms + ms)


def test_a_press_fires_after_20_ms_low_and_a_shorter_one_fires_nothing() -> None:
    rig = standalone()
    bounce(rig, [(True, logic.BUTTON_DEBOUNCE_MS - 1), (False, 500)])
    assert rig.events("PRESS") == []
    bounce(rig, [(True, logic.BUTTON_DEBOUNCE_MS), (False, 1000)])
    assert len(rig.events("PRESS")) == 1


@given(
    held=st.integers(min_value=30, max_value=1500),
    chatter=st.lists(st.integers(min_value=0, max_value=19), min_size=1, max_size=12),
)
@settings(max_examples=60, deadline=None)
def test_a_bouncing_release_never_fires_a_second_volley(held: int, chatter: list[int]) -> None:
    """Issue 29 finding 2: presses held 350-600 ms whose release bounced fired twice."""
    rig = standalone("kind=iid p=0,1000")
    steps = [(True, float(held))]
    for index, ms in enumerate(chatter):  # the contacts chatter for a few ms on release
        steps.append((index % 2 == 1, float(ms)))
    bounce(rig, steps + [(False, 2000)])
    assert len(rig.events("PRESS")) == 1
    assert len(rig.motor_spans()) == 1


def test_presses_are_ignored_while_a_job_runs_and_re_armed_after_20_ms_high() -> None:
    rig = standalone("kind=iid p=0,0,0,0,0,0,0,0,0,0,1000")  # 10 cards: 200 ms of motor
    bounce(rig, [(True, 30), (False, 30), (True, 30), (False, 2000)])  # 2nd: volley running
    assert len(rig.events("PRESS")) == 1
    bounce(rig, [(True, 30), (False, 10)])
    assert len(rig.events("PRESS")) == 2


def jammed_standalone() -> Rig:
    stuck = MechanismParams(cards_per_second=50, card_transit_ms=5, stall_duty=0, catch_rate=1.0)
    rig = standalone(params=stuck)
    bounce(rig, [(True, 30), (False, 2000)])
    assert [f["code"] for f in rig.events("FAULT")] == ["beam_blocked"]
    return rig


def test_a_long_press_clears_a_jam_once_the_card_is_out() -> None:
    """Finding 3: after a jam a press did nothing until a power cycle."""
    rig = jammed_standalone()
    bounce(rig, [(True, 30), (False, 500)])  # a short press while faulted: nothing
    bounce(rig, [(True, logic.LONG_PRESS_MS + 50), (False, 500)])  # card still in the mouth
    assert rig.board.firmware is not None and rig.board.firmware.fault == "beam_blocked"
    rig.mechanism.clear_jam()
    rig.mechanism.params = FAST
    rig.board.sync_beam()
    bounce(rig, [(True, logic.LONG_PRESS_MS + 50), (False, 500)])
    assert rig.board.firmware.fault == "none"
    bounce(rig, [(True, 30), (False, 2000)])  # the toy works again
    assert len(rig.events("PRESS")) == 2 and rig.events("DONE")[-1]["counted"] == 3


@pytest.mark.parametrize("cause", ["watchdog", "host_silent"])
def test_after_a_watchdog_reset_or_host_silence_a_long_press_gives_the_toy_back(cause: str) -> None:
    if cause == "watchdog":
        rig = standalone(reset="wdt")
    else:
        rig = standalone()
        rig.send("FEED", job=1, n=60)
        rig.run(2000, keepalive=False)
    fw = rig.board.firmware
    assert fw is not None and fw.fault == cause
    bounce(rig, [(True, 30), (False, 500)])
    assert rig.events("PRESS") == []  # latched, Klipper style
    bounce(rig, [(True, logic.LONG_PRESS_MS + 10), (False, 500)])
    bounce(rig, [(True, 30), (False, 2000)])
    assert len(rig.events("PRESS")) == 1


def test_standalone_presses_are_refused_while_a_host_holds_the_link() -> None:
    """Finding 6: a press during a host game shot cards the game never dealt."""
    rig = standalone()
    rig.send("HELLO")
    bounce(rig, [(True, 30), (False, 1000)])
    assert rig.events("PRESS") == [] and rig.mechanism.ejected == 0
    assert rig.send("SELFTEST")["refused"] == 1
    bounce(rig, [(True, logic.LONG_PRESS_MS + 10), (False, 100)])  # hand it back to the toy
    bounce(rig, [(True, 30), (False, 1000)])
    assert len(rig.events("PRESS")) == 1


def test_the_led_shows_ready_firing_fault_and_host() -> None:
    rig = jammed_standalone()
    fw = rig.board.firmware
    assert fw is not None
    blink = [fw.indicator(t)[0] for t in range(0, 1000, 125)]
    assert blink == [True, True, False, False] * 2  # fault: 2 Hz
    assert fw.indicator(0)[1] and not fw.indicator(500)[1]  # the buzzer chirps once a second
    fw.fault = "none"
    assert [fw.indicator(t) for t in (0, 500)] == [(True, False)] * 2  # ready: steady on
    rig.send("HELLO")
    assert [fw.indicator(t)[0] for t in (50, 500)] == [False, True]  # host: a dark blip
    fw.host_link = False
    rig.mechanism.clear_jam()
    rig.mechanism.params = FAST
    rig.board.sync_beam()
    bounce(rig, [(True, 25)])
    assert fw.job is not None
    assert [fw.indicator(t)[0] for t in (0, 50, 100, 150)] == [True, False, True, False]


def test_the_watchdog_is_armed_before_the_motor_first_turns() -> None:
    """Finding 8: the watchdog was armed one loop pass after the first motor start."""
    rig = standalone()
    hal = rig.board.hal
    assert hal is not None and not hal.watchdog_armed()
    seen: list[bool] = []
    real = hal.set_motor

    def spy(duty: int) -> None:
        if duty > 0:
            seen.append(hal.watchdog_armed())
        real(duty)

    hal.set_motor = spy  # type: ignore[method-assign]
    rig.send("FEED", job=1, n=1)
    rig.run(500)
    assert seen == [True]


def test_selftest_reports_the_pins() -> None:
    rig = Rig()
    reply = rig.send("SELFTEST")
    assert reply["_verb"] == "SELFTEST"
    assert (reply["beam"], reply["raw"], reply["button"], reply["motor"]) == (
        "clear",
        "clear",
        0,
        0,
    )
    rig.board.stick_beam(1000)
    assert rig.send("SELFTEST")["beam"] == "blocked"


# -- the beam glitch filter (the Pico's main loop runs it on raw edges stamped in us) --------------
class _Ticks:
    @staticmethod
    def ticks_diff(a: int, b: int) -> int:
        return a - b


@given(width=st.integers(min_value=1, max_value=logic.BEAM_FILTER_US - 1))
def test_beam_spikes_shorter_than_the_filter_are_never_cards(width: int) -> None:
    beam = logic.BeamFilter(_Ticks(), False, 0, 0)
    assert beam.raw_edge(True, 10, 10_000) == []
    assert beam.raw_edge(False, 10, 10_000 + width) == []
    assert beam.poll(50_000) == [] and beam.glitches == 1


@given(
    width=st.integers(min_value=logic.BEAM_FILTER_US, max_value=50_000),
    late=st.integers(min_value=0, max_value=20_000),
)
def test_a_card_that_holds_the_filter_time_is_dated_at_its_leading_edge(
    width: int, late: int
) -> None:
    beam = logic.BeamFilter(_Ticks(), False, 0, 0)
    beam.raw_edge(True, 10, 10_000)
    settled = beam.raw_edge(False, 10 + width // 1000, 10_000 + width)
    assert settled == [(True, 10)]
    assert beam.poll(10_000 + width + logic.BEAM_FILTER_US + late) == [(False, 10 + width // 1000)]
    assert beam.glitches == 0


@pytest.mark.parametrize(
    ("fields", "bad"),
    [
        ({"kind": "iid", "p": [500, 400]}, "p"),
        ({"kind": "zigzag", "p": [1000]}, "kind"),
        ({"kind": "pattern", "p": [1000]}, "cycle"),
        ({"kind": "pattern", "p": [1000], "cycle": 2, "fires": "F"}, "fires"),
        ({"kind": "iid", "p": [0] * 16 + [1000]}, "p"),
    ],
)
def test_bad_profiles_are_refused_naming_the_field(fields: dict[str, Any], bad: str) -> None:
    rig = Rig()
    assert rig.send("PROFILE", **fields) == {"_verb": "ERR", "code": "bad_arg", "field": bad}


def test_damaged_profile_on_flash_falls_back_to_the_default() -> None:
    rig = Rig(profile="kind=iid p=garbage")
    assert rig.board.firmware is not None
    assert rig.board.firmware.profile == logic.parse_profile(logic.DEFAULT_PROFILE)


# -- invariants over many jobs -------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 12),
    max_ms=st.integers(10, 3000),
    jam_ms=st.integers(5, 800),
    rate=st.floats(1, 200),
    slip=st.floats(0, 0.5),
    catch=st.sampled_from([0.0, 0.0, 0.05]),
    cards=st.integers(0, 15),
    seed=st.integers(0, 1000),
)
def test_every_job_ends_once_and_the_motor_is_bounded(
    n: int, max_ms: int, jam_ms: int, rate: float, slip: float, catch: float, cards: int, seed: int
) -> None:
    params = MechanismParams(
        cards_per_second=rate, card_transit_ms=2, stall_duty=0, slip_rate=slip, catch_rate=catch
    )
    rig = Rig(params, cards=cards, seed=seed)
    reply = rig.send("FEED", job=1, n=n, max_ms=max_ms, jam_ms=jam_ms, block_ms=100)
    rig.run(max_ms + 500, step=P.HOST_KEEPALIVE_MS)
    ends = rig.events("DONE") + rig.events("FAULT")
    assert len(ends) == 1
    ((on, off),) = rig.motor_spans()
    assert off - on <= reply["max_ms"]
    counted = ends[0]["counted"]
    assert counted == len(rig.events("CARD")) <= n
    if ends[0]["_verb"] == "DONE":
        assert counted == (0 if ends[0]["reason"] == "empty" else n)
    assert rig.mechanism.ejected + int(rig.mechanism.jammed) >= counted


# -- exactly-once under any interleaving of retransmissions, replays, stops and reboots -----------
class ExactlyOnce(RuleBasedStateMachine):
    """A host that retransmits, replays job ids, stops, clears and suffers reboots at random."""

    def __init__(self) -> None:
        super().__init__()
        self.rig = Rig(
            MechanismParams(cards_per_second=40, card_transit_ms=3, stall_duty=0), cards=10_000
        )
        self.job = 0
        self.last_frame: bytes | None = None
        self.longest_allowed = 0
        #: The boot id the host learned at its last HELLO (stale after a reboot until then).
        self.boot = self.rig.send("HELLO")["boot"]
        self.job_boot = self.boot

    def _send(self, verb: str, fields: list[tuple[str, object]]) -> dict[str, Any]:
        self.rig.seq = (self.rig.seq + 1) & 0xFF
        self.last_frame = P.encode("C", self.rig.seq, verb, fields)
        return self.rig.raw(self.last_frame)

    @rule(n=st.integers(1, 6), max_ms=st.integers(10, 400))
    def new_feed(self, n: int, max_ms: int) -> None:
        self.job += 1
        self.job_boot = self.boot
        fields = [("job", self.job), ("n", n), ("max_ms", max_ms), ("jam_ms", 200)]
        reply = self._send("FEED", fields + [("boot", self.boot)])
        if reply["_verb"] == "OK":
            self.longest_allowed = max(self.longest_allowed, reply.get("max_ms", 0))

    @precondition(lambda self: self.last_frame is not None)
    @rule()
    def retransmit(self) -> None:
        assert self.last_frame is not None
        self.rig.raw(self.last_frame)

    @precondition(lambda self: self.job > 0)
    @rule()
    def replay_last_job(self) -> None:
        # a replay carries the boot its job was first sent to, as the client's frames do
        reply = self._send("FEED", [("job", self.job), ("n", 3), ("boot", self.job_boot)])
        if reply["_verb"] == "OK" and reply.get("dup") == 0:  # its first copy was refused
            self.longest_allowed = max(self.longest_allowed, reply.get("max_ms", 0))

    @rule(verb=st.sampled_from(["STOP", "CLEAR", "PING", "STATUS"]))
    def simple(self, verb: str) -> None:
        self._send(verb, [])

    @precondition(lambda self: self.job > 0)
    @rule()
    def stop_last_job(self) -> None:
        reply = self._send("STOP", [("job", self.job), ("boot", self.job_boot)])
        assert reply["_verb"] == "ERR" or "counted" in reply

    @rule(ms=st.integers(1, 700), keepalive=st.booleans())
    def wait(self, ms: int, keepalive: bool) -> None:
        self.rig.run(ms, keepalive=keepalive, step=150)

    @rule(cause=st.sampled_from(["soft", "wdt", "power"]))
    def reboot(self, cause: str) -> None:
        self.rig.board.power_on(cause)  # the host learns the new boot only at its next HELLO

    @rule()
    def hello(self) -> None:
        self.boot = self._send("HELLO", [])["boot"]

    @invariant()
    def no_job_ever_runs_twice_even_across_reboots(self) -> None:
        started = [job for _, job in self.rig.board.jobs_started if job != 0]
        assert len(started) == len(set(started))

    @invariant()
    def motor_runs_only_for_a_job_and_within_its_bound(self) -> None:
        fw = self.rig.board.firmware
        assert fw is not None
        running = fw.job is not None and fw.job.duty > 0 and not fw.job.waiting
        assert (self.rig.mechanism.duty > 0) == running
        for on, off in self.rig.motor_spans():
            assert off - on <= self.longest_allowed


ExactlyOnce.TestCase.settings = settings(max_examples=40, stateful_step_count=25, deadline=None)
TestExactlyOnce = ExactlyOnce.TestCase


def test_a_job_addressed_to_an_earlier_boot_is_refused() -> None:
    """A FEED retransmitted across a restart must not run on the new boot (it may have run)."""
    rig = Rig()
    old_boot = rig.send("HELLO")["boot"]
    assert rig.send("FEED", job=1, n=1, boot=old_boot)["state"] == "running"
    rig.run(500)
    new_boot = rig.board.power_on("soft")
    refused = rig.send("FEED", job=1, n=1, boot=old_boot)
    assert refused == {"_verb": "ERR", "code": "rebooted", "boot": new_boot}
    assert rig.mechanism.ejected == 1 and len(rig.board.jobs_started) == 1
    assert rig.send("RUN", job=2, ms=10, boot=new_boot)["state"] == "running"


def test_the_pico_hal_offers_everything_the_logic_uses() -> None:
    """hal_rp2 cannot run here (no ``machine``); check its contract statically instead."""
    import ast
    from pathlib import Path

    from firmware_bridge.emulated_hal import EmulatedHal

    folder = Path(logic.__file__).parent
    used = {
        node.attr
        for node in ast.walk(ast.parse((folder / "logic.py").read_text()))
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "hal"
    }
    tree = ast.parse((folder / "hal_rp2.py").read_text())
    (rp2,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Rp2Hal"]
    offered = {n.name for n in rp2.body if isinstance(n, ast.FunctionDef)}
    assert used and used <= offered
    assert used <= set(dir(EmulatedHal))


# -- issue 17: exactly once across restarts; issue 11: CARD after the motor stops ---------------
def test_a_feed_without_boot_is_refused() -> None:
    rig = Rig()
    reply = rig.send("FEED", job=1, n=1, boot=None)
    assert reply == {"_verb": "ERR", "code": "bad_arg", "field": "boot"}
    assert rig.send("RUN", job=2, ms=10, boot=None)["field"] == "boot"
    rig.run(500)
    assert rig.board.jobs_started == [] and rig.mechanism.ejected == 0


def test_the_same_feed_frame_after_a_reboot_never_feeds_twice() -> None:
    rig = Rig()
    frame = rig.frame("FEED", job=5, n=2)
    assert rig.raw(frame)["state"] == "running"
    rig.run(500)
    new_boot = rig.board.power_on("soft")
    assert rig.raw(frame) == {"_verb": "ERR", "code": "rebooted", "boot": new_boot}
    rig.run(500)
    assert rig.mechanism.ejected == 2 and [job for _, job in rig.board.jobs_started] == [5]


def test_stop_of_a_job_is_idempotent_and_always_carries_its_count() -> None:
    rig = Rig()
    rig.send("FEED", job=3, n=50)
    rig.run(200)
    first = rig.send("STOP", job=3, boot=rig.board.boots[0])
    assert (first["dup"], first["end"], first["state"]) == (0, "stopped", "done")
    assert first["counted"] == rig.events("CARD")[-1]["counted"] > 0
    again = rig.send("STOP", job=3, boot=rig.board.boots[0])  # retransmitted after a reconnect
    assert again == {**first, "dup": 1}
    assert len(rig.events("DONE")) == 1 and len(rig.motor_spans()) == 1


def test_stop_of_a_job_that_never_arrived_fences_it_off() -> None:
    rig = Rig()
    boot = rig.board.boots[0]
    fenced = rig.send("STOP", job=4, boot=boot)  # its FEED was lost (or is still delayed)
    assert (fenced["job"], fenced["counted"], fenced["end"]) == (4, 0, "stopped")
    late = rig.send("FEED", job=4, n=2)  # ... and arrives after all
    assert late["dup"] == 1 and rig.board.jobs_started == []
    assert rig.send("STOP", job=4, boot="0BADB007")["code"] == "rebooted"
    assert rig.send("STOP", job=4)["field"] == "boot"


def test_profile_is_refused_while_a_job_runs() -> None:
    rig = Rig()
    rig.send("FEED", job=1, n=20)
    refused = rig.send("PROFILE", kind="iid", p=[0, 1000])
    assert refused == {"_verb": "ERR", "code": "busy", "job": 1}
    assert rig.board.flash == {}
    rig.run(2000)
    assert rig.send("PROFILE", kind="iid", p=[0, 1000]) == {"_verb": "OK"}


def test_the_motor_stops_before_the_last_card_is_reported_to_a_host_that_does_not_read() -> None:
    """A USB write blocks up to 500 ms when the host does not read: no card may fly meanwhile."""
    rig = Rig(MechanismParams(cards_per_second=20.0, card_transit_ms=5.0, stall_duty=0.0))
    rig.send("FEED", job=1, n=3, jam_ms=2000)
    while len(rig.events("CARD")) < 2:
        rig.run(10, step=10)
    rig.board.host_reading = False  # the host's program hangs with the port open
    rig.run(3000, keepalive=False, step=10)
    assert rig.mechanism.ejected == 3
    (_, off), *_ = reversed(rig.motor_spans())
    card3 = [e for e in rig.events() if e["_verb"] == "CARD"][2]
    assert card3["counted"] == 3 and len(rig.motor_spans()) == 1
    assert off <= 3 * 50 + 10  # stopped at the third card's edge, not 500 ms later


def test_a_job_waits_for_the_mouth_to_clear_so_no_card_hides_behind_another() -> None:
    """A card fed while another is still in the beam would never be counted (one edge)."""
    rig = Rig(MechanismParams(cards_per_second=50.0, card_transit_ms=30.0, stall_duty=0.0))
    rig.send("FEED", job=1, n=1)
    while not rig.events("DONE"):
        rig.board.advance_to(rig.board.now_ms + 1)
    assert rig.mechanism.beam_blocked  # job 1's card is still in the mouth
    rig.send("FEED", job=2, n=1)
    assert rig.mechanism.duty == 0  # waits
    rig.run(500)
    assert rig.events("DONE")[-1]["counted"] == 1 and rig.mechanism.ejected == 2


def test_a_card_stuck_before_a_job_starts_faults_it_without_counting_it_again() -> None:
    rig = Rig()
    rig.board.stick_beam(5000)  # a card stuck in the mouth from an earlier press
    rig.send("FEED", job=1, n=2, block_ms=100)
    rig.run(300)
    assert [(f["code"], f["counted"]) for f in rig.events("FAULT")] == [("beam_blocked", 0)]
    assert rig.motor_spans() == [] and rig.mechanism.ejected == 0


def test_a_host_that_stops_reading_never_starves_the_watchdog_and_the_link_recovers() -> None:
    """Issue 29: each write to a host that holds the port open without reading blocks 500 ms.

    Here the host's reader hangs while its writer still sends PINGs. The cards that passed
    during one blocked write reach the firmware together (queued by the pin IRQ), one CARD
    write each: unbounded, one loop pass spent seconds in writes and the 2 s watchdog reset
    the board mid-job. The Pico drops frames for a second after a slow write
    (``logic.WriteGate``): a pass blocks at most one write, the motor stops within one blocked
    write of the host-silence bound, and once the host reads again a STATUS reports the job
    (the cards queued during the block counted at the times they passed).
    """
    rig = Rig(cards=90)
    rig.send("FEED", job=1, n=60, jam_ms=2000)
    while len(rig.events("CARD")) < 3:
        rig.run(10, step=10)
    rig.board.host_reading = False  # the host's reader hangs with the port open
    for _ in range(30):  # 3 s of model time, a PING every 100 ms whose replies nobody reads
        rig.board.advance_to(rig.board.now_ms + 100)
        rig.seq = (rig.seq + 1) & 0xFF
        rig.board.receive(rig.frame("PING"))
    assert rig.board.longest_blocked_pass_ms <= WRITE_BLOCK_MS < WATCHDOG_MS
    ((_, off),) = rig.motor_spans()
    assert rig.mechanism.duty == 0 and off <= 100 + P.HOST_SILENCE_MS + WRITE_BLOCK_MS
    rig.board.host_reading = True  # the host reads again ...
    rig.board.advance_to(rig.board.now_ms + logic.WRITE_BACKOFF_MS)  # ... after the backoff ran out
    status = rig.send("STATUS")  # the link works again; the job ended at the silence bound
    assert (status["state"], status["fault"], status["job"]) == ("fault", "host_silent", 1)
    assert 3 < status["counted"] <= rig.mechanism.ejected  # cards after the bound are not its
