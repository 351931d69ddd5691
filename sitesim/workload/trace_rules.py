"""The rules a replay holds a log to, for the commands that read a log without replaying it.

Why: ``sitesim fit`` and ``sitesim plot`` read a log record by record, and used to
accept logs that ``sitesim -c`` refuses (a job number given twice, submit times going
back, a submit time of 10^15 s whose bins then need petabytes). A fitted site is only
as good as the log it was fitted to, so the same log must be good or bad for all
commands. The replay checks the same rules in its own hot loop
(:meth:`sitesim.engine.replay.TraceReplay.accepted`); the messages here are its messages.
"""

from __future__ import annotations

from collections.abc import Iterator

from sitesim.errors import InputError
from sitesim.limits import MAX_SECONDS, years
from sitesim.workload.swf import SwfReader, SwfRecord


def _beyond(value: float, label: str, reader: SwfReader) -> InputError:
    return InputError(
        f"{value} s is beyond the limit of {MAX_SECONDS} s ({years(MAX_SECONDS)})",
        path=reader.path, line=reader.line, field=label,
    )


def replay_rules(reader: SwfReader, *, ordered: bool = True) -> Iterator[SwfRecord]:
    """The reader's records, refused as a replay refuses them.

    - a job number seen before is an input error (with ``skip_malformed``: skipped and
      counted in ``reader.skipped``, as the replay counts it);
    - times (fields 2, 4, 9, 18) beyond :data:`~sitesim.limits.MAX_SECONDS`;
    - with ``ordered``, a submit time earlier than the previous job's, among the jobs a
      replay would run (a known size and runtime; unknown submit times, -1, are left to
      the caller's cleaning).
    """
    seen: set[int] = set()
    previous = 0.0
    for record in reader:
        number = record.job_number
        if number in seen:
            if reader.skip_malformed:
                reader.skipped += 1
                continue
            raise InputError(
                f"job number {number} appears twice (job numbers must be unique:"
                " dependencies in field 17 name jobs by number)",
                path=reader.path, line=reader.line, field="field 1 (job_number)",
            )
        seen.add(number)
        submit = record.submit_time
        if max(submit, record.run_time, record.requested_time, record.think_time) > MAX_SECONDS:
            for value, label in (
                (submit, "field 2 (submit_time)"),
                (record.run_time, "field 4 (run_time)"),
                (record.requested_time, "field 9 (requested_time)"),
                (record.think_time, "field 18 (think_time)"),
            ):
                if value > MAX_SECONDS:
                    raise _beyond(value, label, reader)
        runs = record.run_time >= 0 and (record.allocated_processors > 0 or record.requested_processors > 0)
        if ordered and runs and submit >= 0:
            if submit < previous:
                raise InputError(
                    f"submit time {submit} is earlier than the previous job's {previous:g}"
                    " (SWF requires non-decreasing submit times)",
                    path=reader.path, line=reader.line, field="field 2 (submit_time)",
                )
            previous = submit
        yield record
