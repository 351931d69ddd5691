"""Conservative backfilling: the paper's worked examples, audited properties, a real log.

The examples are Mu'alem & Feitelson (2001) Fig. 1 (reservations at arrival, the anchor
point that must not delay an earlier job, an immediate backfill) and Fig. 2 (an early
termination, where compression keeps every guarantee that re-backfilling would break).
The property tests run random small workloads through :class:`AuditedCons`, which after
every pass rebuilds the planned schedule from its own records of the jobs and checks the
scheduler's profile and reservations against it.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitesim.runs.replay import ReplayConfig, run_replay
from sitesim.schedulers.conservative import ConservativeScheduler, planned_length
from sitesim.schedulers.profile import Profile
from sitesim.schedulers.reservations import RESERVATIONS, Reservations, ReservationsLike
from sitesim.workload.job import Job
from tests.helpers import job, max_concurrent_nodes, run_jobs

Interval = tuple[int, int, int]  # (start, end, nodes)


def free_at(t: int, nodes: int, held: list[Interval]) -> int:
    return nodes - sum(size for start, end, size in held if start <= t < end)


def brute_earliest(now: int, size: int, length: int, nodes: int, held: list[Interval]) -> int:
    """Anchor point by enumeration: free only changes where some interval starts or ends."""
    points = sorted({now, *(p for s, e, _ in held for p in (s, e) if p > now)})
    for a in sorted({now, *(e for _s, e, _n in held if e > now)}):
        inside = [a, *(p for p in points if a < p < a + length)]
        if all(free_at(p, nodes, held) >= size for p in inside):
            return a
    raise AssertionError("unreachable: after the last end everything is free")


class AuditedCons(ConservativeScheduler):
    """Conservative backfilling that checks its own schedule after every pass."""

    def __init__(self, nodes: int) -> None:
        super().__init__(nodes)
        self.at_arrival: dict[int, int] = {}
        #: Each waiting job's reservation at the last audit: compression never moves it later.
        self.seen: dict[int, int] = {}
        self.audits = 0

    def enqueue(self, job: Job, now: int) -> None:
        super().enqueue(job, now)
        self.at_arrival[job.id] = self.seen[job.id] = self.reservation(job)

    def schedule(self, now: int, free: int) -> list[Job]:
        started = super().schedule(now, free)
        self.audit(now)
        return started

    def audit(self, now: int) -> None:
        """Profile == running jobs to their estimates + reservations; each at its earliest."""
        self.audits += 1
        self.reservations.check()
        running = [(j.start if j.start >= 0 else now, end, j.size) for j, end in self._planned_end.items()]
        waiting = {j: (s, s + planned_length(j), j.size) for j in self.queue for s in [self.reservation(j)]}
        held = running + list(waiting.values())
        frames = self.availability(now)
        assert frames[0][0] == now and frames[-1][1] is None
        for start, _end, free in frames:
            assert free == free_at(start, self.nodes, held)
        for j, mine in waiting.items():
            assert mine[0] >= now
            assert mine[0] <= self.seen[j.id], f"compression moved job {j.id} later"
            self.seen[j.id] = mine[0]
            others = [h for h in held if h is not mine]
            expect = brute_earliest(now, j.size, mine[1] - mine[0], self.nodes, others)
            assert mine[0] == expect, f"job {j.id} reserved at {mine[0]}, could start at {expect}"


#: Both implementations of the reservations (the compiled one where it was built).
IMPLEMENTATIONS = [pytest.param(Reservations, id="python")]
if RESERVATIONS is not Reservations:
    IMPLEMENTATIONS.append(pytest.param(RESERVATIONS, id="compiled"))


@st.composite
def workloads(draw: st.DrawFn, estimates: str) -> tuple[int, list[Job]]:
    """(nodes, jobs): up to 25 jobs, frequent equal submit times."""
    nodes = draw(st.integers(1, 16))
    t = 0
    jobs = []
    for i in range(draw(st.integers(1, 25))):
        t += draw(st.sampled_from([0, 0, 1, 2, 5, 10, 30, 100]))
        runtime = draw(st.integers(0, 120))
        if estimates == "exact":
            estimate = runtime
        elif estimates == "over":  # like f:2
            estimate = draw(st.integers(runtime, 2 * runtime))
        else:  # anything, including underestimates (killed) and zero
            estimate = draw(st.integers(0, 200))
        jobs.append(job(i + 1, t, draw(st.integers(1, nodes)), runtime, estimate))
    return nodes, jobs


def cons_with(implementation: type[ReservationsLike], base: type[ConservativeScheduler] = ConservativeScheduler):
    """``base`` with the given implementation of the reservations."""
    return type(f"{base.__name__}_{implementation.__module__.rsplit('.', 1)[-1]}", (base,), {"reservations_class": implementation})


def check_run(nodes: int, jobs: list[Job], implementation: type[ReservationsLike],
              audited: type[AuditedCons] = AuditedCons) -> AuditedCons:
    policy = cons_with(implementation, audited)(nodes)
    recorder = run_jobs(jobs, nodes, policy)
    assert len(recorder.ended) == len(jobs), "every job completes"
    assert max_concurrent_nodes(jobs) <= nodes
    assert recorder.max_busy <= nodes
    for j in jobs:
        assert j.start <= policy.at_arrival[j.id], f"job {j.id} started after its guarantee"
        assert j.end == j.start + min(j.runtime, j.estimate)
    assert not policy.queue and not len(policy.reservations) and not policy._planned_end
    last = max(j.end for j in jobs)
    assert policy.availability(last) == [(last, None, nodes)]
    return policy


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@settings(max_examples=150, deadline=None, derandomize=True)
@given(workloads("exact"))
def test_exact_estimates_keep_every_guarantee(implementation, case) -> None:
    check_run(*case, implementation)


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@settings(max_examples=150, deadline=None, derandomize=True)
@given(workloads("over"))
def test_overestimates_keep_every_guarantee_through_compression(implementation, case) -> None:
    check_run(*case, implementation)


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@settings(max_examples=150, deadline=None, derandomize=True)
@given(workloads("any"))
def test_kills_and_zero_estimates_keep_every_guarantee(implementation, case) -> None:
    check_run(*case, implementation)


# -- Mu'alem & Feitelson (2001), Fig. 1 ---------------------------------------------


def fig1_jobs() -> list[Job]:
    """10 nodes; three running jobs leave 1 node free until 100; three jobs queue."""
    return [
        job(1, 0, 4, 100),  # running until 100
        job(2, 0, 3, 200),  # running until 200
        job(3, 0, 2, 400),  # running until 400
        job(4, 10, 7, 100),  # first queued: needs 7, free only once 1 and 2 end
        job(5, 11, 4, 150),  # second: 5 free at 100, but [100, 250) would hit job 4
        job(6, 12, 1, 50),  # third: fits in the 1 free node until 100, backfills now
    ]


class ArrivalLog:
    """Observer recording each job's reservation as it is submitted."""

    def __init__(self, policy: ConservativeScheduler) -> None:
        self.policy = policy
        self.reserved: dict[int, int | None] = {}
        self.frames: list = []

    def on_submit(self, job: Job) -> None:
        self.reserved[job.id] = self.policy.reservation(job)
        if job.id == 6:
            self.frames = self.policy.availability(job.submit)


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_fig1_reservations_at_arrival(implementation) -> None:
    policy = cons_with(implementation)(10)
    log = ArrivalLog(policy)
    recorder = run_jobs(fig1_jobs(), 10, policy, observers=[log])
    # Jobs 1-3 were reserved "now" and started in the pass at time 0.
    assert log.reserved == {1: 0, 2: 0, 3: 0, 4: 200, 5: 300, 6: 12}
    assert recorder.starts() == {1: 0, 2: 0, 3: 0, 4: 200, 5: 300, 6: 12}
    # The availability list when job 6 has its reservation (it starts at 12, in the
    # pass that follows): job 5 skips the 5 nodes free on [100, 200) because it would
    # still be running when job 4 needs 7 nodes at 200.
    assert log.frames == [
        (12, 62, 0),
        (62, 100, 1),
        (100, 200, 5),
        (200, 300, 1),
        (300, 400, 4),
        (400, 450, 6),
        (450, None, 10),
    ]


