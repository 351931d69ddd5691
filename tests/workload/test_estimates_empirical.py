"""The ``empirical`` estimate model: measured requested/actual ratios, at fixed seeds."""

from __future__ import annotations

import numpy as np
import pytest

from sitesim.distributions import load_empirical
from sitesim.errors import InputError
from sitesim.runs.site import DAY, SiteConfig, run_site
from sitesim.workload.estimates import EmpiricalEstimates, make_estimates

N = 20_000


def test_registered_random_and_lazy() -> None:
    model = make_estimates("empirical")
    assert isinstance(model, EmpiricalEstimates)
    assert model.random and not model.needs_trace and model.spec == "empirical"
    assert make_estimates("empirical:KTH-SP2").spec == "empirical:KTH-SP2"
    bad = make_estimates("empirical:nosuch")  # naming it loads nothing yet
    with pytest.raises(InputError, match="unknown empirical model 'nosuch'"):
        bad.estimate(100, -1, np.random.default_rng(0))
    with pytest.raises(ValueError, match="needs a generator"):
        model.estimate(100, -1, None)


def test_kill_fraction_matches_ratios_below_one() -> None:
    tables = load_empirical("combined")
    below_one = float(tables.estimate_ratio.cdf(1.0))
    assert 0.05 < below_one < 0.10  # about 7% of real requests were too short
    model = make_estimates("empirical")
    rng = np.random.default_rng(2024)
    runtime = 50_000  # long enough that rounding up cannot rescue a ratio below 1
    estimates = np.array([model.estimate(runtime, -1, rng) for _ in range(N)])
    assert np.mean(estimates < runtime) == pytest.approx(below_one, abs=0.006)
    assert np.median(estimates / runtime) == pytest.approx(tables.estimate_ratio.quantile(0.5), rel=0.05)


def test_whole_seconds_at_least_one() -> None:
    model = make_estimates("empirical")
    rng = np.random.default_rng(1)
    for runtime in (0, 1, 7, 3600):
        values = [model.estimate(runtime, -1, rng) for _ in range(500)]
        assert all(isinstance(v, int) and v >= 1 for v in values)


def test_site_runs_hand_the_model_their_tables() -> None:
    kth = load_empirical("KTH-SP2")
    model = make_estimates("empirical")
    model.use_tables(kth)
    assert model._distribution() is kth.estimate_ratio
    named = make_estimates("empirical:CTC-SP2")
    named.use_tables(kth)  # an explicit table wins
    assert named._distribution() is not kth.estimate_ratio


def test_site_level_kill_fraction() -> None:
    result = run_site(SiteConfig(users=10, scheduler="easy", estimates="empirical",
                                 duration=90 * DAY, seed=1))
    s = result.summary
    below_one = float(load_empirical("combined").estimate_ratio.cdf(1.0))
    # Short jobs are rescued by rounding up to whole seconds, so somewhat fewer die.
    assert below_one - 0.03 < s["killed"] / s["completed"] <= below_one + 0.015
