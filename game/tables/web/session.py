"""One game at one web table: the :class:`~game.core.engine.Game`, its launcher, journal and bots.

Everything that changes the game happens in one place, :class:`GameSession`, and
synchronously: the web layer calls it from a worker thread, one call at a time (one
asyncio lock), so a launcher press never blocks the event loop and two phones never
change the game at once. Each engine event is appended to :attr:`GameSession.log`, and
:attr:`listeners` are told at once (from the worker thread), so the table screen shows
each press as it happens.

The decision loop (:meth:`GameSession.advance`) is the ``play`` table's: before each
decision the bots may call UNO or catch (people do it from their phones), bots decide
at once, a new round starts by itself, and the loop stops where a person must decide.
A person's moves arrive through :meth:`GameSession.act`, which accepts them only if they
are among that seat's legal moves *now*.

Journal and resume: a web game writes a ``play`` journal (:mod:`game.play.journal`): one
``move`` record per decision and one chance record per press. :meth:`GameSession.open`
on a ``--resume`` rebuilds the game by running the same loop with the people's moves
taken from the journal and the bots deciding again (checked against it); the launcher's
counts are fed back by the press driver, so no card is fired twice. The events are
produced again in the same order, so the event numbers (versions) that phones remember
stay valid across a restart.

A jam (:class:`~hardware.errors.LauncherFault`) sets :attr:`GameSession.jam` and waits,
in the worker thread, for the host's answer (:meth:`answer_jam`): the number of cards
pulled out by hand, or ``None`` to press again (the rules of :class:`~game.play.driver.Presser`).
"""

from __future__ import annotations

import queue
import threading
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from game.bots import Bot, make_bot, seat_moves
from game.core.cards import NotationError
from game.core.chance import derive_seed, fresh_seed
from game.core.engine import Game
from game.core.errors import GameError, IllegalMove, JournalError
from game.core.moves import NEXT_ROUND, Decision, FiredMove, Move
from game.core.rulesets import load_ruleset
from game.play.driver import WAIT, Presser, Table, Wait, open_game_launcher, play_out
from game.play.journal import (
    MOVE,
    Journal,
    JournalWriter,
    Record,
    check_replayed_moves,
    confirm_launcher,
    read_journal,
)
from game.tables.web.auth import Tokens
from game.tables.web.settings import WebSettings
from game.tables.web.views import seat_options
from hardware.errors import LauncherError, LauncherFault
from launcher.spec import resolve_spec

#: The most cards a host may say were pulled out of a jammed launcher.
MAX_PULLED = 200
#: Presses a trial of a move list goes through at most (each taken as no card).
MAX_TRIAL_PRESSES = 20


class ActionRefused(GameError):
    """A page asked for something the server does not allow now; nothing changed."""

    hint = "look at the page again: it shows what you may do now"


class SessionClosed(GameError):
    """The server is stopping; the game is in its journal."""


_CLOSED = object()


