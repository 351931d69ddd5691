"""Prediction inaccuracy of conventional simulation (paper section 6.1, Tables 3-4).

A site-level run of a *high-end* scheduler leaves a trace with its feedback signature;
replaying that trace conventionally under a *low-end* scheduler predicts the low-end
scheduler's performance, and a site-level run of the low-end scheduler with the same
users gives its "true" performance. The inaccuracy is |conventional - site| / site,
the way the paper's tables compute it. The reverse direction (low-end trace replayed
under the high-end scheduler) gives the overestimation.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from attrs import define, evolve

from sitesim.runs.replay import ReplayConfig, run_replay
from sitesim.runs.site import YEAR, SiteConfig, run_site
from sitesim.sweep.executors import map_in_order

#: Metrics compared: the paper's three, plus bounded slowdown.
METRICS: tuple[str, ...] = ("mean_response", "mean_wait", "mean_slowdown", "mean_bounded_slowdown")


@define(slots=True, frozen=True)
class Prediction:
    """One direction of the experiment for one seed.

    ``trace_scheduler``'s site-level trace replayed under ``evaluated``: ``conventional``
    is the replay's prediction, ``site_level`` the evaluated scheduler's own site-level
    result, ``source`` the trace scheduler's site-level result (context).
    """

    trace_scheduler: str
    evaluated: str
    seed: int
    source: dict[str, float]
    conventional: dict[str, float]
    site_level: dict[str, float]

    def inaccuracy(self, metric: str) -> float:
        site = self.site_level[metric]
        return abs(self.conventional[metric] - site) / site


#: Context kept from every run besides the metrics (site-level runs add Table 2's load
#: and the mean work per submitted job).
CONTEXT: tuple[str, ...] = ("completed", "utilization", "offered_load")
SITE_CONTEXT: tuple[str, ...] = ("load", "submitted", "mean_work")


def _pick(summary: dict[str, Any]) -> dict[str, float]:
    keys = (*METRICS, *CONTEXT, *(k for k in SITE_CONTEXT if k in summary))
    return {m: float(summary[m]) for m in keys}


def prediction_experiment(
    *,
    high: str = "easy",
    low: str = "fcfs",
    users: int = 10,
    duration: int = YEAR,
    seeds: Sequence[int] = (0,),
    nodes: int = 128,
    estimates: str = "exact",
    site: SiteConfig | None = None,
    keep_traces: Path | None = None,
    jobs: int | None = 1,
) -> list[Prediction]:
    """Both directions for every seed: [under(seed0), over(seed0), under(seed1), ...].

    ``site`` gives every other setting of the site-level runs (default: the defaults,
    i.e. the paper site). With ``keep_traces``, the site-level runs are written to
    ``keep_traces/SCHEDULER-SEED/`` and kept. The seeds are independent and run on
    ``jobs`` processes (None: every CPU); the result does not depend on ``jobs``.
    """
    base = site if site is not None else SiteConfig()
    config = evolve(base, users=users, duration=duration, nodes=nodes, estimates=estimates)
    tasks = [_Seed(config, high, low, seed, keep_traces) for seed in seeds]
    return [p for pair in map_in_order(_one_seed, tasks, jobs=jobs) for p in pair]


@define(slots=True, frozen=True)
class _Seed:
    """One seed's share of the experiment (picklable, for worker processes)."""

    config: SiteConfig
    high: str
    low: str
    seed: int
    keep_traces: Path | None


def _one_seed(task: _Seed) -> list[Prediction]:
    """Both site-level runs of one seed and both replays: [under, over]."""
    out: list[Prediction] = []
    with tempfile.TemporaryDirectory() as tmp:
        site_runs: dict[str, dict[str, float]] = {}
        trace: dict[str, Path] = {}
        for scheduler in (task.high, task.low):
            where = Path(task.keep_traces or tmp) / f"{scheduler}-{task.seed}"
            config = evolve(task.config, scheduler=scheduler, seed=task.seed)
            site_runs[scheduler] = _pick(run_site(config, out=where).summary)
            trace[scheduler] = where / "trace.swf"
        for source, evaluated in ((task.high, task.low), (task.low, task.high)):
            replay = run_replay(ReplayConfig(trace=str(trace[source]), scheduler=evaluated, estimates="trace"))
            out.append(
                Prediction(
                    trace_scheduler=source,
                    evaluated=evaluated,
                    seed=task.seed,
                    source=site_runs[source],
                    conventional=_pick(replay.summary),
                    site_level=site_runs[evaluated],
                )
            )
    return out
