"""Recorded users: a trace's jobs regrouped into the batches their users submitted.

Replay with feedback (docs/feedback-replay.md) turns a trace back into users: every
batch waits for the batch its user was waiting for, then follows the recorded think
time. This module only works out that structure, from one of two sources:

- **trace dependencies** (SWF fields 17 and 18), as a site-level run writes them: a job
  naming an earlier replayed job P of the same user (field 17) with a think time >= 0
  (field 18) waited for P's batch and was submitted field-18 seconds after P ended.
  Consecutive jobs of a user that name the same P form one batch; consecutive jobs
  with no usable dependency form a *root* batch, submitted at its recorded times.
- **derived**, for logs without those fields (every archive log): the batches and
  sessions of the trace analysis (:mod:`sitesim.analysis.sessions`): think time = submit
  minus the latest recorded completion of the user's earlier jobs; a negative think
  time joins the current batch (an asynchronous submission, never a wait); a think time
  above 1200 s starts a new session. A batch inside a session waits for the user's
  previous batch; its jobs keep their recorded offsets from that batch's last
  completion (the think time, then the gaps between the batch's submissions).

A session is a batch that waits for nothing, or starts a session by the rules above,
and the batches that (transitively) wait for it; its productivity (docs/metrics.md,
"User productivity") is counted as the replay runs. A session start is, with
``session_starts="absolute"`` (the default), a root: the user
comes back at the recorded clock time whatever happened to the previous session --
session gaps in the archive logs are mostly overnight and weekend absences (median
6-10 h), driven by the clock, not by the previous batch's end. With ``"gap"`` it waits
for the previous batch like any other and keeps its recorded gap after it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from attrs import define, field

from sitesim.analysis.cleaning import TraceJob
from sitesim.analysis.sessions import SESSION_THRESHOLD, job_roles
from sitesim.errors import InputError
from sitesim.metrics.productivity import Session
from sitesim.workload.job import Job

#: What a session start is anchored to (see the module docstring).
SESSION_STARTS: tuple[str, ...] = ("absolute", "gap")
#: Where the dependencies came from.
FROM_TRACE = "trace fields 17/18"
DERIVED = "derived (session rules)"


@define(slots=True, eq=False)
class RecordedSession:
    """A session of recorded batches: one user's batches from a session start on."""

    user: int
    #: Batches of the session not yet ended (all of them before the run).
    open: int = 0
    #: The session as the run lived it, from its first submission (run state).
    record: Session | None = None


@define(slots=True, eq=False)
class RecordedBatch:
    """Jobs one user submitted together, and the batch they wait for."""

    user: int
    jobs: list[Job] = field(factory=list)
    #: Seconds from the batch's anchor to each job's submission (>= 0). The anchor is
    #: the end of the awaited batch, or for a root the first job's recorded submit time.
    offsets: list[int] = field(factory=list)
    #: The batch before this one that it relates to: the batch it waits for, or for a
    #: session start the user's previous batch; None for the user's first batch.
    previous: RecordedBatch | None = None
    #: Whether the batch waits for ``previous`` to end (False: a root).
    waits: bool = False
    #: The batch starts a session (not the user's first batch; a dependent only with
    #: ``session_starts="gap"``).
    session_start: bool = False
    #: The session the batch belongs to (None: a job of unknown user).
    session: RecordedSession | None = None
    # -- run state (sitesim.users.feedback) ---------------------------------------------
    #: Jobs not yet ended.
    open: int = 0
    #: The job that ended last (ties: the later arrival): what dependents waited for.
    last: Job | None = None
    #: Batches released when this one ends.
    dependents: list[RecordedBatch] = field(factory=list)

    def add(self, job: Job, offset: int) -> None:
        self.jobs.append(job)
        self.offsets.append(offset)
        self.open += 1


@define(slots=True)
class FeedbackCounts:
    """How a trace's jobs were grouped (the ``feedback`` object of a replay summary)."""

    source: str = DERIVED
    session_starts: str = "absolute"
    batches: int = 0
    #: Batches submitted at recorded times: users' first batches and, with
    #: ``session_starts="absolute"``, session starts.
    root_batches: int = 0
    #: Root batches that are not their user's first batch: session starts.
    session_start_batches: int = 0
    #: Batches that wait for an earlier batch, and the jobs in them.
    dependent_batches: int = 0
    dependent_jobs: int = 0
    #: Trace dependencies (field 17) that could not be used: a job not replayed, of
    #: another user, or a negative think time; those jobs became roots.
    unresolved: int = 0
    #: Jobs of unknown user (field 12 < 0): each its own root batch.
    unknown_user: int = 0
    #: Session starts submitted while the user's previous batch was still unfinished
    #: (absolute session starts only; filled in during the run).
    overlapping_session_starts: int = 0


def has_trace_dependencies(jobs: Sequence[Job]) -> bool:
    """Whether the trace carries dependencies (some job names a preceding job)."""
    return any(job.preceding > 0 for job in jobs)