class GameSession:
    """The game, its people and bots, its journal; see the module docstring."""

    def __init__(self, settings: WebSettings) -> None:
        self._resumed: Journal | None = None
        if settings.resume is not None:
            self._resumed = read_journal(settings.resume)
            spec = _resumed_launcher(self._resumed, settings.launcher)
            settings = settings.with_header({**self._resumed.header, "launcher": spec})
        self.settings = settings
        self.rules = load_ruleset(settings.ruleset, settings.options)
        self.rules.check_players(len(settings.seats))
        self.seed = settings.seed if settings.seed is not None else fresh_seed()
        self.spec = settings.launcher or (
            "pile://" if self.rules.draws_from_pile else resolve_spec(None)
        )
        self.names = settings.names
        self.bot_names = [seat.bot for seat in settings.seats]
        self.bots: list[Bot | None] = [
            make_bot(name, derive_seed(self.seed, f"bot:{i}")) if name else None
            for i, name in enumerate(self.bot_names)
        ]
        # the launcher first: a launcher that is not there is an error before any file is made
        self._device, _ = open_game_launcher(self.rules, self.spec, self.seed)
        try:
            self.writer = self._journal_writer()
            self.tokens = Tokens.for_journal(
                settings.resume or settings.journal,
                len(self.names),
                resume=settings.resume is not None,
            )
        except BaseException:
            self._device.close()
            raise
        self.game: Game | None = None
        #: The game with its launcher (the game's moves are made through it).
        self.table: Table | None = None
        #: Every engine event so far, complete (views cut it down per viewer).
        self.log: list[dict[str, Any]] = []
        self._log_lock = threading.Lock()
        #: Called (from the worker thread) after each event and each jam change.
        self.listeners: list[Callable[[], None]] = []
        #: The pending jam (message, fault, hint, counted, seat, name), or None.
        self.jam: dict[str, Any] | None = None
        self._jam_answers: queue.Queue[object] = queue.Queue()
        self._replay: deque[Record] = deque()
        self._last_actor: int | None = None
        self._window_at = -1
        self.stopped_early = False
        self.closed = False
        #: What a launcher failure (not a jam) said; the game waits at its press for the host.
        self.stuck: str | None = None

    # -- life cycle ------------------------------------------------------------------
    def open(self) -> None:
        """Build the game (pressing the launcher if the first card asks), replay, run bots."""
        journal = self._resumed
        if journal is not None:
            self._replay = deque(
                r for r in journal.records if r["type"] == MOVE and not r.get("chance")
            )
        presser = Presser(
            self._device,
            owns_launcher=True,
            on_fault=self._on_fault,
            on_outcome=self._journal_chance,
            replay=journal.press_counts if journal else (),
        )
        try:
            self.table = Table.start(
                presser, self.rules, self.names, self.seed, on_event=self._on_event
            )
            self.game = self.table.game
        except BaseException:
            presser.close()
            raise
        self.advance()

    def _journal_writer(self) -> JournalWriter | None:
        """The journal to append to; a new one refuses an existing file before tokens are made."""
        if self._resumed is not None:
            return JournalWriter.reopen(self._resumed)  # cuts a torn tail at the first write
        if self.settings.journal is None:
            return None
        return JournalWriter.create(
            self.settings.journal, self.settings.header(self.seed, self.spec)
        )

    def release(self) -> None:
        """Stop: a worker waiting for a jam answer gives up (:class:`SessionClosed`)."""
        self.closed = True
        self._jam_answers.put(_CLOSED)

    def close(self) -> None:
        """Release a jam wait, close the launcher and the journal (the game stays in it)."""
        self.release()
        if self.table is not None:
            self.table.close()
        else:
            self._device.close()
        if self.writer is not None:
            self.writer.close()

    @property
    def version(self) -> int:
        """How many events the game has produced: what a page remembers to rejoin."""
        return len(self.log)

    def events_since(self, version: int) -> list[tuple[int, dict[str, Any]]]:
        """(version after the event, event) for every event after ``version``."""
        with self._log_lock:
            start = max(0, min(version, len(self.log)))
            return [(i + 1, e) for i, e in enumerate(self.log[start:], start=start)]

    def _on_event(self, event: dict[str, Any]) -> None:
        with self._log_lock:
            self.log.append(event)
        self._notify()

    def _notify(self) -> None:
        for listener in list(self.listeners):
            listener()

    # -- people ------------------------------------------------------------------------
    def act(self, seat: int, texts: list[str], version: int | None = None) -> str | None:
        """Make ``seat``'s moves (notation, e.g. ``["R5", "uno"]``) and let the bots answer.

        All or nothing: every move must be legal after the ones before it (tried first on a
        copy of the game, without the launcher), or :class:`ActionRefused` is raised and
        nothing changes. ``version``: the event count the page showed; a page that is
        behind is refused, so a double tap never makes a second move the person never saw.
        """
        game = self._ready()
        if self.jam is not None:
            raise ActionRefused("the launcher is jammed: wait for the host to clear it")
        if game.pending is Decision.PRESS:
            raise ActionRefused("the launcher failed: wait for the host to press it again")
        if version is not None and version != self.version:
            raise ActionRefused("the table changed since your page was drawn: look again")
        if not texts or len(texts) > 4:
            raise ActionRefused("send one move (and at most a few follow-ups)")
        moves = [_parse(text) for text in texts]
        _check_moves(game, seat, moves)
        table = not (game.decider == seat and moves[0] in game.legal_moves())
        with self._watch_launcher():
            note = self._play_human(seat, moves, table=table, record=True)
            self.advance()
        return note

    def press_again(self) -> None:
        """The host's "press": make the press a launcher failure left pending, then go on."""
        game = self._ready()
        if game.pending is not Decision.PRESS or self.table is None:
            raise ActionRefused("no press is waiting: the launcher is pressed by the game")
        with self._watch_launcher():
            self.table.settle()
            self.advance()

    @contextmanager
    def _watch_launcher(self) -> Iterator[None]:
        """A launcher error leaves the game at its press: say so until the host presses again."""
        try:
            yield
        except LauncherError as error:
            self.stuck = f"{error}"
            self._notify()
            raise
        self.stuck = None

    def _play_human(self, seat: int, moves: list[Move], *, table: bool, record: bool) -> str | None:
        return self._apply(seat, moves, table=table, record=record, check=True)

    def _apply(
        self, seat: int, moves: list[Move], *, table: bool, record: bool, check: bool
    ) -> str | None:
        """Play ``moves`` for ``seat`` and journal the ones the engine made.

        A move the engine accepted stays made even when the press after it fails (the
        launcher raised): it is journaled all the same, so the journal never falls behind
        the game. With ``check``, a follow-up move that is not legal is returned as a note.
        """
        game = self._ready()
        seated = self._seated()
        played: list[Move] = []
        note = None
        try:
            for move in moves:
                if check and played and move not in seat_options(game, seat):
                    note = f"{move} was not possible after {played[-1]}"
                    break
                try:
                    seated.play(move)
                except IllegalMove:
                    raise
                except BaseException:
                    played.append(move)  # made by the engine; the press after it failed
                    raise
                played.append(move)
        finally:
            if record:
                self._record(seat, played, table=table)
            self._last_actor = seat
        return note

    # -- the decision loop -----------------------------------------------------------
    def advance(self) -> None:
        """Bots move and rounds start until a person must decide, or the game is over."""
        game = self._ready()
        play_out(
            game,
            [self._decide] * len(self.bots),
            self._seated().presser,
            before_decision=self._window,
            on_step=self._after_step,
            stop=self._should_stop,
            table_moves=False,  # the window before each decision offers them
            max_rounds=None,
        )
        if game.is_game_over() and self._replay:
            raise JournalError(
                f"the journal has {len(self._replay)} move(s) after the end of the game"
            )

    def _should_stop(self, game: Game) -> bool:
        """``rounds`` rounds were played (the setting): the table stops early."""
        if game.pending is Decision.ROUND_OVER and self.settings.rounds:
            self.stopped_early = game.round_number >= self.settings.rounds
        return self.stopped_early

    def _window(self, game: Game) -> None:
        """Before a decision (not a person's next answer), once per table change."""
        seat = game.decider
        continuing = self.bots[seat] is None and self._last_actor == seat
        if not continuing and self._window_at != self.version:
            self._bot_window()
            self._window_at = self.version

    def _decide(self, game: Game, seat: int) -> Wait | None:
        """A bot plays; a person's move is replayed from the journal, or awaited (WAIT)."""
        if self.bots[seat] is not None:
            self._bot_turn(seat)
        elif self._replay:
            self._replay_person()
        else:
            return WAIT
        return None

    def _after_step(self, game: Game, move: Move | str | None) -> None:
        if move is NEXT_ROUND:
            self._last_actor = None

    def _bot_window(self) -> None:
        """Before a decision, each bot may call UNO, catch, or jump in (seat order)."""
        game = self._ready()
        first = game.uno_pending if game.uno_pending is not None else game.decider
        count = len(self.bots)
        for offset in range(count):
            seat = (first + offset) % count
            bot = self.bots[seat]
            if bot is None:
                continue
            moves = seat_moves(game, seat, game.table_moves())
            choice = bot.table_move(game, seat, moves) if moves else None
            if choice is not None:
                self._commit_bot(seat, [choice], table=True)

    def _bot_turn(self, seat: int) -> None:
        bot = self.bots[seat]
        assert bot is not None
        self._commit_bot(seat, [bot.choose(self._ready(), seat)])

    def _commit_bot(self, seat: int, moves: list[Move], *, table: bool = False) -> None:
        replayed = bool(self._replay)
        if replayed:
            record = self._replay.popleft()
            made = [str(m) for m in moves]
            check_replayed_moves(record, seat, made, f"the bot {self.names[seat]}")
        self._apply(seat, moves, table=table, record=not replayed, check=False)

    def _replay_person(self) -> None:
        """Apply the next journaled move of a person, checked like a live one."""
        record = self._replay.popleft()
        seat, texts = record.get("seat"), list(record.get("moves", []))
        if not isinstance(seat, int) or not 0 <= seat < len(self.bots) or self.bots[seat]:
            raise JournalError(f"the journal has a move by seat {seat} where a person decides")
        try:
            moves = [Move.parse(text) for text in texts]
            if not moves or moves[0] not in seat_options(self._ready(), seat):
                raise IllegalMove(f"{texts} is not legal for seat {seat} here")
            self._play_human(seat, moves, table=bool(record.get("table")), record=False)
        except (IllegalMove, NotationError) as error:
            raise JournalError(f"journaled move {texts} cannot be replayed: {error}") from None

    def _record(self, seat: int, moves: list[Move], *, table: bool) -> None:
        if self.writer is not None and moves:
            record: Record = {"type": MOVE, "seat": seat, "moves": [str(m) for m in moves]}
            if table:
                record["table"] = True
            self.writer.append(record)

    def _journal_chance(self, move: Move) -> None:
        if self.writer is not None:
            self.writer.append({"type": MOVE, "chance": True, "moves": [str(move)]})

    # -- jams ----------------------------------------------------------------------------
    def _on_fault(self, fault: LauncherFault) -> int | None:
        """In the worker thread: show the jam, wait for the host, return its answer."""
        game = self.game
        due = game.press_due if game is not None else None
        seat = due.seat if due is not None else None
        self.jam = {
            "message": str(fault),
            "fault": fault.fault,
            "hint": fault.hint,
            "counted": fault.counted,
            "seat": seat,
            "name": self.names[seat] if seat is not None else None,
        }
        self._notify()
        try:
            answer = self._jam_answers.get()
        finally:
            self.jam = None
            self._notify()
        if answer is _CLOSED:
            raise SessionClosed("the server stopped while the launcher was jammed")
        return answer if isinstance(answer, int) else None

    def answer_jam(self, pulled: int | None) -> None:
        """The host's answer to a jam: cards pulled out by hand, or None to press again."""
        if self.jam is None:
            raise ActionRefused("there is no jam to clear")
        if pulled is not None and not 0 <= pulled <= MAX_PULLED:
            raise ActionRefused(f"cards pulled out: give 0 to {MAX_PULLED}")
        self._jam_answers.put(pulled)

    def _seated(self) -> Table:
        """The game's table (the launcher side), once the game is ready."""
        self._ready()
        assert self.table is not None  # set with the game
        return self.table

    def _ready(self) -> Game:
        if self.game is None:
            raise ActionRefused("the game is still starting")
        if self.closed:
            raise SessionClosed("the server is stopping")
        return self.game


