"""Which trace jobs the models are measured on, and why the others are left out.

The site-level simulator only generates jobs that run, with a known size and runtime,
submitted by a known user. A trace job is therefore kept only if all of that is known
(see docs/models.md, "Cleaning"). Rules are applied in order and each excluded job is
counted under the first rule it breaks, so the report adds up to the trace's size:

1. ``unknown_submit``: submit time unknown (< 0) -- the job cannot be placed in time.
2. ``unknown_wait``: wait time unknown (< 0) -- no start, so no completion time, and
   no think time can be measured against it. (A log that records no wait at all gets
   its starts simulated by ``sitesim fit`` before cleaning: docs/population.md.)
3. ``unknown_user``: user id unknown (< 0) -- cannot be placed in a session.
4. ``cancelled_before_start``: status 5 with run time <= 0 -- never ran; the user
   withdrew it, and the simulator has no such jobs.
5. ``unknown_runtime``: run time unknown (< 0).
6. ``unknown_size``: neither allocated (field 5) nor requested (field 8) processors
   known (> 0).

Jobs with a run time of 0 (finished within the second) are kept: they are real
submissions and completions, and they matter for think times.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from attrs import define, field

from sitesim.workload.swf import STATUS_CANCELLED, SwfRecord

#: Exclusion reasons, in the order they are tested.
REASONS: tuple[str, ...] = (
    "unknown_submit",
    "unknown_wait",
    "unknown_user",
    "cancelled_before_start",
    "unknown_runtime",
    "unknown_size",
)
#: Each reason in the words of an error message (the SWF fields it reads).
REASON_TEXT: dict[str, str] = {
    "unknown_submit": "unknown submit time (field 2)",
    "unknown_wait": "unknown wait time (field 3)",
    "unknown_user": "unknown user (field 12)",
    "cancelled_before_start": "cancelled before they started (field 11 is 5, field 4 <= 0)",
    "unknown_runtime": "unknown run time (field 4)",
    "unknown_size": "unknown size (fields 5 and 8)",
}


@define(slots=True, frozen=True)
class TraceJob:
    """The fields of one kept job that the models use (times in seconds)."""

    job: int
    submit: float
    wait: float
    run: float
    size: int
    requested_time: float
    status: int
    user: int
    executable: int
    #: SWF field 15 (-1: unknown): the fitted service asks whether queues owned nodes.
    queue: int = -1

    @property
    def end(self) -> float:
        """Completion time: submit + wait + run."""
        return self.submit + self.wait + self.run


@define(slots=True)
class CleaningReport:
    """How many jobs were read, kept, and excluded under each rule."""

    total: int = 0
    kept: int = 0
    excluded: dict[str, int] = field(factory=lambda: {r: 0 for r in REASONS})
    #: Kept jobs whose size came from field 8 because field 5 was unknown.
    size_from_requested: int = 0
    #: Records with a user (field 12 >= 0), whatever else excludes them: tells a log
    #: without a user field from one whose jobs all lack something else. Not part of
    #: :meth:`to_dict` (the tables' provenance keeps its shape).
    with_user: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "kept": self.kept,
            "excluded": dict(self.excluded),
            "size_from_requested": self.size_from_requested,
        }

    def describe(self) -> str:
        """The exclusions in words, largest first: ``"5 unknown wait time (field 3), ..."``.

        Why: an error about an unusable log must name the real cause, in the user's
        terms (the SWF field), not the first rule that happened to be tested.
        """
        parts = sorted(((n, r) for r, n in self.excluded.items() if n), key=lambda x: (-x[0], REASONS.index(x[1])))
        return ", ".join(f"{n:,} {REASON_TEXT[r]}" for n, r in parts) or "none"


def exclusion_reason(rec: SwfRecord, *, ignore_wait: bool = False) -> str | None:
    """The first cleaning rule ``rec`` breaks, or None if it is kept.

    ``ignore_wait``: whether the job would be kept given a start (the jobs whose starts
    ``sitesim fit`` simulates for a log without wait times).
    """
    if rec.submit_time < 0:
        return "unknown_submit"
    if rec.wait_time < 0 and not ignore_wait:
        return "unknown_wait"
    if rec.user_id < 0:
        return "unknown_user"
    if rec.status == STATUS_CANCELLED and rec.run_time <= 0:
        return "cancelled_before_start"
    if rec.run_time < 0:
        return "unknown_runtime"
    if rec.allocated_processors <= 0 and rec.requested_processors <= 0:
        return "unknown_size"
    return None


def clean_records(records: Iterable[SwfRecord]) -> tuple[list[TraceJob], CleaningReport]:
    """Keep the usable jobs of a trace (in file order) and report what was dropped."""
    report = CleaningReport()
    jobs: list[TraceJob] = []
    total = with_user = 0  # counted here, not on the report, once per record of a log
    for rec in records:
        total += 1
        with_user += rec.user_id >= 0
        reason = exclusion_reason(rec)
        if reason is not None:
            report.excluded[reason] += 1
            continue
        size = rec.allocated_processors
        if size <= 0:
            size = rec.requested_processors
            report.size_from_requested += 1
        jobs.append(
            TraceJob(  # job, submit, wait, run, size, requested_time, status, user, executable, queue
                int(rec.job_number),
                float(rec.submit_time),
                float(rec.wait_time),
                float(rec.run_time),
                int(size),
                float(rec.requested_time),
                int(rec.status),
                int(rec.user_id),
                int(rec.executable),
                int(rec.queue),
            )
        )
    report.total, report.with_user = total, with_user
    report.kept = len(jobs)
    return jobs, report
