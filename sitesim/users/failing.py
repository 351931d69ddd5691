"""The ``failing`` workpool: the plain workpool's jobs, some of which fail part-way.

Failures are common in real logs (Thebe, Bunde & Leung count 10-35% failed jobs in most
Parallel Workloads Archive traces), and a failing job frees its nodes early, which a
site-level user then reacts to. The plain workpool models none of that, faithful to the
site-level paper; this one adds it without disturbing anything else (docs/failures.md):

- each submitted run fails with probability ``status_fractions['failed']`` of the
  empirical tables (15% in the combined table), independently of the other runs of the
  same program: a failure belongs to one run (a bad input, a node crash, a bug fixed
  before the next submission), and independent fates reproduce the measured per-job
  fraction directly;
- a failing run ends after a time drawn from the ``failed_runtime`` table, capped at
  the run's own runtime and at least 1 s;
- sizes, runtimes and repetitions are drawn exactly as the plain workpool draws them,
  from the same random streams: the fates come from two extra streams spawned after
  those, so ``-w failing`` and ``-w plain`` with one seed give the same programs and
  differ only by the failures (common random numbers for comparisons).
"""

from __future__ import annotations

import numpy as np
from attrs import evolve

from sitesim.distributions import EmpiricalModel
from sitesim.errors import InputError
from sitesim.users.workpool import WORKPOOL_MODELS, PlainWorkpool, WorkpoolJob


@WORKPOOL_MODELS.register
class FailingWorkpool(PlainWorkpool):
    """Plain workpool jobs, each run failing with the empirical failure fraction."""

    name = "failing"
    summary = "plain, but runs fail with the empirical fraction after an empirical failure time"

    def __init__(self, tables: EmpiricalModel, rng: np.random.Generator, nodes: int) -> None:
        super().__init__(tables, rng, nodes)
        if tables.failed_runtime is None:
            raise InputError(f"empirical table {tables.name!r} has no failed runtimes", field="--workpool")
        self.fraction = float(tables.status_fractions.get("failed", 0.0))
        fate_rng, time_rng = rng.spawn(2)
        self._fate = fate_rng
        self._time = tables.sampler("failed_runtime", time_rng)

    def next_job(self) -> WorkpoolJob:
        job = super().next_job()
        if self._fate.random() >= self.fraction:
            return job
        fails_after = min(job.runtime, max(1, round(self._time())))
        return evolve(job, fails_after=fails_after)
