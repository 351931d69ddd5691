"""A batch's end (:class:`BatchEnd`) acts exactly when SimPy's ``AllOf`` over one event
per job did, so users react, and submit, in the same order as before.

The reference is the construction it replaced, written out here: the site succeeds one
event per job as the job ends (an end hook is called at the very place the site did
it), and the user, a SimPy ``Process``, yields ``env.timeout`` for gaps and
``env.all_of`` over the batch's events, each submission asking for its pass at once;
the users under test run :func:`sitesim.users.user.submit_batch` under
:class:`UserProcess`, whose resumptions ask for one pass at their end. Scripted users with
ties everywhere (zero gaps and runtimes, equal think times) run both ways, and the whole
trace must match: every job's submission, start and end, and every instant a user
resumed after a batch, in order.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import simpy
from hypothesis import given, settings
from hypothesis import strategies as st

from sitesim.engine.machine import Machine
from sitesim.engine.process import UserProcess
from sitesim.engine.site import Site
from sitesim.schedulers.easy import EasyScheduler
from sitesim.schedulers.timed import TimedScheduler
from sitesim.users.user import submit_batch
from sitesim.workload.job import Job

NODES = 4

#: One user's script: batches of (gap before each job after the first, runtime, size),
#: each followed by a think time.
Script = list[tuple[list[tuple[int, int, int]], int]]


class RecordingEasy(EasyScheduler):
    """EASY noting each pass: its time and the job ids queued when it began."""

    def __init__(self, nodes: int) -> None:
        super().__init__(nodes)
        self.passes: list[tuple[int, ...]] = []

    def schedule(self, now: int, free: int) -> list[Job]:
        self.passes.append((now, *(job.id for job in self.queue)))
        return super().schedule(now, free)


class RecordingTimed(TimedScheduler):
    """Timed-run scheduling on EASY with 2 s trials (runs killed and restarted), noting
    each pass as :class:`RecordingEasy` does."""

    def __init__(self, nodes: int) -> None:
        super().__init__(nodes, "easy", 2)
        self.passes: list[tuple[int, ...]] = []

    def schedule(self, now: int, free: int) -> list[Job]:
        self.passes.append((now, *(job.id for job in self.queue)))
        return super().schedule(now, free)


class PerJobEvents:
    """The replaced construction's site side: an event per watched job, succeeded as it ends."""

    def __init__(self) -> None:
        self.events: dict[int, simpy.Event] = {}

    def on_end(self, job: Job) -> None:
        event = self.events.pop(job.id, None)
        if event is not None:
            event.succeed(job)


def all_of_batch(
    site: Site, watched: PerJobEvents, batch: list[tuple[int, int, int]], make: Any, limit: int | None,
) -> Generator[simpy.Event, Any, list[Job]]:
    """The replaced ``submit_batch``: ``AllOf`` over one event per job."""
    env = site.env
    ends, jobs = [], []
    for k, (gap, runtime, size) in enumerate(batch):
        if k:
            yield env.timeout(gap)
        if limit is not None and site.submitted >= limit:
            break
        job = make(int(env.now), runtime, size)
        site.submit(job)
        ends.append(env.event())
        watched.events[job.id] = ends[-1]
        jobs.append(job)
    if jobs:
        yield env.all_of(ends)
    return jobs


Trace = list[tuple[int, ...]]


def simulate(scripts: list[Script], reference: bool, limit: int | None = None) -> tuple[Trace, Trace]:
    """Run the users' scripts under EASY, the site taking at most ``limit`` jobs; return
    (jobs, resumes) as comparable tuples (:func:`simulate_passes` adds the scheduling passes)."""
    jobs, resumes, _ = simulate_passes(scripts, reference, limit)
    return jobs, resumes


