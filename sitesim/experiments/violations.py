"""Dependency violations under conventional load scaling (paper section 6.2, Figure 14).

Site-level traces of each scheduler carry their users' real dependencies (SWF fields
17/18). Replaying them in the open model at scaled loads shows how often a job is
submitted before the job it depends on completed (submission-dependency violations),
and how often the scheduler starts a job whose dependency still waits in the queue
(execution-ordering violations). At the trace's own load and scheduler there are none.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

from attrs import define

from sitesim.runs.replay import ReplayConfig, run_replay
from sitesim.runs.site import YEAR, SiteConfig, run_site
from sitesim.sweep.executors import map_in_order


#: Offered loads of the paper's Figure 14 axis, 0.2 to 0.95.
LOADS: tuple[float, ...] = tuple(round(0.2 + 0.05 * k, 2) for k in range(16))


@define(slots=True, frozen=True)
class ViolationPoint:
    """One replay: the trace's scheduler, the replaying scheduler, and what happened."""

    trace_scheduler: str
    scheduler: str
    original_load: float
    load_factor: float
    offered_load: float
    submission_fraction: float
    execution_fraction: float
    mean_wait: float


def violations_vs_load(
    *,
    schedulers: Sequence[str] = ("fcfs", "easy"),
    loads: Sequence[float] = LOADS,
    users: int = 10,
    duration: int = YEAR,
    seed: int = 0,
    jobs: int | None = 1,
) -> list[ViolationPoint]:
    """For each scheduler's site-level trace, replay it under every scheduler at ``loads``.

    Each target offered load is reached with load factor ``load / original load``,
    and the trace's own load (factor 1) is always included. The runs are independent
    and run on ``jobs`` processes (None: every CPU); the result does not depend on it.
    """
    with tempfile.TemporaryDirectory() as tmp:
        sites = [SiteConfig(users=users, scheduler=s, duration=duration, seed=seed) for s in schedulers]
        traces = [str(t) for t in map_in_order(_site_trace, [(c, Path(tmp) / c.scheduler) for c in sites], jobs=jobs)]
        own = [(t, s, 1.0) for t, s in zip(traces, schedulers, strict=True)]
        done = dict(zip(own, map_in_order(_replay, own, jobs=jobs), strict=True))
        tasks, labels = [], []
        for source, trace in zip(schedulers, traces, strict=True):
            base = done[(trace, source, 1.0)]["offered_load"]
            for scheduler in schedulers:
                for factor in sorted({1.0, *(load / base for load in loads)}):
                    tasks.append((trace, scheduler, factor))
                    labels.append((source, base))
        # A trace under its own scheduler at its own load was replayed just above.
        todo = [t for t in tasks if t not in done]
        done.update(zip(todo, map_in_order(_replay, todo, jobs=jobs), strict=True))
        results = [done[t] for t in tasks]
    return [
        ViolationPoint(
            trace_scheduler=source,
            scheduler=scheduler,
            original_load=base,
            load_factor=factor,
            offered_load=result["offered_load"],
            submission_fraction=result["submission_fraction"],
            execution_fraction=result["execution_fraction"],
            mean_wait=result["mean_wait"],
        )
        for (source, base), (_, scheduler, factor), result in zip(labels, tasks, results, strict=True)
    ]


def _site_trace(task: tuple[SiteConfig, Path]) -> Path:
    """Run one site-level configuration into a directory; its trace file."""
    config, where = task
    run_site(config, out=where)
    return where / "trace.swf"


def _replay(task: tuple[str, str, float]) -> dict[str, float]:
    """The trace replayed under a scheduler at a load factor, with the trace's estimates:
    the numbers a point needs (a whole result is large to send back from a worker)."""
    trace, scheduler, factor = task
    result = run_replay(ReplayConfig(trace=trace, scheduler=scheduler, estimates="trace", load_factor=factor))
    return {"offered_load": result.summary["offered_load"], "mean_wait": result.summary["mean_wait"],
            "submission_fraction": result.violations["submission_fraction"],
            "execution_fraction": result.violations["execution_fraction"]}
