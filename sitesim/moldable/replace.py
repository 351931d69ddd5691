"""Replacing rigid jobs of a log by moldable ones (Cirne & Berman 1999, section 5).

A :class:`Replacement` sits between a trace replay and the site: every job passes
through it at its submission instant. A chosen job becomes a moldable program (same
work on its original size, :mod:`sitesim.moldable.model`) and its request is chosen
there and then by the application scheduler (Gas reads the live availability list;
static draws a size), asking for exactly the runtime on that size. Every other job
passes unchanged.

Which jobs: those listed in ``jobs`` (by job number; one AppLeS), or else each job with
probability ``fraction`` (a bushel of AppLeS). All draws come from streams spawned
from the run seed and are taken in the same order whatever the policy, so Gas and
static face the same replaced jobs, the same programs (common random numbers); static's
sizes come from a stream of their own.

The *load ratio* is the paper's: requested CPU time (size x estimate) of the altered
log over that of the original, over the jobs replayed.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np
from attrs import define, field
from simpy.core import StopSimulation

from sitesim.errors import InputError
from sitesim.moldable.gas import REQUEST_POLICIES, RequestPolicy
from sitesim.moldable.model import SIGMA_MEAN, SIGMA_SD, ApplicationSource, DowneySource, TableSource, load_table
from sitesim.moldable.speedup import RuntimeFunction
from sitesim.moldable.view import AvailabilityView, SiteLike
from sitesim.workload.job import Job


@define(frozen=True, slots=True)
class MoldableSpec:
    """Which jobs of a replay become moldable, and how their requests are chosen."""

    policy: str = "gas"
    #: Share of the jobs replaced (each independently), when ``jobs`` is empty.
    fraction: float = 0.0
    #: Job numbers to replace (one AppLeS); overrides ``fraction``.
    jobs: tuple[int, ...] = ()
    #: CSV of measured applications (application,processors,runtime); None: Downey.
    table: str | None = None
    #: With ``jobs``: end the simulation once they have all ended (one AppLeS needs
    #: nothing after its application's turn-around, and a replay costs half as much).
    stop_when_done: bool = False
    #: Mean and standard deviation of Downey's sigma (sensitivity checks; docs/moldable.md).
    sigma: tuple[float, float] = (SIGMA_MEAN, SIGMA_SD)

    def __attrs_post_init__(self) -> None:
        REQUEST_POLICIES.get(self.policy)
        if not (0 <= self.fraction <= 1 and math.isfinite(self.fraction)):
            raise InputError(f"must be a fraction in [0, 1], got {self.fraction}", field="--moldable")


@define(slots=True)
class MoldableRecord:
    """One replaced job: what it was, what was asked for, and what it got."""

    job: Job
    function: RuntimeFunction
    original_size: int
    original_runtime: int
    predicted_start: int | None

    @property
    def turnaround(self) -> int:
        return self.job.end - self.job.submit


@define(slots=True)
class Replacement:
    """The job filter of a moldable replay (call it on each job as it is submitted)."""

    spec: MoldableSpec
    policy: RequestPolicy
    source: ApplicationSource
    view: AvailabilityView
    nodes: int
    _select: np.random.Generator
    _model: np.random.Generator
    _static: np.random.Generator
    records: list[MoldableRecord] = field(factory=list)
    original_cpu: float = 0.0
    altered_cpu: float = 0.0
    #: Chosen jobs left rigid: on a partitioned machine, none of their sizes fit a partition.
    kept_rigid: int = 0
    #: Job number -> seed of its program, for the jobs to replace, once :meth:`plan` ran.
    _planned: dict[int, int] | None = None

    @classmethod
    def for_site(cls, spec: MoldableSpec, site: SiteLike, seed: int) -> Replacement:
        policy = REQUEST_POLICIES.get(spec.policy)()
        view = AvailabilityView.of(site, f"moldable policy {spec.policy}", lists=policy.needs_availability)
        source: ApplicationSource = TableSource(load_table(spec.table)) if spec.table else DowneySource(*spec.sigma)
        # A stream family of its own (the extra word), apart from the replay's estimates.
        select, model, static = (
            np.random.default_rng(s) for s in np.random.SeedSequence([seed, 11]).spawn(3)
        )
        replacement = cls(spec, policy, source, view, site.machine.nodes, select, model, static)
        if spec.stop_when_done and spec.jobs:
            site.observe(replacement)
        return replacement

    def on_end(self, job: Job) -> None:
        """(Observer, with ``stop_when_done``.) Stop once every listed job has ended."""
        records = self.records
        if len(records) == len(self.spec.jobs) and all(r.job.end >= 0 for r in records):
            raise StopSimulation(None)  # env.run() returns; the replay reports as usual

    def plan(self, jobs: Iterable[Job]) -> None:
        """Draw, in trace order and before any submission, which jobs are replaced.

        A replay with feedback submits jobs in an order that depends on the schedule, so
        draws taken at submission would differ between Gas and static. Planned, each
        job's selection is drawn in trace order, and a replaced job's program from a
        seed drawn then: both policies face the same jobs and the same programs.
        """
        self._planned = {job.id: int(self._model.integers(2**63)) for job in jobs if self._chosen(job)}

    def _chosen(self, job: Job) -> bool:
        u = self._select.random()  # drawn for every job, so selections line up across policies
        return job.id in self.spec.jobs if self.spec.jobs else u < self.spec.fraction

    def _program(self, job: Job) -> RuntimeFunction | None:
        """The program replacing ``job``, or None if it stays as it is."""
        if self._planned is not None:
            seed = self._planned.pop(job.id, None)
            return None if seed is None else self.source.program(
                job.size, job.runtime, self.nodes, np.random.default_rng(seed)
            )
        return self.source.program(job.size, job.runtime, self.nodes, self._model) if self._chosen(job) else None

    def __call__(self, job: Job) -> Job:
        self.original_cpu += job.size * max(job.estimate, 0)
        program = self._program(job)
        if program is not None:
            function = self.view.routable(program)
            if function is None:  # no size of it fits any partition: the job stays rigid
                self.kept_rigid += 1
            else:
                candidates = self.view.candidates(function) if self.policy.needs_availability else None
                request = self.policy.choose(function, candidates, self._static)
                self.records.append(MoldableRecord(job, function, job.size, job.runtime, request.start))
                job.size = request.size
                job.runtime = job.estimate = request.runtime
                job.failed = False
        self.altered_cpu += job.size * max(job.estimate, 0)
        return job

    def summary(self) -> dict[str, Any]:
        """The ``moldable`` block of summary.json (finished replaced jobs only)."""
        return moldable_block(self.spec.policy, [self])


def moldable_block(policy: str, parts: list[Replacement]) -> dict[str, Any]:
    """Turn-around statistics of the replaced jobs over one or several replays (slices)."""
    done = [r.turnaround for p in parts for r in p.records if r.job.end >= 0]
    original = sum(p.original_cpu for p in parts)
    altered = sum(p.altered_cpu for p in parts)
    t = np.asarray(done, dtype=float)
    return {
        "policy": policy,
        "jobs": sum(len(p.records) for p in parts),
        "kept_rigid": sum(p.kept_rigid for p in parts),
        "finished": len(done),
        "mean_turnaround": float(t.mean()) if len(t) else 0.0,
        "median_turnaround": float(np.median(t)) if len(t) else 0.0,
        "max_turnaround": int(t.max()) if len(t) else 0,
        "std_turnaround": float(t.std(ddof=1)) if len(t) > 1 else 0.0,
        "load_ratio": altered / original if original else 1.0,
        "late_starts": sum(
            1 for p in parts for r in p.records
            if r.predicted_start is not None and r.job.start > r.predicted_start
        ),
    }
