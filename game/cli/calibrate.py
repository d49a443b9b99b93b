"""``uno-attack calibrate record|fit|compare|plan|tune``: measure, fit, compare and tune a launcher.

A thin layer over :mod:`launcher.calibration`; ``docs/calibration.md`` is the guide.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from game.cli.common import add_force_argument, check_plot, write_plot
from game.cli.tune_config import ConfigLine, tuned_line
from hardware.errors import ConfigError
from hardware.files import check_output
from launcher.analysis import analyse
from launcher.base import Launcher
from launcher.calibration.compare import Comparison, Side, compare, format_p
from launcher.calibration.fit import MIN_PROFILE_PRESSES, FitReport, fit_sessions
from launcher.calibration.histogram import LEGEND, TARGET, histogram
from launcher.calibration.independence import TestResult
from launcher.calibration.intervals import (
    MEAN_METHOD,
    METHOD,
    PRACTICAL_PRESSES,
    TIES,
    estimate,
    presses_needed,
)
from launcher.calibration.plain import compare_summary, fit_summary, plan_summary
from launcher.calibration.plot import plot_distribution
from launcher.calibration.record import ManualLauncher, Recorder, UndoRequest, check_count
from launcher.calibration.report import compare_json, fit_json, plan_json
from launcher.calibration.session import (
    Press,
    SessionError,
    SessionHeader,
    SessionWriter,
    read_session,
    read_sessions,
)
from launcher.calibration.tune import TuneResult, tune
from launcher.profiles import load_profile, save_profile
from launcher.spec import open_launcher, resolve_spec

#: Largest recorded session (docs/errors.md, "Limits").
MAX_RECORD_PRESSES = 100_000
MAX_RECORD_CARDS = 10_000


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "calibrate", help="measure a launcher, fit a profile, compare, plan, tune"
    )
    actions = parser.add_subparsers(dest="calibrate_command", metavar="ACTION", required=True)
    _register_record(actions)
    _register_fit(actions)
    _register_compare(actions)
    _register_plan(actions)
    _register_tune(actions)


# -- record ---------------------------------------------------------------------------------
def _register_record(actions: Any) -> None:
    record = actions.add_parser("record", help="press a launcher N times, one JSON line per press")
    record.add_argument("session", metavar="SESSION.jsonl")
    record.add_argument(
        "--launcher", metavar="SPEC", help="launcher spec (default $UNO_ATTACK_LAUNCHER or sim://)"
    )
    record.add_argument(
        "--manual", action="store_true", help="a person presses and types each count"
    )
    record.add_argument("--resume", action="store_true", help="continue an interrupted session")
    record.add_argument(
        "--presses", type=int, metavar="N", help="presses in the whole session (default 100)"
    )
    record.add_argument(
        "--cards", type=int, default=90, help="cards loaded into the hopper (default 90)"
    )
    record.add_argument(
        "--reload-below", type=int, default=10, help="top the hopper up below this many cards"
    )
    record.add_argument("--batteries", default="", help="e.g. 'fresh alkaline C, 4.6 V'")
    record.add_argument("--notes", default="", help="anything worth keeping with the data")
    record.add_argument(
        "--seed", type=int, default=0, help="seed for simulated launchers (default 0)"
    )
    record.set_defaults(func=run_record)


UNDO_WORDS = ("u", "undo")
YES_WORDS = ("", "y", "yes")


def _ask_count(number: int, loaded: int) -> int:
    """The manual prompt: a whole number of cards that fits the hopper, or ``u`` to undo."""
    while True:
        answer = input(
            f"press {number} ({loaded} cards loaded): press the launcher once; "
            f"cards out? (u = undo) "
        ).strip()
        if answer.lower() in UNDO_WORDS:
            raise UndoRequest
        if not answer.isdecimal():
            print(
                "  type how many cards came out (0 if none), u to undo the last press, "
                "or Ctrl-C to stop and --resume later"
            )
            continue
        problem = check_count(int(answer), loaded)
        if not problem:
            return int(answer)
        print(f"  {answer} refused: {problem}; type the count again")


def _tell(text: str) -> None:
    """The reload prompt: only Enter or y goes on, so a count typed too early is never taken."""
    print(text)
    while True:
        answer = input("hopper loaded? (Enter or y when done) ").strip().lower()
        if answer in YES_WORDS:
            return
        print(
            f"  {answer!r} is not an answer here: load the hopper, then press Enter or y "
            "(the count of the next press is asked after that)"
        )


def _undone(press: Press | None) -> None:
    if press is None:
        print("  nothing to undo: no press recorded in this run yet")
    else:
        print(f"  undone: press {press.n} ({press.count} card(s)); type it again")


def _open_recording(args: argparse.Namespace, header: SessionHeader, done: int) -> Launcher[Any]:
    if header.manual:
        return ManualLauncher(_ask_count, _tell, first_number=done + 1)
    seed = None if header.seed is None else header.seed + done
    return open_launcher(header.launcher, default_seed=seed)


def _new_header(args: argparse.Namespace) -> SessionHeader:
    if args.cards < 1 or args.reload_below < 0 or (args.presses is not None and args.presses < 1):
        raise ConfigError("--cards and --presses must be at least 1 and --reload-below at least 0")
    if args.cards > MAX_RECORD_CARDS:
        raise ConfigError(f"--cards {args.cards}: at most {MAX_RECORD_CARDS:,} cards are loaded")
    if (args.presses or 0) > MAX_RECORD_PRESSES:
        raise ConfigError(
            f"--presses {args.presses}: one session holds at most {MAX_RECORD_PRESSES:,} presses",
            hint="record several sessions and pool them: uno-attack calibrate fit A B C",
        )
    spec = "manual" if args.manual else resolve_spec(args.launcher)
    return SessionHeader(
        launcher=spec,
        cards_loaded=args.cards,
        reload_below=args.reload_below,
        presses_planned=args.presses or 100,
        manual=args.manual,
        batteries=args.batteries,
        notes=args.notes,
        seed=args.seed,
    )


def run_record(args: argparse.Namespace) -> int:
    if args.resume:
        session = read_session(args.session)
        header, done = session.header, len(session.presses)
        if args.launcher and args.launcher != header.launcher:
            raise ConfigError(
                f"{args.session} was recorded with {header.launcher}, not {args.launcher}",
                hint="a resumed session keeps its launcher; start a new file for another one",
            )
        total = args.presses or header.presses_planned
        writer = SessionWriter.resume(session)
        print(f"resuming {args.session}: {done} presses recorded, {max(total - done, 0)} to go")
    else:
        header, done = _new_header(args), 0
        total = header.presses_planned
        writer = SessionWriter.create(args.session, header)
    with writer, _open_recording(args, header, done) as launcher:
        recorder = Recorder(
            launcher,
            writer,
            header,
            next_n=done + 1,
            on_press=_echo if header.manual else None,
            on_undo=_undone,
        )
        try:
            recorder.run(max(total - done, 0))
        except EOFError:
            print(
                f"\nend of input: {_presses(recorder.next_n - 1)} saved in {args.session}; "
                f"continue with: uno-attack calibrate record {args.session} --resume"
            )
            return 0
        except KeyboardInterrupt:
            print(
                f"\nstopped: {_presses(recorder.next_n - 1)} saved in {args.session}; "
                f"continue with: uno-attack calibrate record {args.session} --resume"
            )
            raise KeyboardInterrupt from None
    print(
        f"{_presses(recorder.next_n - 1)} in {args.session}; "
        f"next: uno-attack calibrate fit {args.session}"
    )
    return 0


def _echo(press: Press) -> None:
    print(f"  recorded press {press.n}: {press.count} card(s)")


# -- fit ----------------------------------------------------------------------------------------
def _register_fit(actions: Any) -> None:
    fit = actions.add_parser(
        "fit", help="estimate the distribution, check independence, fit a profile"
    )
    fit.add_argument("sessions", nargs="+", metavar="SESSION.jsonl")
    fit.add_argument(
        "--out",
        metavar="PROFILE.toml",
        help="write the fitted profile (usable as sim://?profile=PATH)",
    )
    fit.add_argument("--name", help="name of the written profile (default: the file name)")
    fit.add_argument(
        "--plot", metavar="FILE.png", help="draw the estimate with its intervals (needs matplotlib)"
    )
    fit.add_argument(
        "--lags", type=int, default=10, help="lags for the autocorrelation checks (default 10)"
    )
    fit.add_argument(
        "--ties",
        choices=TIES,
        default="randomized",
        help="how each P(k) interval splits the chance of the count seen: randomized "
        "(default; joint coverage 95-97 %%) or mid-p (deterministic, 1-4 %% narrower, "
        "95-98 %%); docs/calibration-methods.md section 4",
    )
    add_force_argument(fit)
    fit.add_argument("--json", action="store_true", help="print the report as JSON")
    fit.set_defaults(func=run_fit)


def _mean_text(report: FitReport) -> str:
    mean = report.mean
    if mean.low != mean.low:  # NaN: too few presses
        return f"mean {mean.mean:.3f} cards per press; its interval needs at least 2 presses"
    return (
        f"mean {mean.mean:.3f} cards per press, 95 % interval "
        f"[{mean.low:.3f}, {mean.high:.3f}] ({MEAN_METHOD})"
    )


def _check_lines(report: FitReport) -> list[str]:
    if not report.independence:
        return [
            "",
            f"independence checks: not made, {report.presses} presses "
            f"(they need at least {MIN_PROFILE_PRESSES})",
        ]
    if all(not math.isfinite(t.statistic) for t in report.independence):
        return ["", "independence checks: nothing to test, every press gave the same count"]
    verdict = "look independent" if report.independent else "are NOT independent"
    lines = [
        "",
        f"independence checks: presses {verdict} (each check at 0.05 / {len(report.independence)})",
    ]
    lines += [_check_line(t) for t in report.independence]
    lines += [
        "",
        "load checks:" if report.load else "load checks: the load never varied enough to check",
    ]
    lines += [
        f"  {t.name}: p = {format_p(t.p_value)} ({t.method}); {t.detail}" for t in report.load
    ]
    return lines


def _check_line(test: TestResult) -> str:
    """One check's line; a check with nothing to test says so, with no NaN statistic."""
    if not math.isfinite(test.statistic):
        return f"  {test.name}: nothing to test, {test.detail}"
    return (
        f"  {test.name}: statistic {test.statistic:.2f}, p = {format_p(test.p_value)} "
        f"({test.method}); {test.detail}"
    )


