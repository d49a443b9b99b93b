"""Where tasks run: this process, local worker processes, or a Dask distributed cluster.

Every executor runs the same function (:func:`game.experiment.play.play_task`) on the
same tasks, whose seeds are fixed before any is sent, so results do not depend on the
executor or the number of workers; only the order in which records arrive does.
``--executor local`` (default) uses :class:`concurrent.futures.ProcessPoolExecutor`
with ``--workers N`` spawned processes (1: this process). ``--executor
dask://HOST:PORT`` (or ``tcp://HOST:PORT``) connects a ``distributed.Client`` to a
running scheduler; its workers must have the same uno-attack version installed
(checked on every record).
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from functools import partial
from typing import Any

from game.experiment.grid import GridError, Task
from game.experiment.play import play_task

Record = dict[str, Any]
#: Seconds to wait for a Dask scheduler to answer (distributed retries until then).
CONNECT_TIMEOUT = 10.0
#: Seconds to wait for the scheduler to have at least one worker.
WORKER_TIMEOUT = 60.0


def package_version() -> str:
    """The installed uno-attack version: every worker must run the same."""
    from importlib import metadata

    try:
        return metadata.version("uno-attack")
    except metadata.PackageNotFoundError:
        return "unknown"


def dask_address(executor: str) -> str | None:
    """The scheduler address of a ``dask://`` / ``tcp://`` executor; None for ``local``."""
    if executor == "local":
        return None
    for prefix in ("dask://", "tcp://"):
        if executor.startswith(prefix) and len(executor) > len(prefix):
            return "tcp://" + executor[len(prefix) :]
    raise GridError(
        f"--executor {executor!r}: expected local or dask://HOST:PORT",
        hint="e.g. --executor dask://192.168.1.10:8786 (docs/experiments.md, 'On a cluster')",
    )


def run_tasks(tasks: Sequence[Task], executor: str = "local", workers: int = 1) -> Iterator[Record]:
    """Yield each task's record as it finishes (any order)."""
    version = package_version()
    address = dask_address(executor)
    if address is not None:
        records = _on_dask(tasks, address, version)
    elif workers <= 1 or len(tasks) <= 1:
        records = (play_task(task, version) for task in tasks)
    else:
        records = _on_processes(tasks, workers, version)
    for record in records:
        if record.get("version") != version:
            raise GridError(
                f"a worker runs uno-attack {record.get('version')}, this machine {version}",
                hint="install the same uno-attack version on every Dask worker",
            )
        yield record


def _on_processes(tasks: Sequence[Task], workers: int, version: str) -> Iterator[Record]:
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures = [pool.submit(play_task, task, version) for task in tasks]
        try:
            for future in as_completed(futures):
                yield future.result()
        finally:
            for future in futures:
                future.cancel()


def _on_dask(tasks: Sequence[Task], address: str, version: str) -> Iterator[Record]:
    try:
        from distributed import Client
        from distributed import as_completed as dask_completed
    except ImportError:
        raise GridError(
            "--executor dask://… needs dask.distributed, which is not installed",
            hint="pip install 'uno-attack[cluster]'",
        ) from None
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT)
    except (OSError, ValueError) as error:
        raise GridError(
            f"cannot reach the Dask scheduler at {address}: {error}",
            hint="start it with `dask scheduler` and check the address and firewall",
        ) from None
    job: Callable[[Task], Record] = partial(play_task, version=version)
    with client:
        _wait_for_workers(client, address)
        futures = client.map(job, list(tasks), pure=False)
        try:
            for future in dask_completed(futures):
                yield _result(future)
        finally:
            client.cancel(futures)


def _wait_for_workers(client: Any, address: str) -> None:
    try:
        client.wait_for_workers(1, timeout=WORKER_TIMEOUT)
    except (TimeoutError, OSError):
        raise GridError(
            f"the Dask scheduler at {address} has no workers",
            hint="start some: dask worker tcp://SCHEDULER:8786 --nworkers N --nthreads 1",
        ) from None


def _result(future: Any) -> Record:
    """A task's record; a worker that cannot import uno-attack is named as the problem."""
    try:
        record: Record = future.result()
    except ImportError as error:
        raise GridError(
            f"a Dask worker cannot run the games: {error}",
            hint="install the same uno-attack version on every worker "
            "(pip install 'uno-attack[cluster]==VERSION')",
        ) from None
    return record
