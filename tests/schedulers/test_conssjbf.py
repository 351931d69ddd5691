"""``cons-sjbf``: conservative backfilling whose compression moves short jobs first.

The audits of test_conservative.py run unchanged on it (every waiting job at its
earliest start after every pass, reservations never moved later, every job started by
its guarantee), on both implementations of the reservations; a worked example shows
the order at work; a site-level run replays to itself; a real log replays.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings

from sitesim.runs.replay import ReplayConfig, run_replay
from sitesim.runs.site import DAY, SiteConfig, run_site
from sitesim.schedulers.conservative import ConservativeScheduler
from sitesim.schedulers.conssjbf import ConsSjbfScheduler
from sitesim.schedulers.reservations import RESERVATIONS, Reservations
from tests.helpers import job, run_jobs
from tests.schedulers.test_conservative import IMPLEMENTATIONS, AuditedCons, check_run, cons_with, workloads
from tests.schedulers.test_reservations import busy_workloads, needs_compiled
from tests.users.test_feedback import _same_schedule


class AuditedConsSjbf(ConsSjbfScheduler, AuditedCons):
    """cons-sjbf with the audit of every pass."""


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@settings(max_examples=150, deadline=None, derandomize=True)
@given(workloads("over"))
def test_overestimates_keep_every_guarantee_through_compression(implementation, case) -> None:
    policy = check_run(*case, implementation, AuditedConsSjbf)
    assert isinstance(policy, ConsSjbfScheduler)


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@settings(max_examples=150, deadline=None, derandomize=True)
@given(workloads("any"))
def test_kills_and_zero_estimates_keep_every_guarantee(implementation, case) -> None:
    check_run(*case, implementation, AuditedConsSjbf)


def starts(policy: str | ConservativeScheduler) -> dict[int, int]:
    """A full-machine job ends at 10 instead of 100; two more wait behind it, the
    longer one first: compression in queue order decides which goes first."""
    jobs = [job(1, 0, 10, 10, 100), job(2, 1, 10, 40, 50), job(3, 2, 10, 20, 20)]
    run_jobs(jobs, 10, policy)
    return {j.id: j.start for j in jobs}


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_the_shortest_estimate_takes_the_room_an_early_end_gives_back(implementation) -> None:
    # Reserved on arrival at 100 and 150; job 3 is moved first, then job 2 behind it.
    assert starts(cons_with(implementation, ConsSjbfScheduler)(10)) == {1: 0, 3: 10, 2: 30}
    assert starts("cons") == {1: 0, 2: 10, 3: 50}


def test_site_level_run_replays_to_itself_with_feedback(tmp_path: Path) -> None:
    out = tmp_path / "site"
    run_site(SiteConfig(users=12, scheduler="cons-sjbf", estimates="f:2", duration=30 * DAY, seed=4), out=out)
    run_replay(
        ReplayConfig(trace=str(out / "trace.swf"), scheduler="cons-sjbf", estimates="trace", feedback="absolute"),
        out=out / "fb",
    )
    _, compared = _same_schedule(out / "trace.swf", out / "fb" / "schedule.swf", "cons-sjbf")
    assert compared > 800


@pytest.mark.traces
def test_kth_sp2_replay(trace_path) -> None:
    """Real log: every job completes, kills are the trace's, and the order differs from cons."""
    path = str(trace_path("KTH-SP2"))
    sjbf = run_replay(ReplayConfig(trace=path, scheduler="cons-sjbf", estimates="trace"))
    cons = run_replay(ReplayConfig(trace=path, scheduler="cons", estimates="trace"))
    assert sjbf.summary["completed"] == sjbf.summary["submitted"] == cons.summary["completed"] > 28_000
    assert sjbf.summary["killed"] == cons.summary["killed"]
    assert sjbf.summary["mean_wait"] != cons.summary["mean_wait"]


@needs_compiled
@settings(max_examples=60, deadline=None, derandomize=True)
@given(busy_workloads())
def test_compiled_and_python_reservations_give_the_same_events(case) -> None:
    """Arrivals placed inside the queue, not only at its end, in both implementations."""
    nodes, jobs = case
    runs = []
    for implementation in (RESERVATIONS, Reservations):
        fresh = [job(j.id, j.submit, j.size, j.runtime, j.estimate) for j in jobs]
        runs.append(run_jobs(fresh, nodes, cons_with(implementation, ConsSjbfScheduler)(nodes)).events)
    assert runs[0] == runs[1]