def _fit_lines(report: FitReport) -> list[str]:
    est = report.estimate
    lines = [
        *fit_summary(report),
        "",
        f"{report.presses} presses from {', '.join(report.data.labels)}",
        "",
        f"P(count = k) with simultaneous 95 % intervals ({est.method}):",
    ]
    lines += histogram(est.values, est.probabilities, est.low, est.high)
    lines += [
        f"   P(count >= {est.tail_from}) <= {est.tail_high:.3f}  "
        "(never seen; bound simultaneous with the rows above)",
        LEGEND.rsplit("   ", 1)[0],
        "",
        _mean_text(report),
    ]
    lines += _check_lines(report)
    return lines + _model_lines(report)


def _model_lines(report: FitReport) -> list[str]:
    lines = ["", "count models (lower AIC is better; BIC for reference):"]
    for model in report.counts:
        lines.append(
            f"  {model.name:<33} AIC {model.aic:9.1f}   BIC {model.bic:9.1f}   "
            f"({model.parameters} params)"
        )
    if report.structures:
        lines += [
            "",
            "what decides whether a press fires (AIC; independent unless a check flags a "
            "dependence",
            "and that model beats independent presses by more than 2):",
        ]
    for key, structure in sorted(report.structures.items(), key=lambda kv: kv[1].model.aic):
        chosen = "  <- chosen" if key == report.structure else ""
        lines.append(f"  {structure.model.name:<40} AIC {structure.model.aic:9.1f}{chosen}")
    if report.structure != "iid":
        firing = report.firing
        lines += ["", "cards per firing press, with simultaneous 95 % intervals:"]
        lines += histogram(firing.values, firing.probabilities, firing.low, firing.high)
    if report.presses >= MIN_PROFILE_PRESSES:
        lines += ["", f"fitted profile: {report.profile.kind} -- {report.profile.description}"]
    return lines + [f"note: {note}" for note in report.notes]


