"""Experiment throughput: 1 process, 2 local processes, a 2-worker Dask LocalCluster.

    python bench/bench_experiment.py [--games 400] [--chunk 25] [--seed 1]

One cell (attack, 4 players, default profile, the default bot), ``--games`` games in tasks of
``--chunk``, run through :func:`game.experiment.executors.run_tasks` exactly as
``uno-attack experiment run`` does. For each executor: wall-clock games/s (start-up of
the pool or cluster included, the figure a user sees), and CPU seconds of this process
plus its finished children (``resource.getrusage``), which other load on the machine
disturbs less. A cluster that is already up (the usual case) is timed too, its CPU
read on the workers (``client.run``). Checks that every executor produced the
same records. Figures go in docs/experiment-cluster.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from game.experiment.executors import run_tasks  # noqa: E402
from game.experiment.grid import DEFAULT_BOT, Grid, Task  # noqa: E402


def cpu_seconds() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def measure(name: str, games: int, run: Callable[[], Iterator[dict[str, Any]]]) -> str:
    wall, cpu = time.perf_counter(), cpu_seconds()
    records = sorted(run(), key=lambda r: r["key"])
    wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
    print(
        f"{name:<28} {games / wall:7.1f} games/s wall ({wall:5.1f} s), "
        f"{games / cpu:6.1f} games per CPU-second ({cpu:5.1f} s)",
        flush=True,
    )
    return json.dumps(records, sort_keys=True)


def on_local_cluster(tasks: list[Task]) -> Iterator[dict[str, Any]]:
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        address = cluster.scheduler_address.removeprefix("tcp://")
        yield from run_tasks(tasks, f"dask://{address}")


def _worker_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def on_warm_cluster(tasks: list[Task], games: int) -> str:
    """A cluster already running (the usual case): start-up not timed; CPU read on the workers."""
    from distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        address = cluster.scheduler_address.removeprefix("tcp://")
        list(run_tasks(tasks[:2], f"dask://{address}"))  # workers have imported the game
        before = sum(client.run(_worker_cpu).values()) + cpu_seconds()
        wall = time.perf_counter()
        records = sorted(run_tasks(tasks, f"dask://{address}"), key=lambda r: r["key"])
        wall = time.perf_counter() - wall
        cpu = sum(client.run(_worker_cpu).values()) + cpu_seconds() - before
    print(
        f"{'  same, cluster already up':<28} {games / wall:7.1f} games/s wall ({wall:5.1f} s), "
        f"{games / cpu:6.1f} games per CPU-second ({cpu:5.1f} s, workers + client)",
        flush=True,
    )
    return json.dumps(records, sort_keys=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--chunk", type=int, default=25)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    tasks = Grid(games=args.games).tasks(args.seed, args.chunk)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"# {platform.python_implementation()} {platform.python_version()}, "
        f"{os.cpu_count()} CPUs, load {load}; attack 4p default profile, {DEFAULT_BOT} bots, "
        f"{args.games} games in {len(tasks)} tasks"
    )
    one = measure("1 process", args.games, lambda: run_tasks(tasks))
    two = measure("2 local processes", args.games, lambda: run_tasks(tasks, workers=2))
    dask = measure("Dask LocalCluster, 2 workers", args.games, lambda: on_local_cluster(tasks))
    warm = on_warm_cluster(tasks, args.games)
    print("identical records:", one == two == dask == warm)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"# load after: {load}")


if __name__ == "__main__":
    main()
