"""``uno-attack profile list | show NAME|PATH | sample NAME --presses N``: look at profiles.

The analysis needs numpy (the ``analysis`` extra); it is imported when a command runs, so
``uno-attack`` starts, and says which extra to install, on a Pi without it. ``--json``
prints the same figures as one JSON document.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from typing import TYPE_CHECKING, Any

from game.cli.common import add_force_argument, check_plot, write_plot
from hardware.errors import ConfigError
from launcher.profiles import (
    EscalatingProfile,
    LoadDependentProfile,
    PatternProfile,
    Profile,
    load_profile,
    preset_names,
)

if TYPE_CHECKING:
    from launcher.analysis import ProfileAnalysis

#: Largest ``profile sample --presses`` (docs/errors.md, "Limits"): about 150 MB, a few seconds.
MAX_SAMPLE_PRESSES = 10_000_000


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("profile", help="list, show and sample spit-out profiles")
    actions = parser.add_subparsers(dest="profile_command", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="the presets, with their kind, mean and source")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(func=run_list)
    show = actions.add_parser("show", help="exact analysis of a preset or profile file")
    show.add_argument("profile", metavar="NAME|PATH")
    show.add_argument(
        "--plot", metavar="FILE.png", help="also draw the distribution (needs matplotlib)"
    )
    show.add_argument("--json", action="store_true", help="print JSON")
    add_force_argument(show)
    show.set_defaults(func=run_show)
    draw = actions.add_parser("sample", help="draw presses with the vectorised sampler")
    draw.add_argument("profile", metavar="NAME|PATH")
    draw.add_argument(
        "--presses",
        type=int,
        required=True,
        metavar="N",
        help=f"how many presses, 1 to {MAX_SAMPLE_PRESSES:,}",
    )
    draw.add_argument("--seed", type=int, default=None)
    draw.add_argument("--list", action="store_true", help="print every press's count, one per line")
    draw.add_argument("--json", action="store_true", help="print JSON")
    draw.set_defaults(func=run_sample)


def run_list(args: argparse.Namespace) -> int:
    """``profile list``: every preset with its kind, mean, P(nothing) and source."""
    from launcher.analysis import analyse

    if args.json:
        rows = []
        for name in preset_names():
            profile = load_profile(name)
            result = analyse(profile, presses=50_000)
            rows.append(
                {
                    "name": name,
                    "kind": profile.kind,
                    "mean": result.mean,
                    "p_nothing": result.p_nothing,
                    "exact": result.exact,
                    "source": profile.source,
                }
            )
        _print_json(rows)
        return 0
    print(f"{'name':<22} {'kind':<15} {'mean':>5} {'P(0)':>5}  source")
    for name in preset_names():
        profile = load_profile(name)
        result = analyse(profile, presses=50_000)
        source = profile.source if len(profile.source) <= 60 else profile.source[:57] + "..."
        print(f"{name:<22} {profile.kind:<15} {result.mean:5.2f} {result.p_nothing:5.2f}  {source}")
    return 0


def _structure_lines(profile: Profile) -> list[str]:
    if isinstance(profile, PatternProfile):
        reset = (
            "resets on power-up and hopper reload"
            if profile.reset_on_reload
            else "resets on power-up"
        )
        return [
            f"fires on presses {', '.join(map(str, profile.fires))} "
            f"of a {profile.cycle}-press cycle ({reset})"
        ]
    if isinstance(profile, EscalatingProfile):
        chances = ", ".join(f"{h:.2f}" for h in profile.hazard)
        guarantee = (
            f"; always fires after {profile.guaranteed_after} misses"
            if profile.guaranteed_after
            else ""
        )
        return [f"P(fire) after 0, 1, 2... empty presses: {chances} (the last holds){guarantee}"]
    if isinstance(profile, LoadDependentProfile):
        return [
            f"from {b.min_loaded} cards loaded: P(0) = {b.probabilities[0]:.2f}"
            for b in profile.bands
        ]
    return []


def _figures(result: ProfileAnalysis) -> list[str]:
    def err(key: str) -> str:
        value = result.standard_errors.get(key)
        return f" +- {value:.3f} (s.e.)" if value is not None and math.isfinite(value) else ""

    how = (
        "exact"
        if result.exact
        else f"simulated, {result.presses_simulated} presses, standard errors given"
    )
    lines = [f"analysis: {how}"]
    lines.append(f"mean {result.mean:.3f} cards per press{err('mean')}, sd {result.sd:.3f}")
    lines.append(f"P(nothing) {result.p_nothing:.3f}{err('p_nothing')}")
    lines.append(
        f"expected presses until cards fly (a Wild Hit-Fire): {result.presses_until_cards:.3f}"
        f"{err('presses_until_cards')}"
    )
    if math.isfinite(result.presses_until_cards_from_reset):
        lines.append(
            "  ... right after power-up or a full reload: "
            f"{result.presses_until_cards_from_reset:.3f}"
        )
    runs = result.empty_runs
    shown = ", ".join(f"{length}: {p:.3f}" for length, p in enumerate(runs[:8]))
    lines.append(
        f"empty presses before each volley, P(L = l): {shown}{' ...' if len(runs) > 8 else ''}"
    )
    return lines


def _print_json(data: Any) -> None:
    print(json.dumps(data, indent=2, allow_nan=False, default=_finite))


def _finite(value: Any) -> Any:
    return value.tolist() if hasattr(value, "tolist") else str(value)


def _number(value: float) -> float | None:
    """JSON has no infinity: a quantity that is infinite (never happens) is null."""
    return float(value) if math.isfinite(value) else None


def analysis_json(profile: Profile, result: ProfileAnalysis) -> dict[str, Any]:
    """``profile show --json``: the analysis as plain numbers (null for infinite)."""
    return {
        "name": profile.name,
        "kind": profile.kind,
        "source": profile.source,
        "description": profile.description,
        "exact": result.exact,
        "presses_simulated": result.presses_simulated,
        "mean": result.mean,
        "sd": result.sd,
        "p_nothing": result.p_nothing,
        "presses_until_cards": _number(result.presses_until_cards),
        "presses_until_cards_from_reset": _number(result.presses_until_cards_from_reset),
        "probabilities": [float(p) for p in result.probabilities],
        "empty_runs": [float(p) for p in result.empty_runs],
        "standard_errors": {k: _number(v) for k, v in result.standard_errors.items()},
    }


def run_show(args: argparse.Namespace) -> int:
    """``profile show``: the exact (or simulated) analysis of one profile."""
    from launcher.analysis import analyse
    from launcher.calibration.histogram import histogram

    check_plot(args.plot, force=args.force, inputs=[args.profile])
    profile = load_profile(args.profile)
    result = analyse(profile)
    if args.plot:
        _plot(args.plot, profile, result)
    if args.json:
        _print_json(analysis_json(profile, result))
        return 0
    print(f"{profile.name} ({profile.kind})")
    print(f"source: {profile.source}")
    if profile.description:
        print(profile.description)
    for line in _structure_lines(profile) + _figures(result):
        print(line)
    print("P(count = k):")
    for row in histogram(range(len(result.probabilities)), result.probabilities):
        print(row)
    if args.plot:
        print(f"plot written to {args.plot}")
    return 0


def _plot(path: str, profile: Profile, result: ProfileAnalysis) -> None:
    from launcher.calibration.plot import plot_distribution

    title = f"profile {profile.name}"
    write_plot(
        path, lambda out: plot_distribution(out, title, result.probabilities, label=profile.name)
    )


def run_sample(args: argparse.Namespace) -> int:
    """``profile sample``: draw presses with the vectorised sampler and compare to the law."""
    import numpy as np

    from launcher.analysis import analyse, sample
    from launcher.calibration.histogram import SURE, TARGET, histogram

    if not 1 <= args.presses <= MAX_SAMPLE_PRESSES:
        raise ConfigError(
            f"--presses {args.presses}: expected a whole number from 1 to {MAX_SAMPLE_PRESSES:,}",
            hint="for more presses, run it again with other --seed values and pool the results",
        )
    profile = load_profile(args.profile)
    started = time.perf_counter()
    counts = sample(profile, args.presses, args.seed)
    elapsed = time.perf_counter() - started
    if args.list and not args.json:
        sys.stdout.write("\n".join(map(str, counts.tolist())) + "\n")
        return 0
    exact = analyse(profile).probabilities
    observed = np.bincount(counts, minlength=len(exact)) / len(counts)
    if args.json:
        report: dict[str, Any] = {
            "profile": profile.name,
            "presses": args.presses,
            "seed": args.seed,
            "mean": float(counts.mean()),
            "profile_mean": float(exact @ np.arange(len(exact))),
            "observed": [float(p) for p in observed],
            "probabilities": [float(p) for p in exact],
        }
        if args.list:
            report["counts"] = counts.tolist()
        _print_json(report)
        return 0
    print(f"{args.presses} presses of {profile.name} (seed {args.seed}) in {elapsed:.3f} s")
    print(
        f"mean {counts.mean():.3f} (profile {float(exact @ np.arange(len(exact))):.3f}), "
        f"P(nothing) {observed[0]:.3f} (profile {exact[0]:.3f})"
    )
    for row in histogram(range(len(observed)), observed, target=exact, target_name="profile"):
        print(row)
    print(f"{SURE} share of the sampled presses   {TARGET} the profile's exact probability")
    return 0
