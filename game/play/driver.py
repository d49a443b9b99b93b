"""The device side of a game: a :class:`Table` presses a real launcher for the pure engine.

The engine (:class:`~game.core.engine.Game`) never touches a launcher. When an effect
needs presses, the game stops at a chance node (:meth:`~game.core.engine.Game.is_chance_node`;
:attr:`~game.core.engine.Game.press_due` says who presses, how many times and why). A
:class:`Presser` presses the launcher and feeds each outcome back as a ``fired:N``
move, until the game waits for a person again. :class:`Table` is a game with its
launcher: it opens the device, plays moves and settles the presses they cause.
:func:`play_out` is the one decision loop every caller drives a game with
(``simulate``, ``experiment``, bots, tests): deciders for the seats, a chance driver
for the presses, a hook per step and a stop condition.

A jam (:class:`~hardware.errors.LauncherFault`) with no fault handler leaves the
game exactly at the pending press: nothing is half-applied, and calling
:meth:`Presser.settle` again after the jam is cleared resumes it. With a handler (the
``play`` and ``referee`` tables ask the person) the press's outcome is the cards
the launcher counted before the jam plus the cards the person pulled out by
hand: all of them belong to the player who pressed. Only when nothing came out
at all (none counted, none pulled out) is the press made again. The engine takes
no more cards than its pile holds: a larger count (a miscounting sensor) is fed as
the pile's size.

The launcher's hopper model mirrors the engine's draw pile (:attr:`Game.pile`):
before a press the driver reloads the hopper whenever the engine dealt,
reloaded, or the two disagree (after a jam took cards out by hand).
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from game.core.chance import derive_seed, fresh_seed, seeded
from game.core.engine import EventCallback, Game
from game.core.moves import NEXT_ROUND, Decision, FiredMove, Move, fired
from game.core.rulesets import Ruleset, ruleset_for
from hardware.errors import LauncherFault
from launcher.base import Capability, DrawPile, Launcher

if TYPE_CHECKING:
    from game.bots.base import Bot

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
        #: One press, only its count: a :class:`Launcher`'s :meth:`~Launcher.hit_count` (no
        #: Volley), else the backend's ``hit``; chosen here, not at every press (an ABC's
        #: ``isinstance`` costs 2 k instructions, a tenth of a press).
        self._press_count: Callable[[], int] = (
            launcher.hit_count if isinstance(launcher, Launcher) else partial(_hit_count, launcher)
        )
        #: Every fault met while pressing, in order.
        self.faults: list[LauncherFault] = []
        #: Presses fed to games as ``fired:N`` moves, and the cards they brought: the ``hit``
        #: events of the games, counted without reading (and so writing) their event logs.
        self.presses_fed = 0
        self.cards_fed = 0

    @property
    def replaying(self) -> bool:
        return bool(self._replay)

    def settle(self, game: Game) -> None:
        """Press until the game waits for a player (or is over); a fault leaves it at the press.

        The one press loop of every table, whatever its launcher (a draw pile's press is
        its cheaper :meth:`~launcher.base.Launcher.hit_count`, in :meth:`_press_live`).
        """
        sync = partial(self._sync, game)  # made once: a settle often makes several presses
        while game.pending is _PRESS:
            self._feed(game, self.next_count(sync))

    def press_once(self, game: Game) -> None:
        """Make one pending press and feed its outcome (raises LauncherFault, game unchanged)."""
        self._feed(game, self.next_count(lambda: self._sync(game)))

    def _feed(self, game: Game, count: int) -> None:
        """Feed a press that counted ``count`` as ``fired:N`` (no more than the pile holds),
        and count it in :attr:`presses_fed` and :attr:`cards_fed`."""
        outcome = _outcome(game, count)
        game.play(outcome)
        self.presses_fed += 1
        self.cards_fed += outcome.count

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
                return self._press_count()
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


def _hit_count(launcher: Launcher[Any]) -> int:
    """A press of a launcher that is not a :class:`Launcher` (its own ``hit``): the count."""
    return launcher.hit().counted


def _outcome(game: Game, count: int) -> FiredMove:
    """The ``fired:N`` to feed for a press that counted ``count``: no more than the pile holds."""
    held = len(game.pile)
    return fired(count if count <= held else held)


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


def launcher_odds(launcher: Launcher[Any]) -> tuple[float, ...] | None:
    """A launcher's per-press odds as plain data for the engine, when they are known.

    A draw pile shoots one card; a launcher whose profile is i.i.d. shoots ``k`` cards
    with its ``probabilities[k]``. Other profiles (patterns, escalating, load bands)
    depend on past presses: None, the engine's sampled mode.
    """
    if type(launcher) is DrawPile:
        return (0.0, 1.0)
    probabilities = getattr(getattr(launcher, "profile", None), "probabilities", None)
    return tuple(probabilities) if probabilities is not None else None


class Table:
    """A game at a table: the pure :class:`~game.core.engine.Game` and the launcher that feeds it.

    :meth:`play` makes a move and then presses the launcher for every chance node
    it reaches (through :attr:`presser`), until the game waits for a person again.
    Reading the game goes through :attr:`game` (or, for brevity, through the table:
    ``table.hands`` is ``table.game.hands``). ``push``/``pop``/``copy`` are the
    game's own and never press (a pushed move that reaches a press stops there).
    """

    def __init__(self, game: Game, presser: Presser) -> None:
        self.game = game
        self.presser = presser
        self.settle()

    @classmethod
    def new(
        cls,
        ruleset: str | Ruleset = "attack",
        players: int | Sequence[str] = 4,
        *,
        launcher: Launcher[Any] | str | None = None,
        seed: int | None = None,
        options: dict[str, Any] | None = None,
        on_event: EventCallback | None = None,
        on_fault: FaultHandler | None = None,
    ) -> Table:
        """Open the launcher and start a game on it (the first card's presses made).

        ``launcher``: a launcher object (used as is, never closed by the table),
        a spec such as ``"sim://?profile=web-game"``, ``"pile://"``, or None for
        the ruleset's default (a draw pile for classic and pocket, else
        ``$UNO_ATTACK_LAUNCHER`` or ``sim://``, seeded from the game seed).
        """
        rules = ruleset_for(ruleset, options)
        seed = fresh_seed() if seed is None else seed
        rules.check_players(players if isinstance(players, int) else len(players))
        device, owned = open_game_launcher(rules, launcher, seed)
        try:
            presser = Presser(device, owns_launcher=owned, on_fault=on_fault)
            return cls.start(presser, rules, players, seed, on_event=on_event)
        except BaseException:
            if owned:
                device.close()
            raise

    @classmethod
    def start(
        cls,
        presser: Presser,
        ruleset: Ruleset,
        players: int | Sequence[str],
        seed: int,
        *,
        on_event: EventCallback | None = None,
    ) -> Table:
        """Deal a game of ``ruleset`` and settle its first presses with ``presser``.

        The game knows the launcher only as its odds (:func:`launcher_odds`) and the
        name its ``game_start`` event logs.
        """
        odds = launcher_odds(presser.launcher)
        game = Game(
            ruleset,
            players,
            seeded(seed),
            seed=seed,
            on_event=on_event,
            press_odds=() if odds is None else odds,
            launcher=repr(presser.launcher),
        )
        return cls(game, presser)

    @property
    def launcher(self) -> Launcher[Any]:
        return self.presser.launcher

    def play(self, move: Move | str) -> None:
        """Make ``move`` (IllegalMove changes nothing), then the presses it led to."""
        game = self.game
        game.play(move)
        if game.pending is _PRESS:  # settle(), inlined: every move of a table passes here
            self.presser.settle(game)

    def start_next_round(self) -> None:
        """Play ``next-round`` (GameError unless a round is over), then its first presses."""
        self.game.start_next_round()
        self.settle()

    def settle(self) -> None:
        """Press for the pending chance nodes (a jam leaves the game at its press)."""
        if self.game.pending is _PRESS:
            self.presser.settle(self.game)

    def close(self) -> None:
        """Close the launcher if the table opened it."""
        self.presser.close()

    def __enter__(self) -> Table:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.game, name)

    def __repr__(self) -> str:
        return f"<Table {self.launcher!r} {self.game!r}>"


class ChanceDriver(Protocol):
    """Resolves a game's chance nodes: presses a launcher, or samples a model of one."""

    def settle(self, game: Game) -> None: ...


class SampledChance:
    """Chance for a game with no device: each press's count drawn from the game's odds.

    :meth:`Game.chance_outcomes` when it is explicit, else ``model`` (a function of
    the pile's size to a count), else one card per press. Seeded: the same seed
    draws the same counts.
    """

    def __init__(self, seed: int, model: Callable[[int], int] | None = None) -> None:
        self._random = random.Random(seed)
        self.model = model

    def settle(self, game: Game) -> None:
        while game.pending is _PRESS:
            outcomes = game.chance_outcomes()
            if outcomes:
                moves, weights = zip(*outcomes, strict=True)
                game.play(self._random.choices(moves, weights)[0])
            elif self.model is not None:
                game.play(_outcome(game, self.model(len(game.pile))))
            else:
                game.play(_outcome(game, 1))


#: A game with more rounds than this is stopped (a safety net; never seen in practice).
MAX_ROUNDS = 1000


class Wait:
    """What a decider returns when the move must come from outside (a person on a web page):
    :func:`play_out` returns, the game waits at the decision; call it again after the move."""

    def __repr__(self) -> str:
        return "WAIT"


WAIT = Wait()


def play_out(
    game: Game,
    deciders: Sequence[Bot | Callable[[Game, int], Move | str | Wait | None]],
    chance: ChanceDriver,
    *,
    before_decision: Callable[[Game], None] | None = None,
    on_step: Callable[[Game, Move | str | None], None] | None = None,
    stop: Callable[[Game], bool] | None = None,
    table_moves: bool = True,
    max_rounds: int | None = MAX_ROUNDS,
) -> None:
    """Play ``game`` until it is over, ``stop(game)`` says so, or ``max_rounds`` were played.

    The one decision loop: at a chance node ``chance`` resolves the presses
    (a :class:`Presser`, a :class:`SampledChance`); a round that is over is followed
    by ``next-round``; otherwise ``before_decision(game)`` may let seats move out of
    turn (a table's window for UNO calls and catches), then the decider's entry of
    ``deciders`` gives the move: a bot, or a function of the game and the seat that
    returns the move (None when it made its moves itself, :data:`WAIT` to return and
    wait for a move from outside). After each move, when
    the deciders are bots and ``table_moves``, each seat may call UNO, catch, or jump
    in (:func:`~game.bots.base.offer_table_moves`). ``on_step(game, move)`` is called
    after each move (``next-round`` included) once its presses and the table's moves
    are made. A fault from ``chance`` (a jam) propagates and leaves the game at its
    press: call ``play_out`` again to carry on.
    """
    from game.bots.base import Bot, offer_table_moves

    play, settle = game.play, chance.settle

    def make(move: Move | str) -> None:
        play(move)
        if game.pending is _PRESS:
            settle(game)

    bots = [d for d in deciders if isinstance(d, Bot)]
    offer = table_moves and len(bots) == len(deciders)
    #: Each seat's bot, or None where a function decides (it may return WAIT or None).
    seat_bots = [d if isinstance(d, Bot) else None for d in deciders]
    settle(game)
    is_game_over, is_round_over = game.is_game_over, game.is_round_over
    while not is_game_over():
        if stop is not None and stop(game):
            return
        move: Move | str | None
        if is_round_over():
            if max_rounds is not None and game.round_number >= max_rounds:
                return
            make(move := NEXT_ROUND)
        else:
            if before_decision is not None:
                before_decision(game)
                if game.is_round_over() or game.is_game_over():
                    continue
            seat = game.decider
            bot = seat_bots[seat]
            if bot is not None:  # a bot always returns one of the seat's moves
                move = bot.choose(game, seat)
                make(move)
            else:
                choice = deciders[seat](game, seat)  # type: ignore[operator]  # not a Bot
                if isinstance(choice, Wait):
                    return
                move = choice
                if move is not None:
                    make(move)
            if offer and game.table_moves():
                offer_table_moves(game, bots, play=make)
        if on_step is not None:
            on_step(game, move)
