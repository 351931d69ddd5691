"""The fidelity study's pieces: the Table 2 fit and the seed statistics."""

from __future__ import annotations

from pathlib import Path

import pytest
from attrs import evolve

from sitesim.experiments.fidelity import (
    FIT_TARGETS,
    Estimate,
    SiteRuns,
    compare_site,
    crossing,
    fit_error,
    fit_runtime_scale,
    fit_trace_load,
    replayed_at_loads,
)
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


def test_crossing_interpolates_where_a_rising_curve_reaches_a_target() -> None:
    xs, ys = (0.4, 0.5, 0.6), (100.0, 300.0, 900.0)
    assert crossing(xs, ys, 600.0) == pytest.approx(0.55)
    assert crossing(xs, ys, 50.0) == 0.4 and crossing(xs, ys, 1000.0) is None


def test_runtime_scale_fitted_to_a_traces_offered_load() -> None:
    # Recorded EASY runs: offered load 0.5 + (s - 0.66), so 0.55 is reached at s = 0.71.
    runs, site = SiteRuns(), SiteConfig()
    scales = (0.66, 0.76, 0.86)
    for s in scales:
        for seed in (0, 1):
            runs.record(evolve(site, scheduler="easy", runtime_scale=s, seed=seed),
                        {"offered_load": 0.5 + (s - 0.66) + (0.01 if seed else -0.01)})
    fit = fit_trace_load(runs, site, scales, seeds=(0, 1), target=0.55)
    assert fit.value == pytest.approx(0.71) and set(fit.grid) == set(scales)
    assert fit_trace_load(runs, site, scales, seeds=(0, 1), target=0.9).value is None
    assert fit_trace_load(runs, site, scales, seeds=(0, 1), target=0.3).value is None


def test_traces_replayed_at_chosen_offered_loads(tmp_path: Path) -> None:
    site = SiteConfig(users=4, duration=15 * 86_400)
    compared = compare_site(SiteRuns(), "small", site, seeds=(0, 1), keep_traces=tmp_path)
    at = replayed_at_loads(compared, tmp_path, "easy", "fcfs", (0.3, 0.6))
    assert list(at) == [0.3, 0.6]
    for load, predictions in at.items():
        assert [p.seed for p in predictions] == [0, 1]
        assert all(p.conventional["offered_load"] == pytest.approx(load, rel=1e-3) for p in predictions)
        assert all(p.site_level == q.site_level for p, q in zip(predictions, compared.predictions[::2]))
    # A heavier replay of the same trace waits longer.
    assert all(a.conventional["mean_wait"] <= b.conventional["mean_wait"] for a, b in zip(at[0.3], at[0.6]))
