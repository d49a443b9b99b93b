"""Deterministic fault injection for the emulator: a bad cable, a brownout, a stuck card.

A :class:`FaultPlan` holds per-direction link faults (:class:`LinkFaults`, applied to each
frame and byte at a seeded rate) and a schedule of one-off events (:class:`Scheduled`:
silence, unplug, replug, reboot, jam, slip, stuck beam). The same plan and seed give
the same faults on the same traffic. Plans are written as text on the command line and
in ``emu://?faults=...``::

    drop:0.02,corrupt:0.01,dup:0.01,split:0.01  both directions, per frame
    host.drop:0.05,mcu.delay:0.1,delay_ms:40    host. = frames to the host, mcu. = to the MCU
    byte_drop:0.001,byte_corrupt:0.001          per byte
    reboot@2s,unplug@5s,replug@6s               one-off events, time since the emulator started
    silence@1s+300ms,stuck@3s+1s,slip@4s+2s,jam@7s

See ``docs/firmware.md`` ("Emulator") for what each one does to the firmware.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, fields, replace

from hardware.errors import ConfigError

ACTIONS = ("silence", "unplug", "replug", "reboot", "jam", "slip", "stuck")
DIRECTIONS = {"host": "to_host", "mcu": "to_mcu"}
FAULTS_FORM = "name:rate[,host.name:rate|mcu.name:rate][,delay_ms:N][,action@TIME[+DURATION]]"


@dataclass(frozen=True)
class LinkFaults:
    """Fault rates on one direction of the link (probabilities 0..1)."""

    drop: float = 0.0  # per frame: lost
    corrupt: float = 0.0  # per frame: one byte damaged
    dup: float = 0.0  # per frame: arrives twice
    delay: float = 0.0  # per frame: held back delay_ms (later frames may overtake it)
    delay_ms: float = 50.0
    split: float = 0.0  # per frame: arrives in two pieces delay_ms apart (nothing overtakes it)
    byte_drop: float = 0.0  # per byte: lost
    byte_corrupt: float = 0.0  # per byte: one bit flipped

    @property
    def active(self) -> bool:
        return any(getattr(self, f.name) > 0 for f in fields(self) if f.name != "delay_ms")


@dataclass(frozen=True)
class Scheduled:
    """A one-off event ``at_ms`` after the emulator started (``duration_ms`` for timed ones)."""

    action: str
    at_ms: float
    duration_ms: float = 0.0


@dataclass(frozen=True)
class FaultPlan:
    """Everything that will go wrong, deterministically from ``seed``."""

    to_host: LinkFaults = field(default_factory=LinkFaults)
    to_mcu: LinkFaults = field(default_factory=LinkFaults)
    schedule: tuple[Scheduled, ...] = ()
    seed: int | None = None

    @classmethod
    def parse(cls, text: str, *, seed: int | None = None) -> FaultPlan:
        """Read the text form (see the module docstring); raises ConfigError naming the item."""
        plan = cls(seed=seed)
        for item in (part.strip() for part in text.split(",")):
            if item:
                plan = _apply_item(plan, item)
        return plan

    def with_seed(self, seed: int | None) -> FaultPlan:
        return replace(self, seed=seed)


def _apply_item(plan: FaultPlan, item: str) -> FaultPlan:
    if "@" in item:
        return replace(plan, schedule=tuple(sorted(plan.schedule + (_scheduled(item),), key=_when)))
    name, sep, raw = item.partition(":")
    if not sep:
        raise _bad(item, "expected name:value or action@time")
    direction, dot, rate_name = name.rpartition(".")
    targets = [DIRECTIONS.get(direction)] if dot else list(DIRECTIONS.values())
    if None in targets:
        raise _bad(item, f"direction {direction!r} is not host or mcu")
    value = _number(item, raw)
    if rate_name not in {f.name for f in fields(LinkFaults)}:
        names = ", ".join(f.name for f in fields(LinkFaults))
        raise _bad(item, f"unknown fault {rate_name!r}; known: {names}")
    if rate_name != "delay_ms" and not 0.0 <= value <= 1.0:
        raise _bad(item, f"rate {value} must be between 0 and 1")
    for target in targets:
        assert target is not None
        plan = replace(plan, **{target: replace(getattr(plan, target), **{rate_name: value})})
    return plan


def _when(event: Scheduled) -> float:
    return event.at_ms


def _scheduled(item: str) -> Scheduled:
    action, _, timing = item.partition("@")
    if action not in ACTIONS:
        raise _bad(item, f"unknown action {action!r}; known: {', '.join(ACTIONS)}")
    at, _, duration = timing.partition("+")
    length = _duration_ms(item, duration) if duration else 0.0
    return Scheduled(action, _duration_ms(item, at), length)


def _duration_ms(item: str, text: str) -> float:
    if text.endswith("ms"):
        return _number(item, text[:-2])
    if text.endswith("s"):
        return _number(item, text[:-1]) * 1000.0
    return _number(item, text)


def _number(item: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise _bad(item, f"{text!r} is not a number") from None
    if value < 0 or value != value:
        raise _bad(item, f"{text!r} must not be negative")
    return value


def _bad(item: str, why: str) -> ConfigError:
    return ConfigError(f"fault plan item {item!r}: {why}", hint=f"write faults as {FAULTS_FORM}")


class LinkFaulter:
    """Applies one direction's :class:`LinkFaults` to frames, with its own seeded generator.

    :meth:`frame` returns the list of (delay ms, bytes, in order) deliveries one frame
    becomes: none (dropped), one, or two (duplicated, or split in two pieces), each possibly
    damaged or delayed. ``in order`` is False only for a delayed frame, which later frames
    may overtake; everything else keeps the byte stream's order.
    """

    def __init__(self, faults: LinkFaults, rng: random.Random) -> None:
        self.faults = faults
        self._rng = rng
        self.counts = {"frames": 0, "drop": 0, "corrupt": 0, "dup": 0, "delay": 0, "split": 0}
        self.counts["bytes"] = 0

    def frame(self, data: bytes) -> list[tuple[float, bytes, bool]]:
        self.counts["frames"] += 1
        f, rng = self.faults, self._rng
        if not f.active:
            return [(0.0, data, True)]
        drop, corrupt, dup, delay = rng.random(), rng.random(), rng.random(), rng.random()
        split = rng.random()
        if drop < f.drop:
            self.counts["drop"] += 1
            return []
        if corrupt < f.corrupt:
            self.counts["corrupt"] += 1
            data = self._flip(data, rng.randrange(max(1, len(data) - 1)))
        data = self._bytes(data)
        if split < f.split and len(data) > 1:
            self.counts["split"] += 1
            cut = rng.randrange(1, len(data))
            return [(0.0, data[:cut], True), (f.delay_ms, data[cut:], True)]
        wait, in_order = 0.0, True
        if delay < f.delay:
            self.counts["delay"] += 1
            wait, in_order = f.delay_ms, False
        copies = [(wait, data, in_order)]
        if dup < f.dup:
            self.counts["dup"] += 1
            copies.append((wait, data, in_order))
        return copies

    def _flip(self, data: bytes, index: int) -> bytes:
        damaged = bytearray(data)
        damaged[index] ^= 1 << self._rng.randrange(7)
        return bytes(damaged)

    def _bytes(self, data: bytes) -> bytes:
        f = self.faults
        if f.byte_drop <= 0 and f.byte_corrupt <= 0:
            return data
        out = bytearray()
        for byte in data:
            roll = self._rng.random()
            if roll < f.byte_drop:
                self.counts["bytes"] += 1
                continue
            if roll < f.byte_drop + f.byte_corrupt:
                self.counts["bytes"] += 1
                byte ^= 1 << self._rng.randrange(7)
            out.append(byte)
        return bytes(out)


def faulters(plan: FaultPlan) -> tuple[LinkFaulter, LinkFaulter]:
    """(to_host, to_mcu) faulters, each with its own generator derived from the plan's seed."""
    seed = plan.seed
    host_rng = random.Random(None if seed is None else f"{seed}/to_host")
    mcu_rng = random.Random(None if seed is None else f"{seed}/to_mcu")
    return LinkFaulter(plan.to_host, host_rng), LinkFaulter(plan.to_mcu, mcu_rng)