def run_fit(args: argparse.Namespace) -> int:
    if args.lags < 1:
        raise ConfigError(f"--lags {args.lags}: expected a whole number >= 1")
    if args.out:
        check_output(args.out, what="--out", force=args.force, inputs=args.sessions)
    check_plot(args.plot, force=args.force, inputs=[*args.sessions, args.out])
    sessions = read_sessions(args.sessions)
    presses = sum(len(s.presses) for s in sessions)
    if args.out and presses < MIN_PROFILE_PRESSES:
        raise SessionError(
            f"{', '.join(args.sessions)}: {presses} press(es); a profile needs at least "
            f"{MIN_PROFILE_PRESSES}",
            hint="record more presses (calibrate record ... --resume), or fit without --out",
        )
    name = args.name or (Path(args.out).stem if args.out else "fitted")
    report = fit_sessions(sessions, name=name, lags=args.lags, ties=args.ties)
    if args.json:
        print(json.dumps(fit_json(report), indent=2))
    else:
        print("\n".join(_fit_lines(report)))
    if args.out:
        save_profile(report.profile, args.out)
        print(f"profile written to {args.out}; try: uno-attack profile show {args.out}")
    if args.plot:
        est = report.estimate
        write_plot(
            args.plot,
            lambda path: plot_distribution(
                path,
                f"{report.presses} presses: estimate with simultaneous 95 % intervals",
                est.probabilities,
                est.low,
                est.high,
                analyse(report.profile).probabilities,
                target_label=f"fitted {report.profile.kind} profile",
                tail_high=est.tail_high,
            ),
        )
        print(f"plot written to {args.plot}")
    return 0


