"""Play many complete games with bots and summarise them (``uno-attack simulate``).

Game ``i`` of a run with seed ``S`` uses the game seed ``derive_seed(S, "game:i")``
and its bots seeds derived from that, so each game is independent of the others
and of how games are spread over worker processes: ``--workers 4`` gives the
same results as one worker.

Workers are forked where the platform can (the parent has already imported the engine,
so a worker starts in milliseconds instead of re-importing it), games are handed out one
at a time (a game lasts tens of milliseconds, a hand-out a few microseconds, and one long
game cannot leave a worker idle at the end), and with :attr:`SimConfig.log_lines` each
worker writes its game's JSON Lines itself, so the parent receives one string per game
instead of unpickling and encoding every event (``bench/bench_workers.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from game.bots import DEFAULT_BOT, Bot, make_bot
from game.core.chance import derive_seed
from game.core.errors import RulesetError
from game.core.rulesets import load_ruleset
from game.play.driver import MAX_ROUNDS, Table, play_out

__all__ = ["MAX_ROUNDS", "GameResult", "SimConfig", "run_game", "simulate"]


@dataclass(frozen=True)
class SimConfig:
    """What to simulate; ``bots`` are cycled over the seats."""

    ruleset: str = "attack"
    players: int = 4
    games: int = 20
    seed: int = 1
    launcher: str | None = None
    bots: tuple[str, ...] = (DEFAULT_BOT,)
    options: dict[str, Any] = field(default_factory=dict)
    keep_events: bool = False
    #: Fill :attr:`GameResult.log` with the game's event log as JSON Lines (a
    #: ``sim_game`` line, then one line per event), written where the game was played.
    log_lines: bool = False

    def bot_for(self, seat: int) -> str:
        return self.bots[seat % len(self.bots)]


@dataclass
class GameResult:
    index: int
    seed: int
    winner: int | None
    rounds: int
    turns: int
    hits: int
    cards_launched: int
    scores: list[int]
    events: list[dict[str, Any]] = field(default_factory=list)
    #: The JSON Lines text of the game (only with :attr:`SimConfig.log_lines`).
    log: str = ""


def validate(config: SimConfig) -> None:
    """Fail early, with the hierarchy's errors, on anything that would fail in every game."""
    if config.games < 1:
        raise RulesetError(f"--games must be at least 1, not {config.games}")
    rules = load_ruleset(config.ruleset, config.options)
    rules.check_players(config.players)
    for seat in range(config.players):
        make_bot(config.bot_for(seat), 0)
    if config.launcher and config.launcher != "pile://":
        from launcher.spec import open_launcher

        open_launcher(config.launcher, default_seed=0).close()


def game_seed(seed: int, index: int) -> int:
    return derive_seed(seed, f"game:{index}")


def run_game(table: Table, bots: Sequence[Bot]) -> None:
    """Let the bots play the table's game to the end (all rounds), pressing its launcher."""
    play_out(table.game, bots, table.presser)


def play_game(config: SimConfig, index: int) -> GameResult:
    """Play game ``index`` of the run described by ``config``."""
    seed = game_seed(config.seed, index)
    bots = [
        make_bot(config.bot_for(s), derive_seed(seed, f"bot:{s}")) for s in range(config.players)
    ]
    with Table.new(
        config.ruleset, config.players, launcher=config.launcher, seed=seed, options=config.options
    ) as table:
        run_game(table, bots)
    game, presser = table.game, table.presser
    return GameResult(
        index=index,
        seed=seed,
        winner=game.winner,
        rounds=game.round_number,
        turns=game.total_turns,
        hits=presser.presses_fed,  # the game's hit events, without reading its event log
        cards_launched=presser.cards_fed,
        scores=list(game.scores),
        events=game.events if config.keep_events else [],
        log=_log_text(index, seed, game.events) if config.log_lines else "",
    )


def _log_text(index: int, seed: int, events: Sequence[dict[str, Any]]) -> str:
    """The game's part of a ``simulate --log`` file: its ``sim_game`` line, then its events."""
    from game.play.events import dumps

    header = dumps({"type": "sim_game", "game": index, "seed": seed})
    return "\n".join([header, *map(dumps, events)]) + "\n"


def run(config: SimConfig, workers: int = 1) -> Iterator[GameResult]:
    """Results in game order, whether one process plays them or ``workers`` do."""
    job = partial(play_game, config)
    if workers <= 1 or config.games == 1:
        yield from map(job, range(config.games))
        return
    import multiprocessing  # here: one worker (the common run) never needs it

    with multiprocessing.get_context(start_method()).Pool(workers) as pool:
        yield from pool.imap(job, range(config.games), chunksize=1)


