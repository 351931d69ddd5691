"""Which trace jobs the models are measured on, and why the others are left out.

The site-level simulator only generates jobs that run, with a known size and runtime,
submitted by a known user. A trace job is therefore kept only if all of that is known
(see docs/models.md, "Cleaning"). Rules are applied in order and each excluded job is
counted under the first rule it breaks, so the report adds up to the trace's size:

1. ``unknown_time``: submit time or wait time unknown (< 0) -- no completion time, so
   no think time can be measured against it.
2. ``unknown_user``: user id unknown (< 0) -- cannot be placed in a session.
3. ``cancelled_before_start``: status 5 with run time <= 0 -- never ran; the user
   withdrew it, and the simulator has no such jobs.
4. ``unknown_runtime``: run time unknown (< 0).
5. ``unknown_size``: neither allocated (field 5) nor requested (field 8) processors
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
    "unknown_time",
    "unknown_user",
    "cancelled_before_start",
    "unknown_runtime",
    "unknown_size",
)


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

    def to_dict(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "kept": self.kept,
            "excluded": dict(self.excluded),
            "size_from_requested": self.size_from_requested,
        }


def exclusion_reason(rec: SwfRecord) -> str | None:
    """The first cleaning rule ``rec`` breaks, or None if it is kept."""
    if rec.submit_time < 0 or rec.wait_time < 0:
        return "unknown_time"
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
    for rec in records:
        report.total += 1
        reason = exclusion_reason(rec)
        if reason is not None:
            report.excluded[reason] += 1
            continue
        size = rec.allocated_processors
        if size <= 0:
            size = rec.requested_processors
            report.size_from_requested += 1
        jobs.append(
            TraceJob(
                job=int(rec.job_number),
                submit=float(rec.submit_time),
                wait=float(rec.wait_time),
                run=float(rec.run_time),
                size=int(size),
                requested_time=float(rec.requested_time),
                status=int(rec.status),
                user=int(rec.user_id),
                executable=int(rec.executable),
            )
        )
    report.kept = len(jobs)
    return jobs, report
