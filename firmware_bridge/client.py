"""The host client of the launcher firmware: handshake, exactly-once commands, jobs, reconnects.

One :class:`FirmwareClient` owns one serial port (opened with ``exclusive=True``)
and keeps one command in flight (stop-and-wait). The rules that make a feed happen
exactly once, whatever the link drops, corrupts or repeats (``docs/protocol.md``):

* a retransmission carries the SAME sequence number, so the firmware answers it
  from its reply cache instead of executing again (a lost reply never double-feeds);
* every FEED/RUN carries a job id the client never re-uses, even after a failure, and
  the boot id of the handshake: a frame retransmitted across a restart is refused
  (``ERR rebooted``), never run by the new boot;
* a job cut off by a lost link is settled after the reconnect by ``STOP job= boot=``,
  which is idempotent: its final count is learned once, however often STOP is repeated;
* every session starts with HELLO, which always executes and makes the firmware
  forget its reply cache, so a stale sequence number is never taken for a repeat;
* events are never retransmitted: their counter reveals a gap, and a STATUS query
  (cumulative ``counted=``/``total=``) repairs it (a lost DONE costs one query);
* a boot id that changes under a live session is a spontaneous restart: the job in
  progress is reported (LauncherFault ``restart``, with ``error.unknown`` = the most
  cards it can have shot uncounted) and never replayed.

An unplug surfaces as :class:`LinkLost`; the next call reopens the port (with
backoff, until ``connect_timeout``) and repeats the handshake, so a launcher
that was replugged simply works again. A latched fault is never cleared here
unless :meth:`clear_fault` is called: the motor never restarts by itself.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, NoReturn

from firmware_bridge import protocol
from firmware_bridge.errors import LinkLost, PortNotFound, ProtocolError
from firmware_bridge.link import Frame, FrameLink, encode_command, open_port
from firmware_bridge.session import (
    EventCounter,
    JobResult,
    JobWatch,
    RetryPolicy,
    Unsettled,
    annotate,
    fault_error,
    restart_error,
    unknown_bound,
)
from hardware.errors import LauncherError, LauncherFault, LauncherUnavailable

#: Reply verb expected for each command verb (anything else is a stale or foreign reply).
REPLY_VERB = {"HELLO": "HELLO", "PING": "PONG", "STATUS": "STATUS", "SELFTEST": "SELFTEST"}
PortOpener = Callable[[str, int], Any]


@dataclass(frozen=True)
class Hello:
    """The firmware's identity from the handshake (the HELLO reply or a BOOT event)."""

    proto: int
    firmware: str
    boot: str
    reset: str
    state: str
    fault: str

    @classmethod
    def from_frame(cls, frame: Frame) -> Hello:
        return cls(
            proto=frame.integer("proto", -1),
            firmware=frame.text("fw", "?"),
            boot=frame.text("boot", "?"),
            reset=frame.text("reset", "unknown"),
            state=frame.text("state", "idle"),
            fault=frame.text("fault", "none"),
        )


@dataclass(frozen=True)
class Status:
    """A STATUS reply: what the firmware is doing and its cumulative counters."""

    state: str
    job: int
    want: int
    counted: int
    total: int
    event: int
    fault: str
    motor: bool

    @classmethod
    def from_frame(cls, frame: Frame) -> Status:
        return cls(
            state=frame.text("state", "idle"),
            job=frame.integer("job"),
            want=frame.integer("want"),
            counted=frame.integer("counted"),
            total=frame.integer("total"),
            event=frame.integer("ev"),
            fault=frame.text("fault", "none"),
            motor=frame.integer("motor") == 1,
        )


@dataclass(frozen=True)
class PinReport:
    """A SELFTEST reply: the pins as the firmware reads them, and its input counters."""

    beam_blocked: bool  # the filtered beam (what the firmware counts on)
    raw_blocked: bool  # the pin right now
    button_pressed: bool
    motor_duty: int
    watchdog_armed: bool
    glitches: int  # beam changes shorter than the glitch filter since boot
    host_link: bool  # standalone presses are refused while a host holds the link
    refused_presses: int

    @classmethod
    def from_frame(cls, frame: Frame) -> PinReport:
        return cls(
            beam_blocked=frame.text("beam") == "blocked",
            raw_blocked=frame.text("raw") == "blocked",
            button_pressed=frame.integer("button") == 1,
            motor_duty=frame.integer("motor"),
            watchdog_armed=frame.integer("wdt") == 1,
            glitches=frame.integer("glitches"),
            host_link=frame.integer("host") == 1,
            refused_presses=frame.integer("refused"),
        )


