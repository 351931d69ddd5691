"""Write the schedule a run produced as SWF, one record per ended job, in arrival order.

Jobs end out of order; a reorder buffer (the jobs not yet written, in arrival order)
releases records as soon as every earlier job has ended, so memory holds only jobs in
flight.
"""

from __future__ import annotations

from collections import deque
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
    The jobs not yet written wait in a deque in arrival order (the site tells observers
    of submissions in that order), so the writer's work per job is an append, a look at
    the head and a pop. Lines are handed to the file :data:`BATCH` at a time (one
    ``writelines`` instead of a ``write`` per job: the text layer's per-call cost is a
    visible part of a replay).
    """

    #: Lines collected before they are passed to the file.
    BATCH = 1024

    def __init__(self, out: IO[str], header: list[str]) -> None:
        self.out = out
        self.written = 0
        self._open: deque[Job] = deque()
        self._lines: list[str] = []
        for line in header:
            out.write(line if line.startswith(";") else "; " + line)
            out.write("\n")

    def on_submit(self, job: Job) -> None:
        self._open.append(job)

    def on_end(self, job: Job) -> None:
        waiting = self._open
        if not waiting or waiting[0] is not job:  # an earlier arrival is still queued or running
            return
        lines = self._lines
        line = _line
        written = 0
        while waiting and waiting[0].end >= 0:
            lines.append(line(waiting.popleft()))
            written += 1
        self.written += written
        if len(lines) >= self.BATCH:
            self._flush()

    def close(self) -> None:
        """Write every job not yet written (unfinished ones too), in arrival order."""
        waiting = self._open
        self._lines.extend(map(_line, waiting))
        self.written += len(waiting)
        waiting.clear()
        self._flush()

    def _flush(self) -> None:
        self.out.write("".join(self._lines))
        self._lines.clear()


def _line(job: Job) -> str:
    """The schedule's line for ``job`` (:func:`job_record`, formatted)."""
    source = job.source
    if isinstance(source, SwfRecord):  # a replayed job: its trace record, new times
        wait, run, status = _times(job, source)
        return format_with_times(source, job.submit, wait, run, status)
    return format_values(job_record(job).values())