# -- compare ----------------------------------------------------------------------------------
def _register_compare(actions: Any) -> None:
    cmp = actions.add_parser(
        "compare", help="are two sessions, or a session and a profile, the same?"
    )
    cmp.add_argument(
        "a", metavar="A", help="a session file (.jsonl) or a profile (preset name or .toml)"
    )
    cmp.add_argument(
        "b", metavar="B", help="a session file (.jsonl) or a profile (preset name or .toml)"
    )
    cmp.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    cmp.add_argument("--seed", type=int, default=0, help="seed of the Monte-Carlo p-values")
    cmp.add_argument("--plot", metavar="FILE.png", help="draw A against B (needs matplotlib)")
    add_force_argument(cmp)
    cmp.add_argument("--json", action="store_true", help="print the report as JSON")
    cmp.set_defaults(func=run_compare)


def _side(text: str) -> Side:
    path = Path(text)
    if path.suffix != ".toml" and path.exists():
        session = read_session(path)
        if not session.presses:
            raise SessionError(f"{path}: no presses recorded yet")
        return Side.of_counts(session.label, session.counts)
    return Side.of_profile(load_profile(text))


def run_compare(args: argparse.Namespace) -> int:
    if not 0 < args.alpha < 1:
        raise ConfigError(f"--alpha {args.alpha}: expected a number between 0 and 1")
    check_plot(args.plot, force=args.force, inputs=[args.a, args.b])
    result = compare(_side(args.a), _side(args.b), alpha=args.alpha, seed=args.seed)
    if args.json:
        print(json.dumps(compare_json(result), indent=2))
    else:
        print("\n".join(_compare_lines(result)))
    if args.plot:
        write_plot(args.plot, lambda path: _plot_comparison(str(path), result))
        print(f"plot written to {args.plot}")
    return 0


def _plot_comparison(path: str, result: Comparison) -> None:
    """A's bars (with simultaneous intervals when A is a session) against B's diamonds."""
    width = max(len(result.a.cells), len(result.b.cells))
    low = high = tail_high = None
    if result.a.is_session:
        est = estimate(np.repeat(np.arange(len(result.a.cells)), result.a.cells.astype(np.int64)))
        low, high, tail_high = est.low, est.high, est.tail_high
    plot_distribution(
        path,
        f"{result.a.label} vs {result.b.label}",
        result.a.distribution(width),
        low,
        high,
        result.b.distribution(width),
        label=result.a.label,
        target_label=result.b.label,
        tail_high=tail_high,
    )


