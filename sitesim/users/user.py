"""A simulated user: one process (:class:`sitesim.engine.process.UserProcess`) running a
session of batches.

The user submits a batch (``batch width`` jobs, one inter-submission time apart), waits
until every job of the batch has ended, thinks, and starts the next batch. The site
records in each job the dependency the user actually had: SWF field 17 names the job of
the previous batch that ended last (the completion the user waited for) and field 18
is the time from that completion to this submission; first-batch jobs have -1.

Sessions never end here: as in the paper's experiments, the population is a static
set of concurrently active sessions (think times within a session are at most 20 min).
A user's one session starts at its first submission; a job limit stops it, and so does
the end of the run. Users report their sessions and batches to a
:class:`~sitesim.metrics.productivity.SessionLog` when given one (docs/metrics.md,
"User productivity").
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any, Protocol

import numpy as np

from sitesim.engine.batch import BatchEnd
from sitesim.engine.events import move_waiter
from sitesim.engine.process import UserGenerator, Wait
from sitesim.engine.site import Site
from sitesim.metrics.productivity import SessionLog
from sitesim.users.submittal import SubmittalModel
from sitesim.users.workpool import WorkpoolModel
from sitesim.workload.estimates import EstimateModel
from sitesim.workload.job import Job


def user_streams(seed: int, users: int) -> list[tuple[np.random.Generator, ...]]:
    """Independent (submittal, workpool, estimates) generators for each user.

    Spawned from one seed, so a user's draws depend only on the seed and the user's
    number, not on the scheduler or on the other users.
    """
    root = np.random.SeedSequence(seed)
    return [
        tuple(np.random.default_rng(s) for s in child.spawn(3)) for child in root.spawn(users)
    ]


class User:
    """A user who submits batches and reacts to their completion."""

    def __init__(
        self,
        uid: int,
        site: Site,
        submittal: SubmittalModel,
        workpool: WorkpoolModel,
        estimates: EstimateModel,
        estimate_rng: np.random.Generator,
        *,
        max_jobs: int | None = None,
        sessions: SessionLog | None = None,
    ) -> None:
        self.uid = uid
        self.site = site
        self.submittal = submittal
        self.workpool = workpool
        self.estimates = estimates
        self.estimate_rng = estimate_rng
        #: The estimate model bound to this user's own stream (EstimateModel.bound).
        self._estimate = estimates.bound(estimate_rng)
        self.max_jobs = max_jobs
        #: Where the user reports its session and batches (None: nobody listens).
        self.sessions = sessions

    def run(self) -> UserGenerator:
        """The session, as a generator of waits (run by a UserProcess)."""
        submittal = self.submittal
        waited: Job | None = None
        while True:
            width = submittal.batch_width()
            batch = yield from submit_batch(
                self.site, width, submittal.gap, self._make_job, waited, self.max_jobs, self.sessions
            )
            if not batch:
                return
            waited = waited_for(batch)
            if len(batch) < width:
                return
            yield submittal.think()

    def _make_job(self, now: int, waited: Job | None) -> Job:
        drawn = self.workpool.next_job()
        # Positional (id, submit, size, runtime, estimate, user, preceding, think,
        # executable), half the cost of keywords: this runs once per simulated job.
        job = Job(
            -1,
            now,
            drawn.size,
            drawn.runtime,
            self._estimate(drawn.runtime, -1),
            self.uid,
            waited.id if waited is not None else -1,
            now - waited.end if waited is not None else -1,
            drawn.executable,
        )
        if drawn.fails_after is not None:
            # A failing run lasts until its failure; the estimate follows the full runtime.
            job.runtime = drawn.fails_after
            job.failed = True
        return job


def submit_batch(
    site: Site,
    width: int,
    gap: Callable[[], int],
    make_job: Callable[[int, Job | None], Job],
    waited: Job | None,
    max_jobs: int | None,
    log: SessionLog | None = None,
    react: Reaction | None = None,
) -> Generator[Wait, Any, list[Job]]:
    """Submit a batch of ``width`` jobs, ``gap()`` seconds apart, and wait until all end.

    Each job is ``make_job(now, waited)``: ``waited`` is the job whose end the user
    waited for before this batch (None before the first), passed through rather than
    bound in a closure, which would cost a call per job.

    A sub-generator (``yield from``, run by a ``UserProcess``) shared by every kind of user, so that all of
    them submit, stop at the job limit and wait for a batch the same way. ``gap`` is
    called before each job after the first, even if the job limit then stops the batch,
    so a user's draws do not depend on the limit. Returns the jobs submitted: fewer
    than ``width`` when the site reached ``max_jobs``, none when it already had.

    ``log`` hears of the user's session (:class:`~sitesim.metrics.productivity.SessionLog`):
    a batch that waits for nothing (``waited`` None: a user's first batch, or the first
    after an absence) opens a session at its first submission; every batch that ended
    is reported with its jobs and the response of the job waited for; a batch the job
    limit cut short stops the session, since the user submits nothing more.

    ``react`` (a fitted population with ``"gaps": "reacting"`` or ``"present"``,
    docs/population.md; None: the gaps are kept): a user who reacts inside a batch
    submits the next job ``gap()`` seconds after the previous one, or a reaction time
    after every job submitted so far has ended, whichever comes first (a reaction of
    None, as a user who was not there to see the end gets: the gap). Both are drawn
    before every job after the first, used or not, so the draws stay the same whatever
    the scheduler does.
    """
    env = site.env
    # Without a job limit the batch is closed right after its last submission.
    done = BatchEnd(env, late_close=max_jobs is not None)
    batch: list[Job] = []
    opens = log is not None and waited is None
    for k in range(width):
        if k:
            if react is None:
                yield gap()
            else:
                yield from gap_or_reaction(done, gap(), react, react.draw(), batch)
        if max_jobs is not None and site.submitted >= max_jobs:
            break
        job = make_job(int(env.now), waited)
        site.submit(job)
        site.watch(job, done)
        batch.append(job)
        if opens:
            assert log is not None
            log.started(job.submit)
            opens = False
    if batch:
        yield done.close()
    if log is not None:
        if batch:
            last = waited_for(batch)
            log.batch_ended(last.end, len(batch), last.end - last.submit)
        if len(batch) < width:
            log.stopped()
    return batch


class Reaction(Protocol):
    """How a user who reacts inside a batch takes it up once its jobs so far ended."""

    def draw(self) -> Any:
        """The reaction for the next gap, drawn before it whether it is used or not."""
        ...

    def delay(self, now: int, drawn: Any, batch: list[Job]) -> int | None:
        """Seconds from ``now``, the end of ``batch``'s jobs so far, to the next
        submission; None: no reaction (the gap is kept)."""
        ...


def gap_or_reaction(
    done: BatchEnd, gap: int, react: Reaction, drawn: Any, batch: list[Job]
) -> Generator[Wait, Any, None]:
    """Wait ``gap`` seconds, or until ``react.delay`` after every job ``done`` counts
    (``batch``, the batch's jobs so far) has ended, whichever comes first (a tie goes
    to the gap; a reaction of None: the gap).

    Why: a batch resampled from a log keeps the log's gaps, each laid down while an
    earlier job of the batch still waited or ran there. When the simulated scheduler
    ends those jobs sooner, a user keeping to the gap idles past their end; a user who
    reacts takes it up after a think time, as between batches.

    The user waits on the gap's own timer, made as a kept gap's is, so where the gap
    wins the user resumes in the same place among same-second events as a user keeping
    its gaps. A reaction that comes first takes the user's resumption off that timer
    onto its own; the timer then fires with nothing to do.
    """
    env = done.env
    timer = env.timeout(gap)
    due = int(env.now) + gap

    def idle() -> None:
        # The gap started in the step that submitted the batch's latest job, whose end
        # (even after no time at all) was still to be processed: no end was missed.
        now = int(env.now)
        delay = react.delay(now, drawn, batch)
        if delay is not None and now + delay < due:
            move_waiter(timer, delay)

    done.on_idle = idle
    yield timer
    done.on_idle = None


def waited_for(batch: list[Job]) -> Job:
    """The completion the user waited for: the batch's last end.

    Among jobs ending at the same instant, the latest arrival: a fixed rule that a
    simulation and a replay of its trace can both apply.
    """
    if len(batch) == 1:  # three batches in four (paper site)
        return batch[0]
    return max(batch, key=lambda j: (j.end, j.seq))
