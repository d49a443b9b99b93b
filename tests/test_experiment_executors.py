"""The same experiment gives the same bytes on 1 process, 2 local processes and a Dask cluster.

The Dask test starts a real ``distributed.LocalCluster`` (2 worker processes, one thread
each) and goes through ``--executor dask://HOST:PORT`` exactly as a user would.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from game.cli import main
from game.experiment.executors import dask_address
from game.experiment.grid import GridError

GRID = [
    "--ruleset", "attack,classic", "--players", "2,3", "--profile", "default,original-1999",
    "--games", "4", "--chunk", "2", "--seed", "11", "--json",
]  # fmt: skip


def _run(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, *extra: str) -> str:
    out = tmp_path / f"{name}.jsonl"
    assert main(["experiment", "run", *GRID, "--out", str(out), *extra]) == 0
    text = capsys.readouterr().out
    assert json.loads(text)["cells"]
    return text


@pytest.fixture(scope="module")
def dask_scheduler() -> Iterator[str]:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        yield cluster.scheduler_address


def test_one_process_two_processes_and_dask_give_identical_summaries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], dask_scheduler: str
) -> None:
    one = _run(tmp_path, capsys, "one")
    two = _run(tmp_path, capsys, "two", "--workers", "2")
    address = dask_scheduler.removeprefix("tcp://")
    dask = _run(tmp_path, capsys, "dask", "--executor", f"dask://{address}")
    assert one == two == dask
    summary = json.loads(one)
    assert len(summary["cells"]) == 8 and all(c["games"] == 4 for c in summary["cells"])


def test_executor_spec_errors_name_the_expected_form() -> None:
    assert dask_address("local") is None
    assert dask_address("dask://10.0.0.5:8786") == "tcp://10.0.0.5:8786"
    for bad in ("dask://", "ray://x:1", "processes"):
        with pytest.raises(GridError, match="dask://HOST:PORT"):
            dask_address(bad)


def test_unreachable_scheduler_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("distributed")
    monkeypatch.setattr("game.experiment.executors.CONNECT_TIMEOUT", 0.5)
    out = tmp_path / "r.jsonl"
    code = main(["experiment", "run", "--games", "1", "--out", str(out),
                 "--executor", "dask://127.0.0.1:9"])  # fmt: skip
    assert code == 2
    assert "cannot reach the Dask scheduler" in capsys.readouterr().err


def test_a_scheduler_without_workers_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    distributed = pytest.importorskip("distributed")
    monkeypatch.setattr("game.experiment.executors.WORKER_TIMEOUT", 0.5)
    cluster = distributed.LocalCluster(
        n_workers=0, processes=False, protocol="tcp", dashboard_address=":0"
    )
    with cluster:
        address = cluster.scheduler_address.removeprefix("tcp://")
        out = tmp_path / "r.jsonl"
        argv = ["experiment", "run", "--games", "1", "--out", str(out), "--executor"]
        assert main([*argv, f"dask://{address}"]) == 2
    assert "has no workers" in capsys.readouterr().err
    assert len(out.read_text().splitlines()) == 1  # the header only: resumable as it stands
