"""Property tests of the scheduling invariants over random small workloads.

Every example runs in a fresh SimPy environment (tests.helpers.run_jobs). EASY's
"never delays the head job" is checked pass by pass by :class:`AuditedEasy`, which
recomputes the head's reservation from the estimates of the running jobs on its own
(not through the scheduler's internal structures) and checks it against what the
scheduler actually started.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sitesim.schedulers.easy import EasyScheduler
from sitesim.workload.job import Job
from tests.helpers import job, max_concurrent_nodes, run_jobs

EXAMPLES = 150


@st.composite
def workloads(draw: st.DrawFn, nodes: int | None = None, sizes: st.SearchStrategy[int] | None = None):
    """(nodes, jobs): up to 25 jobs with frequent equal submit times and some kills."""
    if nodes is None:
        nodes = draw(st.integers(1, 16))
    size_strategy = sizes if sizes is not None else st.integers(1, nodes)
    n = draw(st.integers(1, 25))
    t = 0
    jobs = []
    for i in range(n):
        t += draw(st.sampled_from([0, 0, 1, 2, 5, 10, 30, 100]))
        runtime = draw(st.integers(0, 120))
        # Mostly overestimates, as users give; sometimes under (the job is killed).
        estimate = draw(st.one_of(st.integers(runtime, 200), st.integers(0, 120)))
        jobs.append(job(i + 1, t, draw(size_strategy), runtime, estimate))
    return nodes, jobs


def free_at(t: int, nodes: int, running: list[tuple[int, int]]) -> int:
    """Nodes free at time ``t`` by the estimate profile: running is [(expected end, size)]."""
    return nodes - sum(size for end, size in running if end > t)


def shadow_time(need: int, now: int, nodes: int, running: list[tuple[int, int]]) -> int:
    """Earliest t >= now at which ``need`` nodes are free by the estimates."""
    for t in sorted({now, *(end for end, _ in running if end >= now)}):
        if free_at(t, nodes, running) >= need:
            return t
    raise AssertionError(f"a job of {need} nodes never fits on {nodes}")


class AuditedEasy(EasyScheduler):
    """EASY that checks every pass against an independent computation of the shadow."""

    def __init__(self, nodes: int) -> None:
        super().__init__(nodes)
        self.audit_running: dict[int, tuple[int, int]] = {}
        self.passes = 0
        self.backfilled = 0

    def job_ended(self, job: Job, now: int) -> None:
        super().job_ended(job, now)
        del self.audit_running[job.id]

    def schedule(self, now: int, free: int) -> list[Job]:
        queue_before = list(self.queue)
        started = super().schedule(now, free)
        self.passes += 1
        nodes = self.nodes
        running = list(self.audit_running.values())
        # The site's idea of free nodes matches the estimate profile now.
        assert free == free_at(now, nodes, running)
        # Heads: the prefix of the queue that started in order.
        k = 0
        while k < len(started) and k < len(queue_before) and started[k] is queue_before[k]:
            k += 1
        heads, backfilled = started[:k], started[k:]
        assert sum(j.size for j in started) <= free
        for j in heads:
            running.append((now + j.estimate, j.size))
        if k < len(queue_before):
            head = queue_before[k]
            assert head not in started
            # The head could not start now, or it would have been a head start.
            assert head.size > free - sum(j.size for j in heads)
            shadow = shadow_time(head.size, now, nodes, running)
            for j in backfilled:
                assert j in queue_before, "started a job that was not queued"
                running.append((now + j.estimate, j.size))
            # Not delayed: the head still fits at its shadow time with the backfills.
            assert free_at(shadow, nodes, running) >= head.size, (now, head, backfilled)
            # Nothing left behind that could have backfilled without delaying it.
            free_now = free - sum(j.size for j in started)
            extra = free_at(shadow, nodes, running) - head.size
            for j in self.queue[1:]:
                fits = j.size <= free_now
                harmless = now + j.estimate <= shadow or j.size <= extra
                assert not (fits and harmless), f"job {j.id} could have backfilled at {now}"
        else:
            assert not backfilled
        for j in started:
            self.audit_running[j.id] = (now + j.estimate, j.size)
        self.backfilled += len(backfilled)
        return started


def check_common(nodes: int, jobs: list[Job], recorder) -> None:
    """Invariants every scheduler must keep."""
    assert recorder.max_busy <= nodes
    assert max_concurrent_nodes(jobs) <= nodes
    assert len(recorder.ended) == len(jobs), "every job must complete"
    for j in jobs:
        assert j.start >= j.submit
        assert j.end == j.start + min(j.runtime, j.estimate)
        assert j.killed == (j.runtime > j.estimate)


@settings(max_examples=EXAMPLES, deadline=None)
@given(workloads())
def test_fcfs_invariants_and_start_order(case) -> None:
    nodes, jobs = case
    recorder = run_jobs(jobs, nodes, "fcfs")
    check_common(nodes, jobs, recorder)
    # FCFS starts jobs in arrival order (seq breaks equal submit times).
    assert [j.seq for j in recorder.started] == sorted(j.seq for j in jobs)
    assert [j.id for j in recorder.started] == [j.id for j in jobs]
    starts = [j.start for j in recorder.started]
    assert starts == sorted(starts)


@settings(max_examples=EXAMPLES, deadline=None)
@given(workloads())
def test_easy_invariants_and_head_never_delayed(case) -> None:
    nodes, jobs = case
    scheduler = AuditedEasy(nodes)
    recorder = run_jobs(jobs, nodes, scheduler)
    check_common(nodes, jobs, recorder)
    assert scheduler.passes >= 1


def _fresh(jobs: list[Job]) -> list[Job]:
    return [job(j.id, j.submit, j.size, j.runtime, j.estimate) for j in jobs]


@settings(max_examples=EXAMPLES, deadline=None)
@given(workloads(sizes=st.just(1)))
def test_easy_equals_fcfs_when_every_job_needs_the_whole_machine(case) -> None:
    nodes, jobs = case
    for j in jobs:
        j.size = nodes
    fcfs = run_jobs(_fresh(jobs), nodes, "fcfs")
    easy = run_jobs(_fresh(jobs), nodes, "easy")
    assert easy.events == fcfs.events


@st.composite
def equal_size_workloads(draw: st.DrawFn):
    """All jobs of size s on a machine of m x s nodes: FCFS never leaves a usable hole."""
    size = draw(st.integers(1, 4))
    multiple = draw(st.integers(1, 4))
    return draw(workloads(nodes=size * multiple, sizes=st.just(size)))


@settings(max_examples=EXAMPLES, deadline=None)
@given(equal_size_workloads())
def test_easy_equals_fcfs_without_backfill_opportunity(case) -> None:
    nodes, jobs = case
    fcfs = run_jobs(_fresh(jobs), nodes, "fcfs")
    scheduler = AuditedEasy(nodes)
    easy = run_jobs(_fresh(jobs), nodes, scheduler)
    assert easy.events == fcfs.events
    assert scheduler.backfilled == 0
