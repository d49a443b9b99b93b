"""The launcher firmware's brain: jobs, safety timers, latched faults, standalone mode.

Runs unchanged on the Pico (MicroPython, with ``hal_rp2``) and on CPython inside the
emulator (``firmware_bridge.emulated_hal``), so it is written in the subset both run:
no dataclasses, no typing, no f-strings. It never touches hardware or the clock
itself; everything goes through a thin HAL object:

    hal.set_motor(duty_percent)  0 = off; must take effect at once
    hal.beam_blocked()           current break-beam state (True = a card in the mouth)
    hal.write(frame_bytes)       send one frame to the host (dropped if nobody listens)
    hal.load_profile()           stored standalone profile text, or None
    hal.save_profile(text)       store it (a small file on flash)
    hal.random32()               a random 32-bit number (boot id, standalone draws)
    hal.reset_cause()            "power" | "wdt" | "requested" | "soft" | "unknown" ("wdt" faults)
    hal.ticks_diff(a, b)         a - b for the HAL's millisecond ticks (wrap-safe on the Pico)
    hal.ticks_add(a, b)          a + b likewise
    hal.arm_watchdog()           arm the hardware watchdog (called before every motor start)
    hal.button_pressed()         current level of the Pico's button (True = pressed)
    hal.watchdog_armed()         True once the watchdog runs (SELFTEST reports it)

The caller feeds it inputs with the time they happened (``now``, HAL ticks in ms):
:meth:`Firmware.on_line` (one received line), :meth:`Firmware.on_beam` (a filtered beam
edge, see :class:`BeamFilter`), :meth:`Firmware.on_button` (a raw level change of the
Pico's button; the debounce is here) and :meth:`Firmware.tick` (timers; call it often,
and at :meth:`Firmware.next_deadline` when you can). :meth:`Firmware.indicator` says what
the LED and the buzzer show. The protocol it speaks is ``docs/protocol.md``.
"""
# ruff: noqa: UP031  (%-formatting on purpose: this file runs under MicroPython)

try:
    from firmware_bridge import protocol
except ImportError:  # on the Pico every module sits in the flash root
    import protocol  # type: ignore[no-redef]

FIRMWARE_VERSION = "0.2.2"
#: Level debounce of the button: low this long is a press, high this long re-arms it. A
#: bouncing release (contacts chattering for a few ms) never re-arms; a 20-100 us spike
#: from the motor's noise is never 20 ms long.
BUTTON_DEBOUNCE_MS = 20
#: Held this long: clear a latched fault (if the mouth is clear) and take the button back
#: from a host (standalone presses fire again).
LONG_PRESS_MS = 2000
#: A beam change counts once the new level has held this long (microseconds). It rejects
#: the spikes a brushed motor puts on the receiver line (20-100 us measured, up to 0.3 ms),
#: and leaves room for a card and the gap behind it at 1,000 cards/s (1 ms together):
#: docs/firmware.md, "Beam glitch filter".
BEAM_FILTER_US = 300
#: What the LED shows (docs/firmware.md): on = ready, fast blink = firing, slow blink =
#: fault, on with a short dark blip each second = a host holds the link.
LED_FIRING_HALF_MS = 50
LED_FAULT_HALF_MS = 250
LED_HOST_BLIP_MS = 100
BUZZER_FAULT_MS = 100  # the buzzer chirps this long once a second while a fault is latched
#: The standalone profile used until the host pushes one (the "web-game" preset).
DEFAULT_PROFILE = "kind=iid p=450,165,165,80,80,12,12,12,12,12"

#: A write to a host that holds the port open but does not read blocks up to 500 ms
#: (MicroPython's USB CDC timeout). A write that took SLOW_WRITE_MS or more marks the host
#: "not reading" and the frames of the next WRITE_BACKOFF_MS are dropped, so at most one
#: write (500 ms) blocks per second and the 2 s watchdog is always fed (a STATUS repairs
#: lost events).
SLOW_WRITE_MS = 20
WRITE_BACKOFF_MS = 1000


