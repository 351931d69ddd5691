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
) -> list[ViolationPoint]:
    """For each scheduler's site-level trace, replay it under every scheduler at ``loads``.

    Each target offered load is reached with load factor ``load / original load``,
    and the trace's own load (factor 1) is always included.
    """
    points: list[ViolationPoint] = []
    with tempfile.TemporaryDirectory() as tmp:
        for source in schedulers:
            where = Path(tmp) / source
            run_site(SiteConfig(users=users, scheduler=source, duration=duration, seed=seed), out=where)
            trace = str(where / "trace.swf")
            original = run_replay(ReplayConfig(trace=trace, scheduler=source, estimates="trace"))
            base = original.summary["offered_load"]
            factors = sorted({1.0, *(load / base for load in loads)})
            for scheduler in schedulers:
                for factor in factors:
                    result = run_replay(
                        ReplayConfig(
                            trace=trace, scheduler=scheduler, estimates="trace", load_factor=factor
                        )
                    )
                    v = result.violations
                    points.append(
                        ViolationPoint(
                            trace_scheduler=source,
                            scheduler=scheduler,
                            original_load=base,
                            load_factor=factor,
                            offered_load=result.summary["offered_load"],
                            submission_fraction=v["submission_fraction"],
                            execution_fraction=v["execution_fraction"],
                            mean_wait=result.summary["mean_wait"],
                        )
                    )
    return points
