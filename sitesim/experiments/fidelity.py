"""How close a site is to the paper's: Tables 2-4 over seeds, the Table 2 calibration,
and what each modelling choice changes (docs/fidelity.md, scripts/fidelity.py).

The paper reports one run of each configuration; a site is compared with it by the mean
over seeds with a 95% confidence interval, and by where the paper's single figure falls
among the seeds. The only calibration, ``runtime_scale``, is fitted to Table 2 alone.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from attrs import define, evolve

from sitesim.experiments.prediction import METRICS, Prediction, prediction_experiment
from sitesim.runs.replay import ReplayConfig, run_replay
from sitesim.runs.site import SiteConfig, run_site
from sitesim.sweep.aggregate import mean_ci
from sitesim.sweep.executors import map_in_order

#: The paper's Table 2, system line (FCFS, 10 users, one year).
PAPER_TABLE2: dict[str, float] = {
    "completed": 34_413,
    "load": 0.46,
    "mean_response": 11_273.54,
    "mean_wait": 5_044.73,
    "mean_slowdown": 74.55,
}
#: The paper's Tables 3 and 4: site-level means and prediction inaccuracy (%).
PAPER_SITE: dict[str, dict[str, float]] = {
    "fcfs": {"mean_response": 11_897, "mean_wait": 5_611, "mean_slowdown": 78.7},
    "easy": {"mean_response": 8_571, "mean_wait": 2_283, "mean_slowdown": 21.4},
}
PAPER_CONVENTIONAL: dict[str, dict[str, float]] = {
    "fcfs": {"mean_response": 87_370, "mean_wait": 81_082, "mean_slowdown": 1_127},
    "easy": {"mean_response": 7_695, "mean_wait": 1_409, "mean_slowdown": 17.3},
}
PAPER_INACCURACY: dict[str, dict[str, float]] = {
    "under": {"mean_response": 634, "mean_wait": 1_345, "mean_slowdown": 1_332},
    "over": {"mean_response": 10, "mean_wait": 38, "mean_slowdown": 19},
}
#: What the calibration is fitted to: Table 2's job count and load, and its mean
#: runtime (response - wait: under FCFS with exact estimates a job's response is its
#: wait plus its runtime).
FIT_TARGETS: dict[str, float] = {
    "completed": PAPER_TABLE2["completed"],
    "load": PAPER_TABLE2["load"],
    "mean_runtime": PAPER_TABLE2["mean_response"] - PAPER_TABLE2["mean_wait"],
}
#: What a site-level run contributes to the comparison.
MEASURES: tuple[str, ...] = (
    "completed", "load", "offered_load", "mean_work", "mean_runtime", "mean_wait", "mean_response",
    "mean_slowdown",
)

Measures = dict[str, float]


def measures(summary: Mapping[str, float]) -> Measures:
    """The compared numbers of one site-level run (``mean_runtime`` = response - wait)."""
    out = {k: float(summary[k]) for k in MEASURES if k != "mean_runtime"}
    out["mean_runtime"] = out["mean_response"] - out["mean_wait"]
    return out


def measure_site(config: SiteConfig) -> Measures:
    """Run one site-level configuration: its compared numbers."""
    return measures(run_site(config).summary)


class SiteRuns:
    """Site-level runs by configuration, each run once: the fit, the tables and the
    sensitivity study share runs of one configuration. Runs not yet done are run
    together on ``jobs`` processes (None: every CPU) when a caller asks for several."""

    def __init__(self, jobs: int | None = 1) -> None:
        self.jobs = jobs
        self._done: dict[SiteConfig, Measures] = {}

    def get(self, config: SiteConfig) -> Measures:
        self.prefetch([config])
        return self._done[config]

    def prefetch(self, configs: Iterable[SiteConfig]) -> None:
        """Run every configuration of ``configs`` not run yet, in parallel."""
        todo = [c for c in dict.fromkeys(configs) if c not in self._done]
        self._done.update(zip(todo, map_in_order(measure_site, todo, jobs=self.jobs), strict=True))

    def record(self, config: SiteConfig, result: Measures) -> None:
        self._done[config] = result

    def over_seeds(self, config: SiteConfig, seeds: Iterable[int]) -> list[Measures]:
        configs = [evolve(config, seed=s) for s in seeds]
        self.prefetch(configs)
        return [self._done[c] for c in configs]


@define(slots=True, frozen=True)
class Estimate:
    """Mean over seeds, its 95% CI half-width, and the seeds' range."""

    mean: float
    ci: float | None
    low: float
    high: float
    n: int
    #: The seeds' values, sorted.
    values: tuple[float, ...] = ()

    @classmethod
    def of(cls, values: Sequence[float]) -> Estimate:
        mean, ci = mean_ci(values)
        return cls(mean, ci, min(values), max(values), len(values), tuple(sorted(values)))

    def percentile(self, value: float) -> float:
        """Percentage of the seeds below ``value`` (ties count half): where the paper's
        single run sits in our run-to-run distribution."""
        below = sum(v < value for v in self.values) + 0.5 * sum(v == value for v in self.values)
        return 100 * below / len(self.values)

    def position(self, value: float) -> str:
        """Where ``value`` (the paper's single run) falls among the seeds."""
        if value < self.low:
            return "below every seed"
        if value > self.high:
            return "above every seed"
        if self.ci is not None and abs(value - self.mean) <= self.ci:
            return "inside the CI"
        return "inside the seed range"


