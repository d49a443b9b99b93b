"""``uno-attack simulate``: bots play complete games; a summary (``--json``: one JSON object)."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from contextlib import contextmanager

from game.bots.registry import BOT_NAMES, DEFAULT_BOT
from game.cli.common import add_force_argument, add_rule_arguments
from game.core.errors import RulesetError
from game.core.ruleset_ids import DEFAULT_RULESET, RULESET_IDS

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up time)
if TYPE_CHECKING:  # the engine, the launchers and multiprocessing load in run(), not for --help
    from collections.abc import Iterator
    from typing import IO, Any

    from game.play.simulate import SimConfig

#: Resource limits (docs/errors.md, "Limits").
MAX_GAMES = 1_000_000
MAX_WORKERS = 64
_TRUE = ("1", "true", "yes", "on", "")
EXAMPLE = (
    "uno-attack simulate --ruleset attack --players 4 --games 100 --seed 7 --bots random,greedy"
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "simulate",
        help="play complete games with bots and summarise them",
        description=f"Play complete games (to the target score) with bots. Example: {EXAMPLE}",
    )
    parser.add_argument(
        "--ruleset",
        default=DEFAULT_RULESET,
        metavar="ID",
        help=f"one of {', '.join(RULESET_IDS)} (default {DEFAULT_RULESET})",
    )
    parser.add_argument("--players", type=int, default=4, help="number of players (default 4)")
    parser.add_argument("--games", type=int, default=20, help="games to play (default 20)")
    parser.add_argument(
        "--seed", type=int, default=1, help="run seed; every game derives from it (default 1)"
    )
    parser.add_argument(
        "--launcher",
        default=None,
        metavar="SPEC",
        help="launcher spec, e.g. sim://?profile=web-game (default: sim:// for Attack "
        "rulesets, a draw pile for classic/pocket; $UNO_ATTACK_LAUNCHER)",
    )
    parser.add_argument(
        "--bots",
        default=DEFAULT_BOT,
        help=f"bots cycled over the seats, comma-separated, from {', '.join(BOT_NAMES)} "
        f"(default {DEFAULT_BOT}); parameters after colons, e.g. "
        "rule,casual:forget_uno=0.3:miss_play=0.2 (docs/bots.md)",
    )
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    parser.add_argument("--log", metavar="FILE", help="write every event as JSON Lines to FILE")
    add_force_argument(parser)
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help=f"processes to spread games over (default 1, at most {MAX_WORKERS})",
    )
    add_rule_arguments(parser)
    parser.set_defaults(func=run)


def parse_options(pairs: list[str], custom: str | None) -> dict[str, str]:
    options: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise RulesetError(
                f"--option {pair!r}: expected KEY=VALUE, e.g. --option hit_fire_cap=20"
            )
        options[key.strip()] = value.strip()
    if custom:
        options["custom"] = custom
    return options


def _config(args: argparse.Namespace, log_lines: bool) -> SimConfig:
    bots = tuple(b.strip() for b in args.bots.split(",") if b.strip())
    if not bots:
        raise RulesetError("--bots needs at least one bot name, e.g. --bots rule,casual")
    if args.workers < 1:
        raise RulesetError(f"--workers must be at least 1, not {args.workers}")
    if args.workers > MAX_WORKERS or args.games > MAX_GAMES:
        raise RulesetError(
            f"--workers {args.workers} --games {args.games}: the limits are "
            f"{MAX_WORKERS} workers and {MAX_GAMES:,} games (docs/errors.md, Limits)"
        )
    from game.play.simulate import SimConfig

    return SimConfig(
        ruleset=args.ruleset,
        players=args.players,
        games=args.games,
        seed=args.seed,
        launcher=args.launcher,
        bots=bots,
        options=parse_options(args.option, args.custom),
        log_lines=log_lines,
    )


class _Progress:
    """A progress bar on stderr, drawn only when stderr is a terminal."""

    def __init__(self, total: int, stream: IO[str]) -> None:
        self.total, self.done, self.stream = total, 0, stream
        self.enabled = stream.isatty()

    def step(self) -> None:
        self.done += 1
        if self.enabled:
            filled = int(30 * self.done / self.total)
            self.stream.write(
                f"\rsimulate [{'#' * filled}{'.' * (30 - filled)}] {self.done}/{self.total}"
            )
            if self.done == self.total:
                self.stream.write("\n")
            self.stream.flush()


def run(args: argparse.Namespace) -> int:
    from contextlib import ExitStack

    from game.play.simulate import format_summary

    config = _config(args, log_lines=bool(args.log))
    if args.log:  # (the file-safety helpers load only for a log: tempfile, shutil)
        from hardware.files import atomic_path, check_output

        check_output(args.log, what="--log", force=args.force, inputs=[args.custom or ""])
    _warn_if_real_time(config.launcher)
    with ExitStack() as stack:
        log = None
        if args.log:
            temporary = stack.enter_context(atomic_path(args.log, secret=True))  # every hand
            log = stack.enter_context(temporary.open("w", encoding="utf-8"))
        summary, stopped = _play(config, args.workers, log)
        if stopped and not summary["games"]:
            raise KeyboardInterrupt  # nothing finished: no log at all, the temporary goes
    if stopped:
        kept = f"; {args.log} keeps all {summary['games']} of them" if args.log else ""
        print(
            f"\ninterrupted: {summary['games']} of {config.games} games finished{kept}; "
            "the summary below is of those games",
            file=sys.stderr,
            flush=True,
        )
    if args.json:
        import json

        print(json.dumps(summary))
    else:
        print(format_summary(summary))
    return 130 if stopped else 0


def _play(config: SimConfig, workers: int, log: IO[str] | None) -> tuple[dict[str, Any], bool]:
    """Every game's summary, and whether Ctrl-C stopped the run (then: the games finished).

    Each finished game's log is written whole and flushed as it arrives, so Ctrl-C
    keeps every finished game in the log and loses only the ones being played.
    """
    from game.play.simulate import run as play_games
    from game.play.simulate import summarize, validate

    validate(config)
    progress = _Progress(config.games, sys.stderr)
    results = []
    try:
        for result in play_games(config, workers):
            with _ctrl_c_held():  # a game is in both the log and the summary, or in neither
                if log is not None:
                    log.write(result.log)  # its JSON Lines, written by the worker that played it
                    log.flush()
                results.append(result)
            result.events, result.log = [], ""  # the summary needs neither; free them now
            progress.step()
    except KeyboardInterrupt:
        return summarize(config, results), True
    return summarize(config, results), False


@contextmanager
def _ctrl_c_held() -> Iterator[None]:
    """Hold SIGINT back in this block; a Ctrl-C pressed meanwhile arrives at its end.

    Without it a Ctrl-C during a game's log write (a signal that interrupts the write
    system call raises KeyboardInterrupt once the bytes are out) left that game in the log
    but not in the summary. Where the platform cannot hold signals, the block runs as is.
    """
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _warn_if_real_time(spec: str | None) -> None:
    """An emulated launcher without ``fast=1`` moves cards at the real toy's pace: say so."""
    from urllib.parse import parse_qsl, urlsplit

    from launcher.spec import ENV_VAR

    resolved = spec if spec is not None else os.environ.get(ENV_VAR, "")
    if not resolved.startswith("emu://"):
        return
    options = dict(parse_qsl(urlsplit(resolved).query, keep_blank_values=True))
    if options.get("fast", "0").lower() not in _TRUE:
        print(
            f"note: {resolved} runs the emulated mechanism in real time (a few cards a second), "
            "so each game takes minutes; add fast=1 (emu://?fast=1) for a 100x faster mechanism",
            file=sys.stderr,
            flush=True,
        )
