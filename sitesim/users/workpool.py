"""Workpool models: the jobs a user submits (paper section 4).

A workpool draws a job's size and runtime and repeats it: users run the same job several
times in a row ("locality of sampling"), so each drawn job is submitted as many times as
a draw from the repetitions distribution says, with the same size, runtime and
executable number (SWF field 14, so trace analysis can find the repetitions again).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

import numpy as np
from attrs import define

from sitesim.distributions import EmpiricalModel, make_sampler
from sitesim.registry import Registry


@define(slots=True, frozen=True)
class WorkpoolJob:
    """What a user submits: ``size`` nodes for ``runtime`` seconds of program ``executable``.

    ``fails_after`` (seconds, at most ``runtime``) marks a run that fails then; the user's
    estimate still follows ``runtime``, since nobody plans for their job to crash.
    """

    size: int
    runtime: int
    executable: int
    fails_after: int | None = None


class WorkpoolModel(ABC):
    """Where a user's jobs come from; one instance (and random stream) per user."""

    name: ClassVar[str]
    summary: ClassVar[str] = ""

    def __init__(self, tables: EmpiricalModel, rng: np.random.Generator, nodes: int) -> None:
        self.tables = tables
        self.rng = rng
        self.nodes = nodes

    @abstractmethod
    def next_job(self) -> WorkpoolJob:
        """The next job this user submits."""


WORKPOOL_MODELS: Registry[type[WorkpoolModel]] = Registry("workpool model", "--workpool", WorkpoolModel)


@WORKPOOL_MODELS.register
class PlainWorkpool(WorkpoolModel):
    """Empirical per-job size and runtime, each drawn job repeated per the repetitions table.

    The paper "randomly generated job attributes from these distributions [its Figures 8
    and 10, per job], and repeated jobs according to the distribution of repetitions".
    The repetition count is drawn independently of the job, so the generated jobs have
    exactly the drawn marginals: drawing from the per-job tables reproduces the logs'
    per-job sizes and runtimes, and hence their work per job (docs/site-level.md).
    Sizes come already mapped to the site's machine (:meth:`EmpiricalModel.for_site`)
    and are clipped to ``nodes``, the largest job the scheduler admits; runtimes are
    whole seconds, at least 1.
    """

    name = "plain"
    summary = "empirical per-job sizes and runtimes, repeated per the empirical repetitions"
    #: Draw from the per-distinct-job tables (run_size, run_runtime) instead.
    per_run: ClassVar[bool] = False

    def __init__(self, tables: EmpiricalModel, rng: np.random.Generator, nodes: int) -> None:
        super().__init__(tables, rng, nodes)
        size_rng, runtime_rng, reps_rng = rng.spawn(3)
        self._size = make_sampler(tables.size_for_machine(nodes, per_run=self.per_run), size_rng)
        self._runtime = tables.sampler("run_runtime" if self.per_run else "runtime", runtime_rng)
        self._reps = tables.sampler("repetitions", reps_rng)
        self._current: WorkpoolJob | None = None
        self._left = 0
        self._programs = 0

    def next_job(self) -> WorkpoolJob:
        if self._left <= 0:
            self._programs += 1
            self._current = WorkpoolJob(
                size=int(self._size()),
                runtime=max(1, round(self._runtime())),
                executable=self._programs,
            )
            self._left = max(1, int(self._reps()))
        self._left -= 1
        assert self._current is not None
        return self._current


@WORKPOOL_MODELS.register
class DistinctWorkpool(PlainWorkpool):
    """The plain workpool drawing from the per-distinct-job tables (first job of each run).

    Kept as the alternative the sensitivity study compares with (docs/fidelity.md): with
    an independent repetition count, the generated per-job mix *is* the distinct-job mix,
    which under-represents the short jobs users repeat most and so over-states the work
    per job.
    """

    name = "distinct"
    summary = "plain, but sizes and runtimes from the per-distinct-job tables"
    per_run = True