def start_method() -> str:
    """``fork`` where it is available and safe (no other thread running), else ``spawn``.

    A forked worker inherits the imported engine; a spawned one imports it again (about
    0.2 s of CPU each). Forking a process that runs threads can deadlock, so a caller with
    threads (a GUI, a server) gets ``spawn``. Results do not depend on it: every game's
    randomness comes from its own seed.
    """
    import multiprocessing
    import threading

    if "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1:
        return "fork"
    return "spawn"


def simulate(
    config: SimConfig,
    workers: int = 1,
    on_result: Callable[[GameResult], None] | None = None,
) -> dict[str, Any]:
    """Run every game and return the summary (what ``--json`` prints)."""
    validate(config)
    results = []
    for result in run(config, workers):
        if on_result is not None:
            on_result(result)
        result.events, result.log = [], ""  # the summary needs neither; free them now
        results.append(result)
    return summarize(config, results)


def summarize(config: SimConfig, results: Sequence[GameResult]) -> dict[str, Any]:
    games = len(results)
    rounds = sum(r.rounds for r in results)
    turns = sum(r.turns for r in results)
    hits = sum(r.hits for r in results)
    cards = sum(r.cards_launched for r in results)
    wins = [0] * config.players
    for r in results:
        if r.winner is not None:
            wins[r.winner] += 1
    seats = [
        {
            "seat": s,
            "bot": config.bot_for(s),
            "wins": wins[s],
            "win_rate": wins[s] / games if games else 0.0,
        }
        for s in range(config.players)
    ]
    return {
        "ruleset": config.ruleset,
        "players": config.players,
        "seed": config.seed,
        "launcher": config.launcher or "(ruleset default)",
        "bots": list(config.bots),
        "options": dict(config.options),
        "games": games,
        "rounds": rounds,
        "turns": turns,
        "hits": hits,
        "cards_launched": cards,
        "mean_cards_per_hit": cards / hits if hits else 0.0,
        "turns_per_round": turns / rounds if rounds else 0.0,
        "seats": seats,
        "bots_summary": _per_bot(seats, games),
    }


def _per_bot(seats: list[dict[str, Any]], games: int) -> list[dict[str, Any]]:
    out = []
    for name in dict.fromkeys(s["bot"] for s in seats):
        mine = [s for s in seats if s["bot"] == name]
        won = sum(s["wins"] for s in mine)
        out.append(
            {
                "bot": name,
                "seats": [s["seat"] for s in mine],
                "wins": won,
                "win_rate": won / games if games else 0.0,
                "win_rate_per_seat": won / (games * len(mine)) if games else 0.0,
            }
        )
    return out


def format_summary(summary: dict[str, Any]) -> str:
    """The human-readable summary table."""
    lines = [
        f"ruleset {summary['ruleset']}, {summary['players']} players, seed {summary['seed']}, "
        f"launcher {summary['launcher']}, bots {','.join(summary['bots'])}",
    ]
    rows = [
        ("games", summary["games"]),
        ("rounds", summary["rounds"]),
        ("turns", summary["turns"]),
        ("hits (presses)", summary["hits"]),
        ("cards launched", summary["cards_launched"]),
        ("mean cards per hit", f"{summary['mean_cards_per_hit']:.3f}"),
        ("turns per round", f"{summary['turns_per_round']:.1f}"),
    ]
    lines += [f"  {name:<20}{value}" for name, value in rows]
    width = max([6, *(len(b["bot"]) for b in summary["bots_summary"])]) + 2  # 8 for plain names
    lines.append(f"  {'seat':<6}{'bot':<{width}}{'wins':>6}{'win rate':>10}")
    lines += [
        f"  {s['seat']:<6}{s['bot']:<{width}}{s['wins']:>6}{s['win_rate']:>10.1%}"
        for s in summary["seats"]
    ]
    if len(summary["bots_summary"]) < 2:  # one bot in every seat: it wins every game
        return "\n".join(lines)
    lines.append(f"  {'bot':<{width}}{'seats':<12}{'wins':>6}{'win rate':>10}{'per seat':>10}")
    lines += [
        f"  {b['bot']:<{width}}{','.join(map(str, b['seats'])):<12}{b['wins']:>6}"
        f"{b['win_rate']:>10.1%}{b['win_rate_per_seat']:>10.1%}"
        for b in summary["bots_summary"]
    ]
    return "\n".join(lines)
