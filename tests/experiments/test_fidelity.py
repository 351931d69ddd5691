"""The fidelity study's pieces: the Table 2 fit and the seed statistics."""

from __future__ import annotations

import pytest
from attrs import evolve

from sitesim.experiments.fidelity import FIT_TARGETS, Estimate, SiteRuns, fit_error, fit_runtime_scale
from sitesim.runs.site import SiteConfig


def _fake(offset: float) -> dict[str, float]:
    """Measures whose every fitted number is off by ``offset`` (relative)."""
    out = {k: v * (1 + offset) for k, v in FIT_TARGETS.items()}
    return {**out, "mean_work": 0.0, "mean_wait": 0.0, "mean_response": 0.0, "mean_slowdown": 0.0}


def test_fit_finds_the_minimum_between_grid_points() -> None:
    # Recorded runs stand in for simulations: relative error 2 x (s - 0.653) on every
    # target, so the error is a parabola with its minimum at 0.653 -> 0.65.
    runs, site = SiteRuns(), SiteConfig(scheduler="fcfs")
    scales = (0.60, 0.62, 0.64, 0.66, 0.68)
    for s in scales:
        for seed in (0, 1):
            runs.record(evolve(site, runtime_scale=s, seed=seed), _fake(2 * (s - 0.653)))
    fit = fit_runtime_scale(runs, site, scales, seeds=(0, 1))
    assert fit.value == pytest.approx(0.65)
    assert min(fit.errors, key=fit.errors.__getitem__) == 0.66
    assert fit_error([_fake(0.0)]) == 0.0
    assert fit.errors[0.60] == pytest.approx(3 * (2 * (0.60 - 0.653)) ** 2)


def test_where_the_papers_single_run_falls() -> None:
    e = Estimate.of([10.0, *[12.0] * 8, 16.0])  # mean 12.2, CI half-width about 1.05
    assert (e.low, e.high, e.n) == (10.0, 16.0, 10) and e.mean == pytest.approx(12.2)
    assert e.position(13.0) == "inside the CI"
    assert e.position(9.0) == "below every seed" and e.position(17.0) == "above every seed"
    assert e.position(15.9) == "inside the seed range"


def test_percentile_of_the_papers_run_among_the_seeds() -> None:
    e = Estimate.of([3.0, 1.0, 2.0, 4.0])
    assert e.values == (1.0, 2.0, 3.0, 4.0)
    assert e.percentile(0.5) == 0 and e.percentile(5.0) == 100
    assert e.percentile(2.5) == 50 and e.percentile(2.0) == pytest.approx(37.5)


def test_site_runs_in_parallel_equal_serial_runs() -> None:
    site = SiteConfig(users=2, duration=5 * 86_400)
    configs = [evolve(site, scheduler=s, seed=x) for s in ("fcfs", "easy") for x in (0, 1)]
    serial, parallel = SiteRuns(), SiteRuns(jobs=2)
    parallel.record(configs[0], {"completed": -1.0})  # recorded runs are not run again
    parallel.prefetch(configs)
    assert parallel.get(configs[0]) == {"completed": -1.0}
    assert [parallel.get(c) for c in configs[1:]] == [serial.get(c) for c in configs[1:]]
    assert all(serial.get(c)["completed"] > 0 for c in configs)
