"""``uno-attack referee``: keep a game played with real cards and fire the launcher for it.

    uno-attack referee --players "Ann,Sam,Kim" --launcher gpio:// --journal night.jsonl
    uno-attack referee --resume night.jsonl

One person types what is played; see ``docs/referee.md``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from game.cli.common import MAX_DELAY, add_rule_arguments, seconds
from game.cli.play import ask_after_jam
from game.cli.simulate import parse_options
from game.core.cards import COLORS, NotationError, parse_cards
from game.core.chance import derive_seed, fresh_seed
from game.core.errors import JournalError
from game.core.moves import FiredMove
from game.core.rulesets import DEFAULT_RULESET, RULESET_IDS, load_ruleset
from game.play.driver import Presser
from game.play.journal import (
    ENTRY,
    PRESS,
    Journal,
    JournalWriter,
    Record,
    blaming,
    confirm_launcher,
    journal_session,
)
from game.referee.referee import Entry, IllegalEntry, Op, Phase, Referee, check_refereeable
from game.tables.prompt import (
    ENTRY_HELP,
    InputRejected,
    Menu,
    QuitRequested,
    ask,
    parse_entry,
    parse_names,
)
from game.tables.terminal import Console
from game.tables.tui import Painter, PressAnimator, Seat, TableView, render_help, render_table
from launcher.spec import open_launcher, resolve_spec

EXAMPLE = 'uno-attack referee --ruleset attack --players "Ann,Sam,Kim" --launcher "sim://?seed=1"'
GAME_DEFINING = ("ruleset", "players", "seed", "option", "custom")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "referee",
        help="referee a game played with real cards: turns, hand sizes, launcher presses, scores",
        description=f"Referee a physical game; the first player named deals. Example: {EXAMPLE}",
    )
    parser.add_argument(
        "--ruleset",
        metavar="ID",
        help=f"an Attack ruleset (default {DEFAULT_RULESET}; all: {', '.join(RULESET_IDS)})",
    )
    parser.add_argument("--players", help="comma-separated names in seat order, the dealer first")
    parser.add_argument(
        "--launcher",
        metavar="SPEC",
        help="gpio://, serial:///dev/ttyACM0, emu://, sim:// "
        "(default $UNO_ATTACK_LAUNCHER or sim://)",
    )
    parser.add_argument(
        "--seed", type=int, help="seed for a simulated launcher (default: fresh, journaled)"
    )
    add_rule_arguments(parser)
    parser.add_argument(
        "--journal", metavar="FILE", help="write every entry and press to FILE (crash-safe)"
    )
    parser.add_argument(
        "--resume", metavar="FILE", help="continue the refereed game journaled in FILE"
    )
    parser.add_argument(
        "--delay", type=seconds(MAX_DELAY), help="seconds per frame of the press animation"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    with journal_session(
        args.resume,
        args.journal,
        lambda: _from_args(args),
        lambda journal: _from_journal(journal, args),
    ) as (settings, journal, writer):
        return _referee(settings, journal, writer, args)


def _from_args(args: argparse.Namespace) -> Record:
    if not args.players:
        raise JournalError(
            "--players is needed: the names in seat order, the dealer first", hint=EXAMPLE
        )
    options = parse_options(args.option, args.custom)
    ruleset = load_ruleset(args.ruleset or DEFAULT_RULESET, options)
    check_refereeable(ruleset)
    players = parse_names(args.players)
    ruleset.check_players(len(players))
    return {
        "mode": "referee",
        "ruleset": ruleset.id,
        "options": options,
        "players": players,
        "launcher": resolve_spec(args.launcher),
        "seed": args.seed if args.seed is not None else fresh_seed(),
    }


def _from_journal(journal: Journal, args: argparse.Namespace) -> Record:
    given = [f"--{name}" for name in GAME_DEFINING if getattr(args, name, None)]
    if given:
        raise JournalError(
            f"{', '.join(given)} cannot be changed when resuming: {journal.path} defines the game"
        )
    header = journal.header
    if header.get("mode") != "referee":
        raise JournalError(
            f"{journal.path} is a {header.get('mode')!r} journal, not a refereed game",
            hint=f"resume it with: uno-attack {header.get('mode')} --resume {journal.path}",
        )
    with blaming(journal, "ruleset"):
        ruleset = load_ruleset(header["ruleset"], header.get("options") or {})
        check_refereeable(ruleset)
    with blaming(journal, "players"):
        ruleset.check_players(len(header["players"]))
    launcher = confirm_launcher(journal, args.launcher, interactive=sys.stdin.isatty(), ask=input)
    return {**header, "launcher": launcher}


def _referee(
    settings: Record,
    journal: Journal | None,
    writer: JournalWriter | None,
    args: argparse.Namespace,
) -> int:
    console = _console(args.delay)
    ruleset = load_ruleset(settings["ruleset"], settings.get("options") or {})
    holder: dict[str, Referee] = {}
    launcher = _launcher(settings, journal, writer, console, holder)
    session = RefereeSession(console, writer)
    _greet(console, settings, journal, writer)
    session.quiet = journal is not None
    referee = Referee(
        ruleset, settings["players"], launcher, announce=session.announce, on_press=session.press
    )
    holder["referee"] = referee
    session.referee = referee
    try:
        if journal is not None:
            session.replay(journal)
        session.run()
    except (QuitRequested, KeyboardInterrupt) as stop:
        where = (
            f" Continue with: uno-attack referee --resume {writer.path}"
            if writer
            else " Nothing was saved (no --journal FILE was given)."
        )
        console.say(f"\nStopped.{where}")
        if isinstance(stop, KeyboardInterrupt):
            raise
    finally:
        launcher.close()
    return 0


def _console(delay: float | None) -> Console:
    painter = Painter.for_stream(sys.stdout)
    delay = (0.15 if painter.enabled else 0.0) if delay is None else max(0.0, delay)
    return Console(sys.stdout, input, painter, PressAnimator(sys.stdout, painter, delay=delay))


def _launcher(
    settings: Record,
    journal: Journal | None,
    writer: JournalWriter | None,
    console: Console,
    holder: dict[str, Referee],
) -> Presser:
    device = open_launcher(
        settings["launcher"], default_seed=derive_seed(int(settings["seed"]), "launcher")
    )
    presser: Presser

    def journal_press(move: FiredMove) -> None:
        if writer is not None:
            writer.append({"type": PRESS, "counted": move.count})

    def on_fault(fault: Any) -> int | None:
        referee = holder.get("referee")
        who = (
            referee.name(referee.pressing[0])
            if referee and referee.pressing
            else "the player who pressed"
        )
        return ask_after_jam(console, fault, who)

    presser = Presser(
        device,
        owns_launcher=True,
        on_fault=on_fault,
        on_outcome=journal_press,
        replay=journal.press_counts if journal else (),
    )
    return presser


def _greet(
    console: Console, settings: Record, journal: Journal | None, writer: JournalWriter | None
) -> None:
    console.say(
        f"UNO Attack referee · ruleset {settings['ruleset']} · "
        f"players {', '.join(settings['players'])} "
        f"· launcher {settings['launcher']}"
    )
    if journal is not None:
        dropped = " (a cut-off last line was dropped)" if journal.dropped_tail else ""
        console.say(
            f"Resuming {journal.path}: replaying {len(journal.of_type(ENTRY))} entries{dropped}."
        )
    elif writer is not None:
        console.say(
            f"Journal: {writer.path} (resume with: uno-attack referee --resume {writer.path})"
        )
    console.say(
        "Type what is played (e.g. 'blue hit2', 'wild attack-attack red > Sam'), ? for help."
    )


class RefereeSession:
    """The operator's loop: read an entry, complete it, apply it, journal it."""

    def __init__(self, console: Console, writer: JournalWriter | None) -> None:
        self.console = console
        self.writer = writer
        self.referee: Referee | None = None
        self.quiet = False

    def announce(self, text: str) -> None:
        if not self.quiet:
            self.console.say(text)

    def press(self, name: str, counted: int, reason: str, number: int) -> None:
        if not self.quiet:
            self.console.animator.press(name, counted, reason, number=number)

    def replay(self, journal: Journal) -> None:
        assert self.referee is not None
        self.quiet = True
        try:
            for line, record in journal.numbered(ENTRY):
                try:
                    self.referee.apply(Entry.from_record(record))
                except IllegalEntry as error:
                    raise JournalError(
                        f"{journal.path}: line {line}: this entry cannot be replayed: {error}",
                        hint="the journal was edited, or written by another version; "
                        "`uno-attack replay` shows the game up to that line",
                    ) from None
        finally:
            self.quiet = False
        self.console.say(self.status())

    def run(self) -> None:
        referee = self.referee
        assert referee is not None
        while referee.phase is not Phase.GAME_OVER:
            entry = self._scores() if referee.phase is Phase.SCORING else self._next_entry()
            try:
                referee.apply(entry)
            except IllegalEntry as error:
                self.console.say(f"  ✗ {error}")
                continue
            if self.writer is not None:
                self.writer.append({"type": ENTRY, **entry.to_record()})

    def _next_entry(self) -> Entry:
        referee = self.referee
        assert referee is not None
        prompt = (
            f"{referee.name(referee.state.current)}> "
            if referee.phase is not Phase.START
            else "card turned up> "
        )
        while True:
            entry = ask(
                self.console.read,
                self.console.say,
                prompt,
                lambda text: self._parse(text),
                on_help=self._help,
            )
            if entry is not None:
                return self._complete(entry)

    def _parse(self, text: str) -> Entry | None:
        assert self.referee is not None
        if text.lower() in ("status", "s", "table"):
            self.console.say(self.status())
            return None
        return parse_entry(text, self.referee.players)

    def _complete(self, entry: Entry) -> Entry:
        """Ask for what the entry leaves out: a wild's colour, a target, a Discard All's count."""
        referee = self.referee
        assert referee is not None
        card = entry.card
        if entry.op not in (Op.PLAY, Op.START) or card is None:
            return entry
        color, seat, count = entry.color, entry.seat, entry.count
        if card.is_wild and color is None:
            color = self._pick(
                Menu(list(COLORS), [c.name.lower() for c in COLORS], what="colour", numbered=False),
                f"Colour chosen for the {card.title}? ",
            )
        if referee.phase is not Phase.START and referee.needs_target(card) and seat is None:
            menu = Menu(
                list(range(len(referee.players))), referee.players, what="player", numbered=False
            )
            seat = self._pick(menu, f"Aimed at whom ({', '.join(referee.players)})? ")
        if referee.phase is not Phase.START and referee.discards_color(card) and count is None:
            count = self._number(
                f"How many other {card.color.name.lower() if card.color else ''} cards "
                "are discarded with it? "
            )
        return Entry(entry.op, card=card, color=color, seat=seat, count=count, uno=entry.uno)

    def _pick(self, menu: Menu[Any], question: str) -> Any:
        return ask(self.console.read, self.console.say, question, menu.pick)

    def _number(self, question: str) -> int:
        def parse(text: str) -> int:
            if not text.isdecimal():
                raise InputRejected(f"{text!r} is not a number: type 0, 1, 2…")
            return int(text)

        return ask(self.console.read, self.console.say, question, parse)

    def _scores(self) -> Entry:
        referee = self.referee
        assert referee is not None
        winner = referee.state.round_winner
        points = []
        for seat, name in enumerate(referee.players):
            if seat == winner:
                points.append(0)
                continue
            points.append(
                ask(
                    self.console.read,
                    self.console.say,
                    f"Points left in {name}'s hand (a number, or the cards: R7 BS W)? ",
                    self._hand_points,
                )
            )
        return Entry(Op.SCORE, points=tuple(points))

    def _hand_points(self, text: str) -> int:
        assert self.referee is not None
        if text.isdecimal():
            return int(text)
        try:
            cards = parse_cards(text)
        except NotationError as error:
            raise InputRejected(f"{text!r}: {error}; or type the points as a number") from None
        if not cards:
            raise InputRejected("type the points as a number, or the cards (R7 BS W)")
        total = self.referee.hand_points(cards)
        self.console.say(f"  = {total} points")
        return total

    def _help(self, topic: str) -> None:
        self.console.say(render_help([topic]) if topic else ENTRY_HELP)

    def status(self) -> str:
        referee = self.referee
        assert referee is not None
        state = referee.state
        seats = [
            Seat(
                name,
                size,
                score,
                is_current=(i == state.current and referee.phase is not Phase.START),
                note="UNO!" if size == 1 else "",
            )
            for i, (name, size, score) in enumerate(
                zip(state.players, state.hands, state.scores, strict=True)
            )
        ]
        top = state.top if state.top else "(none yet)"
        colour = state.color.name.lower() if state.color else None
        view = TableView(
            seats=seats,
            top=top,
            active_colour=colour,
            direction=state.direction,
            round_number=state.round_number,
            target=referee.ruleset.target,
        )
        return render_table(view, self.console.painter)
