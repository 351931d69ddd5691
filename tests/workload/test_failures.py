"""Job failures: replayed from a trace's status 0, written back as status 0, counted apart
from jobs killed at their estimate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitesim.cli import EXIT_OK, main
from sitesim.errors import InputError
from sitesim.metrics.stats import RunMetrics
from sitesim.runs.replay import ReplayConfig, run_replay
from sitesim.workload.estimates import make_estimates
from sitesim.workload.job import Job
from sitesim.workload.replay import job_from_record
from sitesim.workload.schedule import job_record
from sitesim.workload.swf import (
    STATUS_COMPLETED,
    STATUS_FAILED,
    SwfRecord,
    read_swf,
    write_swf,
)

FAILED_AT_30 = SwfRecord(job_number=1, submit_time=0, run_time=30, allocated_processors=2,
                         requested_time=600, status=STATUS_FAILED, user_id=1)


def test_a_status_0_record_fails_at_its_recorded_runtime() -> None:
    exact = make_estimates("trace")
    failing = job_from_record(FAILED_AT_30, exact, None)
    assert failing is not None and failing.failed and failing.runtime == 30
    assert failing.estimate == 600  # the user's request, not the time to failure
    ignored = job_from_record(FAILED_AT_30, exact, None, failures=False)
    assert ignored is not None and not ignored.failed and ignored.runtime == 30
    ok = job_from_record(SwfRecord(job_number=2, run_time=5, allocated_processors=1, status=1), exact, None)
    assert ok is not None and not ok.failed


def ended(failed: bool, killed: bool, source: object = None) -> Job:
    j = Job(id=1, submit=0, size=1, runtime=10, estimate=20, failed=failed, source=source)
    j.start, j.end, j.killed = 1, 11, killed
    return j


def test_failed_and_killed_jobs_both_write_status_0() -> None:
    assert job_record(ended(False, False)).status == STATUS_COMPLETED
    assert job_record(ended(True, False)).status == STATUS_FAILED
    assert job_record(ended(False, True)).status == STATUS_FAILED
    # Replayed jobs: the simulated fate decides; a trace failure replayed as not
    # failing (--failures none) is written as completed.
    assert job_record(ended(True, False, FAILED_AT_30)).status == STATUS_FAILED
    assert job_record(ended(False, False, FAILED_AT_30)).status == STATUS_COMPLETED
    partial = SwfRecord(job_number=3, status=2)
    assert job_record(ended(False, False, partial)).status == 2


def test_metrics_count_failed_and_killed_apart() -> None:
    metrics = RunMetrics(4)
    jobs = [ended(True, False), ended(True, True), ended(False, True), ended(False, False)]
    for j in jobs:
        j.user = 1
        metrics.on_submit(j)
        metrics.on_start(j)
        metrics.on_end(j)
    metrics.close()
    summary = metrics.system_summary()
    # A failing job whose estimate expired first was killed, not failed.
    assert (summary["failed"], summary["killed"], summary["completed"]) == (1, 2, 4)
    assert metrics.user_summaries()[1]["failed"] == 1


def trace_with_failures(tmp_path: Path) -> Path:
    records = [
        FAILED_AT_30,
        SwfRecord(job_number=2, submit_time=1, run_time=100, allocated_processors=2,
                  requested_time=50, status=STATUS_FAILED, user_id=1),  # killed at 50 first
        SwfRecord(job_number=3, submit_time=2, run_time=40, allocated_processors=2,
                  requested_time=60, status=STATUS_COMPLETED, user_id=2),
        SwfRecord(job_number=4, submit_time=3, run_time=80, allocated_processors=2,
                  requested_time=90, status=STATUS_FAILED, user_id=2),
    ]
    path = tmp_path / "failures.swf"
    write_swf(path, records, ["; MaxProcs: 4"])
    return path


@pytest.mark.parametrize(("mode", "failed", "statuses"), [
    ("trace", 2, [0, 0, 1, 0]),
    ("none", 0, [1, 0, 1, 1]),
])
def test_replay_failure_modes(tmp_path: Path, mode: str, failed: int, statuses: list[int]) -> None:
    trace = trace_with_failures(tmp_path)
    out = tmp_path / mode
    result = run_replay(ReplayConfig(trace=str(trace), failures=mode), out=out)
    assert (result.summary["failed"], result.summary["killed"]) == (failed, 1)
    _, records = read_swf(out / "schedule.swf")
    assert [r.status for r in records] == statuses
    assert [r.run_time for r in records] == [30, 50, 40, 80]  # the same timing either way
    assert json.loads((out / "summary.json").read_text())["config"]["failures"] == mode


def test_failure_mode_is_validated_and_replay_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(InputError, match="unknown value 'some'"):
        ReplayConfig(trace="x", failures="some")
    trace = trace_with_failures(tmp_path)
    assert main(["-c", str(trace), "--failures", "none"]) == EXIT_OK
    assert "failed: 0" in capsys.readouterr().out
    assert main(["-c", str(trace)]) == EXIT_OK
    assert "failed: 2" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["--failures", "trace", "-u", "2", "--duration", "1"])
    assert "applies to trace replay" in capsys.readouterr().err
