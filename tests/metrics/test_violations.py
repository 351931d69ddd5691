"""Dependency violations on hand-made traces whose answers are worked out by hand."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from sitesim.cli import main
from sitesim.metrics.violations import ViolationCounter
from sitesim.runs.replay import ReplayConfig, run_replay
from sitesim.workload.job import Job
from sitesim.workload.swf import SwfRecord, write_swf

# (id, submit, size, runtime, preceding)
Row = tuple[int, int, int, int, int]


def write_trace(path: Path, rows: list[Row], nodes: int) -> Path:
    records = [
        SwfRecord(
            job_number=i, submit_time=t, run_time=r, allocated_processors=s,
            requested_processors=s, requested_time=r, status=1, user_id=1,
            preceding_job=p, think_time=-1 if p < 0 else 0,
        )
        for i, t, s, r, p in rows
    ]
    write_swf(path, records, [f"; MaxNodes: {nodes}"])
    return path


def violations(path: Path, scheduler: str = "fcfs", load_factor: float = 1.0) -> dict:
    config = ReplayConfig(trace=str(path), scheduler=scheduler, load_factor=load_factor)
    return run_replay(config).violations


def test_submission_violations_and_uncountable_jobs(tmp_path: Path) -> None:
    trace = write_trace(tmp_path / "t.swf", [
        (1, 0, 4, 100, -1),    # no dependency
        (2, 50, 1, 10, 1),     # job 1 still running: submission violation
        (3, 100, 1, 10, 1),    # job 1 ends at 100, completions come first: fine
        (4, 200, 1, 10, -1),   # no dependency
        (5, 210, 1, 10, 99),   # job 99 never replayed: unresolved
        (6, 220, 8, 10, -1),   # larger than the machine: not replayed
        (7, 300, 1, 10, 6),    # depends on a skipped job: unresolved
    ], nodes=4)
    v = violations(trace)
    assert v == {
        "jobs": 6, "with_dependency": 2, "no_dependency": 2, "unresolved": 2,
        "submission": 1, "execution": 0,
        "submission_fraction": pytest.approx(1 / 6), "execution_fraction": 0.0,
    }


EXECUTION_ROWS: list[Row] = [
    (1, 0, 3, 100, -1),   # runs 0-100 on 3 of 4 nodes
    (2, 10, 4, 50, 1),    # submission violation; queue head, reserved for t=100
    (3, 20, 1, 10, 2),    # submission violation; EASY backfills it at 20 while 2 waits
]


def test_execution_ordering_violation_under_easy(tmp_path: Path) -> None:
    trace = write_trace(tmp_path / "t.swf", EXECUTION_ROWS, nodes=4)
    v = violations(trace, "easy")
    assert (v["submission"], v["execution"]) == (2, 1)
    assert v["execution_fraction"] == pytest.approx(1 / 3)


def test_fcfs_never_breaks_execution_order(tmp_path: Path) -> None:
    trace = write_trace(tmp_path / "t.swf", EXECUTION_ROWS, nodes=4)
    v = violations(trace, "fcfs")
    assert (v["submission"], v["execution"]) == (2, 0)


def chain(n: int, runtime: int, think: int, users: int) -> list[Row]:
    """Each user's jobs one after another: submit = previous end + think (no waiting)."""
    rows = []
    for k in range(n):
        for u in range(users):
            jid = 1 + k * users + u
            rows.append((jid, k * (runtime + think) + u, 1, runtime, jid - users if k else -1))
    return rows


def test_raising_the_load_creates_submission_violations(tmp_path: Path) -> None:
    trace = write_trace(tmp_path / "t.swf", chain(20, 100, 50, users=3), nodes=8)
    assert violations(trace, load_factor=1.0)["submission"] == 0
    # Inter-arrivals 150 s -> 75 s, shorter than the 100 s runtimes: every job but
    # each user's first now arrives while its predecessor runs.
    v = violations(trace, load_factor=2.0)
    assert v["submission"] == 19 * 3
    assert v["submission_fraction"] == pytest.approx(57 / 60)
    assert v["execution"] == 0
    # Lowering the load never creates violations.
    assert violations(trace, load_factor=0.5)["submission"] == 0


def job(jid: int, preceding: int, start: int) -> Job:
    return Job(id=jid, submit=0, size=1, runtime=1, estimate=1, preceding=preceding, start=start)


def test_starting_in_the_same_pass_is_not_a_violation() -> None:
    counter = ViolationCounter()
    dep, dependent = job(1, -1, 10), job(2, 1, 10)
    counter.on_submit(dep)
    counter.on_submit(dependent)
    counter.on_start(dependent)  # listed before its dependency in the same pass
    counter.on_start(dep)
    counter.close()
    assert counter.summary()["execution"] == 0
    assert counter.summary()["submission"] == 1


def test_dependency_never_started_counts_at_close() -> None:
    counter = ViolationCounter()
    dep, dependent = job(1, -1, -1), job(2, 1, 5)
    counter.on_submit(dep)
    counter.on_submit(dependent)
    counter.on_start(dependent)
    counter.close()
    assert counter.summary()["execution"] == 1


def test_reported_in_json_and_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = write_trace(tmp_path / "t.swf", EXECUTION_ROWS, nodes=4)
    out = tmp_path / "out"
    assert main(["-c", str(trace), "-s", "easy", "--out", str(out)]) == 0
    document = json.loads((out / "summary.json").read_text())
    assert document["violations"]["execution"] == 1
    printed = capsys.readouterr().out
    assert "dependency violations" in printed
    assert "execution ordering 1 (33.33%) of 3 jobs" in printed


@pytest.mark.skipif(importlib.util.find_spec("sitesim.runs.site") is None,
                    reason="site-level runs (sitesim.runs.site) not available yet")
@pytest.mark.parametrize("scheduler", ["fcfs", "easy"])
def test_site_trace_replayed_at_its_own_load_has_no_violations(tmp_path: Path, scheduler: str) -> None:
    """The paper's Figure 14: no violations at the original load with the same scheduler."""
    from sitesim.runs.site import SiteConfig, run_site

    run_site(SiteConfig(users=10, scheduler=scheduler, duration=4 * 86400), out=tmp_path)
    trace = tmp_path / "trace.swf"
    v = violations(trace, scheduler)
    assert v["jobs"] > 100 and v["unresolved"] == 0
    assert (v["submission"], v["execution"]) == (0, 0)
    assert violations(trace, scheduler, load_factor=1.5)["submission_fraction"] > 0.3
