"""The table for ``uno-attack play``: people and bots around one terminal, journaled move by move.

A :class:`TablePlay` drives a :class:`~game.core.engine.Game`. Bots decide by
themselves; a person sees the table and their own hand (hot-seat: with two or
more people the last person keeps their result on screen until they press Enter,
then the screen is cleared and the next person, shown the journal line and a recap
of what happened since their last turn, is asked to take the seat before their hand
is shown), picks from the numbered legal moves, and gets the
reason and the same question again for anything the rules or the parser
refuse. Every launcher press is shown as it happens (the engine's event
callback is synchronous).

Journal and resume (``game.play.journal``): each decision is one ``move`` record
(the seat and the moves it made, e.g. ``["R5", "uno"]``). Resuming replays the
same loop with the people's answers taken from the journal and the bots
deciding again: the bots' and the launcher's random streams then continue
exactly where they stopped, and a bot that decides differently from the
journal is reported as a :class:`~game.core.errors.JournalError`.

Catching a missed UNO ("before the next player begins"): before each decision
every seat gets the chance in turn — bots through their table moves
(``Game.table_moves``), people who are not next by a yes/no question, and the
person next to decide finds the catch in their own list of moves.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from game.bots import Bot, seat_moves
from game.core.cards import Card, NotationError
from game.core.engine import Game
from game.core.errors import IllegalMove, JournalError
from game.core.moves import (
    NEXT_ROUND,
    AimMove,
    CatchMove,
    ChooseMove,
    Decision,
    DrawMove,
    GiveMove,
    Move,
    MoveKind,
    PlayMove,
    UnoMove,
)
from game.core.observe import canonical
from game.play.driver import Table, play_out
from game.play.journal import MOVE, JournalWriter, Record, check_replayed_moves
from game.tables.prompt import Menu, QuitRequested, ask, normalise, parse_yes_no
from game.tables.tui import (
    ARROWS,
    Painter,
    PressAnimator,
    Seat,
    TableView,
    render_help,
    render_menu,
    render_table,
)


@dataclass(frozen=True)
class PlaySeat:
    """A seat at the table: a person (``bot is None``) or a bot."""

    name: str
    bot: Bot | None = None

    @property
    def is_human(self) -> bool:
        return self.bot is None


@dataclass
class Console:
    """Where the table writes and how it reads a line (``input`` in the real program)."""

    out: TextIO
    read: Callable[[str], str]
    painter: Painter
    animator: PressAnimator

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()


class TablePlay:
    """One game at one table; :meth:`run` plays until the game (or the round limit) ends."""

    def __init__(
        self,
        table: Table,
        seats: Sequence[PlaySeat],
        console: Console,
        *,
        journal: JournalWriter | None = None,
        replay: Sequence[Record] = (),
        max_rounds: int | None = None,
        narrator: Narrator | None = None,
        replay_only: bool = False,
        after_decision: Callable[[], None] | None = None,
    ) -> None:
        #: The game and the launcher that feeds it; :attr:`game` is the pure game.
        self.table = table
        self.game = table.game
        self.narrator = narrator
        #: ``uno-attack replay``: stop when the journal runs out and narrate the replayed moves.
        self.replay_only = replay_only
        self.after_decision = after_decision
        self.seats = list(seats)
        self.console = console
        self.journal = journal
        self.max_rounds = max_rounds
        self._replay: deque[Record] = deque(
            r for r in replay if r["type"] == MOVE and not r.get("chance")
        )
        self._shown: int | None = None
        self._humans = sum(seat.is_human for seat in self.seats)
        #: Per seat, how many events it had seen when it last left the terminal (the recap).
        self._seen_up_to: dict[int, int] = {}
        self._words = narrator if narrator is not None else Narrator(console, self.seats)
        self.stopped_early = False
        self._sync_narrator()

    @property
    def replaying(self) -> bool:
        return bool(self._replay)

    # -- the loop -----------------------------------------------------------------------
    def run(self) -> None:
        """Play on; returns at game end, at the round limit, or raises QuitRequested."""
        play_out(
            self.game,
            [self._decide] * len(self.seats),
            self.table.presser,
            before_decision=lambda game: self._table_window(),
            on_step=self._after_step,
            stop=self._should_stop,
            table_moves=False,  # the window before each decision offers them
            max_rounds=None,
        )

    def _should_stop(self, game: Game) -> bool:
        """The replay ran out (``uno-attack replay``), or ``--rounds`` rounds were played."""
        if self.replay_only and not self._replay:
            return True
        if game.pending is Decision.ROUND_OVER and self.max_rounds:
            self.stopped_early = game.round_number >= self.max_rounds
        return self.stopped_early

    def _decide(self, game: Game, seat: int) -> None:
        """A person answers at the terminal (or from the journal), a bot chooses; both play."""
        if self.seats[seat].is_human:
            self._human_turn(seat)
        else:
            self._bot_turn(seat)

    def _after_step(self, game: Game, move: Move | str | None) -> None:
        if move is not NEXT_ROUND and self.after_decision is not None:
            self.after_decision()

    def _table_window(self) -> None:
        """Before the next decision, seats may call UNO or catch (the caller first, then in order).

        Bots use :meth:`~game.bots.Bot.table_move`; a person who is not next to
        decide is asked whether to catch a player who did not call UNO (the next
        person to decide finds the catch in their own list of moves).
        """
        game = self.game
        first = game.uno_pending if game.uno_pending is not None else game.decider
        for offset in range(len(self.seats)):
            seat = (first + offset) % len(self.seats)
            moves = seat_moves(game, seat, game.table_moves())
            bot = self.seats[seat].bot
            if not moves:
                continue
            if bot is None:
                self._offer_catch(seat, moves)
                continue
            choice = bot.table_move(game, seat, moves)
            if choice is not None:
                self._commit(seat, [choice], table=True)

    def _offer_catch(self, seat: int, moves: list[Move]) -> None:
        catches = [move for move in moves if isinstance(move, CatchMove)]
        if not catches or seat == self.game.decider:
            return
        if self._replay or self.replay_only:
            self._replay_table_move(seat)
            return
        victim = self._seat_name(catches[0].seat)
        name = self.seats[seat].name
        question = f"{name}, {victim} has one card and did not call UNO. Catch? [y/n] "
        if ask(self.console.read, self.console.say, question, parse_yes_no):
            self.table.play(catches[0])
            self._record(seat, [catches[0]], table=True)

    def _replay_table_move(self, seat: int) -> None:
        """A person's catch is in the journal only if they made it; a "no" left no record."""
        if not self._replay:
            return
        record = self._replay[0]
        if record.get("seat") != seat or not record.get("table"):
            return
        self._replay.popleft()
        for text in record.get("moves", []):
            self.table.play(Move.parse(text))
        self._sync_narrator()

    def _bot_turn(self, seat: int) -> None:
        bot = self.seats[seat].bot
        assert bot is not None
        self._commit(seat, [bot.choose(self.game, seat)])

    def _commit(self, seat: int, moves: list[Move], *, table: bool = False) -> None:
        """Play a bot's moves; while replaying, check them against the journal."""
        replayed = bool(self._replay)
        if replayed:
            record = self._replay.popleft()
            check_replayed_moves(record, seat, [str(m) for m in moves], self.seats[seat].name)
        for move in moves:
            self.table.play(move)
        if not replayed:
            self._record(seat, moves, table=table)
        self._sync_narrator()

    def _record(self, seat: int, moves: list[Move], *, table: bool = False) -> None:
        if self.journal is not None and moves:
            record: Record = {"type": MOVE, "seat": seat, "moves": [str(m) for m in moves]}
            if table:
                record["table"] = True
            self.journal.append(record)

    def _sync_narrator(self) -> None:
        if self.narrator is not None and not self.replay_only:
            self.narrator.muted = bool(self._replay)

    # -- people -------------------------------------------------------------------------
    def _human_turn(self, seat: int) -> None:
        """One person's turn: answers until the decision passes to someone else.

        No table window opens in between (a Wild and its colour are one turn),
        and the replay follows exactly the same rule, record by record.
        """
        if self._replay and self._replay_human(seat):
            return
        self._hand_over(seat)
        self.console.say(self._screen(seat))
        while True:
            moves = ask(
                self.console.read,
                self.console.say,
                self._question(seat),
                lambda text: self._parse(seat, text),
                on_help=self._help,
            )
            if self._try(seat, moves):
                return

    def _replay_human(self, seat: int) -> bool:
        """Re-apply the person's journaled answers; False if the journal ends mid-turn."""
        while self._replay:
            record = self._replay.popleft()
            if record.get("seat") != seat:
                raise JournalError(
                    f"the journal has a move by seat {record.get('seat')} where "
                    f"{self.seats[seat].name} (seat {seat}) decides"
                )
            try:
                for text in record.get("moves", []):
                    self.table.play(Move.parse(text))
            except (IllegalMove, NotationError) as error:
                raise JournalError(
                    f"journaled move {record.get('moves')} cannot be replayed: {error}"
                ) from None
            self._sync_narrator()
            if not self._still_deciding(seat):
                return True
        return False

    def _still_deciding(self, seat: int) -> bool:
        game = self.game
        return game.decider == seat and not game.is_round_over()

    def _try(self, seat: int, moves: list[Move]) -> bool:
        """Play the person's moves; an illegal first move is explained and asked again."""
        played: list[Move] = []
        for move in moves:
            try:
                self.table.play(move)
            except IllegalMove as error:
                self.console.say(f"  ✗ {self._names(str(error))}")
                if not played:
                    return False
                break
            played.append(move)
        self._record(seat, played)
        if self._still_deciding(seat):
            self.console.say(self._screen(seat))
            return False
        return True

    def _hand_over(self, seat: int) -> None:
        """Hot-seat: the last person reads their result, then the next one gets a recap.

        The last person's screen (their hand, what their move did) stays until they
        press Enter; the cleared screen then shows the journal line again and, for the
        next person, every public event since their own last turn, before their hand.
        """
        if self._humans < 2 or self._shown == seat:
            self._sit(seat)
            return
        if self._shown is not None:
            last = self.seats[self._shown].name
            self._wait_enter(
                f"{last}, press Enter to hide your hand (the terminal goes to "
                f"{self.seats[seat].name}): "
            )
            self._seen_up_to[self._shown] = len(self.game.events)
        self._shown = None
        if self.narrator is not None:
            self.narrator.viewer = None
        self.console.out.write(self.console.painter.clear())
        self.console.say(journal_note(self.journal))
        recap = self.recap(seat)
        if recap:
            self.console.say(recap)
        name = self.seats[seat].name
        self._wait_enter(f"Pass the terminal to {name}. {name}, press Enter when you are ready: ")
        self._sit(seat)

    def _sit(self, seat: int) -> None:
        """``seat`` is at the terminal: its own presses show the cards that came out."""
        self._shown = seat
        if self.narrator is not None:
            self.narrator.viewer = seat

    def _wait_enter(self, prompt: str) -> None:
        try:
            self.console.read(prompt)
        except EOFError:
            raise QuitRequested() from None

    def recap(self, seat: int) -> str:
        """What everyone saw happen since ``seat`` last left the terminal (public facts only)."""
        events = self.game.events[self._seen_up_to.get(seat, 0) :]
        lines = [
            line.removeprefix("— ") for e in events for line in [self._words.public_line(e)] if line
        ]
        if not lines:
            return ""
        who = self.seats[seat].name
        since = "your last turn" if seat in self._seen_up_to else "the start"
        return "\n".join([f"{who}, since {since}:", *(f"  · {line}" for line in lines)])

    def _screen(self, seat: int) -> str:
        game, painter = self.game, self.console.painter
        view = TableView(
            seats=[
                Seat(
                    s.name,
                    size,
                    score,
                    is_current=(i == game.decider),
                    note="UNO!" if size == 1 else "",
                )
                for i, (s, size, score) in enumerate(
                    zip(self.seats, game.hand_sizes, game.scores, strict=True)
                )
            ],
            top=game.top_card,
            active_colour=_colour_word(game),
            direction=game.direction,
            round_number=game.round_number,
            target=game.ruleset.target,
            hand=game.hand(seat),
            viewer=self.seats[seat].name,
        )
        lines = [render_table(view, painter), self._situation(seat)]
        labels = [self._label(move) for move in self._options(seat)]
        lines.append(
            render_menu(labels, painter, title="Your moves (number, card code, or ? for help)")
        )
        if len(game.hands[seat]) == 2 and game.pending is Decision.TURN:
            lines.append("  Two cards left: add 'uno' to your move to call it (e.g. '1 uno').")
        return "\n".join(line for line in lines if line)

    def _situation(self, seat: int) -> str:
        game, pending = self.game, self.game.pending
        actor = self.seats[game.actor].name
        texts = {
            Decision.COLOR: "Choose the colour to play next.",
            Decision.TARGET: "Pick the player to aim at.",
            Decision.DRAWN: f"You drew {game.drawn_card}: play it now or keep it.",
            Decision.PLAY_AGAIN: "You may play one more card, or pass.",
            Decision.GIVE: "Pass one of your cards to the next player.",
            Decision.STACK: f"{actor} hit you: stack a hit card, or take {game.stacked} presses.",
            Decision.CHALLENGE: f"{actor} played a {game.top_card.title} on you: "
            "challenge it or accept.",
        }
        return texts.get(pending, "")

    def _question(self, seat: int) -> str:
        return f"{self.seats[seat].name}> "

    def _options(self, seat: int) -> list[Move]:
        own = list(canonical(self.game.legal_moves()))  # the order of what the seat may know
        return own + seat_moves(self.game, seat, self.game.table_moves())

    def _label(self, move: Move) -> str:
        match move:
            case PlayMove(card=card):
                return f"{card.title} ({card.code})"
            case DrawMove():
                pile = self.game.ruleset.draws_from_pile
                return "draw a card" if pile else "press the launcher"
            case ChooseMove(color=color):
                return f"choose {color.name.lower()}"
            case AimMove(target=seat):
                return f"aim at {self.seats[seat].name}"
            case CatchMove(seat=seat):
                return f"catch {self.seats[seat].name} (did not call UNO)"
            case GiveMove(card=card):
                return f"give {card.title} ({card.code})"
        return _LABELS.get(move.kind, str(move))

    def _parse(self, seat: int, text: str) -> list[Move]:
        """A menu number, a card/move code, or a label; 'uno' may follow the move."""
        words = normalise(text).split()
        call_uno = len(words) > 1 and words[-1] == "uno"
        body = " ".join(words[:-1] if call_uno else words)
        options = self._options(seat)
        move = self._pick(body, options)
        moves = [move]
        if call_uno and move.kind is not MoveKind.UNO:
            moves.append(UnoMove())
        return moves

    def _pick(self, body: str, options: list[Move]) -> Move:
        menu = Menu(options, [self._label(m) for m in options], what="move")
        if body.isdecimal() or not body:
            return menu.pick(body)
        try:
            move = Move.parse(body)
        except NotationError:
            return menu.pick(body)
        if isinstance(move, CatchMove) or move.by is not None:
            return move
        return next((m for m in options if m == move), move)

    def _help(self, topic: str) -> None:
        if topic:
            try:
                card = Card.parse(topic)
                topic = card.kind.title
            except NotationError:
                pass
        deck = {card.kind.title for card in self.game.ruleset.deck}
        self.console.say(render_help([topic] if topic else (), cards=deck))

    def _names(self, text: str) -> str:
        """Engine messages say ``seat 2``; people read names."""
        return re.sub(r"seat (\d+)", lambda m: self._seat_name(int(m.group(1))), text)

    def _seat_name(self, seat: int) -> str:
        return self.seats[seat].name if 0 <= seat < len(self.seats) else f"seat {seat}"

    # -- the end ------------------------------------------------------------------------
    def final_line(self) -> str:
        """One line that identifies the end state (the resume test compares it)."""
        game = self.game
        scores = " ".join(
            f"{s.name}={score}" for s, score in zip(self.seats, game.scores, strict=True)
        )
        winner = self.seats[game.winner].name if game.winner is not None else "none yet"
        if game.winner is None and game.round_winner is not None:  # stopped by --rounds
            last = self._seat_name(game.round_winner)
            winner = f"none (stopped; round {game.round_number} won by {last})"
        rounds = game.round_number
        digest = self.digest()
        return f"Final: winner {winner} | scores {scores} | rounds {rounds} | digest {digest}"

    def digest(self) -> str:
        """A short hash of every event of the game, launcher description aside."""
        events = [{k: v for k, v in e.items() if k != "launcher"} for e in self.game.events]
        blob = json.dumps(events, sort_keys=True, default=str).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


