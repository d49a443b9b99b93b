"""Profile sampling speed: the vectorised numpy sampler beside the per-press game path, in one run.

    python bench/bench_sampling.py            # prints a Markdown table
    python bench/bench_sampling.py --presses 20000000

Three ways to get presses from a profile:

* ``vectorised``: :func:`launcher.analysis.sample` (whole-array numpy) -- for analysis;
* ``sampler``: ``profile.sampler(seed).next(loaded)`` per press -- what a game asks;
* ``sim launcher``: ``SimLauncher.hit()`` per press, with its hopper -- the full game path.

Each figure is the best of ``--repeats`` runs on one core (numpy here is single-threaded).
"""

from __future__ import annotations

import argparse
import platform
import time
from collections.abc import Callable

import numpy as np

from launcher.analysis import sample
from launcher.profiles import Profile, load_profile
from launcher.sim import SimLauncher


def best_rate(presses: int, repeats: int, run: Callable[[int], object]) -> float:
    """Presses per second, best of ``repeats`` (the least disturbed run)."""
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        run(presses)
        best = min(best, time.perf_counter() - started)
    return presses / best


def vectorised(profile: Profile) -> Callable[[int], object]:
    def run(presses: int) -> object:
        return sample(profile, presses, seed=1)

    return run


def per_press_sampler(profile: Profile) -> Callable[[int], object]:
    def run(presses: int) -> object:
        sampler = profile.sampler(1)
        return [sampler.next(90) for _ in range(presses)]

    return run


def sim_launcher(profile: Profile) -> Callable[[int], object]:
    def run(presses: int) -> object:
        launcher: SimLauncher[int] = SimLauncher(profile, seed=1)
        launcher.load(range(presses * max(profile.max_count, 1)))  # enough cards never to run dry
        return [launcher.hit() for _ in range(presses)]

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--presses", type=int, default=10_000_000, help="presses for the vectorised sampler"
    )
    parser.add_argument(
        "--slow-presses", type=int, default=200_000, help="presses for the per-press paths"
    )
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"Python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}")
    print()
    print(
        "| profile | kind | vectorised (presses/s) | sampler.next (presses/s) "
        "| SimLauncher.hit (presses/s) | speed-up |"
    )
    print("|---|---|---:|---:|---:|---:|")
    for name in ("web-game", "irc-bot", "original-1999", "escalating"):
        profile = load_profile(name)
        fast = best_rate(args.presses, args.repeats, vectorised(profile))
        slow = best_rate(args.slow_presses, args.repeats, per_press_sampler(profile))
        hit = best_rate(min(args.slow_presses, 100_000), args.repeats, sim_launcher(profile))
        print(
            f"| {name} | {profile.kind} | {fast:,.0f} | {slow:,.0f} | {hit:,.0f} "
            f"| {fast / slow:,.0f}x |"
        )


if __name__ == "__main__":
    main()