def estimate(runs: Sequence[Mapping[str, float]], key: str) -> Estimate:
    return Estimate.of([r[key] for r in runs])


def fit_error(runs: Sequence[Measures]) -> float:
    """Sum of squared relative errors of the seed means against :data:`FIT_TARGETS`."""
    return math.fsum(
        ((estimate(runs, k).mean - target) / target) ** 2 for k, target in FIT_TARGETS.items()
    )


@define(slots=True, frozen=True)
class Fit:
    """The runtime-scale fit: every grid point's runs and error, and the fitted value."""

    grid: dict[float, list[Measures]]
    errors: dict[float, float]
    #: Minimum of the parabola through the best grid point and its neighbours, rounded
    #: to ``resolution``.
    value: float


def fit_runtime_scale(runs: SiteRuns, site: SiteConfig, scales: Sequence[float], seeds: Sequence[int],
                      resolution: float = 0.01) -> Fit:
    """Fit ``runtime_scale`` of ``site`` (FCFS runs) to :data:`FIT_TARGETS`."""
    fcfs = evolve(site, scheduler="fcfs")
    runs.prefetch(evolve(fcfs, runtime_scale=s, seed=x) for s in scales for x in seeds)
    grid = {s: runs.over_seeds(evolve(fcfs, runtime_scale=s), seeds) for s in scales}
    errors = {s: fit_error(runs) for s, runs in grid.items()}
    ordered = sorted(errors)
    k = min(range(len(ordered)), key=lambda i: errors[ordered[i]])
    best = ordered[k]
    if 0 < k < len(ordered) - 1:
        (x0, x1, x2) = ordered[k - 1 : k + 2]
        y0, y1, y2 = errors[x0], errors[x1], errors[x2]
        den = (x0 - x1) * (x0 - x2) * (x1 - x2)
        a = (x2 * (y1 - y0) + x1 * (y0 - y2) + x0 * (y2 - y1)) / den
        b = (x2 * x2 * (y0 - y1) + x1 * x1 * (y2 - y0) + x0 * x0 * (y1 - y2)) / den
        if a > 0:
            best = -b / (2 * a)
    return Fit(grid, errors, round(round(best / resolution) * resolution, 10))


@define(slots=True, frozen=True)
class SiteComparison:
    """One site against the paper: both site-level runs per seed and Tables 3-4."""

    name: str
    config: SiteConfig
    fcfs: list[Measures]
    easy: list[Measures]
    predictions: list[Prediction]

    def inaccuracy(self, direction: str, metric: str) -> Estimate:
        source = "easy" if direction == "under" else "fcfs"
        runs = [p for p in self.predictions if p.trace_scheduler == source]
        return Estimate.of([100 * p.inaccuracy(metric) for p in runs])

    def conventional(self, direction: str, metric: str) -> Estimate:
        source = "easy" if direction == "under" else "fcfs"
        return Estimate.of([p.conventional[metric] for p in self.predictions if p.trace_scheduler == source])

    def replayed_load(self, source: str) -> Estimate:
        """Offered load of ``source``'s site-level trace (Figure 14's dotted lines)."""
        return Estimate.of([p.source["offered_load"] for p in self.predictions if p.trace_scheduler == source])


def compare_site(runs: SiteRuns, name: str, config: SiteConfig, seeds: Sequence[int],
                 keep_traces: Path | None = None) -> SiteComparison:
    """Tables 2-4 of ``config`` over ``seeds`` (FCFS and EASY site-level runs, replays)."""
    predictions = prediction_experiment(
        seeds=seeds, site=config, users=config.users, nodes=config.nodes,
        duration=config.duration or 0, estimates=config.estimates, keep_traces=keep_traces,
        jobs=runs.jobs,
    )
    own: dict[str, list[Measures]] = {"fcfs": [], "easy": []}
    for p in predictions:
        if p.trace_scheduler == "easy":  # the EASY trace replayed under FCFS
            for scheduler, picked in (("fcfs", p.site_level), ("easy", p.source)):
                own[scheduler].append(measures(picked))
                runs.record(evolve(config, scheduler=scheduler, seed=p.seed), own[scheduler][-1])
    return SiteComparison(name, config, own["fcfs"], own["easy"], predictions)