class WriteGate:
    """Bounds the time a loop pass can spend in writes to a host that does not read.

    Shared by ``hal_rp2`` (the Pico) and ``emulated_hal`` (emu://), so the emulated board
    blocked by a host that stops reading runs the same policy as the Pico.
    """

    def __init__(self, ticks_diff, ticks_add):
        self._diff = ticks_diff
        self._add = ticks_add
        self._backoff_until = None

    def open(self, now):
        """True: write this frame; False: drop it (the host did not read lately)."""
        backoff = self._backoff_until
        if backoff is not None:
            if self._diff(backoff, now) > 0:
                return False
            self._backoff_until = None
        return True

    def wrote(self, started, ended):
        """A write ran from ``started`` to ``ended`` (ms ticks): slow ones start a backoff."""
        if self._diff(ended, started) >= SLOW_WRITE_MS:
            self._backoff_until = self._add(ended, WRITE_BACKOFF_MS)


P = protocol
FEED = "feed"
RUN = "run"


class Job:
    """One motor run: a closed-loop FEED (stop at ``want`` cards) or an open-loop RUN."""

    def __init__(self, job_id, mode, params, now):
        self.id = job_id
        self.mode = mode
        self.want = params.get("n", 0)
        self.max_ms = params.get("max_ms", 0)
        self.jam_ms = params.get("jam_ms", 0)
        self.block_ms = params.get("block_ms", 0)
        self.duty = params.get("duty", 0)
        self.ms = params.get("ms", 0)
        self.counted = 0
        self.state = P.STATE_RUNNING
        self.end = P.FAULT_NONE
        self.started = now
        self.progress = now  # last time the job saw a card or the beam clear
        #: True while the motor waits for the mouth to clear (a card still in the beam).
        self.waiting = False

    def is_host_job(self):
        return self.id != 0


class BeamFilter:
    """Raw beam levels (stamped in us) in, levels that held :data:`BEAM_FILTER_US` out.

    A change counts once the new level has held the filter time; it is dated when it began
    (the card's leading edge), so a late main loop never shifts a card in time. A change
    that reverts sooner is a glitch: counted in :attr:`glitches`, never a card. Works on
    level samples, so a soft IRQ that reads the pin after a 20 us spike has already ended
    (and sees no change) is harmless.
    """

    def __init__(self, hal, blocked, now_ms, now_us):
        self.hal = hal
        self.level = bool(blocked)  # the filtered level the firmware sees
        self.raw = self.level
        self.raw_ms = now_ms
        self.raw_us = now_us
        self.glitches = 0  # raw changes that did not hold

    def raw_edge(self, blocked, ms, us):
        """A raw level read at ``ms``/``us``; returns the settled edges ``[(blocked, ms)]``."""
        out = self.poll(us)
        blocked = bool(blocked)
        if blocked == self.raw:
            return out
        if self.raw != self.level:  # the pending change reverted before it held: a glitch
            self.glitches += 1
        self.raw, self.raw_ms, self.raw_us = blocked, ms, us
        return out

    def poll(self, us):
        """The pending change, if it has held long enough by ``us``: ``[(blocked, ms)]``."""
        if self.raw != self.level and self.hal.ticks_diff(us, self.raw_us) >= BEAM_FILTER_US:
            self.level = self.raw
            return [(self.level, self.raw_ms)]
        return []


