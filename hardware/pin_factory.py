"""Which gpiozero pin factory is in use, and clear errors when it is the wrong one.

gpiozero picks its pin factory by trying lgpio, RPi.GPIO, pigpio and finally its
pure-Python ``native`` factory, warning (not failing) at each fallback. Without
lgpio a Pi ends up on ``native``, which has no PWM, and the first ``Motor`` says
"cannot do PWM": true, but the fix is to install lgpio. These helpers say so.
"""

from __future__ import annotations

from typing import Any

from hardware.errors import ConfigError, LauncherUnavailable
from hardware.pinmap import PinMap


def lgpio_problem() -> str | None:
    """Why the lgpio library cannot be used here (None: it imports)."""
    try:
        import lgpio  # noqa: F401
    except Exception as error:  # ImportError, or a broken build raising anything else
        return f"{type(error).__name__}: {error}"
    return None


LGPIO_HINT = (
    "install it with `sudo apt install python3-lgpio` and make the venv with "
    "`python3 -m venv --system-site-packages` (docs/hardware.md, 'Install on the Pi')"
)


def make_motor(motor_class: Any, p: PinMap, pin_factory: Any) -> Any:
    from gpiozero import PinPWMUnsupported

    try:
        return motor_class(p.motor[0], p.motor[1], pwm=p.pwm, pin_factory=pin_factory)
    except PinPWMUnsupported:
        raise pwm_unsupported(p, pin_factory) from None


def pwm_unsupported(p: PinMap, pin_factory: Any) -> ConfigError | LauncherUnavailable:
    """The error for a pin factory without PWM: name lgpio when its absence is the cause."""
    from gpiozero import Device

    factory = pin_factory if pin_factory is not None else Device.pin_factory
    name = type(factory).__name__
    missing = lgpio_problem()
    if pin_factory is None and missing is not None:
        return LauncherUnavailable(
            f"lgpio is not installed ({missing}), so gpiozero fell back to {name}, "
            "which cannot do PWM on the motor pins",
            hint=LGPIO_HINT,
        )
    return ConfigError(
        f"motor pins {p.motor[0]},{p.motor[1]} cannot do PWM on this pin factory ({name})",
        hint="set pwm=false (full speed only, duty=1) or use PWM-capable pins",
    )