def _compare_lines(result: Comparison) -> list[str]:
    width = max(len(result.a.cells), len(result.b.cells))
    lines = [
        f"A = {result.a.label}   B = {result.b.label}",
        *compare_summary(result),
        "",
        f"(bars = A, {TARGET} = B)",
    ]
    lines += histogram(
        range(width),
        result.a.distribution(width),
        target=result.b.distribution(width),
        target_name="B",
    )
    for test in result.tests:
        lines.append(f"  {test.name}: statistic {test.statistic:.3g}, p = {format_p(test.p_value)}")
    if len(result.tests) > 1:
        lines.append(
            f"  combined (smaller p of the {len(result.tests)}, calibrated on the same draws): "
            f"p = {format_p(result.p_value, result.alpha)}"
        )
    if result.effect:
        lines.append(
            f"  effect size: total variation distance {result.total_variation:.3f}, {result.effect}"
        )
    return lines + ["", result.verdict]


# -- plan ------------------------------------------------------------------------------------------
def _register_plan(actions: Any) -> None:
    plan = actions.add_parser("plan", help="how many presses pin every probability to +-P at 95 %%")
    plan.add_argument(
        "--precision", type=float, required=True, metavar="P", help="e.g. 0.05 for +-5 points"
    )
    plan.add_argument(
        "--profile",
        metavar="NAME|PATH",
        help="your best guess of the launcher (default: worst case)",
    )
    plan.add_argument(
        "--counts",
        type=int,
        default=11,
        metavar="K",
        help="without --profile: how many different counts to expect (default 11: 0-10)",
    )
    plan.add_argument("--json", action="store_true", help="print the answer as JSON")
    plan.set_defaults(func=run_plan)


def run_plan(args: argparse.Namespace) -> int:
    if not 0 < args.precision < 0.5:
        raise ConfigError(
            f"--precision {args.precision}: expected a number between 0 and 0.5, e.g. 0.05"
        )
    like: str | None = None
    if args.profile:
        profile = load_profile(args.profile)
        guess = analyse(profile).probabilities
        cells = int(np.flatnonzero(guess > 0).max()) + 1
        needed = presses_needed(args.precision, guess)
        like = profile.name
        basis = f"if the launcher behaves like {profile.name}"
        runs = "at least 95 % of sessions"
    else:
        if args.counts < 2:
            raise ConfigError(f"--counts {args.counts}: expected at least 2")
        cells, needed = args.counts, presses_needed(args.precision, None, cells=args.counts)
        basis = f"for any launcher whose counts stay within 0-{args.counts - 1}"
        runs = "every session"
    summary = plan_summary(needed, args.precision, _duration(needed * 5), like)
    if args.json:
        print(json.dumps(plan_json(args.precision, needed, cells, basis, runs, summary), indent=2))
        return 0
    print("\n".join(summary))
    print(
        f"\nIn detail: {needed} presses; {basis}, the simultaneous 95 % interval of every "
        f"P(count = k) that `calibrate fit` prints, and its bound for counts never seen, will "
        f"have a half-width (high - low) / 2 of at most {args.precision:g} in {runs} ({METHOD})."
    )
    if needed > PRACTICAL_PRESSES:
        print(
            f"warning: {needed} presses is far beyond a practical session "
            f"(over {PRACTICAL_PRESSES}); a precision of {args.precision:g} is not realistic "
            "by hand. Try 0.05 (a few hundred presses) or 0.02."
        )
    return 0


def _duration(seconds: float) -> str:
    """ "75 minutes", "3 hours", "12846 days"; "1 minute" for a short plan, never "1 minutes"."""
    if seconds < 2 * 3600:
        amount, unit = round(seconds / 60), "minute"
    elif seconds < 2 * 86400:
        amount, unit = round(seconds / 3600), "hour"
    else:
        amount, unit = round(seconds / 86400), "day"
    return f"{max(amount, 1)} {unit}{'' if max(amount, 1) == 1 else 's'}"


