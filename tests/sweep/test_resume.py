"""Resume: rows already in the CSV are never run again; the final file is sorted."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitesim.errors import InputError
from sitesim.sweep.grid import Grid, Point
from sitesim.sweep.run import Row
from sitesim.sweep.runner import run_sweep
from sitesim.sweep.store import read_rows, row_key

from tests.sweep.helpers import fake_run, small_trace


@pytest.fixture
def grid(tmp_path: Path) -> Grid:
    trace = str(small_trace(tmp_path / "t.swf", jobs=10))
    return Grid(mode="replay", trace=trace, load_factor=(0.5, 1, 2), scheduler=("fcfs", "easy"),
                replications=2)


class Recorder:
    """A run function that records which points it ran, optionally interrupting."""

    def __init__(self, interrupt_after: int | None = None) -> None:
        self.calls: list[Point] = []
        self.interrupt_after = interrupt_after

    def __call__(self, point: Point) -> Row:
        if self.interrupt_after is not None and len(self.calls) == self.interrupt_after:
            raise KeyboardInterrupt
        self.calls.append(point)
        return fake_run(point)


def test_interrupted_sweep_resumes_without_rerunning(tmp_path: Path, grid: Grid) -> None:
    reference = tmp_path / "reference.csv"
    run_sweep(grid, reference, "serial", run=fake_run, progress=False)

    csv = tmp_path / "runs.csv"
    first = Recorder(interrupt_after=5)
    with pytest.raises(KeyboardInterrupt):
        run_sweep(grid, csv, "serial", run=first, progress=False)
    _, rows = read_rows(csv)
    assert len(rows) == 5  # each finished run was flushed as it finished

    second = Recorder()
    report = run_sweep(grid, csv, "serial", run=second, progress=False)
    done = {row_key(r) for r in rows}
    assert len(second.calls) == 12 - 5
    assert not done & {p.key() for p in second.calls}
    assert (report.total, report.existing, report.ran) == (12, 5, 7)
    assert csv.read_bytes() == reference.read_bytes()

    third = Recorder()
    assert run_sweep(grid, csv, "serial", run=third, progress=False).existing == 12
    assert third.calls == []


def test_a_cut_off_last_line_is_run_again(tmp_path: Path, grid: Grid) -> None:
    csv = tmp_path / "runs.csv"
    run_sweep(grid, csv, "serial", run=fake_run, progress=False)
    complete = csv.read_bytes()
    csv.write_bytes(complete[: complete.rstrip(b"\n").rfind(b"\n") + 1] + b"replay,t.sw")
    again = Recorder()
    run_sweep(grid, csv, "serial", run=again, progress=False)
    assert len(again.calls) == 1
    assert csv.read_bytes() == complete


def test_growing_the_grid_runs_only_new_points(tmp_path: Path, grid: Grid) -> None:
    csv = tmp_path / "runs.csv"
    run_sweep(grid, csv, "serial", run=fake_run, progress=False)
    recorder = Recorder()
    run_sweep(grid, csv, "serial", replications=3, run=recorder, progress=False)
    assert {p.seed for p in recorder.calls} == {2} and len(recorder.calls) == 6
    _, rows = read_rows(csv)
    keys = [row_key(r) for r in rows]
    assert len(rows) == 18 and keys == sorted(set(keys), key=keys.index)
    assert [r["load_factor"] for r in rows[:6]] == ["0.5"] * 6


def test_failed_points_are_reported_and_retried(tmp_path: Path, grid: Grid) -> None:
    def flaky(point: Point) -> Row:
        if point.scheduler == "easy" and point.seed == 1:
            raise RuntimeError("boom")
        return fake_run(point)

    csv = tmp_path / "runs.csv"
    report = run_sweep(grid, csv, "serial", run=flaky, progress=False)
    assert not report.ok and len(report.failed) == 3
    assert "RuntimeError: boom" in report.failed[0][1]
    retry = Recorder()
    run_sweep(grid, csv, "serial", run=retry, progress=False)
    assert len(retry.calls) == 3


def test_a_csv_with_other_columns_is_refused(tmp_path: Path, grid: Grid) -> None:
    csv = tmp_path / "runs.csv"
    csv.write_text("a,b\n1,2\n")
    with pytest.raises(InputError, match="other columns"):
        run_sweep(grid, csv, "serial", run=fake_run, progress=False)


def test_rows_of_another_sweep_are_reused_not_run(tmp_path: Path, grid: Grid) -> None:
    reference = tmp_path / "reference.csv"
    run_sweep(grid, reference, "serial", run=fake_run, progress=False)
    other = tmp_path / "other.csv"  # shares the load factors 1 and 2 (8 of the 12 runs)
    narrow = Grid(mode="replay", trace=grid.trace, load_factor=(1, 2, 4), scheduler=("fcfs", "easy"),
                  replications=2)
    run_sweep(narrow, other, "serial", run=fake_run, progress=False)

    csv = tmp_path / "runs.csv"
    recorder = Recorder()
    report = run_sweep(grid, csv, "serial", run=recorder, progress=False,
                       reuse=[other, tmp_path / "missing.csv"])
    assert (report.reused, report.ran) == (8, 4)
    assert {p.load_factor for p in recorder.calls} == {0.5}
    assert csv.read_bytes() == reference.read_bytes()
