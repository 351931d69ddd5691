"""The open-model job source: submit each trace job at its recorded time.

Records are pulled from the SWF stream one at a time, and each submission schedules
the next, so a replay holds only the jobs in flight, never the whole trace. Which
records become jobs, and how load scaling moves them: :mod:`sitesim.workload.replay`
and docs/replay.md.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from sitesim.engine.events import SUBMISSION, At
from sitesim.engine.site import Site
from sitesim.errors import InputError
from sitesim.workload.estimates import EstimateModel
from sitesim.workload.job import Job
from sitesim.workload.replay import ReplayCounts, job_from_record
from sitesim.workload.swf import SwfReader


class TraceReplay:
    """Feeds a site from an SWF reader in the open model."""

    def __init__(
        self,
        site: Site,
        reader: SwfReader,
        estimates: EstimateModel,
        *,
        load_factor: float = 1.0,
        rng: np.random.Generator | None = None,
        failures: bool = True,
    ) -> None:
        if not (load_factor > 0 and math.isfinite(load_factor) and math.isfinite(1.0 / load_factor)):
            raise InputError(
                f"load factor must be a positive finite number, got {load_factor}",
                field="--load-factor",
            )
        self.site = site
        self.reader = reader
        self.estimates = estimates
        self.load_factor = load_factor
        self.rng = rng
        self.failures = failures
        self.counts = ReplayCounts()
        self.first_submit: int | None = None
        self._jobs = self._accepted_jobs()

    def start(self) -> None:
        """Schedule the first submission; the simulated clock is the trace's clock."""
        self._schedule_next()

    def _accepted_jobs(self) -> Iterator[Job]:
        counts = self.counts
        nodes = self.site.machine.nodes
        scheduler = self.site.scheduler
        scale = 1.0 / self.load_factor
        previous = None
        reader = self.reader
        for record in reader:
            counts.read += 1
            job = job_from_record(record, self.estimates, self.rng, failures=self.failures)
            if job is None:
                counts.unknown += 1
                continue
            if job.submit < 0:
                raise InputError(
                    f"submit time {job.submit} is negative (times count from the log's start)",
                    path=reader.path,
                    line=reader.line,
                    field="field 2 (submit_time)",
                )
            if previous is not None and job.submit < previous:
                raise InputError(
                    f"submit time {job.submit} is earlier than the previous job's {previous}"
                    " (SWF requires non-decreasing submit times)",
                    path=reader.path,
                    line=reader.line,
                    field="field 2 (submit_time)",
                )
            previous = job.submit
            if job.size > nodes:
                counts.too_large += 1
                continue
            if not scheduler.admits(job):
                counts.unroutable += 1
                continue
            if self.first_submit is None:
                self.first_submit = job.submit
            if scale != 1.0:
                t0 = self.first_submit
                job.submit = t0 + round((job.submit - t0) * scale)
            yield job
        counts.malformed = reader.skipped

    def _schedule_next(self) -> None:
        job = next(self._jobs, None)
        if job is None:
            return
        env = self.site.env
        At(env, job.submit - int(env.now), SUBMISSION, self._submit, job)

    def _submit(self, event: At) -> None:
        job: Job = event.payload
        self.site.submit(job)
        self.counts.submitted += 1
        self._schedule_next()
