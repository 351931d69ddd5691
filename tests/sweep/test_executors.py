"""The CSV does not depend on the executor: serial, processes and dask give the same bytes."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from sitesim.sweep.executors import DaskExecutor, map_in_order
from sitesim.sweep.grid import Grid
from sitesim.sweep.runner import run_sweep
from sitesim.sweep.store import read_rows

from tests.sweep.helpers import small_trace


@pytest.fixture(scope="module")
def replay_grid(tmp_path_factory: pytest.TempPathFactory) -> Grid:
    trace = small_trace(tmp_path_factory.mktemp("traces") / "t.swf")
    return Grid(mode="replay", trace=str(trace), load_factor=(1, 2), scheduler=("fcfs", "easy"))


@pytest.fixture(scope="module")
def serial_csv(tmp_path_factory: pytest.TempPathFactory, replay_grid: Grid) -> bytes:
    path = tmp_path_factory.mktemp("serial") / "runs.csv"
    report = run_sweep(replay_grid, path, "serial", progress=False)
    assert report.ok and report.ran == 4
    return path.read_bytes()


def test_rows_hold_real_metrics_and_violations(serial_csv: bytes, tmp_path: Path) -> None:
    path = tmp_path / "runs.csv"
    path.write_bytes(serial_csv)
    _, rows = read_rows(path)
    easy2 = next(r for r in rows if r["scheduler"] == "easy" and r["load_factor"] == "2")
    assert easy2["nodes_used"] == "8" and easy2["completed"] == "120"
    assert int(easy2["violations_submission"]) > 0
    assert all(r["violations_submission"] == "0" for r in rows if r["load_factor"] == "1")


def test_processes_match_serial(replay_grid: Grid, serial_csv: bytes, tmp_path: Path) -> None:
    path = tmp_path / "runs.csv"
    assert run_sweep(replay_grid, path, jobs=2, progress=False).ok
    assert path.read_bytes() == serial_csv


@pytest.mark.skipif(importlib.util.find_spec("distributed") is None,
                    reason="dask.distributed not installed (pip install 'sitesim[dask]')")
def test_dask_matches_serial(replay_grid: Grid, serial_csv: bytes, tmp_path: Path) -> None:
    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        by_client = tmp_path / "client.csv"
        assert run_sweep(replay_grid, by_client, client, progress=False).ok
        assert by_client.read_bytes() == serial_csv
        by_address = tmp_path / "address.csv"
        executor = DaskExecutor(address=cluster.scheduler_address)
        assert run_sweep(replay_grid, by_address, executor, progress=False).ok
        assert by_address.read_bytes() == serial_csv


@pytest.mark.skipif(importlib.util.find_spec("sitesim.runs.site") is None,
                    reason="site-level runs (sitesim.runs.site) not available yet")
def test_site_runs_match_across_executors(tmp_path: Path) -> None:
    grid = Grid(mode="site", users=(2, 4), scheduler=("fcfs", "easy"), duration=1)
    serial, parallel = tmp_path / "serial.csv", tmp_path / "parallel.csv"
    assert run_sweep(grid, serial, "serial", progress=False).ok
    assert run_sweep(grid, parallel, jobs=2, progress=False).ok
    assert serial.read_bytes() == parallel.read_bytes()
    _, rows = read_rows(serial)
    assert len(rows) == 4
    assert all(r["violations_submission"] == "" and int(r["completed"]) > 0 for r in rows)


def _square_or_fail(x: int) -> int:
    if x < 0:
        raise ValueError("negative")
    return x * x


@pytest.mark.parametrize("jobs", [1, 2])
def test_map_in_order_keeps_the_order_of_items(jobs: int) -> None:
    items = [5, 1, 4, 2, 3, 0, 7]
    assert map_in_order(_square_or_fail, items, jobs=jobs) == [x * x for x in items]
    assert map_in_order(_square_or_fail, [], jobs=jobs) == []


@pytest.mark.parametrize("jobs", [1, 2])
def test_map_in_order_names_the_failed_item(jobs: int) -> None:
    with pytest.raises(RuntimeError, match=r"-3: ValueError: negative"):
        map_in_order(_square_or_fail, [1, -3, 2], jobs=jobs)


def test_workers_cpu_time_reaches_the_parent_of_a_parallel_process(tmp_path: Path) -> None:
    # scripts/reproduce.py times each step by its children's CPU: the pool workers (the
    # forkserver's children) must be counted, not only the step's own process.
    import os
    import resource
    import subprocess
    import sys

    code = (
        "from sitesim.sweep.executors import map_in_order\n"
        "from tests.sweep.test_executors import _spin\n"
        "if __name__ == '__main__':\n"
        "    map_in_order(_spin, [0.6, 0.6], jobs=2)\n"
    )
    script = tmp_path / "spin.py"
    script.write_text(code)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (root, os.environ.get("PYTHONPATH"))))}
    subprocess.run([sys.executable, str(script)], check=True, cwd=root, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    assert cpu >= 1.1


def _spin(seconds: float) -> float:
    import time

    start = time.process_time()
    while time.process_time() - start < seconds:
        pass
    return seconds


#: The failing start-up, run in a process of its own: forking a process that runs
#: threads (pytest-xdist's worker does) can leave the child stuck on a lock another
#: thread held, so the pool would wait for a worker that never starts, nor dies.
_CANNOT_START = """
import os, sys
from sitesim.exits import run_command
from sitesim.sweep import executors

def exit_at_start(parent):
    os._exit(3)

executors.die_with_parent = exit_at_start
pool = executors.ProcessExecutor(2, start_method="fork")
sys.exit(run_command("sitesim study", lambda: len(list(pool.map_unordered(abs, [1, -2, 3])))))
"""


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="fork: the test's patched start-up reaches the worker")
def test_a_worker_that_cannot_start_says_why() -> None:
    """Seen with an unprivileged user: a study ended with 141 (a broken pipe taken for a
    closed standard output) and no word (issue 34, group 13). It is one line, exit 2."""
    import subprocess
    import sys

    from sitesim.exits import EXIT_INPUT

    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", _CANNOT_START], capture_output=True, text=True, timeout=120,
                          cwd=root, env={**__import__("os").environ, "PYTHONPATH": str(root)})
    assert done.returncode == EXIT_INPUT, done.stderr
    err = done.stderr.strip().splitlines()
    assert len(err) == 1 and "worker process" in err[0] and "--serial" in err[0]
