"""EASY's loops (:mod:`sitesim.schedulers.backfill`) against the paper's own procedure.

Mu'alem & Feitelson describe the backfill step as "find one job that may start now
without delaying the head, start it, and repeat until none is left", and the shadow
time as the first instant the head fits. Here both are written out that literally, and
the one scan and the shadow time must give the same jobs and the same numbers, on random
queues with the timed-run sets (blocked jobs, jobs that go on from an earlier start) and
planned lengths; their compiled twins (``_backfill.pyx``), where built, must give the
Python ones' answers, and whole runs the same events.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitesim.schedulers import backfill, easy, los
from sitesim.schedulers.backfill import Running, scan_python, shadow_python
from sitesim.workload.job import Job
from tests.helpers import job, run_jobs
from tests.schedulers.test_invariants import workloads

needs_compiled = pytest.mark.skipif(
    backfill.scan is backfill.scan_python,
    reason="the compiled backfill loops are not in use (not built: no C compiler at install; or SITESIM_COMPILED=0): nothing to compare",
)


@st.composite
def scans(draw: st.DrawFn):
    """A queue of up to 40 jobs, a shadow time and extra nodes, some jobs blocked or
    going on from an earlier start, and planned lengths for some runs."""
    queue = [job(i + 1, 0, draw(st.integers(1, 64)), 0, draw(st.integers(0, 500))) for i in range(draw(st.integers(0, 40)))]
    now = draw(st.integers(600, 1000))
    blocked, continuing = set(), set()
    for seq, queued in enumerate(queue):
        queued.seq = seq
        phase = draw(st.sampled_from(("waiting", "waiting", "trial", "past trial")))
        if phase == "trial":
            blocked.add(seq)
        elif phase == "past trial":
            continuing.add(seq)
            queued.start = now - draw(st.integers(0, 600))
    planned = {j.seq: draw(st.integers(0, 500)) for j in queue} if draw(st.booleans()) else None
    first = draw(st.integers(0, len(queue)))
    free = draw(st.integers(0, 64))
    return queue, first, free, now, now + draw(st.integers(0, 400)), draw(st.integers(0, free)), planned, blocked, continuing


def one_at_a_time(queue: list[Job], first: int, free: int, now: int, end_by: int, extra: int,
                  planned: dict[int, int] | None, blocked: set[int], continuing: set[int]) -> tuple[list[int], int, int]:
    """The paper's loop: the first job after ``first`` that may start, again and again."""
    picked: list[int] = []
    while True:
        for i in range(first, len(queue)):
            j = queue[i]
            if i in picked or j.seq in blocked or j.size > free:
                continue
            end = (j.start if j.seq in continuing else now) + (j.estimate if planned is None else planned[j.seq])
            if end <= end_by or j.size <= extra:
                picked.append(i)
                free -= j.size
                if end > end_by:
                    extra -= j.size
                break
        else:
            return picked, free, extra


@settings(max_examples=400, deadline=None, derandomize=True)
@given(scans())
def test_the_scan_finds_what_the_papers_loop_finds(case) -> None:
    assert scan_python(*case) == backfill.scan(*case) == one_at_a_time(*case)


def test_without_sets_or_plans_a_job_runs_its_estimate_from_now() -> None:
    queue = [job(1, 0, 4, 0, 100), job(2, 0, 2, 0, 50), job(3, 0, 2, 0, 10)]
    # Shadow at 60 with 1 extra node: job 1 ends too late and is too big, job 2 ends in time.
    assert scan_python(queue, 0, 4, 0, 60, 1) == backfill.scan(queue, 0, 4, 0, 60, 1) == ([1, 2], 0, 1)


def brute_shadow(running: Running, need: int, free: int) -> tuple[int, int]:
    """The first expected end at which ``need`` nodes are free, every job ending then counted."""
    for end in sorted({r[0] for r in running}):
        avail = free + sum(size for e, _s, size in running if e <= end)
        if avail >= need:
            return end, avail - need
    raise RuntimeError("never fits")


@st.composite
def running_lists(draw: st.DrawFn):
    """(running, need, free): sorted (expected end, seq, size) with frequent equal ends."""
    ends = sorted(draw(st.lists(st.integers(0, 50), max_size=30)))
    running = [(end, seq, draw(st.integers(1, 16))) for seq, end in enumerate(ends)]
    return running, draw(st.integers(1, 200)), draw(st.integers(0, 16))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(running_lists())
def test_shadow_is_the_first_end_at_which_the_head_fits(case) -> None:
    running, need, free = case
    if need <= free:
        return  # a head that fits now is started, never given a shadow time
    try:
        expected = brute_shadow(*case)
    except RuntimeError:
        for implementation in (shadow_python, backfill.shadow):
            with pytest.raises(RuntimeError, match=f"job of {need} nodes can never run on {free + sum(r[2] for r in running)} nodes"):
                implementation(*case)
    else:
        assert shadow_python(*case) == backfill.shadow(*case) == expected


def test_huge_lengths_do_not_wrap_around() -> None:
    going_on = job(2, 0, 1, 0, (1 << 63) - 1)
    going_on.seq, going_on.start = 2, 0
    case = ([job(1, 0, 1, 0, (1 << 63) - 1), going_on], 0, 4, 5, 100, 0)
    for implementation in (scan_python, backfill.scan):
        assert implementation(*case, None, set(), {2}) == ([], 4, 0)


def test_a_negative_start_is_refused() -> None:
    for implementation in (scan_python, backfill.scan):
        with pytest.raises(ValueError, match="got -1"):
            implementation([job(1, 0, 1, 1)], -1, 4, 0, 10, 0)


def events(jobs: list, scheduler: str) -> list:
    fresh = [job(j.id, j.submit, j.size, j.runtime, j.estimate) for j in jobs]
    return run_jobs(fresh, 8, scheduler).events


@needs_compiled
@settings(max_examples=100, deadline=None, derandomize=True)
@given(workloads(nodes=8), st.sampled_from(("easy", "sjbf", "easy++", "los:3", "timed:easy:5", "timed:easy:30")))
def test_schedules_are_the_same_with_either_loops(case, scheduler) -> None:
    """Whole runs (short trials, so that jobs are killed and go on past their trial),
    event for event, with the compiled loops and then the Python ones."""
    _nodes, jobs = case
    compiled = events(jobs, scheduler)
    with pytest.MonkeyPatch.context() as patch:
        for module in (backfill, easy, los):
            patch.setattr(module, "scan", scan_python)
        for module in (backfill, easy):
            patch.setattr(module, "shadow", shadow_python)
        assert events(jobs, scheduler) == compiled