class Firmware:
    """The state machine; one instance per boot."""

    def __init__(self, hal):
        self.hal = hal
        self.boot_id = "00000000"
        self.reset = "unknown"
        self.fault = P.FAULT_NONE
        self.job = None  # the running Job, if any
        self.last_host_job = None  # for exactly-once FEED/RUN
        self.total = 0
        self.events = 0  # next event counter
        self.blocked = False
        self.blocked_since = 0
        self.last_rx = 0
        self.next_beat = 0
        self.presses = 0
        #: The button's raw level and since when; armed = released long enough to press again.
        self.button_down = False
        self.button_since = 0
        self.button_armed = True
        self.button_long_done = False
        #: True from a host's first command until a long press, host_silent or a reboot:
        #: standalone presses are refused while a host game owns the launcher.
        self.host_link = False
        self.refused_presses = 0
        #: Set by the Pico's main loop (raw edges in us); the emulator delivers clean edges.
        self.beam_filter = None
        self.rejected = 0  # received lines that failed to decode
        self.job_starts = 0  # jobs started since boot (the emulator proves exactly-once with it)
        self._last_body = None
        self._last_reply = None
        self._rng = 1
        self.profile = parse_profile(DEFAULT_PROFILE)
        self._pattern_position = 0

    # -- boot -------------------------------------------------------------------------
    def boot(self, now):
        """Motor off first, then read the world, then announce ourselves with BOOT."""
        self.hal.set_motor(0)
        self.reset = self.hal.reset_cause()
        self.boot_id = "%08X" % (self.hal.random32() & 0xFFFFFFFF)
        self._rng = (self.hal.random32() & 0xFFFFFFFF) or 0x9E3779B9
        if self.reset == "wdt":
            self.fault = P.FAULT_WATCHDOG
        self._load_profile()
        self.blocked = bool(self.hal.beam_blocked())
        self.blocked_since = now
        self.last_rx = now
        self.button_down = bool(self.hal.button_pressed())
        self.button_since = now
        self.button_armed = not self.button_down  # held through boot: release it first
        self._emit("BOOT", self._hello_fields())

    def _load_profile(self):
        text = self.hal.load_profile()
        if text:
            try:
                self.profile = parse_profile(text)
            except ValueError:
                self.profile = parse_profile(DEFAULT_PROFILE)

    def state(self):
        if self.job is not None:
            return P.STATE_RUNNING
        return P.STATE_FAULT if self.fault != P.FAULT_NONE else P.STATE_IDLE

    def _hello_fields(self):
        return (
            ("proto", P.PROTOCOL_VERSION),
            ("fw", FIRMWARE_VERSION),
            ("boot", self.boot_id),
            ("reset", self.reset),
            ("state", self.state()),
            ("fault", self.fault),
        )

    # -- output -----------------------------------------------------------------------
    def _emit(self, verb, fields):
        frame = P.encode(P.EVENT, self.events, verb, fields)
        self.events = (self.events + 1) & 0xFF
        self.hal.write(frame)

    # -- commands -----------------------------------------------------------------------
    def on_line(self, line, now):
        """Handle one received line (no ``\\n`` needed); a bad frame is dropped silently."""
        try:
            kind, seq, verb, raw = P.decode(line)
        except ValueError:
            self.rejected += 1
            return
        if kind != P.COMMAND:
            return
        self.last_rx = now
        self.host_link = True
        body = _frame_body(line)
        if verb not in P.ALWAYS_EXECUTE and body == self._last_body:
            self.hal.write(self._last_reply)
            return
        reply_verb, fields = self._execute(verb, raw, now)
        reply = P.encode(P.REPLY, seq, reply_verb, fields)
        self._last_body, self._last_reply = body, reply
        self.hal.write(reply)

    def _execute(self, verb, raw, now):
        handler = _HANDLERS.get(verb)
        if handler is None:
            return "ERR", (("code", P.ERR_UNKNOWN),)
        try:
            fields = P.typed(P.COMMAND, verb, raw)
        except P.FieldError as error:
            return "ERR", (("code", P.ERR_BAD_ARG), ("field", error.field))
        return handler(self, fields, now)

    def _cmd_hello(self, fields, now):
        return "HELLO", self._hello_fields()

    def _cmd_ping(self, fields, now):
        return "PONG", ()

    def _cmd_status(self, fields, now):
        job = self.job if self.job is not None else self.last_host_job
        return "STATUS", (
            ("state", self.state()),
            ("job", job.id if job else 0),
            ("want", job.want if job else 0),
            ("counted", job.counted if job else 0),
            ("total", self.total),
            ("ev", (self.events - 1) & 0xFF),
            ("fault", self.fault),
            ("motor", 1 if self.job is not None else 0),
        )

    def _cmd_feed(self, fields, now):
        params = {}
        for key in ("n", "max_ms", "jam_ms", "block_ms", "duty"):
            params[key] = P.clamp(key, fields.get(key))
        return self._start_host_job(fields, FEED, params, now)

    def _cmd_run(self, fields, now):
        params = {"ms": P.clamp("ms", fields.get("ms"))}
        params["duty"] = P.clamp("duty", fields.get("duty"))
        params["block_ms"] = P.LIMITS["block_ms"][2]
        return self._start_host_job(fields, RUN, params, now)

    def _start_host_job(self, fields, mode, params, now):
        job_id = fields["job"]
        if job_id < 1 or job_id > P.MAX_JOB_ID:
            return "ERR", (("code", P.ERR_BAD_ARG), ("field", "job"))
        if fields["boot"] != self.boot_id:  # sent to an earlier boot: never run it here
            return "ERR", (("code", P.ERR_REBOOTED), ("boot", self.boot_id))
        last = self.last_host_job
        if last is not None and last.id == job_id:
            return "OK", _job_fields(last, 1)
        if last is not None and P.job_is_stale(job_id, last.id):
            return "ERR", (("code", P.ERR_STALE), ("job", last.id))
        refusal = self._refusal()
        if refusal is not None:
            return "ERR", refusal
        job = self._start(job_id, mode, params, now)
        shown = ("n", "max_ms", "jam_ms", "block_ms", "duty") if mode == FEED else ("ms", "duty")
        return "OK", (("job", job.id), ("dup", 0), ("state", job.state)) + tuple(
            (key, params[key]) for key in shown
        )

    def _refusal(self):
        if self.fault != P.FAULT_NONE:
            return (("code", P.ERR_FAULT), ("fault", self.fault))
        if self.job is not None:
            return (("code", P.ERR_BUSY), ("job", self.job.id))
        return None

    def _cmd_stop(self, fields, now):
        """Bare STOP: motor off now, whatever runs. ``STOP job= boot=``: end that host job.

        The addressed form is idempotent: a retransmission (even after a reconnect) answers
        the job's final count again, and a job this boot never started is fenced off so a
        FEED of it still held in a buffer can never run.
        """
        job_id = fields.get("job")
        if job_id is None:
            job = self.job
            self.hal.set_motor(0)
            if job is None:
                return "OK", ()
            self._finish(job, P.REASON_STOPPED, None)
            return "OK", (("job", job.id), ("counted", job.counted))
        boot = fields.get("boot")
        if boot is None:
            return "ERR", (("code", P.ERR_BAD_ARG), ("field", "boot"))
        if boot != self.boot_id:  # that job died with an earlier boot; leave this boot alone
            return "ERR", (("code", P.ERR_REBOOTED), ("boot", self.boot_id))
        return self._stop_job(job_id, now)

    def _stop_job(self, job_id, now):
        job, last = self.job, self.last_host_job
        if job is not None and job.id == job_id:
            self._finish(job, P.REASON_STOPPED, None)
            return "OK", _job_fields(job, 0)
        if last is not None and last.id == job_id:
            return "OK", _job_fields(last, 1)
        if job_id < 1 or job_id > P.MAX_JOB_ID:
            return "ERR", (("code", P.ERR_BAD_ARG), ("field", "job"))
        if last is not None and P.job_is_stale(job_id, last.id):
            return "ERR", (("code", P.ERR_STALE), ("job", last.id))
        if job is not None and job.is_host_job():
            return "ERR", (("code", P.ERR_BUSY), ("job", job.id))
        fence = Job(job_id, FEED, {}, now)  # never started here: it ends now with 0 cards
        fence.state, fence.end = P.JOB_DONE, P.REASON_STOPPED
        self.last_host_job = fence
        return "OK", _job_fields(fence, 0)

    def _cmd_selftest(self, fields, now):
        """Pin states and the beam's own check, for a bring-up test (``launcher test``)."""
        raw = bool(self.hal.beam_blocked())
        beam_filter = self.beam_filter
        return "SELFTEST", (
            ("beam", "blocked" if self.blocked else "clear"),
            ("raw", "blocked" if raw else "clear"),
            ("button", 1 if self.hal.button_pressed() else 0),
            ("motor", self.job.duty if self.job is not None and not self.job.waiting else 0),
            ("wdt", 1 if self.hal.watchdog_armed() else 0),
            ("glitches", beam_filter.glitches if beam_filter is not None else 0),
            ("host", 1 if self.host_link else 0),
            ("refused", self.refused_presses),
        )

    def _cmd_clear(self, fields, now):
        self.fault = P.FAULT_NONE
        return "OK", ()

    def _cmd_profile(self, fields, now):
        if self.job is not None:  # the profile of the press being shot must not change under it
            return "ERR", (("code", P.ERR_BUSY), ("job", self.job.id))
        try:
            profile = profile_from_fields(fields)
        except P.FieldError as error:
            return "ERR", (("code", P.ERR_BAD_ARG), ("field", error.field))
        self.profile = profile
        self._pattern_position = 0
        self.hal.save_profile(profile_text(profile))
        return "OK", ()

    # -- jobs ---------------------------------------------------------------------------
    def _start(self, job_id, mode, params, now):
        job = Job(job_id, mode, params, now)
        self.job = job
        self.job_starts += 1
        if job.is_host_job():
            self.last_host_job = job
        self.next_beat = self.hal.ticks_add(now, P.BEAT_MS)
        self.hal.arm_watchdog()  # armed before the motor can turn, never one loop pass later
        if self.blocked:  # never push a card in behind one the beam still sees: wait
            job.waiting = True
        else:
            self.hal.set_motor(job.duty)
        return job

    def _finish(self, job, reason, fault):
        """End ``job``: motor off first, then record, latch and report."""
        self.hal.set_motor(0)
        self.job = None
        fields = (("job", job.id), ("counted", job.counted))
        if fault is None:
            job.state, job.end = P.JOB_DONE, reason
            self._emit("DONE", fields + (("reason", reason), ("total", self.total)))
        else:
            job.state, job.end = P.STATE_FAULT, fault
            self.fault = fault
            if fault == P.FAULT_HOST_SILENT:  # the host is gone: the button is the toy's again
                self.host_link = False
            self._emit("FAULT", (("code", fault),) + fields + (("total", self.total),))

    def on_beam(self, blocked, now):
        """A beam edge at ``now``. A card is counted when the beam becomes blocked."""
        blocked = bool(blocked)
        if blocked == self.blocked:
            return
        self._tick_job(now)
        self.blocked = blocked
        self.blocked_since = now
        job = self.job
        if job is None:
            return
        if not blocked:
            job.progress = now
            if job.waiting:  # the mouth is clear: only now may the roller feed a card
                job.waiting = False
                self.hal.set_motor(job.duty)
            return
        job.counted += 1
        self.total += 1
        final = job.mode == FEED and job.counted >= job.want
        if final:  # motor off BEFORE any write: a USB write blocks while the host does not read
            self.hal.set_motor(0)
        self._emit("CARD", (("job", job.id), ("counted", job.counted), ("total", self.total)))
        if final:
            self._finish(job, P.REASON_COUNT, None)

    def tick(self, now):
        """Run the timers up to ``now``: safety checks first, then the heartbeat, the button."""
        self._tick_job(now)
        self._tick_button(now)

    def _tick_job(self, now):
        job = self.job
        if job is None:
            return
        problem = self._check(job, now)
        if problem is not None:
            reason, fault = problem
            self._finish(job, reason, fault)
            return
        if self.hal.ticks_diff(now, self.next_beat) >= 0:
            self.next_beat = self.hal.ticks_add(now, P.BEAT_MS)
            fields = (("state", P.STATE_RUNNING), ("job", job.id), ("counted", job.counted))
            self._emit("BEAT", fields + (("total", self.total),))

    def _check(self, job, now):
        """(reason, fault) if the job must end now, else None. Faults win over a normal end."""
        diff = self.hal.ticks_diff
        if self.blocked and diff(now, self.blocked_since) >= job.block_ms:
            return None, P.FAULT_BEAM_BLOCKED
        if job.is_host_job() and diff(now, self.last_rx) >= P.HOST_SILENCE_MS:
            return None, P.FAULT_HOST_SILENT
        elapsed = diff(now, job.started)
        if job.mode == RUN:
            return (P.REASON_TIME, None) if elapsed >= job.ms else None
        if elapsed >= job.max_ms:
            return None, P.FAULT_MAX_TIME
        if not self.blocked and diff(now, job.progress) >= job.jam_ms:
            if job.counted == 0:  # not one card: an empty hopper, not a stuck card
                return P.REASON_EMPTY, None
            return None, P.FAULT_JAM
        return None

    def stop_deadline(self):
        """When the running job's motor must be off whatever the beam does (None: no job).

        The host-silence bound of a host job and the job's time bound (``max_ms``, or a
        RUN's ``ms``): the two that need no beam edge to be known. The Pico's hardware timer
        enforces it even while the main loop sits in a write (``hal_rp2``).
        """
        job = self.job
        if job is None:
            return None
        add = self.hal.ticks_add
        bound = add(job.started, job.ms if job.mode == RUN else job.max_ms)
        if job.is_host_job():
            silence = add(self.last_rx, P.HOST_SILENCE_MS)
            if self.hal.ticks_diff(silence, bound) < 0:
                return silence
        return bound

    def next_deadline(self):
        """The earliest ``now`` at which :meth:`tick` may act, or None when idle.

        Expressed in the HAL's ticks; used by the emulator (whose ticks never wrap) to step
        exactly to it. The Pico's main loop simply ticks every millisecond.
        """
        times = self._button_deadlines()
        job = self.job
        if job is None:
            return min(times) if times else None
        times.append(self.next_beat)
        if self.blocked:
            times.append(self.blocked_since + job.block_ms)
        if job.is_host_job():
            times.append(self.last_rx + P.HOST_SILENCE_MS)
        if job.mode == RUN:
            times.append(job.started + job.ms)
        else:
            times.append(job.started + job.max_ms)
            if not self.blocked:
                times.append(job.progress + job.jam_ms)
        return min(times)

    # -- standalone mode ------------------------------------------------------------------
    def on_button(self, pressed, now):
        """A raw level change of the Pico's button at ``now`` (True = pressed).

        Only levels that hold count (:data:`BUTTON_DEBOUNCE_MS`, :meth:`tick` decides): a
        press after 20 ms low, the next one only after 20 ms high, so a bouncing release
        or a spike never fires a second volley.
        """
        pressed = bool(pressed)
        self._tick_button(now)  # what the old level did up to this instant
        if pressed == self.button_down:
            return
        self.button_down = pressed
        self.button_since = now
        if pressed:
            self.button_long_done = False

    def _tick_button(self, now):
        held = self.hal.ticks_diff(now, self.button_since)
        if not self.button_down:
            if not self.button_armed and held >= BUTTON_DEBOUNCE_MS:
                self.button_armed = True
            return
        if self.button_armed and held >= BUTTON_DEBOUNCE_MS:
            self.button_armed = False
            self._press(self.hal.ticks_add(self.button_since, BUTTON_DEBOUNCE_MS))
        if not self.button_long_done and held >= LONG_PRESS_MS:
            self.button_long_done = True
            self._long_press()

    def _button_deadlines(self):
        since = self.button_since
        if not self.button_down:
            return [] if self.button_armed else [since + BUTTON_DEBOUNCE_MS]
        times = []
        if self.button_armed:
            times.append(since + BUTTON_DEBOUNCE_MS)
        if not self.button_long_done:
            times.append(since + LONG_PRESS_MS)
        return times

    def _press(self, now):
        """A debounced press: draw a count from the stored profile and shoot it as job 0."""
        if self.job is not None or self.fault != P.FAULT_NONE:
            return
        if self.host_link:  # a host game owns the launcher: its hopper model must stay true
            self.refused_presses += 1
            return
        self.presses += 1
        want = self._draw()
        self._emit("PRESS", (("press", self.presses), ("want", want), ("total", self.total)))
        if want > 0:
            params = {}
            for key in ("max_ms", "jam_ms", "block_ms", "duty"):
                params[key] = P.LIMITS[key][2]
            params["n"] = want
            self._start(0, FEED, params, now)

    def _long_press(self):
        """Held 2 s: clear a latched fault when the mouth is clear; take the button back."""
        self.host_link = False
        if self.fault != P.FAULT_NONE and self.job is None and not self.blocked:
            self.fault = P.FAULT_NONE

    def indicator(self, now):
        """``(led_on, buzzer_on)`` at ``now``: what the on-board LED and the buzzer show."""
        if self.fault != P.FAULT_NONE:
            phase = now % 1000
            return (phase % (2 * LED_FAULT_HALF_MS)) < LED_FAULT_HALF_MS, phase < BUZZER_FAULT_MS
        if self.job is not None:
            return (now % (2 * LED_FIRING_HALF_MS)) < LED_FIRING_HALF_MS, False
        if self.host_link:
            return (now % 1000) >= LED_HOST_BLIP_MS, False
        return True, False

    def _draw(self):
        profile = self.profile
        if profile["kind"] == "pattern":
            self._pattern_position = self._pattern_position % profile["cycle"] + 1
            if not (profile["fires"] >> (self._pattern_position - 1)) & 1:
                return 0
        return _categorical(profile["p"], self._next_random() % 1000)

    def _next_random(self):
        """xorshift32: tiny, deterministic from the boot seed, the same on both interpreters."""
        x = self._rng
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        self._rng = x
        return x


