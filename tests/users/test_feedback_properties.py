"""Property tests of replay with feedback over random small archive-style logs.

Each example writes a log of up to 20 jobs of 3 users (recorded waits make some
think times negative, some long), replays it with feedback and checks, against the
plan of :func:`sitesim.users.recorded.plan_batches` and the schedule written:

- the plan partitions the jobs, keeps each user's order, and has offsets >= 0;
- every job is submitted once; a waiting batch's jobs come exactly their offsets
  after the last end of the batch they wait for, never before it;
- root batches come at their recorded times; no dependency violation of either kind.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from sitesim.runs.replay import ReplayConfig, run_replay
from sitesim.users.recorded import plan_batches
from sitesim.workload.estimates import make_estimates
from sitesim.workload.replay import job_from_record
from sitesim.workload.swf import read_swf

NODES = 4


@st.composite
def logs(draw: st.DrawFn) -> list[str]:
    lines = [f"; MaxProcs: {NODES}"]
    t = 0
    for number in range(1, draw(st.integers(1, 20)) + 1):
        t += draw(st.sampled_from([0, 0, 5, 30, 100, 600, 1500, 5000]))
        wait = draw(st.sampled_from([0, 0, 10, 200, 3000]))
        run = draw(st.integers(0, 400))
        size = draw(st.integers(1, NODES))
        user = draw(st.integers(1, 3))
        lines.append(f"{number} {t} {wait} {run} {size} -1 -1 {size} {run} -1 1 {user} 1 -1 -1 -1 -1 -1")
    return lines


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    log=logs(),
    scheduler=st.sampled_from(["fcfs", "easy"]),
    starts=st.sampled_from(["absolute", "gap"]),
)
def test_feedback_keeps_the_plan_and_never_violates(log: list[str], scheduler: str, starts: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / "log.swf"
        trace.write_text("\n".join(log) + "\n")
        result = run_replay(
            ReplayConfig(trace=str(trace), scheduler=scheduler, estimates="trace", feedback=starts),
            out=Path(tmp) / "out",
        )
        _, records = read_swf(trace)
        _, schedule = read_swf(Path(tmp) / "out" / "schedule.swf")
    estimates = make_estimates("trace")
    jobs = [j for j in (job_from_record(r, estimates, None) for r in records) if j is not None]
    batches, counts = plan_batches(jobs, starts)
    planned = [j.id for b in batches for j in b.jobs]
    assert sorted(planned) == [j.id for j in jobs]
    for batch in batches:
        assert all(offset >= 0 for offset in batch.offsets)
        assert [j.submit for j in batch.jobs] == sorted(j.submit for j in batch.jobs)
    assert sorted(r.job_number for r in schedule) == [j.id for j in jobs]
    done = {r.job_number: r for r in schedule}
    submit = {n: int(r.submit_time) for n, r in done.items()}
    end = {n: int(r.submit_time + r.wait_time + r.run_time) for n, r in done.items()}
    for batch in batches:
        if batch.waits:
            assert batch.previous is not None
            release = max(end[j.id] for j in batch.previous.jobs)
            for job, offset in zip(batch.jobs, batch.offsets, strict=True):
                assert submit[job.id] == release + offset
                assert done[job.id].think_time == offset
                assert end[done[job.id].preceding_job] == release
        else:
            for job in batch.jobs:
                assert submit[job.id] == job.submit  # recorded time (load factor 1)
                assert done[job.id].preceding_job == -1
    assert result.violations["submission"] == result.violations["execution"] == 0
    assert result.violations["with_dependency"] == counts.dependent_jobs
