"""The one press-and-feed driver: launcher presses are chance moves the engine asks for.

The engine never touches a launcher. When an effect needs presses, the game
stops with ``pending`` = :attr:`~game.moves.Decision.PRESS` and
:attr:`~game.engine.Game.press_due` saying who presses, how many times and why
(an OpenSpiel chance node). A :class:`Presser` presses the launcher and feeds
each outcome back as a ``fired:N`` move, until the game waits for a person
again. ``simulate``, ``play``, ``referee`` (its replay), bots and tests all go
through :meth:`Presser.settle`, so "every hit presses the launcher" is one code
path.

A jam (:class:`~hardware.errors.LauncherFault`) with no fault handler leaves the
game exactly at the pending press: nothing is half-applied, and calling
:meth:`settle` again after the jam is cleared resumes it. With a handler (the
``play`` and ``referee`` tables ask the person) the press's outcome is the cards
the launcher counted before the jam plus the cards the person pulled out by
hand: all of them belong to the player who pressed. Only when nothing came out
at all (none counted, none pulled out) is the press made again.

The launcher's hopper model mirrors the engine's draw pile (:attr:`Game.pile`):
before a press the driver reloads the hopper whenever the engine dealt,
reloaded, or the two disagree (after a jam took cards out by hand).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from functools import partial
from typing import TYPE_CHECKING, Any

from game.chance import derive_seed
from game.moves import Decision, FiredMove, Move
from hardware.errors import LauncherFault
from launcher.base import Capability, DrawPile, Launcher

if TYPE_CHECKING:
    from game.engine import Game
    from game.rulesets import Ruleset

_PRESS = Decision.PRESS

#: Asked when a press faults; returns how many cards came out (the press's outcome), or None
#: to press again once the fault is cleared.
FaultHandler = Callable[[LauncherFault], "int | None"]


class Presser:
    """Presses ``launcher`` for a game's chance nodes and feeds the outcomes back.

    ``replay``: journaled press counts fed (in order) instead of pressing, for a
    resumed game; a ``sim://`` launcher (seeded) is still pressed while
    replaying so its random stream continues where it stopped.
    ``on_outcome`` is called with the ``fired`` move of every live press (to journal it;
    replayed counts are in the journal already).
    """

    def __init__(
        self,
        launcher: Launcher[Any],
        *,
        owns_launcher: bool = False,
        on_fault: FaultHandler | None = None,
        on_outcome: Callable[[FiredMove], None] | None = None,
        replay: Iterable[int] = (),
    ) -> None:
        self.launcher = launcher
        self.owns_launcher = owns_launcher
        self.on_fault = on_fault
        self.on_outcome = on_outcome
        self._replay: deque[int] = deque(replay)
        self._generation: tuple[int, int] | None = None
        #: Every fault met while pressing, in order.
        self.faults: list[LauncherFault] = []

    @property
    def replaying(self) -> bool:
        return bool(self._replay)

    def settle(self, game: Game) -> None:
        """Press until the game waits for a player (or is over); a fault leaves it at the press."""
        launcher = self.launcher
        if type(launcher) is DrawPile and not self._replay and self.on_outcome is None:
            self._settle_pile(game, launcher)
            return
        sync = partial(self._sync, game)  # made once: a settle often makes several presses
        while game.pending is Decision.PRESS:
            game.play(fired(self.next_count(sync)))

    def _settle_pile(self, game: Game, pile: DrawPile[Any]) -> None:
        """:meth:`settle` for the in-memory draw pile (classic, pocket, ``pile://``).

        The same presses, hopper model and ``fired:N`` moves as the general loop, in
        fewer calls: a draw pile never faults, so there is nothing to catch; no
        :class:`~launcher.base.Volley` is built; the hopper check of :meth:`_sync` is
        made by the press (the ``presser`` loop of ``bench/bench_engine.py``, about a
        third of its presses' cost, docs/performance.md).
        """
        press, play, outcome, key = pile.hit_count, game.play, _FIRED, id(game)
        while game.round.pending is _PRESS:
            # the hopper check of _sync, made by the press itself (-1: reload first)
            count = (
                press(len(game.round.pile))
                if self._generation == (key, game.pile_generation)
                else -1
            )
            if count < 0:
                self._sync(game)
                count = press()
            play(outcome[count])  # a draw pile yields 0 or 1: both made below

    def press_once(self, game: Game) -> None:
        """Make one pending press and feed its outcome (raises LauncherFault, game unchanged)."""
        game.play(fired(self.next_count(lambda: self._sync(game))))

    def next_count(self, sync: Callable[[], None]) -> int:
        """Press once (or take the next journaled count) and return the cards counted.

        ``sync`` first makes the launcher's hopper model match the caller's pile
        (the engine's cards, or the referee's count of placeholders).
        """
        if self._replay:
            count = self._replay.popleft()
            if self.launcher.backend == "sim":
                self._fast_forward(sync)
            return count
        count = self._press_live(sync)
        if self.on_outcome is not None:
            self.on_outcome(fired(count))
        return count

    def _press_live(self, sync: Callable[[], None]) -> int:
        while True:
            sync()
            try:
                return self.launcher.hit().counted
            except LauncherFault as fault:
                self.faults.append(fault)
                self._generation = None  # cards may have left the hopper model
                if self.on_fault is None:
                    raise
                before = fault.counted  # counted before the jam: they are the presser's
                taken = self.on_fault(fault)
                clear_fault(self.launcher)
                if taken is not None or before:
                    return before + (taken or 0)

    def _fast_forward(self, sync: Callable[[], None]) -> None:
        """Replaying a seeded simulation: press it too, so its random stream stays in step."""
        sync()
        try:
            self.launcher.hit()
        except LauncherFault:
            clear_fault(self.launcher)
            self._generation = None

    def _sync(self, game: Game) -> None:
        """Make the launcher's hopper model hold the engine's draw pile (bottom first)."""
        stamp = (id(game), game.pile_generation)
        if stamp == self._generation and self.launcher.remaining == len(game.pile):
            return
        self.launcher.unload()
        self.launcher.load(game.pile)
        self._generation = stamp

    def sync_count(self, count: int, placeholder: Any, generation: int) -> None:
        """Make the hopper model hold ``count`` placeholders (the referee knows no identities).

        ``generation`` changes whenever the table deals or reloads.
        """
        stamp = (-1, generation)
        if stamp == self._generation and self.launcher.remaining == count:
            return
        self.launcher.unload()
        self.launcher.load([placeholder] * count)
        self._generation = stamp

    def close(self) -> None:
        if self.owns_launcher:
            self.launcher.close()


#: ``fired:N`` moves made once each (a move is immutable; a game makes a thousand presses,
#: and building the frozen dataclass costs more than the press of a simulated launcher).
_FIRED: dict[int, FiredMove] = {}


def fired(count: int) -> FiredMove:
    """The move ``fired:count``, shared for small counts."""
    move = _FIRED.get(count)
    if move is None:
        move = Move.fired(count)
        if 0 <= count < 64:
            _FIRED[count] = move
    return move


fired(0), fired(1)  # the only outcomes of a draw pile's press (Presser._settle_pile)


def clear_fault(launcher: Launcher[Any]) -> None:
    """Clear a latched fault on backends that latch one (gpio, serial, emu); others need nothing."""
    if launcher.supports(Capability.CLEAR_FAULT):
        launcher.clear_fault()


def open_game_launcher(
    ruleset: Ruleset, launcher: Launcher[Any] | str | None, seed: int
) -> tuple[Launcher[Any], bool]:
    """The launcher to play with, and whether the game owns (and closes) it.

    ``None``: a :class:`DrawPile` for pile rulesets, else the default spec
    (``$UNO_ATTACK_LAUNCHER`` or ``sim://``); ``"pile://"``: a draw pile; other
    text: a launcher spec, seeded from the game seed when it names no seed.
    """
    if isinstance(launcher, Launcher) or (launcher is not None and not isinstance(launcher, str)):
        return launcher, False
    if launcher == "pile://" or (launcher is None and ruleset.draws_from_pile):
        return DrawPile(), True
    from launcher.spec import open_launcher

    return open_launcher(launcher, default_seed=derive_seed(seed, "launcher")), True
