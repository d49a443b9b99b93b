"""Press a launcher over and over and write every press to a session file.

Works with any launcher spec (``open_launcher``) and with :class:`ManualLauncher`
for a stock toy, where a person presses the button and types the count. The
hopper is loaded with ``cards_loaded`` cards and topped up whenever it drops
below ``reload_below``, so the session spans a range of loads (for the
load-dependence check) and records where each reload happened (the 1999
launcher restarts its firing pattern on every reload).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hardware.errors import ConfigError
from launcher.base import Launcher, Volley
from launcher.calibration.session import Press, SessionHeader, SessionWriter

#: Asks the person how many cards came out of press ``n`` with ``loaded`` cards in the hopper;
#: raises :class:`UndoRequest` when the person asks to take the last press back.
AskCount = Callable[[int, int], int]
#: Tells the person something (reload the hopper…).
Tell = Callable[[str], None]


class UndoRequest(Exception):
    """The person asked to remove the last press (typed ``u``) instead of giving a count."""


def check_count(count: int, loaded: int) -> str:
    """Why ``count`` cannot be what came out of a hopper of ``loaded`` cards ("" if it can)."""
    if count < 0:
        return "a count is 0 or more"
    if count > loaded:
        return f"only {loaded} cards are loaded, so at most {loaded} can come out"
    return ""


class ManualLauncher(Launcher[int]):
    """A stock toy pressed by a person, who reports each count; no sensor, no motor."""

    backend = "manual"
    identities_known = False

    def __init__(self, ask: AskCount, tell: Tell, *, first_number: int = 1) -> None:
        super().__init__()
        self._ask = ask
        self._tell = tell
        self._first = first_number

    def _press(self, loaded: int) -> int:
        return self._ask(self._first + self.presses, loaded)

    def _on_load(self, loaded: int) -> None:
        self._tell(
            f"Load the launcher so its hopper holds {loaded} cards, close the cover (it beeps)."
        )

    def restore(self, loaded: int) -> None:
        """Take back the last press: the hopper holds ``loaded`` cards again (no reload asked)."""
        with self._lock:
            missing = loaded - len(self._hopper)
            self._hopper.extend(range(max(missing, 0)))
            self.presses = max(self.presses - 1, 0)


@dataclass
class Recorder:
    """Drives presses into a :class:`SessionWriter`; ``next_n`` continues a resumed session."""

    launcher: Launcher[Any]
    writer: SessionWriter
    header: SessionHeader
    next_n: int = 1
    on_press: Callable[[Press], None] | None = None
    #: Told the press an undo removed, or None when there was nothing of this run to remove.
    on_undo: Callable[[Press | None], None] | None = None

    def __post_init__(self) -> None:
        if self.header.reload_below > self.header.cards_loaded:
            raise ConfigError(
                f"--reload-below {self.header.reload_below} is more than "
                f"--cards {self.header.cards_loaded}"
            )
        self._since_reload = 0
        self._loaded = False
        self._made: list[Press] = []

    def _top_up(self) -> None:
        missing = self.header.cards_loaded - self.launcher.remaining
        self.launcher.load(range(missing))
        self._since_reload = 0
        self._loaded = True

    def press_once(self) -> Press | None:
        """Reload if low (or at the start), press, and write the press before returning it.

        None when the person asked for an undo instead (:meth:`undo` has run).
        """
        if not self._loaded or self.launcher.remaining < self.header.reload_below:
            self._top_up()
        loaded = self.launcher.remaining
        try:
            volley = self.launcher.hit()
        except UndoRequest:
            removed = self.undo()
            if self.on_undo is not None:
                self.on_undo(removed)
            return None
        self._since_reload += 1
        press = Press(
            n=self.next_n,
            count=volley.counted,
            loaded=loaded,
            since_reload=self._since_reload,
            motor_ms=motor_ms(self.launcher, volley),
        )
        self.writer.append(press)
        self._made.append(press)
        self.next_n += 1
        if self.on_press is not None:
            self.on_press(press)
        return press

    def undo(self) -> Press | None:
        """Remove the last press of this run from the file and the hopper model; None if none."""
        if not self._made or not isinstance(self.launcher, ManualLauncher):
            return None
        press = self._made.pop()
        self.writer.remove_last()
        self.launcher.restore(press.loaded)
        self._since_reload = press.since_reload - 1
        self.next_n = press.n
        return press

    def run(self, presses: int) -> int:
        """Make presses until ``presses`` more are in the file (undone ones are made again)."""
        target = self.next_n + presses
        while self.next_n < target:
            self.press_once()
        return presses


def motor_ms(launcher: Launcher[Any], volley: Volley[Any]) -> float | None:
    """Motor time of a press, from ``Volley.meta`` or the backend's ``press_meta``."""
    meta: dict[str, Any] = dict(getattr(launcher, "press_meta", None) or {})
    meta.update(volley.meta)
    value = meta.get("motor_ms")
    return float(value) if isinstance(value, int | float) else None


class HandTally:
    """Counts tapped on a phone into a manual session, with the checks of the typed prompt.

    The live calibration page (``table serve --calibration``) records through this:
    the same session file, the same :class:`Press` lines, a count above the hopper
    refused with the number loaded (:func:`check_count`), an undo that cuts the last
    press of this run off the file, and a reload asked below ``reload_below``. A new
    file starts with ``header``; an existing one must be a manual session and, as
    ``calibrate record --resume`` does, starts by asking for a reload.
    """

    def __init__(self, writer: SessionWriter, header: SessionHeader, presses: list[Press]) -> None:
        self.writer = writer
        self.header = header
        last = presses[-1] if presses else None
        self.next_n = last.n + 1 if last else 1
        self.loaded = 0
        self.since_reload = 0
        self.awaiting_reload = True
        self._made: list[Press] = []

    def reloaded(self) -> None:
        """The person topped the hopper up to ``cards_loaded`` and closed the cover."""
        self.loaded = self.header.cards_loaded
        self.since_reload = 0
        self.awaiting_reload = False

    def record(self, count: int) -> Press:
        """Write one press of ``count`` cards; a :class:`ConfigError` says why not."""
        if self.awaiting_reload:
            raise ConfigError(
                f"load the hopper with {self.header.cards_loaded} cards first, then tap Loaded"
            )
        problem = check_count(count, self.loaded)
        if problem:
            raise ConfigError(f"{count} refused: {problem}")
        press = Press(self.next_n, count, self.loaded, self.since_reload + 1)
        self.writer.append(press)
        self._made.append(press)
        self.next_n += 1
        self.since_reload += 1
        self.loaded -= count
        self.awaiting_reload = self.loaded < self.header.reload_below
        return press

    def undo(self) -> Press | None:
        """Remove the last press of this run (file and hopper); None when there is none."""
        if not self._made:
            return None
        press = self._made.pop()
        self.writer.remove_last()
        self.next_n, self.loaded = press.n, press.loaded
        self.since_reload = press.since_reload - 1
        self.awaiting_reload = False
        return press

    def state(self) -> dict[str, Any]:
        """What the phone shows: the next press, the cards loaded, whether to reload."""
        return {
            "next": self.next_n,
            "loaded": self.loaded,
            "cards_loaded": self.header.cards_loaded,
            "awaiting_reload": self.awaiting_reload,
            "planned": self.header.presses_planned,
            "undoable": len(self._made),
        }
