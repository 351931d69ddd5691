"""Human-readable log of job events (``sitesim -d``), one line per event."""

from __future__ import annotations

import sys
from typing import IO

from sitesim.workload.job import Job


class EventLog:
    """Site observer printing submissions, starts, ends and kills as they happen."""

    def __init__(self, out: IO[str] | None = None) -> None:
        self.out = out or sys.stderr

    def on_submit(self, job: Job) -> None:
        print(
            f"{job.submit} submit job {job.id} user {job.user} size {job.size}"
            f" estimate {job.estimate}",
            file=self.out,
        )

    def on_start(self, job: Job) -> None:
        print(f"{job.start} start job {job.id} after waiting {job.start - job.submit}", file=self.out)

    def on_end(self, job: Job) -> None:
        how = "killed at its estimate" if job.killed else "completes"
        print(f"{job.end} job {job.id} {how}", file=self.out)

    def on_kill(self, job: Job) -> None:
        print(f"{job.end} job {job.id} killed by the scheduler after {job.end - job.start} s"
              " (to be restarted)", file=self.out)