_HANDLERS = {
    "HELLO": Firmware._cmd_hello,
    "PING": Firmware._cmd_ping,
    "STATUS": Firmware._cmd_status,
    "FEED": Firmware._cmd_feed,
    "RUN": Firmware._cmd_run,
    "STOP": Firmware._cmd_stop,
    "CLEAR": Firmware._cmd_clear,
    "SELFTEST": Firmware._cmd_selftest,
    "PROFILE": Firmware._cmd_profile,
}


def _frame_body(line):
    """The text before ``*``: what identifies a retransmission of the same command."""
    line = bytes(line)
    return line[: line.rfind(b"*")]


def _job_fields(job, dup):
    """A job's identity and outcome, as OK replies carry it (dup=1: it was not run again)."""
    return (
        ("job", job.id),
        ("dup", dup),
        ("state", job.state),
        ("counted", job.counted),
        ("end", job.end),
    )


def _categorical(per_mille, draw):
    """Index k such that the per-mille cumulative distribution first exceeds ``draw`` (0..999)."""
    cumulative = 0
    for k in range(len(per_mille)):
        cumulative += per_mille[k]
        if draw < cumulative:
            return k
    return len(per_mille) - 1


# -- standalone profiles: PROFILE fields <-> a dict <-> the text stored on flash -------------
def profile_from_fields(fields):
    """Validate typed PROFILE fields; raises protocol.FieldError naming the bad field."""
    kind = fields.get("kind")
    p = tuple(fields.get("p") or ())
    if kind not in ("iid", "pattern"):
        raise P.FieldError("kind must be iid or pattern", "kind")
    if not p or len(p) > P.MAX_PROFILE_VALUES or sum(p) != 1000:
        raise P.FieldError("p must be 1..16 per-mille values summing to 1000", "p")
    profile = {"kind": kind, "p": p, "cycle": 1, "fires": 1}
    if kind == "pattern":
        cycle = fields.get("cycle")
        if cycle is None or cycle < 1 or cycle > P.MAX_PATTERN_CYCLE:
            raise P.FieldError("cycle must be 1..128", "cycle")
        try:
            fires = P.fires_from_mask(fields.get("fires") or "")
        except ValueError:
            raise P.FieldError("fires must be a hex bit mask", "fires") from None
        if not fires or max(fires) > cycle:
            raise P.FieldError("fires must name presses within the cycle", "fires")
        profile["cycle"] = cycle
        profile["fires"] = int(fields["fires"], 16)
    return profile


def profile_text(profile):
    """The profile as PROFILE field text (what ``profile.txt`` holds)."""
    text = "kind=%s p=%s" % (profile["kind"], ",".join([str(v) for v in profile["p"]]))
    if profile["kind"] == "pattern":
        text += " cycle=%d fires=%X" % (profile["cycle"], profile["fires"])
    return text


def parse_profile(text):
    """Parse stored profile text; raises ValueError if it is damaged."""
    raw = {}
    for part in text.split():
        eq = part.find("=")
        if eq < 1:
            raise ValueError("bad profile text")
        raw[part[:eq]] = part[eq + 1 :]
    return profile_from_fields(P.typed(P.COMMAND, "PROFILE", raw))
