"""The launcher abstraction, spit-out profiles, the backends and calibration.

>>> from launcher import open_launcher
>>> with open_launcher("sim://?profile=bookmarklet&seed=1") as launcher:
...     launcher.load(range(10))
...     volley = launcher.hit()
"""

from launcher.base import (
    Capability,
    DrawPile,
    Launcher,
    ScriptedLauncher,
    UnsupportedCapability,
    Volley,
)
from launcher.errors import (
    BadSpec,
    ConfigError,
    LauncherError,
    LauncherFault,
    LauncherJam,
    LauncherUnavailable,
    LinkLost,
    PortNotFound,
    ProfileError,
    ProtocolError,
    UnoAttackError,
)
from launcher.spec import open_launcher, parse_spec, register_scheme

__all__ = [
    "BadSpec",
    "Capability",
    "ConfigError",
    "DrawPile",
    "Launcher",
    "LauncherError",
    "LauncherFault",
    "LauncherJam",
    "LauncherUnavailable",
    "LinkLost",
    "PortNotFound",
    "ProfileError",
    "ProtocolError",
    "ScriptedLauncher",
    "UnoAttackError",
    "UnsupportedCapability",
    "Volley",
    "open_launcher",
    "parse_spec",
    "register_scheme",
]
