"""Per-job records of a run, as one numpy structured array (``Result.jobs``).

A site observer keeps every submitted job and turns them, in arrival order, into one
row each when the run is over, so killed vs failed, restarts and lost work survive,
which an SWF schedule (one status field) cannot carry. Jobs still queued or running
when a run is cut off are rows too (``status`` -1; ``start``/``end`` -1 if never
started / not ended), so there is one row per submitted job.
"""

from __future__ import annotations

import numpy as np

from sitesim.workload.job import Job

#: Columns of the per-job table: name, type, meaning (docs/api.md).
JOB_FIELDS: tuple[tuple[str, str, str], ...] = (
    ("id", "i8", "job number (SWF field 1)"),
    ("user", "i8", "user id (-1: unknown)"),
    ("submit", "i8", "submit time, s"),
    ("start", "i8", "start of the final run, s (-1: never started)"),
    ("end", "i8", "end, s (-1: not ended when the run stopped)"),
    ("size", "i8", "nodes"),
    ("runtime", "i8", "runtime (or time to failure) the job needs, s"),
    ("estimate", "i8", "the runtime estimate the scheduler saw, s"),
    ("status", "i8", "1 completed, 0 failed or killed at its estimate, -1 unfinished"),
    ("killed", "?", "killed at its estimate"),
    ("failed", "?", "failed (ended with an error before its estimate)"),
    ("restarts", "i8", "runs killed by the scheduler and restarted"),
    ("lost_work", "i8", "node-seconds of those killed runs"),
    ("preceding", "i8", "the job whose end this one waited for (SWF field 17, -1: none)"),
    ("think", "i8", "submit minus that end, s (SWF field 18, -1: none)"),
)
JOB_DTYPE = np.dtype([(name, kind) for name, kind, _ in JOB_FIELDS])


def status(job: Job) -> int:
    """1 completed, 0 failed or killed at its estimate, -1 not ended."""
    if job.end < 0:
        return -1
    return 0 if job.killed or job.failed else 1


class JobTable:
    """Site observer keeping every submitted job, for :meth:`array` after the run."""

    def __init__(self) -> None:
        self._jobs: list[Job] = []

    def on_submit(self, job: Job) -> None:
        self._jobs.append(job)

    def array(self) -> np.ndarray:
        """One row per submitted job, in arrival order (dtype :data:`JOB_DTYPE`)."""
        rows = [
            (
                j.id, j.user, j.submit, j.start, j.end, j.size, j.runtime, j.estimate,
                status(j), j.killed, j.failed and not j.killed, j.restarts, j.size * j.lost,
                j.preceding, j.think,
            )
            for j in self._jobs
        ]
        return np.array(rows, dtype=JOB_DTYPE)