def simulate_passes(
    scripts: list[Script], reference: bool, limit: int | None = None, timed: bool = False,
) -> tuple[Trace, Trace, Trace]:
    env = simpy.Environment()
    scheduler = RecordingTimed(NODES) if timed else RecordingEasy(NODES)
    site = Site(env, Machine(NODES), scheduler)
    watched = PerJobEvents()
    if reference:
        site.observe(watched)
    resumes: list[tuple[int, ...]] = []
    jobs: list[Job] = []

    def make(uid: int) -> Any:
        def job(now: int, runtime: int, size: int) -> Job:
            jobs.append(Job(id=-1, submit=now, size=size, runtime=runtime, estimate=runtime, user=uid))
            return jobs[-1]
        return job

    def user(uid: int, script: Script) -> Generator[simpy.Event, Any, None]:
        for number, (batch, think) in enumerate(script):
            if reference:
                submitted = yield from all_of_batch(site, watched, batch, make(uid), limit)
            else:
                gaps = iter([gap for gap, _, _ in batch[1:]])
                shapes = iter([(runtime, size) for _, runtime, size in batch])
                submitted = yield from submit_batch(
                    site, len(batch), lambda: next(gaps),
                    lambda now, _waited, _make=make(uid): _make(now, *next(shapes)), None, limit,
                )
            if not submitted:
                return
            resumes.append((int(env.now), uid, number))
            yield env.timeout(think) if reference else think

    for uid, script in enumerate(scripts):
        if reference:
            env.process(user(uid, script))
        else:
            UserProcess(site, user(uid, script))
    env.run()
    return [(j.id, j.user, j.submit, j.start, j.end) for j in jobs], resumes, scheduler.passes


def test_a_job_ending_before_its_batch_is_closed() -> None:
    """Job 1 ends at 2 while its user waits 5 s before job 2: the batch ends with job 2
    at 8, and the user resumes then; the same script both ways gives one trace."""
    script: Script = [([(0, 2, 1), (5, 3, 1)], 1), ([(0, 1, 4)], 0)]
    jobs, resumes = simulate([script], reference=False)
    assert jobs == [(1, 0, 0, 0, 2), (2, 0, 5, 5, 8), (3, 0, 9, 9, 10)]
    assert resumes == [(8, 0, 0), (10, 0, 1)]
    assert simulate([script], reference=True) == (jobs, resumes)


def test_a_batch_whose_jobs_all_ended_before_closing() -> None:
    """A batch is closed after its last submission only when the site's job limit cuts
    it short: here job 2 (runtime 1) ends at 4, the limit of 2 jobs stops the batch
    when the user comes back at 5, and the batch ends then, as it is closed."""
    script: Script = [([(0, 1, 1), (3, 1, 1), (2, 1, 1)], 0), ([(0, 1, 1)], 0)]
    jobs, resumes = simulate([script], reference=False, limit=2)
    assert jobs == [(1, 0, 0, 0, 1), (2, 0, 3, 3, 4)]
    assert resumes == [(5, 0, 0)]
    assert simulate([script], reference=True, limit=2) == (jobs, resumes)


def test_a_job_ending_at_the_instant_its_batch_is_closed() -> None:
    """User 0's job 3 ends at 5, the instant the job limit closes its batch, but its end
    is seen only after user 1's batch ended (also at 5, on an earlier completion event):
    the ``AllOf`` then resumed user 1 first, and so must the batch's end."""
    first: Script = [([(0, 1, 1), (3, 2, 1), (2, 1, 1)], 0)]
    second: Script = [([(0, 5, 1)], 0)]
    jobs, resumes = simulate([first, second], reference=False, limit=3)
    assert [(number, end) for number, *_, end in jobs] == [(1, 1), (2, 5), (3, 5)]
    assert resumes == [(5, 1, 0), (5, 0, 0)]
    assert simulate([first, second], reference=True, limit=3) == (jobs, resumes)


batches = st.lists(
    st.tuples(st.sampled_from([0, 0, 1, 2]), st.sampled_from([0, 0, 1, 2, 3]), st.integers(1, NODES)),
    min_size=1, max_size=4,
)
scripts = st.lists(st.tuples(batches, st.sampled_from([0, 0, 1, 3])), min_size=1, max_size=4)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    users=st.lists(scripts, min_size=1, max_size=4), limit=st.none() | st.integers(1, 12), timed=st.booleans(),
)
def test_the_same_trace_as_all_of(users: list[Script], limit: int | None, timed: bool) -> None:
    """Jobs, resumptions and every scheduling pass (its instant and what it saw queued),
    under EASY or under timed runs that kill and restart jobs."""
    assert simulate_passes(users, False, limit, timed) == simulate_passes(users, True, limit, timed)
