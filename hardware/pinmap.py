"""Which GPIO pins the launcher uses and how it drives them, from a TOML file or spec options.

One flat set of keys serves both sources, so a spec option and a config key are
the same word::

    gpio://?motor=17,18&beam=27&button=22&led=23&buzzer=24&beam_active=low

    # /etc/uno-attack/launcher.toml
    motor = [17, 18]
    motor_kind = "dual"      # Motor(forward, backward) through an H-bridge; or "phase_enable"
    beam = 27
    beam_active = "low"      # most IR break-beam receivers pull the line low when blocked
    button = 22

Everything is validated up front, with errors that name the file or spec, the
key and what was expected: an unknown key, a pin used twice, a pin outside the
Pi header's BCM range, duty control asked of a non-PWM setup.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from hardware.errors import ConfigError
from hardware.files import read_user_text

#: BCM numbers of the 40-pin header's GPIOs.
MIN_PIN, MAX_PIN = 0, 27
MOTOR_KINDS = ("dual", "phase_enable")
BEAM_ACTIVE = ("low", "high")
BEAM_PULL = ("auto", "up", "down", "none")

#: The most each motor limit may be set to, in ms: the Pico firmware's own ceilings
#: (firmware_bridge.protocol.LIMITS max_ms, jam_ms, block_ms), so no config lets a motor
#: run longer on a Pi than on a Pico.
CEILINGS_MS = {"max_run_ms": 30000.0, "jam_ms": 5000.0, "blocked_ms": 2000.0}
#: The shortest and longest monostable hold the driver can keep toggled (it toggles at a
#: third of the hold from its supervising loop).
ENABLE_HOLD_RANGE_MS = (5.0, 1000.0)

#: The pins the mock rig uses when a spec gives none (also the wiring in docs/hardware.md).
DEFAULT_PINS: dict[str, Any] = {
    "motor": (17, 18),
    "beam": 27,
    "button": 22,
    "led": 23,
    "buzzer": 24,
}


@dataclass(frozen=True)
class PinMap:
    """The wiring and the driving parameters of one GPIO launcher. Times are in ms."""

    motor: tuple[int, int]
    motor_kind: str = "dual"
    pwm: bool = True
    duty: float = 1.0
    beam: int | None = None
    beam_active: str = "low"
    beam_pull: str = "auto"
    button: int | None = None
    led: int | None = None
    buzzer: int | None = None
    #: The motor-enable line (DRV8833 nSLEEP / TB6612 STBY) through a retriggerable
    #: monostable: the driver toggles it while a job runs, and the monostable holds the
    #: H-bridge awake only ``enable_hold_ms`` after the last edge, so a frozen or killed
    #: process stops the motor in hardware (docs/hardware.md, "The enable line").
    enable: int | None = None
    #: The monostable's hold time (its RC): the motor stops this long after the toggling does.
    enable_hold_ms: float = 50.0
    #: Stop by braking: both H-bridge inputs high for this long (DRV8833 and TB6612 short
    #: the motor: the roller stops sooner than when it coasts), then both low. 0 = coast.
    #: Dual (IN1/IN2) wiring only.
    brake_ms: float = 0.0
    #: Open-loop feed time per card (GUESS until `uno-attack calibrate tune` measures it).
    ms_per_card: float = 250.0
    #: Jam: no card within this long while the motor runs (closed loop).
    jam_ms: float = 1500.0
    #: Jam: the beam blocked for longer than this.
    blocked_ms: float = 500.0
    #: The motor never runs longer than this in one go (ceiling: :data:`CEILINGS_MS`).
    max_run_ms: float = 10000.0
    #: Closed loop (count with the beam) when a beam is wired; open loop otherwise.
    closed_loop: bool | None = None
    #: Beeps, dings and LED patterns of the original toy.
    sounds: bool = True
    #: Holding the button this long clears a latched fault.
    hold_clear_ms: float = 3000.0
    #: A passage that blocks the beam at least this long is two cards stuck together (a
    #: double feed) and counts as two. Off unless set: measure your build's single-card
    #: blocking time first (docs/hardware.md, "Double feeds").
    double_ms: float | None = None
    #: Beam glitch filter: a change of the beam counts only once it has held this long
    #: (noise spikes from the motor are microseconds; a card blocks the beam for ~30 ms).
    #: 0 turns the filter off.
    glitch_ms: float = 1.0
    #: Button debounce: a press or release counts once the contact has been steady this long.
    debounce_ms: float = 20.0
    #: Button lockout, like the Pico firmware's: presses closer than this to the last one
    #: are ignored (a bouncy or double-clicked press fires once).
    lockout_ms: float = 200.0
    #: After a job stops the motor, cards are still counted into it for this long: a roller
    #: that coasts may push one more card out (measure it: docs/hardware.md, "Roller coast").
    coast_ms: float = 0.0

    @property
    def uses_closed_loop(self) -> bool:
        return self.beam is not None if self.closed_loop is None else self.closed_loop

    @property
    def beam_pull_up(self) -> bool | None:
        """The ``pull_up`` argument of gpiozero's DigitalInputDevice for the beam."""
        if self.beam_pull == "auto":
            return self.beam_active == "low"
        return {"up": True, "down": False, "none": None}[self.beam_pull]

    @property
    def beam_pull_resolved(self) -> str:
        """The beam's pull resistor: ``up``, ``down`` or ``none`` (``auto`` resolved)."""
        if self.beam_pull == "auto":
            return "up" if self.beam_active == "low" else "down"
        return self.beam_pull

    def pins(self) -> dict[str, int]:
        """Every wired pin by role (the motor's two as ``motor_a``/``motor_b``)."""
        named = {"motor_a": self.motor[0], "motor_b": self.motor[1]}
        for role in ("beam", "button", "led", "buzzer", "enable"):
            pin = getattr(self, role)
            if pin is not None:
                named[role] = pin
        return named


