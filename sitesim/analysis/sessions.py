"""Job submission behaviour: think times, batches and sessions (paper section 3).

Definitions (per user, jobs in submit order, ties broken by job number):

- *think time* of a job: its submit time minus the LATEST completion time among the
  user's previously submitted jobs. This "whole batch" definition matches how the
  simulator generates work: the next batch is submitted a think time after the last
  job of the previous batch completes. A user's first job has no think time.
- *batch*: a job with think time < 0 (some earlier job still unfinished: an
  asynchronous submission) joins the current batch; otherwise (think >= 0, or the
  user's first job) it starts a new batch. *Batch width* = jobs in the batch.
- *session*: a new session starts at a user's first job and wherever the think time
  exceeds the threshold (20 minutes; exactly 1200 s stays in the session).
- *intra-batch inter-submission time*: submit-to-submit gap between consecutive jobs
  of one batch (>= 0).
- *inter-batch think time*: think time of a batch's first job when it stays in the
  session, i.e. in [0, threshold], both ends included (0 = submitted the second the
  previous batch ended, which is synchronous).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from operator import attrgetter

import numpy as np
from attrs import define
from numpy.typing import NDArray

from sitesim.analysis.cleaning import TraceJob
from sitesim.workload.session_rule import SESSION_THRESHOLD


@define(slots=True)
class JobRole:
    """Where one job sits in its user's activity (for tests and plots)."""

    job: int
    user: int
    think: float | None
    new_batch: bool
    new_session: bool


@define(slots=True)
class SubmissionBehavior:
    """Measured submission behaviour of one trace (arrays of observations)."""

    #: Think time of every job that has one (users' first jobs excluded); may be < 0.
    think_times: NDArray[np.float64]
    #: Width of every batch.
    batch_widths: NDArray[np.int64]
    #: Submit-to-submit gaps inside batches (>= 0).
    inter_submission: NDArray[np.float64]
    #: Think times in [0, threshold] that start a new batch within a session.
    inter_batch_think: NDArray[np.float64]
    #: Number of batches in every session.
    session_batches: NDArray[np.int64]
    #: Number of jobs in every session.
    session_jobs: NDArray[np.int64]
    users: int
    threshold: float

    @property
    def negative_think_fraction(self) -> float:
        """Share of think times below zero (asynchronous submissions)."""
        t = self.think_times
        return float(np.mean(t < 0)) if t.size else float("nan")

    def width_fraction(self, width: int) -> float:
        w = self.batch_widths
        return float(np.mean(w == width)) if w.size else float("nan")


#: A user's jobs in submit order, ties by job number.
_submit_order = attrgetter("submit", "job")


def user_sequences(jobs: Sequence[TraceJob]) -> dict[int, list[TraceJob]]:
    """Jobs grouped by user, each list in submit order (ties: job number)."""
    by_user: dict[int, list[TraceJob]] = defaultdict(list)
    for job in jobs:
        by_user[job.user].append(job)
    for seq in by_user.values():
        seq.sort(key=_submit_order)
    return dict(sorted(by_user.items()))


def job_roles(seq: Sequence[TraceJob], threshold: float = SESSION_THRESHOLD) -> list[JobRole]:
    """Think time, batch start and session start of each job of ONE user's sequence."""
    if not seq:
        return []
    first = seq[0]
    roles = [JobRole(first.job, first.user, None, True, True)]
    latest_end = first.end
    for job in seq[1:]:  # once per job of a log, twice in a fit: TraceJob.end inlined
        gap = job.submit - latest_end
        roles.append(JobRole(job.job, job.user, gap, gap >= 0, gap > threshold))
        end = job.submit + job.wait + job.run
        if end > latest_end:
            latest_end = end
    return roles


def analyze_submission(
    jobs: Sequence[TraceJob], threshold: float = SESSION_THRESHOLD
) -> SubmissionBehavior:
    """Measure think times, batch widths, gaps and sessions over all users of a trace."""
    thinks: list[float] = []
    widths: list[int] = []
    gaps: list[float] = []
    inter_think: list[float] = []
    s_batches: list[int] = []
    s_jobs: list[int] = []
    sequences = user_sequences(jobs)
    for seq in sequences.values():
        width = 0
        prev_submit = 0.0
        for job, role in zip(seq, job_roles(seq, threshold), strict=True):
            if role.think is not None:
                thinks.append(role.think)
            if role.new_batch:
                if width:
                    widths.append(width)
                width = 0
                if role.new_session:
                    s_batches.append(0)
                    s_jobs.append(0)
                elif role.think is not None:
                    inter_think.append(role.think)
                s_batches[-1] += 1
            else:
                gaps.append(job.submit - prev_submit)
            width += 1
            s_jobs[-1] += 1
            prev_submit = job.submit
        if width:
            widths.append(width)
    return SubmissionBehavior(
        think_times=np.asarray(thinks, dtype=float),
        batch_widths=np.asarray(widths, dtype=np.int64),
        inter_submission=np.asarray(gaps, dtype=float),
        inter_batch_think=np.asarray(inter_think, dtype=float),
        session_batches=np.asarray(s_batches, dtype=np.int64),
        session_jobs=np.asarray(s_jobs, dtype=np.int64),
        users=len(sequences),
        threshold=threshold,
    )
