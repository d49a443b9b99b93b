"""The one exception hierarchy of uno-attack, rooted here in the lowest layer.

Every error a user can meet derives from :class:`UnoAttackError` and carries a
``hint`` that the CLI prints under the message (``uno-attack: error: …``).
Higher layers add their own leaves in their own ``errors`` module
(``firmware_bridge.errors``, ``launcher.errors``, ``game.core.errors``), always
subclassing a class defined here, so ``except UnoAttackError`` catches all of
them. Leaves also inherit the matching builtin (``ValueError``,
``TimeoutError``…) so generic callers keep working.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up time)
if TYPE_CHECKING:
    from typing import Any


class UnoAttackError(Exception):
    """Root of every error raised on purpose by uno-attack."""

    hint: str = ""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        if hint is not None:
            self.hint = hint


class ConfigError(UnoAttackError, ValueError):
    """A malformed config, profile, spec or ruleset file; says where and what was expected."""

    hint = "check the file or option named in the message"


class LauncherError(UnoAttackError):
    """Something went wrong with a launcher (real, emulated or simulated).

    A press that fails part-way may already have shot cards: the backend sets
    ``counted`` (cards that came out before the error) and the launcher base class
    hands those cards out and attaches them as ``volley``, so no card is lost.
    """

    #: Cards that came out during the failed press, before the error.
    counted: int = 0
    #: The :class:`launcher.base.Volley` of those cards, set by ``Launcher.hit``.
    volley: Any = None


class LauncherUnavailable(LauncherError):
    """The launcher cannot be opened: backend missing, port absent, hardware not present."""

    hint = "run `uno-attack launcher list` or use the simulated launcher `sim://`"


class LauncherFault(LauncherError):
    """A latched fault: the motor is stopped and stays stopped until the fault is cleared.

    ``fault`` is a short machine-readable code (``jam``, ``beam_blocked``,
    ``max_time``, ``host_silent``, ``restart``…); the motor never restarts by
    itself after one of these.
    """

    hint = "fix the launcher, then clear the fault (`uno-attack launcher clear`)"

    #: How many cards the failed job asked for, and how long the motor ran (ms), when known.
    requested: int | None = None
    motor_ms: float | None = None

    def __init__(self, message: str, *, fault: str = "fault", hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.fault = fault


class LauncherJam(LauncherFault):
    """A card is stuck (no card within the jam timeout, or the beam blocked too long)."""

    hint = "open the launcher, remove the stuck card, close it and clear the fault"

    def __init__(self, message: str, *, fault: str = "jam", hint: str | None = None) -> None:
        super().__init__(message, fault=fault, hint=hint)