def replayed_at_loads(site: SiteComparison, traces: Path, source: str, evaluated: str,
                      loads: Sequence[float], jobs: int | None = 1) -> dict[float, list[Prediction]]:
    """``source``'s kept traces replayed under ``evaluated`` at each offered load of
    ``loads`` (load scaling, as in Figure 16), against ``evaluated``'s own site-level runs.

    Measures how much of a prediction error comes from the trace's load alone: the
    conventional replay's error grows steeply as the offered load nears what the
    evaluated scheduler can sustain. All replays run together on ``jobs`` processes.
    """
    chosen = [p for p in site.predictions if p.trace_scheduler == source]
    tasks = [(str(traces / f"{source}-{p.seed}" / "trace.swf"), evaluated, load / p.source["offered_load"])
             for load in loads for p in chosen]
    results = iter(map_in_order(replay_measures, tasks, jobs=jobs))
    return {load: [evolve(p, conventional=next(results)) for p in chosen] for load in loads}


def crossing(xs: Sequence[float], ys: Sequence[float], target: float) -> float | None:
    """The first x at which the piecewise-linear curve through (xs, ys) reaches ``target``
    from below (None if it stays below; ``xs[0]`` if it starts at or above it)."""
    if ys[0] >= target:
        return xs[0]
    for (x0, y0), (x1, y1) in zip(zip(xs, ys), zip(xs[1:], ys[1:])):
        if y0 < target <= y1:
            return x0 + (target - y0) * (x1 - x0) / (y1 - y0)
    return None


@define(slots=True, frozen=True)
class LoadFit:
    """``runtime_scale`` fitted to the offered load of one scheduler's site-level trace
    (a Figure 14 marker) instead of Table 2: every grid point's runs and the value."""

    scheduler: str
    target: float
    grid: dict[float, list[Measures]]
    #: Linear interpolation of the seed means between the grid points that bracket the
    #: target, rounded to ``resolution``; None if no two grid points bracket it.
    value: float | None


def fit_trace_load(runs: SiteRuns, site: SiteConfig, scales: Sequence[float], seeds: Sequence[int],
                   target: float, scheduler: str = "easy", resolution: float = 0.01) -> LoadFit:
    """Fit ``runtime_scale`` so that ``scheduler``'s site-level runs offer ``target``."""
    config = evolve(site, scheduler=scheduler)
    runs.prefetch(evolve(config, runtime_scale=s, seed=x) for s in scales for x in seeds)
    grid = {s: runs.over_seeds(evolve(config, runtime_scale=s), seeds) for s in sorted(scales)}
    xs = list(grid)
    x = crossing(xs, [estimate(r, "offered_load").mean for r in grid.values()], target)
    value = None if x is None or (x == xs[0] and estimate(grid[xs[0]], "offered_load").mean > target) \
        else round(round(x / resolution) * resolution, 10)
    return LoadFit(scheduler, target, grid, value)


def replay_measures(task: tuple[str, str, float]) -> dict[str, float]:
    """A trace replayed under a scheduler at a load factor, with the trace's estimates:
    the compared metrics and the offered load."""
    trace, scheduler, factor = task
    replay = run_replay(ReplayConfig(trace=trace, scheduler=scheduler, estimates="trace", load_factor=factor))
    return {k: float(replay.summary[k]) for k in (*METRICS, "offered_load")}


@define(slots=True, frozen=True)
class Variant:
    """One modelling choice changed: a label and the site-config changes (other tables
    are an ``empirical`` path, so their runs never mix with the shipped tables')."""

    label: str
    changes: dict[str, object]


def sensitivity(runs: SiteRuns, site: SiteConfig, variants: Sequence[Variant], seeds: Sequence[int]
                ) -> dict[str, dict[str, list[Measures]]]:
    """FCFS and EASY runs of every variant of ``site`` over ``seeds`` (all run together)."""
    configs = {v.label: evolve(site, **v.changes) for v in variants}  # type: ignore[arg-type]
    runs.prefetch(evolve(c, scheduler=s, seed=x) for c in configs.values() for s in ("fcfs", "easy") for x in seeds)
    return {label: {s: runs.over_seeds(evolve(c, scheduler=s), seeds) for s in ("fcfs", "easy")}
            for label, c in configs.items()}
