"""The log's service (``hold``) and jobs held, then scheduled by a base (``hold:BASE``):
exact event traces on small cases, equality with the base where nothing is held, and
invariants over random workloads with random recorded waits."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitesim.errors import InputError
from sitesim.schedulers import make_scheduler
from sitesim.schedulers.hold import HoldScheduler
from sitesim.workload.job import Job
from tests.helpers import job, run_jobs
from tests.schedulers.test_invariants import EXAMPLES, _fresh, check_common, workloads


def held(id: int, submit: int, size: int, runtime: int, wait: int) -> Job:
    j = job(id, submit, size, runtime)
    j.recorded_wait = wait
    return j


def test_the_logs_service_starts_every_job_its_recorded_wait_after_submission_whatever_the_nodes() -> None:
    jobs = [held(1, 0, 4, 100, 10), held(2, 0, 4, 50, 20), job(3, 5, 4, 5)]
    recorder = run_jobs(jobs, 4, "hold")
    assert recorder.events == [
        (0, "submit", 1),
        (0, "submit", 2),
        (5, "submit", 3),
        (5, "start", 3),
        (10, "end", 3),  # completions first at an instant, then the pass a wake-up holds
        (10, "start", 1),
        (20, "start", 2),
        (70, "end", 2),
        (110, "end", 1),
    ]
    assert recorder.max_busy == 8  # twice the machine: a service, not a scheduler


def test_a_held_job_released_onto_a_busy_machine_waits_for_its_base() -> None:
    # Job 2 is released at 10 while job 1 holds the machine; EASY starts it when job 1
    # ends, and backfills job 3 (released at 30, ends by job 1's end) meanwhile.
    jobs = [job(1, 0, 3, 100), held(2, 0, 4, 10, 10), held(3, 0, 1, 20, 30)]
    recorder = run_jobs(jobs, 4, "hold:easy")
    assert recorder.events == [
        (0, "submit", 1),
        (0, "submit", 2),
        (0, "submit", 3),
        (0, "start", 1),
        (30, "start", 3),
        (50, "end", 3),
        (100, "end", 1),
        (100, "start", 2),
        (110, "end", 2),
    ]


@pytest.mark.parametrize("base", ["fcfs", "easy", "cons", "sjbf"])
@settings(max_examples=EXAMPLES // 3, deadline=None, derandomize=True)
@given(case=workloads())
def test_with_nothing_held_hold_base_is_the_base(base: str, case) -> None:
    nodes, jobs = case
    assert run_jobs(_fresh(jobs), nodes, f"hold:{base}").events == run_jobs(_fresh(jobs), nodes, base).events


@st.composite
def held_workloads(draw: st.DrawFn):
    nodes, jobs = draw(workloads())
    for j in jobs:
        j.recorded_wait = draw(st.sampled_from([-1, 0, 1, 7, 30, 200]))
    return nodes, jobs


def _copy(jobs: list[Job]) -> list[Job]:
    fresh = _fresh(jobs)
    for new, old in zip(fresh, jobs, strict=True):
        new.recorded_wait = old.recorded_wait
    return fresh


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True)
@given(case=held_workloads())
def test_held_jobs_keep_every_scheduler_invariant_and_never_start_before_release(case) -> None:
    nodes, jobs = case
    jobs = _copy(jobs)
    recorder = run_jobs(jobs, nodes, "hold:easy")
    check_common(nodes, jobs, recorder)
    for j in jobs:
        assert j.start >= j.submit + max(0, j.recorded_wait)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True)
@given(case=held_workloads())
def test_the_logs_service_gives_every_job_exactly_its_recorded_wait(case) -> None:
    nodes, jobs = case
    jobs = _copy(jobs)
    recorder = run_jobs(jobs, nodes, "hold")
    assert len(recorder.ended) == len(jobs)
    assert [j.wait for j in jobs] == [max(0, j.recorded_wait) for j in jobs]


def test_specs() -> None:
    assert make_scheduler("hold", 8).spec == "hold"
    assert make_scheduler("hold:easy", 8).spec == "hold:easy"
    timed = make_scheduler("hold:timed:easy:60", 8)
    assert isinstance(timed, HoldScheduler) and timed.spec == "hold:timed:easy:60"
    assert not make_scheduler("hold", 8).bounded and make_scheduler("hold:fcfs", 8).bounded
    with pytest.raises(InputError, match="its own base"):
        make_scheduler("hold:hold", 8)
    with pytest.raises(InputError):
        make_scheduler("hold:nope", 8)


def test_a_held_job_in_a_partition_is_released() -> None:
    from sitesim.schedulers.partitioned import PartitionedScheduler, PartitionSpec

    policy = PartitionedScheduler([PartitionSpec("a", 4, "hold:easy")])
    recorder = run_jobs([held(1, 0, 2, 5, 10)], 4, policy)
    assert recorder.events == [(0, "submit", 1), (10, "start", 1), (15, "end", 1)]
    assert policy.report(100)["partitions"]["a"]["queued_at_end"] == 0


def test_replaying_a_schedule_under_the_logs_service_gives_it_back(tmp_path) -> None:
    """A replay carries each record's wait (field 3) as its recorded wait, so ``hold``
    replays any schedule exactly: EASY's here (a fitted site's run under ``hold``,
    replayed from its own trace and the recorded waits beside it:
    tests/users/test_feedback.py)."""
    from sitesim.runs.replay import ReplayConfig, run_replay
    from sitesim.workload.swf import SwfReader
    from tests.helpers import stress_trace

    trace = stress_trace(tmp_path / "t.swf", n=300)
    run_replay(ReplayConfig(trace=str(trace), scheduler="easy"), out=tmp_path / "easy")
    run_replay(ReplayConfig(trace=str(tmp_path / "easy" / "schedule.swf"), scheduler="hold"), out=tmp_path / "hold")

    def rows(path):
        with SwfReader(path) as reader:
            return [(r.job_number, r.submit_time, r.wait_time, r.run_time, r.status) for r in reader]

    easy = rows(tmp_path / "easy" / "schedule.swf")
    assert any(r[2] > 0 for r in easy)
    assert rows(tmp_path / "hold" / "schedule.swf") == easy


def test_a_wake_up_cannot_be_in_the_past() -> None:
    import simpy

    from sitesim.engine.machine import Machine
    from sitesim.engine.site import Control, Site

    site = Site(simpy.Environment(), Machine(4), make_scheduler("hold", 4))
    assert not site.machine.bounded  # the site takes it from its policy
    with pytest.raises(ValueError, match="in the past"):
        Control(site).wake(-1)


def test_hold_alone_is_refused_where_users_carry_no_recorded_waits() -> None:
    """Without a fitted population no job has a recorded wait: ``hold`` would start every
    job at once on an unbounded machine (utilisation 3.75 once), so it is refused; its
    based form runs, being its base there."""
    from sitesim.errors import InputError
    from sitesim.runs.site import SiteConfig

    with pytest.raises(InputError, match="this site's users carry none"):
        SiteConfig(users=60, scheduler="hold", duration=7 * 86_400)
    SiteConfig(users=60, scheduler="hold:easy", duration=7 * 86_400)
