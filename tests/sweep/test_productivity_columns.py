"""The users' productivity in sweep CSVs: appended columns, filled by site runs, and
CSVs written before them resumed (upgraded in place), never rerun or refused."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from sitesim.cli import main as sitesim_main
from sitesim.sweep.grid import Grid, Point
from sitesim.sweep.run import COLUMNS, PRODUCTIVITY_COLUMNS, Row, columns_for, run_point
from sitesim.sweep.runner import run_sweep
from sitesim.sweep.store import read_rows, row_key

from tests.sweep.helpers import fake_run, small_trace

#: The columns of every sweep CSV before the productivity ones (docs/figures/sweep_*.csv).
OLD_COLUMNS = [
    "mode", "trace", "load_factor", "users", "submittal", "workpool", "scheduler", "estimates",
    "nodes", "duration", "model", "seed", "nodes_used", "submitted", "completed", "killed",
    "mean_wait", "mean_response", "mean_slowdown", "mean_bounded_slowdown", "utilization",
    "offered_load", "accepted_load", "throughput_per_day", "makespan", "violations_submission",
    "violations_execution", "violations_submission_fraction", "violations_execution_fraction",
    "violations_no_dependency", "violations_unresolved",
]


def test_the_productivity_columns_are_appended() -> None:
    assert list(COLUMNS) == [*OLD_COLUMNS, *PRODUCTIVITY_COLUMNS]
    adaptive = columns_for([Point("site", "fcfs", "exact", 0, users=2, adaptive=0.5)])
    assert adaptive[-len(PRODUCTIVITY_COLUMNS):] == PRODUCTIVITY_COLUMNS


def test_site_rows_carry_the_productivity_and_replay_rows_leave_it_empty(tmp_path: Path) -> None:
    site = Point("site", "easy", "exact", 0, users=2, submittal="batch", workpool="plain", duration=2 * 86_400)
    row = run_point(site)
    assert (row["sessions_started"], row["sessions_completed"], row["batches_per_session"]) == ("2", "0", "")
    assert float(row["jobs_per_active_day"]) > 0
    trace = str(small_trace(tmp_path / "t.swf", jobs=10))
    replay = run_point(Point("replay", "fcfs", "trace", 0, trace=trace, load_factor=1.0))
    assert all(replay[c] == "" for c in PRODUCTIVITY_COLUMNS)


def _write_old(path: Path, rows: list[Row]) -> None:
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, OLD_COLUMNS, extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


@pytest.fixture
def grid(tmp_path: Path) -> Grid:
    trace = str(small_trace(tmp_path / "t.swf", jobs=10))
    return Grid(mode="replay", trace=trace, load_factor=(1, 2), scheduler=("fcfs", "easy"))


class Counting:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, point: Point) -> Row:
        self.calls += 1
        row = fake_run(point)
        row["sessions_started"] = "3"  # as a site run would fill it
        return row


def test_a_csv_made_before_the_columns_is_resumed_not_rerun(tmp_path: Path, grid: Grid) -> None:
    reference = tmp_path / "reference.csv"
    run_sweep(grid, reference, "serial", run=fake_run, progress=False)
    _, rows = read_rows(reference)
    old = tmp_path / "old.csv"
    _write_old(old, rows[:3])  # an older sweep, interrupted after three runs

    run = Counting()
    report = run_sweep(grid, old, "serial", run=run, progress=False)
    assert (report.existing, report.ran, report.upgraded, run.calls) == (3, 1, 3, 1)
    header, resumed = read_rows(old)
    assert header == list(COLUMNS)
    by_key = {row_key(r): r for r in resumed}
    for before in rows[:3]:  # kept as they were, the productivity not measured
        after = by_key.pop(row_key(before))
        assert {c: after[c] for c in OLD_COLUMNS} == {c: before[c] for c in OLD_COLUMNS}
        assert all(after[c] == "" for c in PRODUCTIVITY_COLUMNS)
    assert [r["sessions_started"] for r in by_key.values()] == ["3"]  # the run made now


def test_an_upgraded_csv_interrupted_again_still_resumes(tmp_path: Path, grid: Grid) -> None:
    reference = tmp_path / "reference.csv"
    run_sweep(grid, reference, "serial", run=fake_run, progress=False)
    _, rows = read_rows(reference)
    old = tmp_path / "old.csv"
    _write_old(old, rows[:2])

    def interrupted(point: Point) -> Row:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_sweep(grid, old, "serial", run=interrupted, progress=False)
    header, kept = read_rows(old)  # upgraded at once, so rows appended later match it
    assert header == list(COLUMNS) and len(kept) == 2
    assert run_sweep(grid, old, "serial", run=fake_run, progress=False).ran == 2


def test_rows_of_an_older_csv_are_reused(tmp_path: Path, grid: Grid) -> None:
    reference = tmp_path / "reference.csv"
    run_sweep(grid, reference, "serial", run=fake_run, progress=False)
    _, rows = read_rows(reference)
    old = tmp_path / "old.csv"
    _write_old(old, rows)
    run = Counting()
    report = run_sweep(grid, tmp_path / "new.csv", "serial", run=run, progress=False, reuse=[old])
    assert (report.reused, run.calls) == (4, 0)


def test_other_columns_are_still_refused(tmp_path: Path, grid: Grid) -> None:
    from sitesim.errors import InputError

    csv_path = tmp_path / "odd.csv"
    csv_path.write_text(",".join([*OLD_COLUMNS, "something_else"]) + "\n")
    with pytest.raises(InputError, match="other columns"):
        run_sweep(grid, csv_path, "serial", run=fake_run, progress=False)


def test_summarize_knows_the_productivity_columns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "site.csv"
    argv = ["sweep", "--users", "2", "--scheduler", "easy", "--duration", "2", "--replications", "2",
            "--serial", "--no-progress", "-o", str(out)]
    assert sitesim_main(argv) == 0
    capsys.readouterr()
    assert sitesim_main(["sweep", "--summarize", str(out), "--metrics", "jobs_per_active_day,sessions_started"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "jobs_per_active_day_mean" in lines[0] and "sessions_started_ci" in lines[0]
    cells = dict(zip(lines[0].split(","), lines[1].split(","), strict=True))
    assert (cells["n"], cells["sessions_started_mean"]) == ("2", "2")
