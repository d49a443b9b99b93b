"""``uno-attack replay FILE [--step]``: watch a journaled game again, move by move.

Works for both kinds of journal (``play`` and ``referee``). Nothing is pressed:
the launcher's presses come from the journal, so a game played on a real
launcher replays on any machine. ``--step`` waits for Enter after each move.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from typing import Any, TextIO

from game.cli.play import seats_from_header
from game.core.errors import JournalError
from game.core.rulesets import load_ruleset
from game.play.driver import Presser, Table
from game.play.journal import ENTRY, Journal, blaming, read_journal
from game.referee.referee import Entry, IllegalEntry, Op, Referee
from game.tables.prompt import QuitRequested
from game.tables.terminal import Console, Narrator, TablePlay
from game.tables.tui import Painter, PressAnimator
from hardware.errors import ConfigError
from launcher.base import DrawPile


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "replay",
        help="replay a journaled game (play or referee) move by move",
        description="Replay a game written with --journal: uno-attack replay game.jsonl --step",
    )
    parser.add_argument("file", metavar="FILE", help="the journal (JSON Lines) to replay")
    parser.add_argument("--step", action="store_true", help="wait for Enter after each move")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the end state (and a play journal's event log) as one JSON document",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.json and args.step:
        raise ConfigError("--json and --step do not go together", hint="choose one of them")
    journal = read_journal(args.file)
    out: TextIO = io.StringIO() if args.json else sys.stdout
    painter = Painter.for_stream(out)
    console = Console(out, input, painter, PressAnimator(out, painter))
    mode = journal.header.get("mode")
    console.say(
        f"Replaying {journal.path}: a {mode} game, ruleset {journal.header.get('ruleset')}, "
        f"seed {journal.header.get('seed')}, {len(journal.decisions)} moves"
        f"{' (a cut-off last line was dropped)' if journal.dropped_tail else ''}."
    )
    pause = _pauser(console) if args.step else None
    result: dict[str, Any] = {}
    try:
        if mode == "play":
            result = _replay_play(journal, console, pause)
        elif mode == "referee":
            result = _replay_referee(journal, console, pause)
        else:
            raise JournalError(
                f"{journal.path}: unknown journal mode {mode!r} (expected play or referee)"
            )
    except QuitRequested:
        console.say("Replay stopped.")
    if args.json:
        header = {key: journal.header.get(key) for key in ("mode", "ruleset", "seed")}
        print(json.dumps({"file": str(journal.path), **header, **result}, indent=2))
    return 0


def _pauser(console: Console) -> Any:
    def pause() -> None:
        try:
            answer = console.read("  [Enter: next move, q: stop] ")
        except EOFError:
            raise QuitRequested() from None
        if answer.strip().lower() in ("q", "quit"):
            raise QuitRequested()

    return pause


def _journal_presser(journal: Journal) -> Presser:
    """Feeds only the journaled presses (it never touches hardware)."""
    return Presser(DrawPile(), replay=journal.press_counts)


def _replay_play(journal: Journal, console: Console, pause: Any) -> dict[str, Any]:
    header = journal.header
    seed = int(header["seed"])
    seats = seats_from_header(header, seed)
    narrator = Narrator(console, seats, reveal=True)
    with blaming(journal, "ruleset"):
        ruleset = load_ruleset(header["ruleset"], header.get("options") or {})
    dealt = Table.start(
        _journal_presser(journal), ruleset, [seat.name for seat in seats], seed, on_event=narrator
    )
    game = dealt.game
    table = TablePlay(
        dealt,
        seats,
        console,
        replay=journal.records,
        narrator=narrator,
        replay_only=True,
        after_decision=pause,
    )
    table.run()
    console.say("End of the journal." if not game.is_game_over() else "")
    console.say(table.final_line())
    return {
        "players": [seat.name for seat in seats],
        "game_over": game.is_game_over(),
        "winner": game.winner,
        "round": game.round_number,
        "scores": list(game.scores),
        "digest": table.digest(),
        "events": game.events,
    }


def _replay_referee(journal: Journal, console: Console, pause: Any) -> dict[str, Any]:
    header = journal.header
    with blaming(journal, "ruleset"):
        ruleset = load_ruleset(header["ruleset"], header.get("options") or {})
    players = list(header["players"])
    referee = Referee(
        ruleset,
        players,
        _journal_presser(journal),
        announce=console.say,
        on_press=lambda name, counted, reason, number: console.animator.press(
            name, counted, reason, number=number
        ),
    )
    for line, record in journal.numbered(ENTRY):
        entry = Entry.from_record(record)
        console.say(f"> {describe_entry(entry, players)}")
        try:
            referee.apply(entry)
        except IllegalEntry as error:
            raise JournalError(
                f"{journal.path}: line {line}: this entry cannot be replayed: {error}"
            ) from None
        if pause is not None:
            pause()
    state = referee.state
    scores = ", ".join(f"{name} {score}" for name, score in zip(players, state.scores, strict=True))
    console.say(f"End of the journal: round {state.round_number}, scores {scores}.")
    return {"players": players, "round": state.round_number, "scores": list(state.scores)}


def describe_entry(entry: Entry, players: list[str]) -> str:
    """An entry as the operator would have typed it."""

    def name(seat: int | None) -> str:
        return players[seat] if seat is not None and 0 <= seat < len(players) else "?"

    if entry.op in (Op.PLAY, Op.START) and entry.card is not None:
        text = entry.card.title
        text += (
            f" {entry.color.name.lower()}" if entry.color is not None and entry.card.is_wild else ""
        )
        text += f" +{entry.count}" if entry.count else ""
        text += f" > {name(entry.seat)}" if entry.seat is not None else ""
        return text + (" uno" if entry.uno else "")
    if entry.op is Op.SCORE:
        return "points left: " + ", ".join(
            f"{n} {p}" for n, p in zip(players, entry.points, strict=False)
        )
    if entry.op in (Op.HIT, Op.FIX):
        return f"{entry.op.value} {name(entry.seat)} {entry.count or ''}".strip()
    if entry.op in (Op.UNO, Op.CATCH):
        return f"{entry.op.value} {name(entry.seat)}"
    return entry.op.value
