"""Conventional (open-model) trace replay: which trace records become which jobs.

The job source that submits them at their recorded times is
:class:`sitesim.engine.replay.TraceReplay`; this module is the part that needs no
engine: turning records into jobs, and the counts of what happened to them.

Which trace jobs are replayed (docs/replay.md):

- size is field 5 (allocated processors), else field 8 (requested); runtime is field 4.
  A job with either unknown (-1) cannot be simulated: it is skipped and counted as
  ``unknown`` (in the archive logs these are jobs cancelled before they ran);
- a job larger than the machine is rejected and counted as ``too_large``, never run;
  one that fits but that the scheduler cannot take (no partition's routing rule admits
  it, docs/partitions.md) is counted as ``unroutable``, never run;
- with ``failures`` (the default), a job with status 0 is replayed as failing at its
  recorded runtime (``failed``, docs/failures.md); without, it counts as completed;
- submit times must not decrease (the SWF rule); a trace that breaks it is an input error;
- job numbers (field 1) must be unique, since dependencies (field 17) name jobs by
  number: a repeated one is an input error naming its line (with ``skip_malformed``, the
  repeat is skipped and counted as malformed);
- submit, run and requested times above :data:`~sitesim.limits.MAX_SECONDS` are input
  errors (a typo, not a log).

Load scaling by ``load_factor`` X multiplies every inter-arrival time by 1/X (X > 1
raises the load): submit' = t0 + round((submit - t0) / X), t0 the first submit.
Rounding keeps times whole seconds and preserves their order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from attrs import define

from sitesim.workload.estimates import EstimateModel
from sitesim.workload.job import Job
from sitesim.workload.nodes import node_demand
from sitesim.workload.swf import STATUS_FAILED, SwfRecord

if TYPE_CHECKING:  # only annotations: a replay with trace estimates never loads numpy
    import numpy as np


@define(slots=True)
class ReplayCounts:
    """What happened to the trace's job records."""

    read: int = 0
    submitted: int = 0
    unknown: int = 0
    too_large: int = 0
    unroutable: int = 0
    malformed: int = 0


def job_from_record(
    record: SwfRecord,
    estimates: EstimateModel,
    rng: np.random.Generator | None,
    *,
    failures: bool = True,
    per_node: int = 1,
) -> Job | None:
    """The simulated job for a trace record, or None when size or runtime is unknown.

    With ``failures``, a record of status 0 becomes a failing job: its recorded runtime
    already is the time to failure, so only the label changes. With ``per_node``, the
    record's processors are on nodes of that many given whole to jobs: the job takes
    ``ceil(size / per_node)`` nodes (:func:`sitesim.workload.nodes.node_demand`).
    """
    size = record.allocated_processors
    if size <= 0:
        size = record.requested_processors
    if size <= 0 or record.run_time < 0:
        return None
    if per_node != 1:
        size = node_demand(size, per_node)
    runtime = int(record.run_time)
    requested = int(record.requested_time)
    # Status 0 is also what a job killed at its requested time gets (sitesim writes it
    # so, and so do the logs): a run that reached its request was killed, not a failure.
    killed_at_limit = 0 < requested <= runtime
    # Positional (id, submit, size, runtime, estimate, user, preceding, think,
    # executable, source): this runs once per record of every replay.
    job = Job(
        record.job_number,
        int(record.submit_time),
        size,
        runtime,
        estimates.estimate(runtime, requested, rng),
        record.user_id,
        record.preceding_job,
        int(record.think_time),
        -1,
        record,
    )
    if failures and record.status == STATUS_FAILED and not killed_at_limit:
        job.failed = True
    # What the log's service (``-s hold``) gives it again, and what a fitted service's
    # recorded levels rank it by; policies never read it.
    job.recorded_wait = int(record.wait_time)
    return job
