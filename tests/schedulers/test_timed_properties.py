"""Timed-run scheduling on random small workloads (hypothesis), FCFS and EASY bases.

Whatever the workload: node capacity holds with killed and restarted runs counted, every
job ends exactly once, no job is restarted twice, a killed run had finished its trial,
the final run lasts what the job needs (runtime, time to failure, or estimate if killed
at it), FCFS commits in arrival order, and the metrics' busy-node integral equals the
useful plus the lost node-seconds.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitesim.metrics.stats import RunMetrics
from sitesim.schedulers.timed import TimedScheduler
from sitesim.workload.job import Job
from tests.helpers import run_jobs


@st.composite
def workloads(draw: st.DrawFn) -> tuple[int, int, list[Job]]:
    nodes = draw(st.integers(1, 16))
    trial = draw(st.integers(1, 120))
    n = draw(st.integers(1, 14))
    jobs = []
    for i in range(n):
        runtime = draw(st.integers(0, 400))
        jobs.append(
            Job(
                id=i + 1,
                submit=draw(st.integers(0, 300)),
                size=draw(st.integers(1, nodes)),
                runtime=runtime,
                estimate=draw(st.one_of(st.just(runtime), st.integers(0, 500))),
                failed=draw(st.booleans()),
            )
        )
    jobs.sort(key=lambda j: j.submit)
    return nodes, trial, jobs


def peak(intervals: list[tuple[int, int, int]]) -> int:
    """Peak nodes over (start, end, size) runs, ends before starts at equal times."""
    points = sorted(p for s, e, size in intervals if e > s for p in ((s, size), (e, -size)))
    busy = top = 0
    for _, delta in points:
        busy += delta
        top = max(top, busy)
    return top


@pytest.mark.parametrize("base", ["fcfs", "easy"])
@settings(max_examples=250, deadline=None, derandomize=True)
@given(case=workloads())
def test_timed_schedules_are_sound(base: str, case: tuple[int, int, list[Job]]) -> None:
    nodes, trial, jobs = case
    sched = TimedScheduler(nodes, base, trial, record=True)
    metrics = RunMetrics.with_threshold(nodes, sched.short_job_threshold)
    rec = run_jobs(jobs, nodes, sched, observers=[metrics])
    metrics.close()

    ends = Counter(e[2] for e in rec.events if e[1] == "end")
    assert ends == Counter(j.id for j in jobs)  # every job ends exactly once
    kills = Counter(k[0] for k in rec.killed)
    assert all(count == 1 for count in kills.values())  # at most one restart each
    runs = [(s, e, next(j.size for j in jobs if j.id == i)) for i, s, e in rec.killed]
    runs += [(j.start, j.end, j.size) for j in jobs]
    assert peak(runs) <= nodes
    assert rec.max_busy <= nodes and rec.busy == 0

    for j in jobs:
        assert j.restarts == kills[j.id]
        assert j.end - j.start == min(j.runtime, j.estimate)
        assert j.killed == (j.runtime > j.estimate)
        assert j.start >= j.submit
        if j.restarts:
            assert j.first_start < j.start
            assert min(j.runtime, j.estimate) > trial  # a short job is never killed
    for _, start, end in rec.killed:
        assert end - start >= trial  # only runs past their trial are killed

    if base == "fcfs":  # commitment in the base scheduler's order
        seq = {j.id: j.seq for j in jobs}
        commits = [seq[i] for _, what, i in sched.log or [] if what == "commit"]
        assert commits == sorted(commits)

    lost = sum(j.size * j.lost for j in jobs)
    assert metrics.waits.wasted_work == lost
    assert metrics.busy_integral == sum(j.size * (j.end - j.start) for j in jobs) + lost
    assert not sched.queue and not sched.untried and not sched.expired and not sched.running
