"""A time-stepped model of the physical launcher: hopper, roller, mouth and break-beam.

The one model of the real machine, shared by the GPIO mock rig, the firmware
emulator and (optionally) the simulated launcher. It knows nothing of pins or
wall clocks: callers set the motor duty and move model time forward with
:meth:`Mechanism.advance`, which returns the break-beam transitions that
happened in that interval.

How it works
------------
A rubber roller under the hopper turns while the motor duty (times the battery
level) is above the stall duty. Every full turn it *attempts* to feed the
bottom card. An attempt can

* find the hopper empty: the roller spins, nothing comes out;
* slip (``slip_rate``, plus ``pressure_slip`` more as the hopper empties):
  nothing comes out;
* feed one card, which blocks the beam for ``card_transit_ms``;
* double-feed (``double_feed_rate``): two cards stuck together, which block the
  beam *once*, for ``double_transit_factor`` times longer (a beam counts them
  as one card: that is the physical truth the driver must live with);
* catch (``catch_rate``): the card sticks in the mouth, the beam stays blocked
  and the mechanism is jammed until a person clears it (:meth:`clear_jam`).

Internally the model is event-driven on an integer nanosecond time line, so
advancing in many small steps or one big one gives identical transitions.
Every random draw comes from ``random.Random(seed)``; each feed attempt with
cards present draws exactly three numbers (slip, double, catch), so changing
one rate never reshuffles the others.

Every default parameter value is a GUESS until measured on a real build
(``docs/hardware.md``, "Measuring the mechanism").
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from hardware.errors import ConfigError

_NS = 1_000_000_000

#: A beam transition: (absolute model time in seconds, beam blocked?).
Transition = tuple[float, bool]


#: Short option names for :class:`MechanismParams` fields, shared by every place that takes
#: mechanism settings as text: ``gpio://?mock=1&slip=0.05``, ``emu://?catch=0.01`` and
#: ``uno-attack emulate --mechanism cps=8,slip=0.05``.
OPTION_FIELDS = {
    "cps": "cards_per_second",
    "transit_ms": "card_transit_ms",
    "slip": "slip_rate",
    "double": "double_feed_rate",
    "catch": "catch_rate",
    "battery": "battery",
    "stall": "stall_duty",
    "pressure": "pressure_slip",
    "coast": "coast_ms",
}


@dataclass(frozen=True)
class MechanismParams:
    """Physical parameters of one launcher build. All defaults are GUESSES, not measurements."""

    #: Feed attempts per second at full duty with fresh batteries (GUESS: ~4/s).
    cards_per_second: float = 4.0
    #: Battery level 0..1; scales the effective motor drive (weak batteries = slow roller).
    battery: float = 1.0
    #: Below this effective duty (duty x battery) the roller does not turn (GUESS).
    stall_duty: float = 0.25
    #: How long one card blocks the beam at the mouth, in ms (GUESS).
    card_transit_ms: float = 30.0
    #: Per feed attempt: the roller slips and nothing comes out.
    slip_rate: float = 0.0
    #: Per card fed: two cards come out stuck together (the beam sees one).
    double_feed_rate: float = 0.0
    #: Per card fed: it catches in the mouth and the beam stays blocked (a jam).
    catch_rate: float = 0.0
    #: Extra slip probability with a nearly empty hopper (less weight on the roller; GUESS 0).
    pressure_slip: float = 0.0
    #: The load at which the hopper presses fully on the roller (~90 cards in an Attack game).
    full_load: int = 90
    #: A double feed blocks the beam this many times longer than a single card.
    double_transit_factor: float = 1.6
    #: After the motor stops, the roller coasts on at its last speed this long (GUESS 0: a
    #: geared toy motor stops within a few ms; a free-running roller may push one more card).
    coast_ms: float = 0.0

    def __post_init__(self) -> None:
        self._check_positive("cards_per_second", self.cards_per_second)
        self._check_positive("card_transit_ms", self.card_transit_ms)
        self._check_positive("double_transit_factor", self.double_transit_factor)
        for name in (
            "battery",
            "stall_duty",
            "slip_rate",
            "double_feed_rate",
            "catch_rate",
            "pressure_slip",
        ):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0 or math.isnan(value):
                raise ConfigError(f"mechanism parameter {name}={value!r} must be between 0 and 1")
        if self.stall_duty >= 1.0:
            raise ConfigError(f"mechanism parameter stall_duty={self.stall_duty!r} must be below 1")
        if not 0.0 <= self.coast_ms < float("inf"):
            raise ConfigError(f"mechanism parameter coast_ms={self.coast_ms!r} must be 0 or more")
        if self.full_load < 1:
            raise ConfigError(
                f"mechanism parameter full_load={self.full_load!r} must be at least 1"
            )

    @staticmethod
    def _check_positive(name: str, value: float) -> None:
        if not value > 0 or math.isinf(value):
            raise ConfigError(f"mechanism parameter {name}={value!r} must be a positive number")

    def feed_rate(self, duty: float) -> float:
        """Feed attempts per second at motor ``duty`` (0 when the roller stalls)."""
        drive = duty * self.battery
        if drive < self.stall_duty or drive <= 0.0:
            return 0.0
        return self.cards_per_second * (drive - self.stall_duty) / (1.0 - self.stall_duty)


class Mechanism:
    """The launcher's moving parts, deterministic from ``seed``; no wall clock anywhere.

    >>> m = Mechanism(seed=1, cards=3)
    >>> m.set_duty(1.0)
    >>> [blocked for _, blocked in m.advance(1.0)]
    [True, False, True, False, True, False]
    >>> m.hopper, m.ejected
    (0, 3)
    """

    def __init__(
        self, params: MechanismParams | None = None, *, seed: int | None = None, cards: int = 0
    ) -> None:
        self.params = params if params is not None else MechanismParams()
        self._rng = random.Random(seed)
        self._now = 0
        self._duty = 0.0
        self._phase = 0.0  # roller progress towards the next feed attempt, 0..1
        self._phase_at = 0  # model time at which _phase was last brought up to date
        self._coast_until = 0  # the stopped roller turns on (at _coast_rate) until then
        self._coast_rate = 0.0
        self._hopper = 0
        self._ejected = 0
        self._in_mouth: list[tuple[int, int]] = []  # (exit time ns, cards), ordered by exit time
        self._stuck = 0  # cards caught in the mouth
        self.attempts = 0
        self.slips = 0
        self.doubles = 0
        self.catches = 0
        self.load(cards)

    # -- the hopper -------------------------------------------------------------------
    def load(self, n: int) -> None:
        """Add ``n`` cards on top of the hopper."""
        if n < 0:
            raise ValueError(f"cannot load {n} cards")
        self._hopper += n

    def unload(self) -> int:
        """Take every card out of the hopper; returns how many there were."""
        count, self._hopper = self._hopper, 0
        return count

    @property
    def hopper(self) -> int:
        return self._hopper

    @property
    def ejected(self) -> int:
        """Cards that have left the launcher (including stuck cards a person cleared)."""
        return self._ejected

    @property
    def jammed(self) -> bool:
        return self._stuck > 0

    @property
    def beam_blocked(self) -> bool:
        return self.jammed or bool(self._in_mouth)

    @property
    def now_s(self) -> float:
        return self._now / _NS

    @property
    def duty(self) -> float:
        return self._duty

    # -- the motor --------------------------------------------------------------------
    def set_duty(self, duty: float, *, braked: bool = False) -> None:
        """Drive the motor at ``duty`` (0 = off .. 1 = full); the roller keeps its position.

        ``braked``: the H-bridge shorts the motor (both inputs high): it stops at once
        instead of coasting on for ``coast_ms``.
        """
        if not 0.0 <= duty <= 1.0:
            raise ValueError(f"motor duty {duty!r} must be between 0 and 1")
        old_rate = self._rate()
        self._sync_phase()
        self._duty = duty
        if braked:
            self._coast_until = 0
        elif self._rate() > 0.0 or old_rate <= 0.0:
            self._coast_until = 0 if self._rate() > 0.0 else self._coast_until
        elif self.params.coast_ms > 0:  # the motor just stopped: the roller coasts on
            self._coast_until = self._now + round(self.params.coast_ms * 1_000_000)
            self._coast_rate = old_rate

    def _rate(self) -> float:
        return self.params.feed_rate(self._duty)

    def _sync_phase(self) -> None:
        """Bring the roller phase up to ``_now`` (only called when the rate is about to change)."""
        rate, until = self._rate(), self._now
        if rate <= 0.0:  # stopped: the roller moved only while it coasted
            rate, until = self._coast_rate, max(self._phase_at, min(self._now, self._coast_until))
        self._phase += rate * (until - self._phase_at) / _NS
        self._phase = min(self._phase, 1.0)
        self._phase_at = self._now

    def _next_feed_ns(self) -> int | None:
        rate, limit = self._rate(), None
        if rate <= 0.0:
            if self._phase_at >= self._coast_until:
                return None
            rate, limit = self._coast_rate, self._coast_until
        remaining = max(0.0, 1.0 - self._phase) / rate
        at = (
            self._phase_at + max(1, math.ceil(remaining * _NS)) if remaining > 0 else self._phase_at
        )
        return None if limit is not None and at > limit else at

    # -- time -------------------------------------------------------------------------
    def next_transition_s(self) -> float | None:
        """When the beam will next change if nothing else changes (None: never).

        Lets a virtual clock jump straight to the next thing a sensor could see.
        A feed attempt that slips or finds the hopper empty changes nothing, so
        this looks ahead through those without consuming randomness: it answers
        the time of the next *event* (feed attempt or card exit), which is a safe
        lower bound.
        """
        candidates = [t for t in (self._next_feed_ns(), self._next_exit_ns()) if t is not None]
        return min(candidates) / _NS if candidates else None

    def _next_exit_ns(self) -> int | None:
        return self._in_mouth[0][0] if self._in_mouth else None

    def advance(self, dt_s: float) -> list[Transition]:
        """Move model time forward by ``dt_s`` seconds; return the beam transitions in that span."""
        if dt_s < 0:
            raise ValueError(f"cannot advance model time by {dt_s} s")
        return self.advance_to(self.now_s + dt_s)

    def advance_to(self, t_s: float) -> list[Transition]:
        """Move model time forward to absolute time ``t_s``; return the beam transitions."""
        target = max(self._now, round(t_s * _NS))
        transitions: list[Transition] = []
        while True:
            feed_at, exit_at = self._next_feed_ns(), self._next_exit_ns()
            if (
                exit_at is not None
                and exit_at <= target
                and (feed_at is None or exit_at <= feed_at)
            ):
                self._now = exit_at
                self._card_exits(transitions)
            elif feed_at is not None and feed_at <= target:
                self._now = feed_at
                self._phase, self._phase_at = 0.0, feed_at
                self._feed_attempt(transitions)
            else:
                break
        self._now = target
        return transitions

    # -- events -----------------------------------------------------------------------
    def _card_exits(self, transitions: list[Transition]) -> None:
        _, cards = self._in_mouth.pop(0)
        self._ejected += cards
        if not self.beam_blocked:
            transitions.append((self.now_s, False))

    def _feed_attempt(self, transitions: list[Transition]) -> None:
        self.attempts += 1
        if self._hopper == 0 or self.jammed:
            return  # nothing to feed, or the mouth is blocked by a stuck card: the roller spins
        slip, double, catch = self._rng.random(), self._rng.random(), self._rng.random()
        if slip < self._slip_probability():
            self.slips += 1
            return
        cards = 2 if double < self.params.double_feed_rate and self._hopper >= 2 else 1
        self.doubles += cards - 1
        self._hopper -= cards
        was_blocked = self.beam_blocked
        if catch < self.params.catch_rate:
            self.catches += 1
            self._stuck += cards
        else:
            self._enter_mouth(cards)
        if not was_blocked:
            transitions.append((self.now_s, True))

    def _slip_probability(self) -> float:
        p = self.params
        emptiness = 1.0 - min(self._hopper, p.full_load) / p.full_load
        return min(1.0, p.slip_rate + p.pressure_slip * emptiness)

    def _enter_mouth(self, cards: int) -> None:
        transit = self.params.card_transit_ms * (
            self.params.double_transit_factor if cards == 2 else 1.0
        )
        exit_at = self._now + max(1, round(transit * 1_000_000))
        self._in_mouth.append((exit_at, cards))
        self._in_mouth.sort()

    def clear_jam(self) -> None:
        """A person pulls the stuck card(s) out of the mouth; they count as ejected."""
        self._ejected += self._stuck
        self._stuck = 0

    def __repr__(self) -> str:
        return (
            f"<Mechanism t={self.now_s:.3f}s duty={self._duty:.2f} hopper={self._hopper} "
            f"ejected={self._ejected} jammed={self.jammed} beam_blocked={self.beam_blocked}>"
        )