# -- Mu'alem & Feitelson (2001), Fig. 2 ---------------------------------------------


def fig2_jobs() -> list[Job]:
    return [
        job(1, 0, 4, 100),  # top running job, ends on time at 100
        job(2, 0, 6, 10, estimate=300),  # bottom running job: planned 300, ends at 10
        job(3, 1, 10, 100),  # first queued: the whole machine, after both (300)
        job(4, 2, 4, 150),  # second queued: backfills at T1 = 100 in [100, 250)
    ]


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_fig2_compression_after_early_termination(implementation) -> None:
    policy = cons_with(implementation)(10)
    log = ArrivalLog(policy)
    recorder = run_jobs(fig2_jobs(), 10, policy, observers=[log])
    assert log.reserved[3] == 300 and log.reserved[4] == 100
    # Job 2 ends at 10. Compression in arrival order: job 3 cannot pass job 4's
    # reservation, so it moves to 250 only; job 4 then fits at 10 and starts; the
    # repeated pass brings job 3 forward to 160, where job 4 ends.
    assert recorder.events == [
        (0, "submit", 1),
        (0, "submit", 2),
        (0, "start", 1),
        (0, "start", 2),
        (1, "submit", 3),
        (2, "submit", 4),
        (10, "end", 2),
        (10, "start", 4),
        (100, "end", 1),
        (160, "end", 4),
        (160, "start", 3),
        (260, "end", 3),
    ]


def test_fig2_rebackfilling_from_scratch_would_break_the_guarantee() -> None:
    """What compression avoids: rebuild the schedule at 10 and job 4 drops to T3 = 200."""
    profile = Profile(10, origin=10)
    profile.reserve(10, 100, 4)  # job 1, still running
    starts = {}
    for jid, size, length in [(3, 10, 100), (4, 4, 150)]:
        starts[jid] = profile.earliest(10, size, length)
        profile.reserve(starts[jid], starts[jid] + length, size)
    assert starts == {3: 100, 4: 200}  # job 4 was guaranteed 100; compression gave 10


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_reservation_is_none_unless_waiting(implementation) -> None:
    policy = cons_with(implementation)(4)
    stranger = job(9, 0, 1, 10)
    assert policy.reservation(stranger) is None
    assert policy.availability(0) == [(0, None, 4)]


@pytest.mark.traces
def test_kth_sp2_replay_under_cons(trace_path) -> None:
    """Real log: every job completes, kills are the trace's, cons waits less than FCFS."""
    path = str(trace_path("KTH-SP2"))
    cons = run_replay(ReplayConfig(trace=path, scheduler="cons", estimates="trace")).summary
    fcfs = run_replay(ReplayConfig(trace=path, scheduler="fcfs", estimates="trace")).summary
    assert cons["completed"] == cons["submitted"] == fcfs["completed"] > 28_000
    assert cons["killed"] == fcfs["killed"]  # decided by estimate vs runtime alone
    assert cons["mean_wait"] < 0.5 * fcfs["mean_wait"]
    assert 0.6 < cons["utilization"] <= 1.0
