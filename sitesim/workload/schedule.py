"""Write the schedule a run produced as SWF, one record per ended job, in arrival order.

Jobs end out of order; a small reorder buffer keyed by arrival sequence releases records
as soon as every earlier job has ended, so memory holds only jobs in flight.
"""

from __future__ import annotations

from typing import IO

from sitesim.workload.job import Job
from sitesim.workload.swf import STATUS_COMPLETED, STATUS_FAILED, SwfRecord, format_values
from sitesim.workload.swf_write import format_with_times

#: SWF status written for a job killed at its runtime estimate.
STATUS_KILLED = STATUS_FAILED


def job_record(job: Job) -> SwfRecord:
    """The SWF record of a job after a run: fields 2-4 (and status) from the simulation.

    Replayed jobs keep every other field of their trace record; generated jobs fill
    size, requested processors and time (the estimate), user, executable, and the
    dependency fields 17 (preceding job) and 18 (think time).

    A job cut off by the end of a run keeps its wait if it started (else -1) and its
    intended runtime in field 4, so that replaying the trace presents the scheduler with
    exactly the jobs it had; its status is -1 (unknown).

    Failed jobs (``job.failed``) and jobs killed at their estimate both get status 0,
    as in the archive's logs; the run summary counts the two apart (docs/failures.md).
    """
    source = job.source
    if isinstance(source, SwfRecord):
        return source.with_times(job.submit, *_times(job, source))
    wait, run, status = _times(job, None)
    return SwfRecord(
        job_number=job.id,
        submit_time=job.submit,
        wait_time=wait,
        run_time=run,
        allocated_processors=job.size,
        requested_processors=job.size,
        requested_time=job.estimate,
        status=status,
        user_id=job.user,
        executable=job.executable,
        preceding_job=job.preceding,
        think_time=job.think,
    )


def _times(job: Job, source: SwfRecord | None) -> tuple[int, int, int]:
    """Wait, run time and status of ``job``'s record (see :func:`job_record`)."""
    if job.end >= 0:
        wait, run, status = job.start - job.submit, job.end - job.start, STATUS_COMPLETED
        if job.killed or job.failed:
            status = STATUS_KILLED if job.killed else STATUS_FAILED
    else:
        wait, run, status = (job.start - job.submit if job.start >= 0 else -1), job.runtime, -1
    if source is not None and status == STATUS_COMPLETED and (
        source.status != STATUS_FAILED or 0 < source.requested_time <= run
    ):
        # Keep the trace's label, except for a trace failure replayed as not failing
        # (--failures none), which completed. A status-0 run that reached its request
        # was a kill at the limit and keeps its 0.
        status = source.status
    return wait, run, status


class ScheduleWriter:
    """Site observer that streams jobs to an open text file in arrival order.

    A job is written once it and every earlier arrival have ended; :meth:`close` writes
    what is left (jobs still queued or running when a run is cut off) in arrival order.
    Lines are handed to the file :data:`BATCH` at a time (one ``writelines`` instead of
    a ``write`` per job: the text layer's per-call cost is a visible part of a replay).
    """

    #: Lines collected before they are passed to the file.
    BATCH = 256

    def __init__(self, out: IO[str], header: list[str]) -> None:
        self.out = out
        self.written = 0
        self._open: dict[int, Job] = {}
        self._next_seq = 0
        self._lines: list[str] = []
        for line in header:
            out.write(line if line.startswith(";") else "; " + line)
            out.write("\n")

    def on_submit(self, job: Job) -> None:
        self._open[job.seq] = job

    def on_end(self, job: Job) -> None:
        if job.seq != self._next_seq:
            return
        jobs = self._open
        while True:
            nxt = jobs.get(self._next_seq)
            if nxt is None or nxt.end < 0:
                break
            del jobs[self._next_seq]
            self._write(nxt)

    def close(self) -> None:
        """Write every job not yet written (unfinished ones too), in arrival order."""
        for seq in sorted(self._open):
            self._write(self._open.pop(seq))
        self._flush()

    def _flush(self) -> None:
        self.out.writelines(self._lines)
        self._lines.clear()

    def _write(self, job: Job) -> None:
        source = job.source
        if isinstance(source, SwfRecord):  # a replayed job: its trace record, new times
            line = format_with_times(source, job.submit, *_times(job, source))
        else:
            line = format_values(job_record(job).values())
        lines = self._lines
        lines.append(line)
        if len(lines) >= self.BATCH:
            self._flush()
        self.written += 1
        self._next_seq = job.seq + 1
