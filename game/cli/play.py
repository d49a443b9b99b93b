"""``uno-attack play``: a terminal game for people and bots, journaled, resumable.

    uno-attack play --seats "Ann,Bob,bot:greedy,bot:random" --seed 7 --journal game.jsonl
    uno-attack play --resume game.jsonl

See ``docs/play.md``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from game.bots import BOT_NAMES, make_bot
from game.cli.common import MAX_DELAY, add_rule_arguments, seconds
from game.cli.simulate import parse_options
from game.core.chance import derive_seed, fresh_seed
from game.core.engine import Game
from game.core.errors import JournalError
from game.core.moves import Move
from game.core.rulesets import DEFAULT_RULESET, RULESET_IDS, load_ruleset
from game.play.driver import Presser, Table, open_game_launcher
from game.play.journal import (
    MOVE,
    Journal,
    JournalWriter,
    Record,
    blaming,
    confirm_launcher,
    journal_session,
)
from game.tables.prompt import QuitRequested, SeatSpec, parse_seats
from game.tables.terminal import Console, Narrator, PlaySeat, TablePlay, journal_note
from game.tables.tui import Painter, PressAnimator
from hardware.errors import LauncherFault
from launcher.spec import resolve_spec

DEFAULT_SEATS = "You,bot:greedy,bot:random"
EXAMPLE = (
    'uno-attack play --ruleset attack --seats "Ann,Bob,bot:greedy" --seed 7 --journal game.jsonl'
)
#: Options that define a game; with --resume they come from the journal and must not be given.
GAME_DEFINING = ("ruleset", "seats", "seed", "option", "custom", "rounds")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "play",
        help="play at the terminal: people (hot-seat) and bots",
        description=f"Play a game at the terminal. Example: {EXAMPLE}",
    )
    parser.add_argument(
        "--ruleset",
        metavar="ID",
        help=f"one of {', '.join(RULESET_IDS)} (default {DEFAULT_RULESET})",
    )
    parser.add_argument(
        "--seats",
        help=f"comma-separated names; bot:{' / bot:'.join(BOT_NAMES)} for bots, with "
        f"parameters as in --bots (bot:casual:forget_uno=0.5) (default {DEFAULT_SEATS!r})",
    )
    parser.add_argument(
        "--launcher",
        metavar="SPEC",
        help="launcher spec (default: sim:// for Attack rulesets, "
        "a draw pile for classic/pocket; $UNO_ATTACK_LAUNCHER)",
    )
    parser.add_argument(
        "--seed", type=int, help="game seed (default: a fresh one, printed and journaled)"
    )
    add_rule_arguments(parser)
    parser.add_argument(
        "--rounds", type=int, help="stop after this many rounds (default: play to the target)"
    )
    parser.add_argument(
        "--journal", metavar="FILE", help="write the game to FILE as it is played (crash-safe)"
    )
    parser.add_argument("--resume", metavar="FILE", help="continue the game journaled in FILE")
    parser.add_argument(
        "--delay",
        type=seconds(MAX_DELAY),
        help="seconds per frame of the press animation (default 0.15 on a terminal, 0 otherwise)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    with journal_session(
        args.resume,
        args.journal,
        lambda: _settings_from_args(args),
        lambda journal: _settings_from_journal(journal, args),
    ) as (settings, journal, writer):
        return _play(settings, journal, writer, args)


def _settings_from_args(args: argparse.Namespace) -> Record:
    options = parse_options(args.option, args.custom)
    ruleset = load_ruleset(args.ruleset or DEFAULT_RULESET, options)
    seats = parse_seats(args.seats or DEFAULT_SEATS, bots=BOT_NAMES)
    ruleset.check_players(len(seats))
    if args.rounds is not None and args.rounds < 1:
        raise JournalError(f"--rounds {args.rounds}: must be at least 1")
    spec = args.launcher or ("pile://" if ruleset.draws_from_pile else resolve_spec(None))
    return {
        "mode": "play",
        "ruleset": ruleset.id,
        "options": options,
        "seed": args.seed if args.seed is not None else fresh_seed(),
        "seats": [{"name": seat.name, "bot": seat.bot} for seat in seats],
        "launcher": spec,
        "rounds": args.rounds,
    }


def _settings_from_journal(journal: Journal, args: argparse.Namespace) -> Record:
    given = [f"--{name}" for name in GAME_DEFINING if getattr(args, name, None)]
    if given:
        raise JournalError(
            f"{', '.join(given)} cannot be changed when resuming: the journal {journal.path} "
            "defines the game",
            hint=f"run: uno-attack play --resume {journal.path}",
        )
    header = journal.header
    if header.get("mode") != "play":
        raise JournalError(
            f"{journal.path} is a {header.get('mode')!r} journal, not a `play` game",
            hint=f"resume it with: uno-attack {header.get('mode')} --resume {journal.path}",
        )
    with blaming(journal, "ruleset"):
        ruleset = load_ruleset(header["ruleset"], header.get("options") or {})
    with blaming(journal, "seats"):
        ruleset.check_players(len(header["seats"]))
    launcher = confirm_launcher(journal, args.launcher, interactive=sys.stdin.isatty(), ask=input)
    return {**header, "launcher": launcher}


def _play(
    settings: Record,
    journal: Journal | None,
    writer: JournalWriter | None,
    args: argparse.Namespace,
) -> int:
    seed = int(settings["seed"])
    ruleset = load_ruleset(settings["ruleset"], settings.get("options") or {})
    seats = seats_from_header(settings, seed)
    console = _console(args.delay)
    narrator = Narrator(console, seats)
    narrator.muted = bool(journal and journal.decisions)
    holder: list[Game] = []
    launcher = _launcher(ruleset, settings["launcher"], seed, journal, writer, console, holder)
    _greet(console, settings, journal, writer)
    try:
        dealt = Table.start(
            launcher, ruleset, [seat.name for seat in seats], seed, on_event=narrator
        )
    except BaseException:
        launcher.close()
        raise
    game = dealt.game
    holder.append(game)
    table = TablePlay(
        dealt,
        seats,
        console,
        journal=writer,
        replay=journal.records if journal else (),
        max_rounds=settings.get("rounds"),
        narrator=narrator,
    )
    try:
        table.run()
    except QuitRequested:
        _say_saved(console, writer)
        return 0
    except KeyboardInterrupt:
        _say_saved(console, writer)
        raise
    finally:
        launcher.close()
    if table.stopped_early:
        console.say(f"Stopped after {game.round_number} round(s) (--rounds).")
    console.say(table.final_line())
    return 0


def seats_from_header(settings: Record, seed: int) -> list[PlaySeat]:
    """The seats a journal header names; each bot seeded from the game seed and its seat."""
    seats = []
    for index, raw in enumerate(settings["seats"]):
        spec = SeatSpec(raw["name"], raw.get("bot"))
        bot = make_bot(spec.bot, derive_seed(seed, f"bot:{index}")) if spec.bot else None
        seats.append(PlaySeat(spec.name, bot))
    return seats


def _console(delay: float | None) -> Console:
    out = sys.stdout
    painter = Painter.for_stream(out)
    if delay is None:
        delay = 0.15 if painter.enabled else 0.0
    return Console(out, input, painter, PressAnimator(out, painter, delay=max(0.0, delay)))


def _launcher(
    ruleset: Any,
    spec: str,
    seed: int,
    journal: Journal | None,
    writer: JournalWriter | None,
    console: Console,
    holder: list[Game],
) -> Presser:
    device, _ = open_game_launcher(ruleset, spec, seed)
    presser: Presser

    def journal_outcome(move: Move) -> None:
        if writer is not None:
            writer.append({"type": MOVE, "chance": True, "moves": [str(move)]})

    def on_fault(fault: LauncherFault) -> int | None:
        due = holder[0].press_due if holder else None
        who = holder[0].names[due.seat] if due is not None else "the player who pressed"
        return ask_after_jam(console, fault, who)

    presser = Presser(
        device,
        owns_launcher=True,
        on_fault=on_fault,
        on_outcome=journal_outcome,
        replay=journal.press_counts if journal else (),
    )
    return presser


def ask_after_jam(console: Console, fault: LauncherFault, who: str) -> int | None:
    """Tell the table about a jam, wait for it to be cleared, ask how many cards came out."""
    console.say(console.painter.paint(f"⚠ The launcher stopped: {fault} ({fault.fault}).", "alert"))
    console.say(f"  {fault.hint or 'Clear the launcher.'}")
    if fault.counted:
        console.say(f"  {fault.counted} card(s) came out before it stopped: they are {who}'s.")
    again = "none" if fault.counted else "none, press again"
    while True:
        try:
            answer = console.read(
                f"  Cards pulled out by hand for {who} (they keep them; Enter = {again}): "
            )
        except EOFError:
            raise QuitRequested() from None
        answer = answer.strip()
        if not answer:
            return None
        if answer.isdecimal():
            return int(answer)
        console.say(f"  ✗ {answer!r} is not a number of cards: type 0, 1, 2… or just Enter")


def _greet(
    console: Console, settings: Record, journal: Journal | None, writer: JournalWriter | None
) -> None:
    seats = ", ".join(seat["name"] for seat in settings["seats"])
    console.say(
        f"UNO Attack · ruleset {settings['ruleset']} · seed {settings['seed']} · "
        f"launcher {settings['launcher']} · seats {seats}"
    )
    if journal is not None:
        dropped = " (a cut-off last line was dropped)" if journal.dropped_tail else ""
        console.say(f"Resuming {journal.path}: replaying {len(journal.decisions)} moves{dropped}.")
    else:
        console.say(journal_note(writer))
    console.say("Type the number of a move, a card code (R7, WAA…), ? for help, quit to stop.")


def _say_saved(console: Console, writer: JournalWriter | None) -> None:
    if writer is not None:
        console.say(
            f"\nGame saved in {writer.path}. Continue with: uno-attack play --resume {writer.path}"
        )
    else:
        console.say("\nGame abandoned (it was not journaled; use --journal FILE to keep games).")