_LABELS = {
    MoveKind.PASS: "pass (keep it / no extra card)",
    MoveKind.TAKE: "take the stacked presses",
    MoveKind.CHALLENGE: "challenge",
    MoveKind.ACCEPT: "accept the draw",
    MoveKind.UNO: "call UNO",
}


def _colour_word(game: Game) -> str | None:
    color = game.active_color
    return color.name.lower() if color is not None else None


def journal_note(writer: JournalWriter | None) -> str:
    """Where the game is saved, or that it is not (said at the start and after each clear)."""
    if writer is None:
        return "Not saved: this game has no --journal FILE, so quitting loses it."
    return f"Journal: {writer.path} (resume with: uno-attack play --resume {writer.path})"


class Narrator:
    """Turns engine events into lines at the table (and animated presses)."""

    def __init__(
        self, console: Console, seats: Sequence[PlaySeat], *, reveal: bool = False
    ) -> None:
        self.console = console
        self.seats = list(seats)
        #: Show every hand at the deal and the cards each press yields (replays only).
        self.reveal = reveal
        self.muted = False
        #: The seat at the terminal now: its own presses show the cards they brought.
        self.viewer: int | None = None

    def __call__(self, event: dict[str, Any]) -> None:
        if self.muted:
            return
        kind = event["type"]
        if kind == "hit":
            own = event["player"] == self.viewer and not self.reveal
            self.console.animator.press(
                self._name(event["player"]),
                int(event.get("counted", 0)),
                event.get("reason", ""),
                cards=event.get("cards", ()) if own else (),
            )
            if self.reveal and event.get("cards"):
                self.console.say(f"     ({' '.join(event['cards'])})")
            return
        text = self._describe(kind, event)
        if text:
            self.console.say(text)
        if self.reveal and kind == "deal":
            for seat, hand in zip(self.seats, event["hands"], strict=False):
                self.console.say(f"   {seat.name}: {' '.join(hand)}")

    def public_line(self, event: dict[str, Any]) -> str:
        """``event`` in words everyone at the table may read (a press says how many, not what)."""
        kind = event["type"]
        if kind != "hit":
            return self._describe(kind, event)
        counted = int(event.get("counted", 0))
        reason = f" ({event['reason']})" if event.get("reason") else ""
        got = f"{counted} card{'s' * (counted != 1)}" if counted else "nothing"
        return f"{self._name(event['player'])} presses the launcher{reason}: {got}."

    def _name(self, seat: Any) -> str:
        return (
            self.seats[seat].name if isinstance(seat, int) and 0 <= seat < len(self.seats) else "?"
        )

    def _describe(self, kind: str, e: dict[str, Any]) -> str:
        name = self._name(e.get("player"))
        simple: dict[str, Callable[[], str]] = {
            "dealer": lambda: f"{self._name(e['seat'])} deals first.",
            "deal": lambda: (
                f"— Round {e['round']}: {self._name(e['dealer'])} deals; top card "
                f"{Card.parse(e['starter']).title}."
            ),
            "play": lambda: f"{name} plays {Card.parse(e['card']).title}.",
            "color": lambda: f"{name} chooses {_COLOUR_NAMES.get(e['color'], e['color'])}.",
            "target": lambda: f"{name} aims at {self._name(e['target'])}.",
            "skip": lambda: f"{name} {'are' if name == 'You' else 'is'} skipped.",
            "reverse": lambda: f"Play now goes {ARROWS.get(e['direction'], '?')}.",
            "reload": lambda: (
                f"The launcher was empty: {len(e['cards'])} cards from the discard pile are "
                "shuffled and loaded."
            ),
            "discard": lambda: f"{name} discards {len(e['cards'])} more card(s) of that colour.",
            "trade": lambda: f"{name} trades hands with {self._name(e['target'])}.",
            "rotate": lambda: "Every hand moves one seat along.",
            "give": lambda: f"{name} passes a card to {self._name(e['to'])}.",
            "uno": lambda: (
                f"{self._name(e['by'])} catches {name}, who did not call UNO!"
                if e["caught"]
                else f"{name} calls UNO!"
            ),
            "challenge": lambda: (
                f"{name} challenges {self._name(e['accused'])}: "
                f"{'guilty' if e['guilty'] else 'innocent'}."
            ),
            "accept": lambda: f"{name} accepts.",
            "take": lambda: f"{name} takes the stack ({e['presses']} presses).",
            "round_end": lambda: self._round_end(e),
            "game_end": lambda: (
                f"Game over: {self._name(e['winner'])} wins! Scores: {self._scores(e['scores'])}."
            ),
        }
        maker = simple.get(kind)
        # a known event with a missing field is a bug in the engine: let it raise (issue #9)
        return maker() if maker else ""

    def _round_end(self, e: dict[str, Any]) -> str:
        who = self._name(e["winner"]) if e.get("winner") is not None else "No one"
        return (
            f"{who} wins round {e['round']}. Points this round: {self._scores(e['gained'])}; "
            f"scores: {self._scores(e['scores'])}."
        )

    def _scores(self, values: Sequence[int]) -> str:
        return ", ".join(
            f"{seat.name} {value}" for seat, value in zip(self.seats, values, strict=False)
        )


_COLOUR_NAMES = {"R": "red", "B": "blue", "G": "green", "Y": "yellow"}
