"""The schedule writer: one line per job, in arrival order, whatever order jobs end in."""

from __future__ import annotations

import io

from sitesim.workload.job import Job
from sitesim.workload.schedule import ScheduleWriter, job_record
from sitesim.workload.swf import format_record, parse_line


def _jobs() -> list[Job]:
    jobs = []
    for seq in range(5):
        job = Job(seq + 1, 10 * seq, 2, 100, 200, user=seq % 2)
        job.seq = seq
        jobs.append(job)
    # Job 2 is a replayed one (its trace record kept, with the reader's text).
    jobs[2].source = parse_line("3 20 -1 100 2 -1 -1 2 200 -1 1 0 1 -1 1 -1 -1 -1")
    jobs[2].source.text = "3 20 -1 100 2 -1 -1 2 200 -1 1 0 1 -1 1 -1 -1 -1\n"
    return jobs


def _end(writer: ScheduleWriter, job: Job, start: int) -> None:
    job.start, job.end = start, start + job.runtime
    writer.on_end(job)


def test_lines_come_out_in_arrival_order_as_soon_as_every_earlier_job_ended() -> None:
    out = io.StringIO()
    writer = ScheduleWriter(out, ["Version: 2.2", "; Computer: test"])
    writer.BATCH = 1  # hand each line over at once, to see when it is released
    jobs = _jobs()
    for job in jobs:
        writer.on_submit(job)
    _end(writer, jobs[1], 15)
    _end(writer, jobs[3], 35)
    assert writer.written == 0  # job 1 has not ended: nothing may be written
    _end(writer, jobs[0], 5)
    assert writer.written == 2  # jobs 1 and 2; job 3 still runs
    _end(writer, jobs[2], 25)
    assert writer.written == 4
    writer.close()  # job 5 never started: written with status -1
    assert writer.written == 5
    lines = out.getvalue().splitlines()
    assert lines[:2] == ["; Version: 2.2", "; Computer: test"]
    assert lines[2:] == [format_record(job_record(job)) for job in jobs]
    assert [parse_line(line).job_number for line in lines[2:]] == [1, 2, 3, 4, 5]
    assert parse_line(lines[-1]).status == -1


def test_an_end_before_any_submission_seen_writes_nothing_until_close() -> None:
    out = io.StringIO()
    writer = ScheduleWriter(out, [])
    job = _jobs()[0]
    _end(writer, job, 0)  # the writer was attached after this job's submission
    writer.close()
    assert out.getvalue() == "" and writer.written == 0