_FLOAT_KEYS = (
    "duty",
    "ms_per_card",
    "jam_ms",
    "blocked_ms",
    "max_run_ms",
    "hold_clear_ms",
    "double_ms",
    "enable_hold_ms",
)
#: Keys that may be 0 (a filter turned off).
_ZERO_OK = ("glitch_ms", "debounce_ms", "lockout_ms", "coast_ms", "brake_ms")
_PIN_KEYS = ("beam", "button", "led", "buzzer", "enable")
_CHOICES = {"motor_kind": MOTOR_KINDS, "beam_active": BEAM_ACTIVE, "beam_pull": BEAM_PULL}
KEYS = tuple(f.name for f in fields(PinMap))


def pinmap_from_mapping(
    data: Mapping[str, Any], where: str, *, defaults: Mapping[str, Any] | None = None
) -> PinMap:
    """Build and validate a :class:`PinMap`; ``where`` (a file or spec) prefixes every error."""
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise ConfigError(
            f"{where}: unknown key(s) {', '.join(unknown)}", hint=f"known keys: {', '.join(KEYS)}"
        )
    merged = {**(defaults or {}), **data}
    if "motor" not in merged:
        raise ConfigError(
            f"{where}: key motor is missing", hint="e.g. motor=17,18 (H-bridge IN1, IN2)"
        )
    values: dict[str, Any] = {"motor": _motor_pins(where, merged["motor"])}
    for key, raw in merged.items():
        if key != "motor":
            values[key] = _convert(where, key, raw)
    pinmap = PinMap(**values)
    validate(pinmap, where)
    return pinmap


def _motor_pins(where: str, raw: Any) -> tuple[int, int]:
    if isinstance(raw, str):
        raw = [part for part in raw.split(",") if part]
    if not isinstance(raw, list | tuple) or len(raw) != 2:
        raise ConfigError(f"{where}: key motor={raw!r} must be two pins, e.g. motor=17,18")
    first, second = (_pin(where, "motor", part) for part in raw)
    return first, second


def _pin(where: str, key: str, raw: Any) -> int:
    if isinstance(raw, bool):
        raise ConfigError(f"{where}: key {key}={raw!r} must be a BCM pin number")
    try:
        pin = int(raw, 0) if isinstance(raw, str) else int(raw)
    except (TypeError, ValueError):
        raise ConfigError(f"{where}: key {key}={raw!r} must be a BCM pin number") from None
    if isinstance(raw, float) and raw != pin:
        raise ConfigError(f"{where}: key {key}={raw!r} must be a whole BCM pin number")
    if not MIN_PIN <= pin <= MAX_PIN:
        raise ConfigError(
            f"{where}: key {key}={raw!r} is out of range; BCM pins are {MIN_PIN}..{MAX_PIN}"
        )
    return pin


def _convert(where: str, key: str, raw: Any) -> Any:
    if key in _PIN_KEYS:
        return None if raw in (None, "", "none") else _pin(where, key, raw)
    if key == "double_ms" and raw in (None, "", "none", "off"):
        return None
    if key in _ZERO_OK:
        return _not_negative(where, key, raw)
    if key in _FLOAT_KEYS:
        return _positive(where, key, raw)
    if key in _CHOICES:
        if raw not in _CHOICES[key]:
            raise ConfigError(
                f"{where}: key {key}={raw!r} must be one of {', '.join(_CHOICES[key])}"
            )
        return raw
    return _boolean(where, key, raw)


def _positive(where: str, key: str, raw: Any) -> float:
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise ConfigError(f"{where}: key {key}={raw!r} must be a number") from None
    if not value > 0 or value == float("inf"):
        raise ConfigError(f"{where}: key {key}={raw!r} must be a positive number")
    return value


def _not_negative(where: str, key: str, raw: Any) -> float:
    try:
        if float(raw) == 0.0:
            return 0.0
    except (TypeError, ValueError):
        pass  # _positive says what is wrong
    return _positive(where, key, raw)


