"""Write the schedule a run produced as SWF, one record per ended job, in arrival order.

Jobs end out of order; a small reorder buffer keyed by arrival sequence releases records
as soon as every earlier job has ended, so memory holds only jobs in flight.
"""

from __future__ import annotations

from typing import IO

from attrs import evolve

from sitesim.workload.job import Job
from sitesim.workload.swf import STATUS_COMPLETED, STATUS_FAILED, SwfRecord, format_record

#: SWF status written for a job killed at its runtime estimate.
STATUS_KILLED = STATUS_FAILED


def job_record(job: Job) -> SwfRecord:
    """The SWF record of an ended job: fields 2-4 from the simulation.

    Replayed jobs keep every other field of their trace record; generated jobs fill
    size, requested processors and time (the estimate), user, executable, and the
    dependency fields 17 (preceding job) and 18 (think time).
    """
    ran = job.end - job.start
    source = job.source
    if isinstance(source, SwfRecord):
        return evolve(
            source,
            submit_time=job.submit,
            wait_time=job.start - job.submit,
            run_time=ran,
            status=STATUS_KILLED if job.killed else source.status,
        )
    return SwfRecord(
        job_number=job.id,
        submit_time=job.submit,
        wait_time=job.start - job.submit,
        run_time=ran,
        allocated_processors=job.size,
        requested_processors=job.size,
        requested_time=job.estimate,
        status=STATUS_KILLED if job.killed else STATUS_COMPLETED,
        user_id=job.user,
        executable=job.executable,
        preceding_job=job.preceding,
        think_time=job.think,
    )


class ScheduleWriter:
    """Site observer that streams ended jobs to an open text file in arrival order."""

    def __init__(self, out: IO[str], header: list[str]) -> None:
        self.out = out
        self.written = 0
        self._pending: dict[int, Job] = {}
        self._next_seq = 0
        for line in header:
            out.write(line if line.startswith(";") else "; " + line)
            out.write("\n")

    def on_end(self, job: Job) -> None:
        if job.seq != self._next_seq:
            self._pending[job.seq] = job
            return
        self._write(job)
        pending = self._pending
        while pending:
            nxt = pending.pop(self._next_seq, None)
            if nxt is None:
                break
            self._write(nxt)

    def _write(self, job: Job) -> None:
        self.out.write(format_record(job_record(job)))
        self.out.write("\n")
        self.written += 1
        self._next_seq += 1

    @property
    def unfinished(self) -> int:
        """Ended jobs still held back by an earlier job that has not ended."""
        return len(self._pending)
