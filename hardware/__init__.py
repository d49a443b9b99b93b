"""The physical world: the mechanism model, pin maps, the gpiozero driver and the mock rig."""

from hardware.errors import (
    ConfigError,
    LauncherError,
    LauncherFault,
    LauncherJam,
    LauncherUnavailable,
    UnoAttackError,
)

__all__ = [
    "ConfigError",
    "LauncherError",
    "LauncherFault",
    "LauncherJam",
    "LauncherUnavailable",
    "UnoAttackError",
]