def plan_batches(
    jobs: Sequence[Job], session_starts: str = "absolute"
) -> tuple[list[RecordedBatch], FeedbackCounts]:
    """The batches of ``jobs`` (the replayed jobs, in trace order) and their counts.

    Fields 17/18 are used when any job carries one; otherwise the session rules.
    """
    if session_starts not in SESSION_STARTS:
        known = ", ".join(SESSION_STARTS)
        raise InputError(f"unknown session-start rule {session_starts!r} (known: {known})", field="--feedback")
    counts = FeedbackCounts(session_starts=session_starts)
    if has_trace_dependencies(jobs):
        counts.source = FROM_TRACE
        batches = _from_trace_fields(jobs, counts)
    else:
        batches = _derived(jobs, session_starts, counts)
    counts.batches = len(batches)
    for batch in batches:
        _join_session(batch)
        if batch.waits:
            counts.dependent_batches += 1
            counts.dependent_jobs += len(batch.jobs)
        else:
            counts.root_batches += 1
            counts.session_start_batches += batch.session_start
    return batches, counts


def _join_session(batch: RecordedBatch) -> None:
    """Put ``batch`` in a session: a new one if it waits for nothing or starts one, else
    that of the batch it waits for (planned before it, so already placed)."""
    if batch.user < 0:
        return
    if not batch.waits or batch.session_start or batch.previous is None:
        batch.session = RecordedSession(batch.user)
    else:
        batch.session = batch.previous.session
    assert batch.session is not None
    batch.session.open += 1


def _from_trace_fields(jobs: Sequence[Job], counts: FeedbackCounts) -> list[RecordedBatch]:
    """Batches from fields 17/18; the trace says what waited, so no session-start rule."""
    batches: list[RecordedBatch] = []
    batch_of: dict[int, RecordedBatch] = {}
    #: user -> (field 17 of its current batch, or 0 for a root batch; that batch)
    current: dict[int, tuple[int, RecordedBatch]] = {}
    for job in jobs:
        if job.user < 0:
            counts.unknown_user += 1
            batches.append(_root(job, None))
            continue
        awaited = batch_of.get(job.preceding) if job.preceding > 0 else None
        usable = awaited is not None and awaited.user == job.user and job.think >= 0
        if job.preceding > 0 and not usable:
            counts.unresolved += 1
        key = job.preceding if usable else 0
        held = current.get(job.user)
        if held is not None and held[0] == key:
            batch = held[1]
            batch.add(job, job.think if usable else job.submit - batch.jobs[0].submit)
        else:
            previous = held[1] if held is not None else None
            if usable:
                batch = RecordedBatch(job.user, previous=awaited, waits=True)
                batch.add(job, job.think)
            else:
                batch = _root(job, previous)
            current[job.user] = (key, batch)
            batches.append(batch)
        batch_of[job.id] = batch
    return batches


def _derived(jobs: Sequence[Job], session_starts: str, counts: FeedbackCounts) -> list[RecordedBatch]:
    batches: list[RecordedBatch] = []
    by_user: dict[int, list[Job]] = defaultdict(list)
    for job in jobs:
        if job.user < 0:
            counts.unknown_user += 1
            batches.append(_root(job, None))
        else:
            by_user[job.user].append(job)
    for user, seq in sorted(by_user.items()):
        seq.sort(key=lambda j: (j.submit, j.id))  # the analysis's order
        roles = job_roles([trace_job(j) for j in seq], SESSION_THRESHOLD)
        batch: RecordedBatch | None = None
        latest_end = 0  # recorded latest completion of the user's earlier jobs
        anchor = 0
        for job, role in zip(seq, roles, strict=True):
            if role.new_batch or batch is None:
                starts_session = role.new_session and role.think is not None
                if role.think is None or (starts_session and session_starts == "absolute"):
                    batch = RecordedBatch(user, previous=batch, session_start=starts_session)
                    anchor = job.submit
                else:
                    batch = RecordedBatch(user, previous=batch, waits=True, session_start=starts_session)
                    anchor = latest_end
                batches.append(batch)
            batch.add(job, job.submit - anchor)
            latest_end = max(latest_end, _recorded_end(job))
    return batches


def _root(job: Job, previous: RecordedBatch | None) -> RecordedBatch:
    batch = RecordedBatch(job.user, previous=previous, session_start=previous is not None)
    batch.add(job, 0)
    return batch


def _recorded_end(job: Job) -> int:
    """Submit + wait + runtime from the trace; an unknown wait (-1) counts as 0."""
    wait = job.source.wait_time if job.source is not None else 0
    return job.submit + max(int(wait), 0) + job.runtime


def trace_job(job: Job) -> TraceJob:
    """The trace analysis's view of a replayed job (submit, completion, number, user)."""
    return TraceJob(
        job=job.id,
        submit=job.submit,
        wait=_recorded_end(job) - job.submit - job.runtime,
        run=job.runtime,
        size=job.size,
        requested_time=job.estimate,
        status=1,
        user=job.user,
        executable=job.executable,
    )


def recorded_dependencies(batches: Sequence[RecordedBatch]) -> dict[int, tuple[int, int]]:
    """Job number -> (job waited for, think time) as recorded, for dependent batches' jobs.

    The job waited for is the awaited batch's job that ended last in the recording
    (ties: the later one in trace order). Written into fields 17/18 of a log, this
    lets the violation accounting judge a plain replay against the same dependencies
    that a replay with feedback keeps (scripts/feedback_table.py).
    """
    found: dict[int, tuple[int, int]] = {}
    for batch in batches:
        if not batch.waits or batch.previous is None:
            continue
        awaited = batch.previous.jobs
        waited = max(range(len(awaited)), key=lambda k: (_recorded_end(awaited[k]), k))
        end = _recorded_end(awaited[waited])
        for job in batch.jobs:
            found[job.id] = (awaited[waited].id, job.submit - end)
    return found