@dataclass(frozen=True)
class Timing:
    """The client's time constants (seconds); the emulator's fast tests shrink them."""

    retry: RetryPolicy = RetryPolicy()
    #: Longest gap between two command frames while a job runs (the firmware faults at 0.5 s).
    keepalive: float = 0.15
    #: With no event for this long during a job, ask STATUS instead of PING (a lost DONE).
    quiet: float = 0.3
    #: How long to keep trying to open the port and shake hands before giving up.
    connect_timeout: float = 3.0
    #: Slack added to a job's own maximum run time before the host gives up on it.
    job_slack: float = 2.0


class FirmwareClient:
    """Talks to one launcher firmware over one serial port; see the module docstring."""

    def __init__(
        self,
        path: str,
        *,
        baud: int = 115200,
        timing: Timing | None = None,
        opener: PortOpener | None = None,
        relocate: Callable[[], str] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """``relocate`` names the port again before each reopen (an emulator's new pty)."""
        self.path = path
        self.baud = baud
        self.timing = timing or Timing()
        self.hello: Hello | None = None
        self.restarts = 0
        self.reconnects = 0
        #: Jobs that failed with LinkLost, with the final count learned after reconnecting.
        self.late: list[JobResult] = []
        self._interrupted: Unsettled | None = None
        self._open = opener or (lambda p, b: open_port(p, baud=b))
        self._relocate = relocate
        self._clock = clock
        self._link: FrameLink | None = None
        self._lock = threading.RLock()
        self._seq = 0
        self._next_job = 1
        self._events = EventCounter()
        self._total: int | None = None
        self._resync = False
        self._closed = False
        self._wake = threading.Event()

    # -- connection ------------------------------------------------------------------
    def connect(self) -> Hello:
        """Open the port and shake hands, retrying with backoff until ``connect_timeout``."""
        with self._lock:
            self._check_open()
            return self._connect()

    def _connect(self) -> Hello:
        deadline = self._clock() + self.timing.connect_timeout
        delay = 0.05
        while True:
            try:
                return self._try_connect()
            except (LinkLost, LauncherUnavailable) as error:
                if self._link is not None and self._link.is_lost:
                    self._drop_link()  # reopen; a port that opened but is silent stays open
                if self._clock() + delay > deadline or self._closed:
                    self._drop_link()
                    raise self._connect_error(error) from None
            if self._link is None:
                self._wake.wait(delay)  # the port is absent or busy: back off before reopening
                delay = min(delay * 2, 0.8)

    def _connect_error(self, error: LauncherError) -> LauncherError:
        if isinstance(error, LauncherUnavailable):
            return error
        return LinkLost(
            f"{self.path}: no handshake from the launcher firmware within "
            f"{self.timing.connect_timeout:g} s ({error})",
            hint="is our firmware on the board? `uno-attack firmware install --port PORT`",
        )

    def _try_connect(self) -> Hello:
        if self._link is None:
            if self._relocate is not None:
                self.path = self._relocate()
            self._link = FrameLink(self._open(self.path, self.baud), name=self.path)
        frame = self._command("HELLO")  # also makes the firmware forget its cache
        hello = Hello.from_frame(frame)
        if hello.proto != protocol.PROTOCOL_VERSION:
            self._drop_link()
            raise ProtocolError(
                f"{self.path}: the firmware speaks protocol {hello.proto}, "
                f"this host speaks {protocol.PROTOCOL_VERSION} (firmware {hello.firmware})"
            )
        if self._interrupted is not None and self._is_new_boot(frame):
            self._sync_status()
            self._restart(frame, job=None, counted=0)  # the interrupted job's end is gone
        self._adopt(hello)
        self._settle_interrupted(self._sync_status())
        self._resync = False
        return hello

    def _adopt(self, hello: Hello) -> None:
        """Take the firmware's identity; a new boot id after a link loss is just counted."""
        if self.hello is not None and hello.boot != self.hello.boot:
            self.restarts += 1
        self.hello = hello

    def _sync_status(self) -> Status:
        return self._adopt_status(self._command("STATUS"))

    def _adopt_status(self, frame: Frame) -> Status:
        status = Status.from_frame(frame)
        self._events = EventCounter(status.event)
        self._total = status.total
        if status.job >= self._next_job:
            self._next_job = status.job % protocol.MAX_JOB_ID + 1
        return status

    def _ensure_ready(self) -> FrameLink:
        """Reconnect after an unplug, re-shake hands after a lost command; report restarts."""
        self._check_open()
        if self._link is None or self._link.is_lost:
            if self._link is not None:
                self.reconnects += 1
            self._drop_link()
            self._connect()
        elif self._resync:
            self._resync_session()
        assert self._link is not None
        self._absorb_idle_events(self._link)
        return self._link

    def _resync_session(self) -> None:
        """After a lost command or a restart: who is the firmware now, is a job running?"""
        frame = self._command("HELLO")
        status = self._sync_status()
        if self._is_new_boot(frame):
            self._restart(frame, job=None, counted=0)  # reports an interrupted job, if any
        self._settle_interrupted(status)
        self._resync = False

    def _settle_interrupted(self, status: Status) -> None:
        """Back in touch (same boot) after a job failed with LinkLost: end it, learn its count.

        The caller was told the job failed, so it must not go on: ``STOP job= boot=``
        ends it, or fences it off if its FEED never arrived, and answers its final count.
        That STOP is idempotent, so the job is forgotten only once the count is known
        (a STOP lost again is simply repeated at the next reconnect). Cards it counted
        after the error go to :attr:`late` for the launcher's accounting.
        """
        pending = self._interrupted
        orphan = status.job != 0 and (pending is None or status.job != pending.job)
        if status.state == protocol.STATE_RUNNING and orphan:
            self._stop_job(status.job)  # a job of ours that nobody waits for any more
        if pending is None:
            return
        try:
            reply = self._stop_job(pending.job)
        except _Rebooted:
            raise  # a restart right now: the next call reports the job with its bound
        except ProtocolError:  # stale/busy: another program drove the board meanwhile
            self._interrupted = None
            raise
        final = max(pending.counted, reply.integer("counted", pending.counted))
        self._interrupted = None
        self.late.append(JobResult(pending.job, final, "interrupted", status.total))

    def _stop_job(self, job: int) -> Frame:
        """``STOP job= boot=``: end that job if it runs; its final count either way."""
        boot = self.hello.boot if self.hello is not None else "0"
        return self._command("STOP", [("job", job), ("boot", boot)])

    def take_late(self) -> list[JobResult]:
        """Final counts of jobs that failed with LinkLost, learned on reconnecting (once each)."""
        late, self.late = self.late, []
        return late

    def _absorb_idle_events(self, link: FrameLink) -> None:
        """Events that arrived between operations: restarts while idle.

        No standalone PRESS can arrive here: the firmware refuses the Pico's own button
        while a host holds the link (docs/firmware.md, "A press during a host game").
        """
        for frame in link.drain_events():
            if frame.verb == "BOOT" and self._is_new_boot(frame):
                self._restart(frame, job=None, counted=0)
            self._events.observe(frame.seq)

    def _is_new_boot(self, frame: Frame) -> bool:
        return self.hello is not None and frame.text("boot") != self.hello.boot

    def _restart(
        self, frame: Frame, *, job: int | None, counted: int, unknown: int | None = 0
    ) -> NoReturn:
        """Adopt the new boot id, re-sync at the next call, and report the restart.

        A job interrupted earlier (LinkLost) whose final count was still unknown is
        reported here: its count died with the old boot, so it is ``unknown``, bounded.
        """
        old = self.hello.boot if self.hello is not None else "?"
        self.hello = Hello.from_frame(frame)
        self._events = EventCounter(frame.seq if frame.verb == "BOOT" else None)
        self._total = None
        self.restarts += 1
        self._resync = True
        pending, self._interrupted = self._interrupted, None
        if job is None and pending is not None:
            job, unknown = pending.job, pending.unknown
        raise restart_error(self.path, old, frame, job=job, counted=counted, unknown=unknown)

    def _drop_link(self) -> None:
        if self._link is not None:
            self._link.close()
            self._link = None

    @property
    def connected(self) -> bool:
        return self._link is not None and not self._link.is_lost

    def wait_for_disconnect(self, timeout: float | None = None) -> bool:
        """Block until the launcher is unplugged (e.g. to show it in a UI); True if it was."""
        link = self._link
        return link is None or link.wait_lost(1e9 if timeout is None else timeout)

    def close(self) -> None:
        """Stop the motor if the link still works, then release the port. Idempotent.

        A bare STOP: it stops whatever runs, even a job this client does not know of.
        """
        with self._lock:
            if self._closed:
                return
            try:
                if self.connected:
                    self._command("STOP")
            except LauncherError:
                pass
            finally:
                self._closed = True
                self._wake.set()
                self._drop_link()

    def __enter__(self) -> FirmwareClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _check_open(self) -> None:
        if self._closed:
            raise LauncherError(f"{self.path}: the firmware client is closed")

    # -- stop-and-wait -----------------------------------------------------------------
    def _command(self, verb: str, fields: Sequence[tuple[str, object]] = ()) -> Frame:
        """Send one command and return its reply; same seq on every retransmission."""
        link = self._link
        if link is None:
            raise LinkLost(f"{self.path}: not connected")
        self._seq = (self._seq + 1) % 256
        frame = encode_command(self._seq, verb, fields)
        for attempt, timeout in enumerate(self.timing.retry):
            link.send(frame, forget_replies=attempt == 0)
            reply = link.wait_reply(self._seq, timeout)
            if reply is not None:
                return self._check_reply(verb, reply)
        self._resync = True
        raise LinkLost(
            f"{self.path}: no reply to {verb} after {self.timing.retry.tries} tries "
            f"({self.timing.retry.total:g} s)"
        )

    def _check_reply(self, verb: str, reply: Frame) -> Frame:
        expected = REPLY_VERB.get(verb)
        if reply.verb == "ERR" and reply.text("code") == protocol.ERR_REBOOTED:
            self._resync = True
            raise _Rebooted(f"{self.path}: {verb} was addressed to an earlier boot")
        if reply.verb == "ERR":
            raise self._err_error(verb, reply)
        if expected is not None and reply.verb != expected:
            self._resync = True
            raise ProtocolError(f"{self.path}: {verb} was answered with {reply.verb}")
        return reply

    def _err_error(self, verb: str, reply: Frame) -> LauncherError:
        code = reply.text("code", "?")
        if code == "fault":
            return fault_error(reply.text("fault", "fault"), where=self.path)
        if code == "busy":
            return LauncherError(
                f"{self.path}: {verb} refused, the launcher is busy with another job",
                hint="wait for the running job (or a standalone button press) to finish",
            )
        if code == protocol.ERR_STALE:
            self._resync = True
            return ProtocolError(
                f"{self.path}: {verb} refused as stale: the launcher already ran "
                f"job {reply.text('job', '?')}",
                hint="another program may be driving this launcher; close it and retry",
            )
        details = " ".join(f"{k}={v}" for k, v in reply.fields.items())
        return ProtocolError(f"{self.path}: {verb} refused by the firmware ({details})")

    # -- public commands ---------------------------------------------------------------
    def command(self, verb: str, fields: Sequence[tuple[str, object]] = ()) -> Frame:
        """Send any command (reconnecting first if needed) and return its reply frame."""
        with self._lock:
            link = self._ensure_ready()
            reply = self._command(verb, fields)
            self._absorb_idle_events(link)  # events sent before the reply are queued by now
            return reply

    def ping(self) -> None:
        self.command("PING")

    def status(self) -> Status:
        with self._lock:
            link = self._ensure_ready()
            frame = self._command("STATUS")
            self._absorb_idle_events(link)
            return self._adopt_status(frame)

    def selftest(self) -> PinReport:
        """The firmware's pin states and beam counters (SELFTEST; firmware 0.2.0 and later).

        An older firmware answers ``ERR code=unknown``: a ProtocolError.
        """
        return PinReport.from_frame(self.command("SELFTEST"))

    def stop(self) -> None:
        """Motor off at once (always executes on the firmware)."""
        self.command("STOP")

    def clear_fault(self) -> None:
        """Clear a latched fault after a person fixed the launcher."""
        self.command("CLEAR")

    def push_profile(self, fields: Sequence[tuple[str, object]]) -> None:
        """Store the standalone-mode profile on the device (PROFILE verb)."""
        self.command("PROFILE", fields)

    # -- jobs --------------------------------------------------------------------------
    def feed(self, n: int, *, max_ms: int, jam_ms: int, block_ms: int, duty: int) -> JobResult:
        """Closed loop: shoot ``n`` cards; returns what the firmware counted."""
        fields = [
            ("n", n),
            ("max_ms", max_ms),
            ("jam_ms", jam_ms),
            ("block_ms", block_ms),
            ("duty", duty),
        ]
        return self._job("FEED", n, fields, max_ms)

    def run(self, ms: int, *, duty: int) -> JobResult:
        """Open loop: run the motor ``ms`` milliseconds; returns the cards a beam counted."""
        return self._job("RUN", 0, [("ms", ms), ("duty", duty)], ms)

    def _job(
        self, verb: str, want: int, fields: Sequence[tuple[str, object]], max_ms: int
    ) -> JobResult:
        with self._lock:
            link = self._ensure_ready()
            job = self._next_job  # never re-used, even if this job fails
            self._next_job = job % protocol.MAX_JOB_ID + 1
            watch = JobWatch(job, want)
            assert self.hello is not None
            boot = self.hello.boot
            try:
                started = self._command(verb, [("job", job), *fields, ("boot", boot)]).at
                result = self._follow(link, watch, max_ms / 1000 + self.timing.job_slack)
                return replace(result, elapsed_ms=max(0.0, watch.ended_at - started) * 1000)
            except LinkLost as error:
                self._interrupted = Unsettled(job, want, watch.counted, boot)
                raise self._job_lost(watch, error) from None
            except _Rebooted:
                # An earlier copy may have reached the old boot and run there; this one never
                # runs. Whatever the old boot shot of it is unknown, up to the whole job.
                # (Kept as unsettled first, so a link lost right now still reports it later.)
                self._interrupted = Unsettled(job, want, watch.counted, boot)
                self._restart(
                    self._command("HELLO"),
                    job=job,
                    counted=watch.counted,
                    unknown=unknown_bound(want, watch.counted),
                )

    def _job_lost(self, watch: JobWatch, error: LinkLost) -> LinkLost:
        lost = LinkLost(
            f"{error} during job {watch.job} ({watch.counted} card(s) counted so far); the "
            "firmware stops the motor by itself when the host goes quiet, and the job will NOT "
            "be replayed",
            hint=error.hint,
        )
        return annotate(lost, job=watch.job, counted=watch.counted)

    def _follow(self, link: FrameLink, watch: JobWatch, limit: float) -> JobResult:
        """Keep the link alive and fold events into ``watch`` until the job is over."""
        start = last_command = last_event = self._clock()
        need_status = False
        while True:
            now = self._clock()
            if now - start > limit:
                watch.counted = max(watch.counted, self._stop_job(watch.job).integer("counted"))
                overdue = LauncherFault(
                    f"{self.path}: job {watch.job} ran past {limit:g} s; stopped", fault="timeout"
                )
                raise annotate(overdue, job=watch.job, counted=watch.counted)
            frame = link.next_event(max(0.0, self.timing.keepalive - (now - last_command)))
            if frame is not None:
                last_event = self._clock()
                need_status |= self._job_event(frame, watch)
            if watch.finished:
                break
            now = self._clock()
            quiet = now - last_event >= self.timing.quiet
            if need_status or quiet or now - last_command >= self.timing.keepalive:
                if need_status or quiet:
                    self._job_status(watch)
                    need_status, last_event = False, self._clock()
                else:
                    self._command("PING")
                last_command = self._clock()
        return self._outcome(watch)

    def _job_event(self, frame: Frame, watch: JobWatch) -> bool:
        """Fold one event in; True when a STATUS must repair a gap."""
        if frame.verb == "BOOT" and self._is_new_boot(frame):  # BOOT restarts the counter at 0
            self._restart_during(frame, watch)
        kind = self._events.observe(frame.seq)
        if kind == EventCounter.STALE:
            return False
        watch.on_event(frame)
        self._note_total(frame)
        return kind == EventCounter.GAP

    def _job_status(self, watch: JobWatch) -> None:
        frame = self._command("STATUS")
        status = Status.from_frame(frame)
        if self._total is not None and status.total < self._total:
            self._check_restart(watch)
        self._events.resync(status.event)
        watch.on_status(frame)
        self._note_total(frame)
        if watch.foreign:
            self._check_restart(watch)
            raise ProtocolError(
                f"{self.path}: the firmware runs job {status.job}, "
                f"the host waits for job {watch.job}"
            )

    def _check_restart(self, watch: JobWatch) -> None:
        """Counters went backwards or the job vanished: a restart whose BOOT event was lost?"""
        frame = self._command("HELLO")
        if self._is_new_boot(frame):
            self._restart_during(frame, watch)

    def _restart_during(self, frame: Frame, watch: JobWatch) -> NoReturn:
        unknown = unknown_bound(watch.want, watch.counted)
        self._restart(frame, job=watch.job, counted=watch.counted, unknown=unknown)

    def _note_total(self, frame: Frame) -> None:
        if "total" in frame.fields:
            self._total = frame.integer("total")

    def _outcome(self, watch: JobWatch) -> JobResult:
        if watch.fault is not None:
            raise fault_error(watch.fault, where=self.path, job=watch.job, counted=watch.counted)
        assert watch.result is not None
        return watch.result


class _Rebooted(ProtocolError):
    """ERR rebooted: a command addressed to an earlier boot (handled inside the client)."""


__all__ = [
    "FirmwareClient",
    "Hello",
    "JobResult",
    "PortNotFound",
    "RetryPolicy",
    "Status",
    "Timing",
]
