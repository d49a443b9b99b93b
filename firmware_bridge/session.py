"""Pure decision logic of the host client: retransmit schedule, event gaps, job outcome.

Nothing here touches a port or a clock, so every rule that keeps execution
exactly-once is tested on its own (``tests/test_client.py``, with hypothesis):

* :class:`RetryPolicy` -- how long to wait for each (re)transmission of one
  command before the link is declared lost (``protocol.RETRY_MS``: 100/200/400 ms).
* :class:`EventCounter` -- events carry an 8-bit counter; a duplicate or a late
  copy is ignored, a jump forward is a gap that a STATUS query must repair.
* :class:`JobWatch` -- folds the events and STATUS replies of one FEED/RUN job
  into its outcome (done with a count, or a fault), using only the cumulative
  fields (``counted=``, ``total=``) so a lost or repeated event cannot change it.
* :func:`fault_error` -- the error from the hierarchy for a firmware fault code.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TypeVar

from firmware_bridge import protocol
from firmware_bridge.link import Frame
from hardware.errors import LauncherError, LauncherFault, LauncherJam

#: Fault codes that mean a card is physically stuck (they raise LauncherJam).
JAM_FAULTS = frozenset({protocol.FAULT_JAM, protocol.FAULT_BEAM_BLOCKED})
#: The fault code the host reports when the firmware restarted under it.
RESTART_FAULT = "restart"
#: The fault code of a press that found the hopper empty (a FEED ended ``reason=empty``).
EMPTY_FAULT = "empty"


@dataclass(frozen=True)
class RetryPolicy:
    """Stop-and-wait timeouts: wait ``timeouts[i]`` seconds after the i-th transmission."""

    timeouts: tuple[float, ...] = tuple(ms / 1000 for ms in protocol.RETRY_MS)

    def __post_init__(self) -> None:
        if not self.timeouts or any(t <= 0 for t in self.timeouts):
            raise ValueError(f"retry timeouts must be positive, got {self.timeouts!r}")

    @classmethod
    def doubling(cls, first: float, tries: int) -> RetryPolicy:
        """``first``, 2x, 4x ... for ``tries`` transmissions in all."""
        if tries < 1:
            raise ValueError(f"tries must be at least 1, got {tries}")
        return cls(tuple(first * 2**i for i in range(tries)))

    def __iter__(self) -> Iterator[float]:
        return iter(self.timeouts)

    @property
    def tries(self) -> int:
        return len(self.timeouts)

    @property
    def total(self) -> float:
        """The longest a command can take before the link is declared lost."""
        return sum(self.timeouts)


class EventCounter:
    """Classifies each event's 8-bit counter as new, stale (a duplicate) or after a gap.

    A counter up to 127 steps behind the last one seen is stale (a duplicated or
    delayed frame); anything else that is not the next value means events were
    lost in between. :meth:`resync` adopts the counter a STATUS reply reports. With
    8 bits, 128 or more events lost in a row look stale; a job never relies on that
    alone, since a quiet link makes the client ask STATUS anyway.
    """

    NEW = "new"
    STALE = "stale"
    GAP = "gap"

    def __init__(self, last: int | None = None) -> None:
        self.last = last

    def observe(self, counter: int) -> str:
        if self.last is None:
            self.last = counter
            return self.NEW
        step = (counter - self.last) % 256
        if step == 0 or step >= 128:
            return self.STALE
        self.last = counter
        return self.NEW if step == 1 else self.GAP

    def resync(self, counter: int) -> None:
        """Events up to ``counter`` are accounted for (a STATUS reply said so)."""
        if self.last is None or (counter - self.last) % 256 < 128:
            self.last = counter


@dataclass(frozen=True)
class JobResult:
    """How one job ended: cards counted, why, the cumulative total, host-timed duration."""

    job: int
    counted: int
    reason: str
    total: int
    #: From the firmware's OK to its DONE, both as received (the motor time, give or take
    #: the link's jitter; an upper bound when a STATUS had to repair a lost DONE).
    elapsed_ms: float = 0.0


class JobWatch:
    """The host's view of one running job, built only from cumulative fields.

    Feed it every event (:meth:`on_event`) and every STATUS reply
    (:meth:`on_status`); :attr:`result` is set once the job is over, :attr:`fault`
    once the firmware reported a fault for it, :attr:`foreign` if a STATUS shows a
    different job (the firmware restarted or someone else is driving it).
    """

    def __init__(self, job: int, want: int) -> None:
        self.job = job
        self.want = want
        self.counted = 0
        self.total: int | None = None
        self.result: JobResult | None = None
        self.fault: str | None = None
        self.foreign = False
        #: Arrival time of the frame that ended the job (see :attr:`Frame.at`).
        self.ended_at = 0.0

    @property
    def finished(self) -> bool:
        return self.result is not None or self.fault is not None or self.foreign

    def on_event(self, frame: Frame) -> None:
        if self.finished or frame.integer("job", -1) != self.job:
            return
        self._progress(frame)
        if frame.verb == "DONE":
            self._finish(frame.text("reason", "count"))
        elif frame.verb == "FAULT":
            self.fault = frame.text("code", "fault")
        self.ended_at = frame.at

    def on_status(self, frame: Frame) -> None:
        if self.finished:
            return
        if frame.integer("job", -1) != self.job:
            self.foreign = True
            return
        self._progress(frame)
        self.ended_at = frame.at
        state = frame.text("state")
        if state == "fault":
            self.fault = frame.text("fault", "fault")
        elif state == "idle":  # its DONE was lost
            self._finish(_idle_reason(self.counted, self.want))

    def _progress(self, frame: Frame) -> None:
        self.counted = max(self.counted, frame.integer("counted", self.counted))
        if "total" in frame.fields:
            self.total = frame.integer("total")

    def _finish(self, reason: str) -> None:
        self.result = JobResult(self.job, self.counted, reason, self.total or 0)


def _idle_reason(counted: int, want: int) -> str:
    """Why a job the firmware reports idle ended: not one card of a FEED = an empty hopper."""
    if counted >= want:
        return protocol.REASON_COUNT
    return protocol.REASON_EMPTY if counted == 0 else "ended"


E = TypeVar("E", bound=LauncherError)


def annotate(error: E, *, job: int | None, counted: int) -> E:
    """Attach ``job`` and ``counted`` (cards out before the failure) for accounting."""
    error.job = job  # type: ignore[attr-defined]
    error.counted = counted
    return error


def fault_error(
    code: str, *, where: str, job: int | None = None, counted: int = 0
) -> LauncherFault:
    """The error for a firmware fault: LauncherJam for a stuck card, LauncherFault otherwise."""
    during = f" during job {job} ({counted} card(s) counted before it)" if job is not None else ""
    message = f"{where}: launcher fault {code}{during}; the motor is stopped"
    if code == protocol.FAULT_JAM:  # cards stopped coming: nothing is stuck in the mouth
        ran_out = LauncherJam(
            message + " because cards stopped coming",
            fault=code,
            hint="the hopper may have run out (load cards) or the roller slips; "
            "then clear the fault (`uno-attack launcher clear`)",
        )
        return annotate(ran_out, job=job, counted=counted)
    if code in JAM_FAULTS:
        return annotate(LauncherJam(message, fault=code), job=job, counted=counted)
    if code == protocol.FAULT_HOST_SILENT:
        error = LauncherFault(
            message + " because the host went quiet",
            fault=code,
            hint="check the USB cable and that nothing else uses the port, then clear the fault",
        )
        return annotate(error, job=job, counted=counted)
    return annotate(LauncherFault(message, fault=code), job=job, counted=counted)


@dataclass(frozen=True)
class Unsettled:
    """A job whose end the host did not see (the link was lost): what is known about it."""

    job: int
    #: Cards asked for (0 for an open-loop RUN) and cards the host saw counted.
    want: int
    counted: int
    #: The boot id the job was sent to: a different boot now means its final count is gone.
    boot: str

    @property
    def unknown(self) -> int | None:
        """The most cards that can have come out without the host learning of them."""
        return unknown_bound(self.want, self.counted)


def unknown_bound(want: int, counted: int) -> int | None:
    """Cards a job can still have shot uncounted: ``want - counted`` for FEED, None for RUN.

    A FEED stops at ``want`` counted cards, so a restart can hide at most the rest of
    them; an open-loop RUN has no count to stop at, so it has no bound.
    """
    return max(0, want - counted) if want > 0 else None


def empty_error(where: str, job: int, *, jam_ms: int | None = None) -> LauncherFault:
    """The error for a FEED that saw not one card: the hopper is empty (nothing is latched)."""
    within = f" within jam_ms={jam_ms}" if jam_ms is not None else ""
    error = LauncherFault(
        f"{where}: the hopper is empty: job {job} saw no card come out{within}; the motor is "
        "stopped and no fault is latched",
        fault=EMPTY_FAULT,
        hint="load cards into the hopper and press again (`uno-attack launcher fire --cards N`; "
        "if it is not empty, the roller does not reach the cards: see docs/serial.md)",
    )
    return annotate(error, job=job, counted=0)


def restart_error(
    where: str,
    old_boot: str,
    frame: Frame,
    *,
    job: int | None,
    counted: int,
    unknown: int | None = 0,
) -> LauncherFault:
    """The error for a firmware restart (a new boot id): LauncherFault ``restart``.

    ``counted`` are cards of this press the host saw; ``unknown`` is the most cards of job
    ``job`` that can have come out without being counted (None: no bound, an open-loop
    RUN). They are on the error as ``error.unknown`` -- never silently left out.
    """
    reset = frame.text("reset", "unknown")
    during = ""
    if job is not None:
        bound = "an unknown number of" if unknown is None else f"up to {unknown}"
        during = (
            f" during job {job} after {counted} card(s) counted; {bound} more card(s) may "
            "have come out uncounted; the job was NOT replayed"
        )
    error = LauncherFault(
        f"{where}: the launcher restarted (boot id {old_boot} -> {frame.text('boot', '?')}, "
        f"reset cause {reset}){during}; the motor is off",
        fault=RESTART_FAULT,
        hint="check the power supply and USB cable (brown-outs reset the board); count the "
        "cards by hand if the bound is not zero, then retry",
    )
    error.unknown = 0 if job is None else unknown  # type: ignore[attr-defined]
    return annotate(error, job=job, counted=counted)
