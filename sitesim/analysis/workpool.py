"""Workpool: what users submit -- sizes, runtimes, repetitions (paper section 4).

Also the raw material for later estimate and failure models: requested-time/runtime
ratios, status fractions, and runtimes of failed jobs.

*Repetitions* ("locality of sampling"): a user's consecutive jobs (submit order) that
are "the same job" form a run; the repetition count is the run length. A job repeats
the FIRST job of the current run (so a run cannot drift) when it has the same size and

- the same executable (field 14), if both executables are known (>= 0);
- otherwise a runtime within ``max(abs_tol, rel_tol * runtime of the first job)``
  (defaults: 60 s or 10 %, whichever is more lenient -- short jobs jitter by seconds,
  long ones by minutes).

The executable field is only trusted when it identifies programs: if more than
``EXE_DISTINCT_MAX`` (half) of a trace's known executable ids are distinct, the ids are
per-submission (SDSC-SP2: 53,308 ids for 59,715 jobs) and would make every job look
new, so the trace falls back to the size-and-runtime rule.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from attrs import define
from numpy.typing import NDArray

from sitesim.analysis.cleaning import TraceJob
from sitesim.analysis.sessions import user_sequences
from sitesim.workload.swf import (
    STATUS_CANCELLED,
    STATUS_COMPLETED,
    STATUS_FAILED,
    STATUS_PARTIAL,
)

#: Default repetition tolerances when the executable is unknown.
REPEAT_ABS_TOL = 60.0
REPEAT_REL_TOL = 0.10
#: Largest share of distinct executable ids for the field to count as informative.
EXE_DISTINCT_MAX = 0.5

#: Status names used in the tables ("other" collects -1, 3, 4 and anything else).
STATUS_NAMES: dict[int, str] = {
    STATUS_FAILED: "failed",
    STATUS_COMPLETED: "completed",
    STATUS_PARTIAL: "partial",
    STATUS_CANCELLED: "cancelled",
}


@define(slots=True)
class Workpool:
    """Measured workpool of one trace (arrays of observations)."""

    #: Size (processors) of every job.
    sizes: NDArray[np.int64]
    #: Runtime (s) of every job.
    runtimes: NDArray[np.float64]
    #: Length of every repetition run.
    repetitions: NDArray[np.int64]
    #: Size and runtime of the first job of every run (the distinct jobs).
    run_sizes: NDArray[np.int64]
    run_runtimes: NDArray[np.float64]
    #: requested time / runtime, for jobs with both > 0.
    estimate_ratio: NDArray[np.float64]
    #: Jobs per status name (failed, completed, partial, cancelled, other).
    status_counts: dict[str, int]
    #: Runtime (s) of every failed (status 0) job.
    failed_runtimes: NDArray[np.float64]
    #: Whether repetitions were matched on the executable field.
    executable_used: bool

    def status_fractions(self) -> dict[str, float]:
        total = sum(self.status_counts.values())
        return {k: (v / total if total else 0.0) for k, v in self.status_counts.items()}


def same_job(
    first: TraceJob,
    job: TraceJob,
    abs_tol: float = REPEAT_ABS_TOL,
    rel_tol: float = REPEAT_REL_TOL,
    use_executable: bool = True,
) -> bool:
    """Whether ``job`` repeats ``first`` (see the module docstring)."""
    if job.size != first.size:
        return False
    if use_executable and first.executable >= 0 and job.executable >= 0:
        return job.executable == first.executable
    return abs(job.run - first.run) <= max(abs_tol, rel_tol * first.run)


def repetition_runs(
    seq: Sequence[TraceJob],
    abs_tol: float = REPEAT_ABS_TOL,
    rel_tol: float = REPEAT_REL_TOL,
    use_executable: bool = True,
) -> list[list[TraceJob]]:
    """Split ONE user's submit-ordered jobs into runs of repetitions."""
    runs: list[list[TraceJob]] = []
    for job in seq:
        if runs and same_job(runs[-1][0], job, abs_tol, rel_tol, use_executable):
            runs[-1].append(job)
        else:
            runs.append([job])
    return runs


def executable_informative(jobs: Sequence[TraceJob]) -> bool:
    """Whether the trace's executable ids identify programs (see module docstring)."""
    known = [j.executable for j in jobs if j.executable >= 0]
    return bool(known) and len(set(known)) <= EXE_DISTINCT_MAX * len(known)


def analyze_workpool(
    jobs: Sequence[TraceJob],
    abs_tol: float = REPEAT_ABS_TOL,
    rel_tol: float = REPEAT_REL_TOL,
    use_executable: bool | None = None,
) -> Workpool:
    """Measure sizes, runtimes, repetitions, estimate ratios and statuses.

    ``use_executable=None`` decides with :func:`executable_informative`.
    """
    if use_executable is None:
        use_executable = executable_informative(jobs)
    reps: list[int] = []
    run_sizes: list[int] = []
    run_runtimes: list[float] = []
    for seq in user_sequences(jobs).values():
        for run in repetition_runs(seq, abs_tol, rel_tol, use_executable):
            reps.append(len(run))
            run_sizes.append(run[0].size)
            run_runtimes.append(run[0].run)
    counts = {name: 0 for name in STATUS_NAMES.values()}
    counts["other"] = 0
    for job in jobs:
        counts[STATUS_NAMES.get(job.status, "other")] += 1
    ratio = [j.requested_time / j.run for j in jobs if j.run > 0 and j.requested_time > 0]
    return Workpool(
        sizes=np.asarray([j.size for j in jobs], dtype=np.int64),
        runtimes=np.asarray([j.run for j in jobs], dtype=float),
        repetitions=np.asarray(reps, dtype=np.int64),
        run_sizes=np.asarray(run_sizes, dtype=np.int64),
        run_runtimes=np.asarray(run_runtimes, dtype=float),
        estimate_ratio=np.asarray(ratio, dtype=float),
        status_counts=counts,
        failed_runtimes=np.asarray([j.run for j in jobs if j.status == STATUS_FAILED], dtype=float),
        executable_used=use_executable,
    )
