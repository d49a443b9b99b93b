"""The emulated Pico in exact lockstep with a mechanism model and scripted inputs (issue 29).

:class:`ExactRig` owns emulated time (``pico-sim.mjs`` ``x.*`` commands): it steps the board
to the next thing that happens -- a scripted input (a button press, a 20 us glitch), a
card reaching or leaving the beam -- drives the pin at that exact emulated nanosecond, and
reads the motor and LED edges the firmware produced. Nothing depends on the machine's
speed: a loaded host only makes the run take longer in wall time.
"""

from __future__ import annotations

import heapq
import itertools
import re
from dataclasses import dataclass, field

from firmware_bridge import protocol
from firmware_bridge.pico_board import PicoBoard, SerialTap
from hardware.mechanism import Mechanism, MechanismParams

MOTOR, DIRECTION, BEAM, BUTTON, LED = 16, 17, 15, 14, 25
MS = 1_000_000  # ns
US = 1_000
FRAME = re.compile(rb"([CRE])([0-9A-F]{2}) (\w+)([^*\r\n]*)\*")


@dataclass
class ExactRig:
    """A board held in exact lockstep, its mechanism, and a serial tap (no host unless sent)."""

    board: PicoBoard
    params: MechanismParams = field(
        default_factory=lambda: MechanismParams(cards_per_second=50.0, card_transit_ms=8.0)
    )
    cards: int = 0
    seed: int = 1

    def __post_init__(self) -> None:
        self.mechanism = Mechanism(self.params, seed=self.seed, cards=self.cards)
        self.tap = SerialTap(self.board.port)
        self.board.exact_input(BEAM, 1)
        self.board.exact_input(BUTTON, 1)
        self.t0 = self.board.exact_hold((MOTOR, LED))
        self.now = self.t0
        self.motor_on = False
        self.edges: list[tuple[float, int, bool]] = []  # (ms since t0, pin, on)
        self.beam_edges: list[tuple[float, bool]] = []  # (ms since t0, blocked) the model made
        self.rebooted = 0
        self._script: list[tuple[int, int, int, int]] = []  # (t ns, order, pin, level)
        self._order = itertools.count()
        self.mechanism.advance_to(self.now / 1e9)

    def close(self) -> None:
        self.tap.close()

    # -- scripting -------------------------------------------------------------------------
    def at(self, t_ms: float, pin: int, level: int) -> None:
        """Drive ``pin`` to ``level`` at ``t_ms`` after the rig started (exact)."""
        heapq.heappush(self._script, (self.t0 + round(t_ms * MS), next(self._order), pin, level))

    def low_pulse(self, pin: int, start_ms: float, width_us: float) -> None:
        """A low glitch (or a press) of ``width_us`` on a pin that idles high."""
        self.at(start_ms, pin, 0)
        self.at(start_ms + width_us / 1000.0, pin, 1)

    def press(self, start_ms: float, hold_ms: float, bounce_ms: tuple[float, ...] = ()) -> None:
        """A button press; ``bounce_ms`` are the chatter intervals after the release."""
        self.at(start_ms, BUTTON, 0)
        t = start_ms + hold_ms
        self.at(t, BUTTON, 1)
        for index, gap in enumerate(bounce_ms):
            t += gap
            self.at(t, BUTTON, index % 2)  # low, high, low, ... ending high

    def send(self, verb: str, fields: list[tuple[str, object]] | None = None, seq: int = 1) -> None:
        """A host command frame, delivered now (it takes the link: standalone presses stop)."""
        self.tap.send(protocol.encode("C", seq, verb, fields or []))

    # -- running ---------------------------------------------------------------------------
    @property
    def t_ms(self) -> float:
        return (self.now - self.t0) / MS

    def run_until(self, t_ms: float) -> None:
        """Step the board to ``t_ms`` after start, playing the script and the mechanism."""
        end = self.t0 + round(t_ms * MS)
        while self.now < end:
            target = min(end, self.now + (2 * MS if self.motor_on else 10 * MS))
            if self._script:
                target = min(target, self._script[0][0])
            transition = self.mechanism.next_transition_s()
            if transition is not None:
                target = min(target, max(self.now + US, round(transition * 1e9)))
            self._step(max(target, self.now + 1))

    def _step(self, target: int) -> None:
        step = self.board.exact_step(target - self.now)
        for t_ns, pin, on in step.edges:
            self.edges.append((round((t_ns - self.t0) / MS, 3), pin, on))
            if pin == MOTOR:
                self.mechanism.advance_to(t_ns / 1e9)
                self.motor_on = on
                self.mechanism.set_duty(1.0 if on else 0.0)
        self.rebooted += int(step.rebooted)
        self.now = max(self.now, step.t_ns)
        for t_s, blocked in self.mechanism.advance_to(self.now / 1e9):
            self.beam_edges.append((round((t_s * 1e9 - self.t0) / MS, 3), blocked))
            self.board.exact_input(BEAM, 0 if blocked else 1)
        while self._script and self._script[0][0] <= self.now:
            _, _, pin, level = heapq.heappop(self._script)
            self.board.exact_input(pin, level)

    # -- reading ---------------------------------------------------------------------------
    def frames(self, verb: str | None = None) -> list[dict[str, str]]:
        """Every frame the board printed so far (``_verb`` names it), optionally of one verb."""
        out = []
        for match in FRAME.finditer(self.tap.data):
            name = match.group(3).decode()
            if verb is None or name == verb:
                fields = dict(part.split("=", 1) for part in match.group(4).decode().split())
                out.append({"_kind": match.group(1).decode(), "_verb": name, **fields})
        return out

    def motor_runs(self) -> list[tuple[float, float]]:
        return _runs(self.edges, MOTOR)

    def led_runs(self) -> list[tuple[float, float]]:
        return _runs(self.edges, LED)


def _runs(edges: list[tuple[float, int, bool]], pin: int) -> list[tuple[float, float]]:
    runs: list[tuple[float, float]] = []
    start = None
    for t, p, on in edges:
        if p != pin:
            continue
        if on and start is None:
            start = t
        elif not on and start is not None:
            runs.append((start, t))
            start = None
    if start is not None:
        runs.append((start, float("inf")))
    return runs