def _check_moves(game: Game, seat: int, moves: list[Move]) -> None:
    """Refuse ``moves`` unless each is legal for ``seat`` after the ones before it.

    Tried on a copy of the game (no launcher, no events): a press it reaches is taken as
    no card, which does not change what the seat may do next (a call of UNO after its card).
    """
    trial = game.copy()
    for number, move in enumerate(moves):
        for _ in range(MAX_TRIAL_PRESSES):
            if trial.pending is not Decision.PRESS:
                break
            trial.play(FiredMove(0))
        if move not in seat_options(trial, seat):
            after = f" after {moves[number - 1]}" if number else " now"
            raise ActionRefused(f"{move} is not one of your moves{after}: nothing was played")
        try:
            trial.play(move)
        except IllegalMove as error:
            raise ActionRefused(f"{move}: {error}") from None


def _parse(text: object) -> Move:
    if not isinstance(text, str) or len(text) > 40:
        raise ActionRefused("a move is a short text such as R7, draw or color:G")
    try:
        return Move.parse(text)
    except NotationError as error:
        raise ActionRefused(f"{text!r} is not a move: {error}") from None


def _resumed_launcher(journal: Journal, given: str | None) -> str:
    """The journal's launcher; hardware only if ``--launcher`` names it again."""
    try:
        return confirm_launcher(journal, given, interactive=False, ask=input)
    except JournalError as error:
        spec = journal.header["launcher"]
        raise JournalError(
            str(error),
            hint=f"if it is your launcher, run: uno-attack table serve --resume {journal.path} "
            f"--launcher '{spec}'",
        ) from None


def journal_of(settings: WebSettings) -> Path | None:
    """The journal file this table writes (its own, or the one it resumes)."""
    return settings.resume or settings.journal