# -- tune ---------------------------------------------------------------------------------
def _register_tune(actions: Any) -> None:
    tune_parser = actions.add_parser(
        "tune", help="set a motor launcher's timing to match a target profile"
    )
    tune_parser.add_argument(
        "--target", required=True, metavar="PROFILE", help="preset name or .toml"
    )
    tune_parser.add_argument(
        "--launcher", metavar="SPEC", help="a launcher with adjustable motor time"
    )
    tune_parser.add_argument(
        "--session", metavar="SESSION.jsonl", help="recorded presses with motor_ms to fit from"
    )
    tune_parser.add_argument(
        "--probe-repeats", type=int, default=12, help="motor runs per probed time"
    )
    tune_parser.add_argument(
        "--verify-presses", type=int, default=300, help="presses measured after tuning"
    )
    tune_parser.add_argument("--seed", type=int, default=0)
    tune_parser.add_argument(
        "--write-config",
        action="store_true",
        help="write the new ms_per_card into the config it belongs in (the old file kept as .bak)",
    )
    tune_parser.add_argument(
        "--plot", metavar="FILE.png", help="draw measured vs target (needs matplotlib)"
    )
    add_force_argument(tune_parser)
    tune_parser.set_defaults(func=run_tune)


def _recorded(path: str | None) -> tuple[np.ndarray, np.ndarray] | None:
    if not path:
        return None
    session = read_session(path)
    keep = ~np.isnan(session.motor_ms)
    if not keep.any():
        raise SessionError(f"{path}: no press records motor_ms; record it with a motor launcher")
    return session.motor_ms[keep], session.counts[keep].astype(float)


def run_tune(args: argparse.Namespace) -> int:
    if args.probe_repeats < 1 or args.verify_presses < 1:
        raise ConfigError("--probe-repeats and --verify-presses must be at least 1")
    check_plot(args.plot, force=args.force, inputs=[args.target, args.session])
    target = load_profile(args.target)
    spec = resolve_spec(args.launcher)
    tuned_line(spec, 0.0)  # a config that names another launcher is refused before any motor runs
    with open_launcher(spec, default_seed=args.seed) as launcher:
        result = tune(
            launcher,
            target,
            probe_repeats=args.probe_repeats,
            verify_presses=args.verify_presses,
            seed=args.seed,
            recorded=_recorded(args.session),
            progress=print,
        )
    print("\n".join(_tune_lines(result, target.name)))
    _keep_setting(tuned_line(spec, result.ms_per_card), write=args.write_config)
    if args.plot:
        write_plot(
            args.plot,
            lambda path: plot_distribution(
                path,
                f"tuned to {target.name}: {args.verify_presses} measured presses",
                result.measured,
                target=result.target,
                target_label=f"target {target.name}",
            ),
        )
        print(f"plot written to {args.plot}")
    return 0


def _keep_setting(setting: ConfigLine, *, write: bool) -> None:
    """Say which line keeps the new setting, and where; with ``--write-config`` write it."""
    print(f"to keep it, this line goes in {setting.path}:\n  {setting.line}")
    if not write:
        print("  (or run again with --write-config to write it there)")
        return
    backup = setting.write()
    kept = f"; the old file is kept as {backup}" if backup else ""
    print(f"written to {setting.path}{kept}")


def _tune_lines(result: TuneResult, target: str) -> list[str]:
    law = result.law
    lines = [
        f"motor law from {result.probes} runs: cards ~ Poisson({law.rate * 1000:.2f} per second "
        f"x (motor ms - {law.dead_ms:.0f}) / 1000)",
        f"ms_per_card: {result.ms_before:.1f} -> {result.ms_per_card:.1f}",
        f"predicted distance to {target} (total variation): {result.predicted_before:.3f} before, "
        f"{result.predicted_distance:.3f} after",
        f"measured distance after tuning ({result.measured_presses} open-loop presses): "
        f"{result.measured_distance:.3f}",
    ]
    width = max(len(result.measured), len(result.target))
    lines += histogram(
        range(width),
        np.pad(result.measured, (0, width - len(result.measured))),
        target=np.pad(result.target, (0, width - len(result.target))),
    )
    return lines


def _presses(count: int) -> str:
    """``1 press``, ``2 presses``: what a session holds, in words a person reads."""
    return f"{count} press" if count == 1 else f"{count} presses"
