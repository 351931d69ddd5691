"""The Python API: simulate/replay -> Result, components as names, classes or instances."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import sitesim
from sitesim.errors import InputError
from sitesim.schedulers.easy import EasyScheduler
from sitesim.sweep import Grid, run_sweep
from sitesim.sweep.store import read_rows
from sitesim.workload.estimates import FactorEstimates
from tests.sweep.helpers import small_trace

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def test_one_row_per_submitted_job_and_the_summary_of_summary_json(tmp_path: Path) -> None:
    r = sitesim.simulate(users=5, scheduler="easy", duration_days=30, seed=1, out=tmp_path / "o")
    assert len(r.jobs) == r.summary["system"]["submitted"] > 0
    assert r.summary == json.loads((tmp_path / "o" / "summary.json").read_text())
    j = r.jobs
    done = j["end"] >= 0
    assert (j["status"][done] >= 0).all() and (j["status"][~done] == -1).all()
    assert (j["end"][done] - j["start"][done] <= j["estimate"][done]).all()
    assert int(done.sum()) == r.summary["system"]["completed"]
    assert np.all(np.diff(j["submit"]) >= 0)  # arrival order


def test_names_classes_and_instances_give_the_same_run() -> None:
    by_name = sitesim.simulate(users=3, scheduler="easy", estimates="f:2", duration_days=5, seed=4)
    by_class = sitesim.simulate(users=3, scheduler=EasyScheduler, estimates="f:2", duration_days=5, seed=4)
    by_instance = sitesim.simulate(
        users=3, scheduler=EasyScheduler(128), estimates=FactorEstimates("2"), duration_days=5, seed=4
    )
    assert by_name.summary == by_class.summary == by_instance.summary
    assert by_name.jobs.tobytes() == by_instance.jobs.tobytes()
    with pytest.raises(InputError, match="plans for 64 nodes"):
        sitesim.simulate(users=3, scheduler=EasyScheduler(64), nodes=128, duration_days=1)
    with pytest.raises(InputError, match="name or a class"):
        sitesim.simulate(users=3, submittal=object(), duration_days=1)


def test_replay_result_and_observers(tmp_path: Path) -> None:
    trace = small_trace(tmp_path / "t.swf")
    ends: list[int] = []

    class Ends:
        def on_end(self, job: object) -> None:
            ends.append(getattr(job, "id"))

    r = sitesim.replay(trace, scheduler="easy", observers=[Ends()])
    assert len(r.jobs) == r.summary["trace_jobs"]["submitted"] == len(ends) == 120
    assert r.summary["kind"] == "replay" and r.summary["violations"]["jobs"] == 120
    assert sorted(ends) == sorted(r.jobs["id"].tolist())


def test_to_pandas_when_pandas_is_there() -> None:
    pd = pytest.importorskip("pandas", reason="pandas is an optional extra")
    r = sitesim.simulate(users=2, duration_days=2, seed=0)
    frame = r.to_pandas()
    assert isinstance(frame, pd.DataFrame) and len(frame) == len(r.jobs)
    assert list(frame.columns)[:3] == ["id", "user", "submit"]


MAIN_SCRIPT = """
import sys, tempfile
from pathlib import Path
import sitesim
from sitesim.schedulers import Scheduler
from sitesim.sweep import Grid, run_sweep
from sitesim.sweep.store import read_rows

class LargestFirst(Scheduler):
    name = "largest-first"
    def schedule(self, now, free):
        out = []
        for job in sorted(self.queue, key=lambda j: (-j.size, j.seq)):
            if job.size <= free:
                free -= job.size
                out.append(job)
        for job in out:
            self.queue.remove(job)
        return out

for _ in range(2):  # re-running a notebook cell: the class is defined anew
    class LargestFirst(LargestFirst):  # noqa
        name = "largest-first"
r = sitesim.simulate(users=3, scheduler=LargestFirst, duration_days=3, seed=2)
with tempfile.TemporaryDirectory() as tmp:
    report = run_sweep(Grid(users=3, scheduler=[LargestFirst], duration=3),
                       Path(tmp) / "s.csv", executor="serial", progress=False)
    rows = read_rows(Path(tmp) / "s.csv")[1]
print(r.summary["config"]["scheduler"], len(r.jobs), report.ok, rows[0]["scheduler"], rows[0]["completed"])
"""


def test_a_class_defined_in_main_runs_in_simulate_and_a_serial_sweep() -> None:
    done = subprocess.run([sys.executable, "-c", MAIN_SCRIPT], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    name, jobs, ok, swept, completed = done.stdout.split()
    assert (name, ok, swept) == ("largest-first", "True", "largest-first")
    assert int(jobs) > 0 and int(completed) > 0


@pytest.fixture
def examples_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    """examples/ on the path here and for worker processes (they import the module)."""
    monkeypatch.syspath_prepend(str(EXAMPLES))
    paths = [str(EXAMPLES), str(ROOT), os.environ.get("PYTHONPATH", "")]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in paths if p))


def _sweep(tmp_path: Path, executor: object) -> list[dict[str, str]]:
    from new_scheduler import SmallestFirst  # type: ignore[import-not-found]

    grid = Grid(users=3, scheduler=[SmallestFirst, "fcfs"], duration=2, seed=[0, 1])
    assert grid.scheduler == ("new_scheduler:SmallestFirst", "fcfs")
    report = run_sweep(grid, tmp_path / "s.csv", executor=executor, jobs=2, progress=False)
    assert report.ok and report.ran == 4
    return read_rows(tmp_path / "s.csv")[1]


@pytest.mark.usefixtures("examples_importable")
def test_a_module_class_runs_in_process_and_dask_sweeps(tmp_path: Path) -> None:
    serial = _sweep(tmp_path / "serial", "serial")
    processes = _sweep(tmp_path / "processes", "processes")
    assert processes == serial
    pytest.importorskip("dask.distributed", reason="dask.distributed not installed (sitesim[dask])")
    from dask.distributed import Client, LocalCluster

    # Worker processes of their own: they can only know the class by importing it.
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        assert _sweep(tmp_path / "dask", client) == serial
