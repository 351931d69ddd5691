"""Where a log's batches come apart under other waits (docs/service.md, "Sessions under the service").

Why: a fitted site resamples each of the log's batches whole, its jobs laid down at
the log's gaps (docs/population.md), while the service draws each job's wait afresh.
A gap of the log was laid down while an earlier job of the batch still waited or ran
(that is what makes it a batch, :mod:`sitesim.analysis.sessions`); given other waits,
the earlier jobs may all have ended before the next submission, and the analysis then
sees a new batch there, or a new session once the idle time passes the threshold. In
the closed loop the users wait for a batch's end before the next batch, so batches can
only come apart, never merge: this counts the pieces on the log's own timeline, each
batch given other waits (e.g. those of the log replayed under its fitted service).

Two ways of laying down a batch's later jobs are counted:

- ``"submit"``: at the log's gaps from the previous submission (what the users do);
- ``"start"``: where the previous job had already started in the log when the next
  was submitted, at the log's time since that start, from its start under the other
  waits (the gap measured from what the log's user saw); otherwise as ``"submit"``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

import numpy as np
from attrs import define

from sitesim.analysis.cleaning import TraceJob
from sitesim.analysis.sessions import SESSION_THRESHOLD, job_roles, user_sequences

#: How a batch's later jobs are laid down (module docstring).
ANCHORS = ("submit", "start")


@define(slots=True, frozen=True)
class BatchSplits:
    """A log's batches given other waits: how many of their gaps come apart."""

    #: The log's sessions and jobs (over the batches counted).
    sessions: int
    jobs: int
    #: Gaps inside the log's batches (submissions after a batch's first).
    gaps: int
    #: Of them, where the previous job had started in the log (the rest: it still waited).
    after_start: int
    #: Gaps at which every earlier job of the batch had ended under the other waits
    #: (a new batch in the analysis), and of those, the idle time past the threshold
    #: (a new session).
    new_batches: int
    new_sessions: int

    @property
    def jobs_per_session(self) -> tuple[float, float]:
        """Jobs per session of the log, and of its batches cut where they came apart."""
        return self.jobs / self.sessions, self.jobs / (self.sessions + self.new_sessions)


def batch_splits(
    jobs: Sequence[TraceJob],
    waits: Mapping[int, float],
    *,
    anchor: str = "submit",
    threshold: float = SESSION_THRESHOLD,
) -> BatchSplits:
    """Lay each of the log's batches down again with ``waits`` (job number -> wait, s).

    A batch with a job missing from ``waits`` (not replayed) is left out whole, so
    every figure counts the same batches.
    """
    if anchor not in ANCHORS:
        raise ValueError(f"anchor must be one of {', '.join(ANCHORS)}")
    sessions = jobs_in = gaps = after_start = new_batches = new_sessions = 0
    for seq in user_sequences(jobs).values():
        batches: list[list[TraceJob]] = []
        opens: list[bool] = []
        for job, role in zip(seq, job_roles(seq, threshold), strict=True):
            if role.new_batch:
                batches.append([job])
                opens.append(role.new_session)
            else:
                batches[-1].append(job)
        for batch, opening in zip(batches, opens, strict=True):
            if any(j.job not in waits for j in batch):
                continue
            sessions += opening
            jobs_in += len(batch)
            submit = batch[0].submit
            latest = submit + waits[batch[0].job] + batch[0].run
            for prev, job in zip(batch, batch[1:], strict=False):
                started = prev.submit + prev.wait <= job.submit
                after_start += started
                if anchor == "start" and started:
                    submit = submit + waits[prev.job] + (job.submit - prev.submit - prev.wait)
                else:
                    submit = submit + (job.submit - prev.submit)
                idle = submit - latest
                gaps += 1
                new_batches += idle >= 0
                new_sessions += idle > threshold
                latest = max(latest, submit + waits[job.job] + job.run)
    return BatchSplits(sessions, jobs_in, gaps, after_start, new_batches, new_sessions)


def session_hours(jobs: Sequence[TraceJob], waits: Mapping[int, float], threshold: float = SESSION_THRESHOLD) -> float:
    """Mean length (h) of the log's own sessions, first submission to last end, when
    their jobs wait ``waits`` instead: the sessions stay the log's (cut on its own
    waits), only their ends move. A session with a job missing from ``waits`` is left out."""
    lengths = []
    for seq in user_sequences(jobs).values():
        start, end, whole = 0.0, 0.0, False
        for job, role in zip(seq, job_roles(seq, threshold), strict=True):
            if role.new_session:
                if whole:
                    lengths.append(end - start)
                start, end, whole = job.submit, job.submit, True
            if job.job not in waits:
                whole = False
            else:
                end = max(end, job.submit + waits[job.job] + job.run)
        if whole:
            lengths.append(end - start)
    return float(np.mean(lengths)) / 3600 if lengths else float("nan")


def shuffled_waits(jobs: Sequence[TraceJob], rng: np.random.Generator) -> dict[int, float]:
    """The log's own waits dealt again among each user's jobs of one size class (powers
    of two): every user keeps its waits by size exactly, and what a wait has to do with
    the user's gaps and sessions is broken. The best a service could do that drew each
    job's wait knowing its user and size perfectly, but not what the user does next."""
    groups: dict[tuple[int, int], list[TraceJob]] = defaultdict(list)
    for job in jobs:
        groups[job.user, max(job.size, 1).bit_length()].append(job)
    dealt: dict[int, float] = {}
    for key in sorted(groups):
        group = groups[key]
        order = rng.permutation(len(group))
        dealt.update((job.job, group[int(k)].wait) for job, k in zip(group, order, strict=True))
    return dealt
