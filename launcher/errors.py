"""Launcher-layer errors, plus re-exports of the lower layers' so callers import one place."""

from __future__ import annotations

from firmware_bridge.errors import LinkLost, PortNotFound, ProtocolError
from hardware.errors import (
    ConfigError,
    LauncherError,
    LauncherFault,
    LauncherJam,
    LauncherUnavailable,
    UnoAttackError,
)


class BadSpec(ConfigError):
    """A launcher spec (``sim://?profile=…``) that cannot be parsed or has unknown options."""

    hint = "specs look like sim://?profile=NAME&seed=N, gpio://?motor=17,18&beam=27, serial:///dev/ttyACM0"


class ProfileError(ConfigError):
    """A spit-out profile that is malformed; the message names the file and the field."""

    hint = "`uno-attack profile list` shows the presets; docs/profiles.md describes the format"


__all__ = [
    "BadSpec",
    "ConfigError",
    "LauncherError",
    "LauncherFault",
    "LauncherJam",
    "LauncherUnavailable",
    "LinkLost",
    "PortNotFound",
    "ProfileError",
    "ProtocolError",
    "UnoAttackError",
]