def _boolean(where: str, key: str, raw: Any) -> bool:
    if isinstance(raw, bool):
        return raw
    text = str(raw).lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"{where}: key {key}={raw!r} must be true or false")


def validate(pinmap: PinMap, where: str) -> None:
    """Cross-field checks: pins used once, duty control only with PWM, sane timings."""
    seen: dict[int, str] = {}
    for role, pin in pinmap.pins().items():
        if pin in seen:
            raise ConfigError(f"{where}: pin {pin} is used twice ({seen[pin]} and {role})")
        seen[pin] = role
    if pinmap.duty > 1.0:
        raise ConfigError(f"{where}: key duty={pinmap.duty} must be between 0 and 1")
    if pinmap.duty < 1.0 and not pinmap.pwm:
        raise ConfigError(
            f"{where}: duty={pinmap.duty} asks for speed control but pwm is off",
            hint="set pwm=true (the H-bridge input must be on a PWM-capable pin) or use duty=1",
        )
    check_beam_polarity(pinmap, where)
    if pinmap.closed_loop and pinmap.beam is None:
        raise ConfigError(f"{where}: closed_loop=true needs a beam sensor pin (key beam)")
    check_ceilings(pinmap, where)
    if pinmap.enable is not None and pinmap.brake_ms >= pinmap.enable_hold_ms:
        raise ConfigError(
            f"{where}: brake_ms={pinmap.brake_ms:g} must be shorter than "
            f"enable_hold_ms={pinmap.enable_hold_ms:g} (a sleeping bridge coasts instead)"
        )
    if pinmap.brake_ms and pinmap.motor_kind != "dual":
        raise ConfigError(
            f"{where}: brake_ms={pinmap.brake_ms} needs motor_kind=dual (IN1/IN2 both high)",
            hint="a PHASE/ENABLE bridge brakes by itself when enable goes low: set brake_ms=0",
        )
    if pinmap.blocked_ms >= pinmap.max_run_ms or pinmap.jam_ms >= pinmap.max_run_ms:
        raise ConfigError(
            f"{where}: jam_ms and blocked_ms must be shorter than max_run_ms={pinmap.max_run_ms}"
        )


def check_ceilings(pinmap: PinMap, where: str) -> None:
    """Refuse a motor limit above its ceiling (:data:`CEILINGS_MS`), as the Pico clamps them.

    A refusal, not a silent clamp: a config asking for a 24 h run is a mistake the builder
    must see, and the same config must mean the same bound on every backend.
    """
    for key, ceiling in CEILINGS_MS.items():
        value = getattr(pinmap, key)
        if value > ceiling:
            raise ConfigError(
                f"{where}: key {key}={value:.0f} is above its ceiling of {ceiling:.0f} ms",
                hint=f"set {key} to at most {ceiling:.0f} (the Pico firmware's ceiling too; "
                "docs/hardware.md, 'Configure')",
            )
    low, high = ENABLE_HOLD_RANGE_MS
    if not low <= pinmap.enable_hold_ms <= high:
        raise ConfigError(
            f"{where}: key enable_hold_ms={pinmap.enable_hold_ms:g} must be {low:g} to {high:g} ms "
            "(the hold time of the enable line's monostable)"
        )


def check_beam_polarity(pinmap: PinMap, where: str) -> None:
    """Refuse a pull resistor that holds the line at the *blocked* level when nothing drives it.

    gpiozero ties the two together: with a pull-up the active state is low, with a
    pull-down it is high (``DigitalInputDevice`` refuses an explicit ``active_state``
    then). Passing the pull alone would silently invert the beam: every gap counted as
    a card. Such a receiver needs an external resistor and ``beam_pull=none``.
    """
    pull, active = pinmap.beam_pull, pinmap.beam_active
    if (pull, active) in (("up", "high"), ("down", "low")):
        raise ConfigError(
            f"{where}: beam_pull={pull} with beam_active={active} is not supported: "
            f"gpiozero reads a pulled-{pull} input as active {'low' if pull == 'up' else 'high'}",
            hint=f"fit an external 10 kOhm pull-{pull} resistor and set beam_pull=none "
            f"(docs/hardware.md, 'The beam'), or check beam_active with `uno-attack launcher test`",
        )


def load_pinmap(path: str | Path, overrides: Mapping[str, Any] | None = None) -> PinMap:
    """Read a launcher TOML file; ``overrides`` (spec options) win over the file's keys."""
    where = str(path)
    text = read_user_text(path, what="launcher config", error=ConfigError)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{where}: not valid TOML ({error})") from None
    nested = [key for key, value in data.items() if isinstance(value, dict)]
    if nested:
        raise ConfigError(f"{where}: unexpected table [{nested[0]}]; keys go at the top level")
    return pinmap_from_mapping({**data, **(overrides or {})}, where)


def with_overrides(pinmap: PinMap, **changes: Any) -> PinMap:
    """A copy of ``pinmap`` with some fields changed (validated again)."""
    changed = replace(pinmap, **changes)
    validate(changed, "pin map")
    return changed
