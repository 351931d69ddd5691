"""Runtime-estimate models: the badness factor f:F and the Mu'alem-Feitelson model.

Statistical checks use a fixed seed and sample sizes large enough that the tolerances
are several standard errors wide (n = 20,000: the standard error of a 10% fraction is
0.2 percentage points, and the tolerances below are 1 point).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitesim.errors import InputError
from sitesim.workload.estimates import make_estimates

N = 20_000


def draw(spec: str, runtimes: list[int] | np.ndarray, seed: int = 0) -> np.ndarray:
    model = make_estimates(spec)
    rng = np.random.default_rng(seed)
    return np.array([model.estimate(int(r), -1, rng) for r in runtimes])


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.integers(0, 10**7), st.floats(1.0, 50.0), st.integers(0, 2**32 - 1))
def test_factor_estimates_lie_in_r_to_F_r(runtime: int, factor: float, seed: int) -> None:
    model = make_estimates(f"f:{factor!r}")
    est = model.estimate(runtime, -1, np.random.default_rng(seed))
    assert isinstance(est, int)
    assert runtime <= est <= math.ceil(factor * runtime)


def test_f1_is_exact() -> None:
    runtimes = np.random.default_rng(1).integers(0, 100_000, 1000)
    assert (draw("f:1", runtimes) == runtimes).all()


def test_factor_estimates_are_spread_uniformly() -> None:
    est = draw("f:4", [10_000] * N)
    ratio = est / 10_000
    assert abs(ratio.mean() - 2.5) < 0.03  # uniform on [1, 4]: mean 2.5, sd 0.87
    assert abs((ratio < 2.5).mean() - 0.5) < 0.01
    assert ratio.min() >= 1.0 and ratio.max() <= 4.0


def test_same_seed_same_estimates() -> None:
    runtimes = list(range(0, 5000, 7))
    for spec in ("f:2", "mf"):
        assert (draw(spec, runtimes, seed=3) == draw(spec, runtimes, seed=3)).all()
        assert (draw(spec, runtimes, seed=3) != draw(spec, runtimes, seed=4)).any()


def test_mf_fractions_at_a_fixed_seed() -> None:
    runtimes = np.full(N, 1000)
    est = draw("mf", runtimes)
    under = est < runtimes
    assert abs(under.mean() - 0.10) < 0.01  # step 1: 10% at 0.99 r (the job is killed)
    assert (est[under] == 990).all()
    # Step 2: r / u, u ~ U(0, 1]: P(estimate <= 2r) = P(u >= 1/2) = 1/2 of the other 90%.
    over = est[~under]
    assert abs((over <= 2000).mean() - 0.5) < 0.015
    assert abs((over <= 10_000).mean() - 0.9) < 0.01
    assert over.min() >= 1000


def test_mf_short_jobs_get_ten_times_more() -> None:
    est = draw("mf", np.full(N, 60))
    killed = est < 60
    assert abs(killed.mean() - 0.10) < 0.01
    assert (est[killed] == 59).all()  # floor(0.99 x 60): an underestimate, not x10
    assert est[~killed].min() >= 600  # r / u >= r, times 10
    assert abs((est[~killed] <= 1200).mean() - 0.5) < 0.015
    # Just at the threshold there is no factor 10.
    assert draw("mf", np.full(2000, 90)).min() < 600


def test_mf_cap_truncates_but_never_below_the_runtime() -> None:
    est = draw("mf", np.full(N, 20_000))
    assert est.max() == 86_400  # r / u > 4.32 r happens for u < 0.23
    assert abs((est == 86_400).mean() - 0.9 * 20_000 / 86_400) < 0.01
    assert draw("mf:3600", np.full(1000, 600)).max() == 3600
    long = draw("mf", np.full(1000, 100_000))
    assert ((long == 100_000) | (long == 99_000)).all()  # cap below r: r itself


def test_mf_minimum_is_one_second() -> None:
    est = draw("mf", [0, 1, 2] * 2000)
    assert est.min() == 1  # zero-runtime jobs, and the "killed" draw for r = 1 and 2
    assert (est[1::3] >= 1).all()  # r = 1 cannot be underestimated in whole seconds


@pytest.mark.parametrize("spec", ["f", "f:0.5", "f:x", "f:inf", "mf:0", "mf:soon", "exact:1"])
def test_bad_specs_are_input_errors(spec: str) -> None:
    with pytest.raises(InputError):
        make_estimates(spec)


def test_specs_round_trip_and_random_flag() -> None:
    assert make_estimates("f:2").spec == "f:2"
    assert make_estimates("mf").spec == "mf"
    assert make_estimates("mf:7200").spec == "mf:7200"
    assert make_estimates("f:2").random and make_estimates("mf").random
    assert not make_estimates("exact").random and not make_estimates("trace").random
    with pytest.raises(ValueError):
        make_estimates("mf").estimate(10, -1, None)


@pytest.mark.parametrize("spec", ["exact", "f:2", "f:1000", "mf", "mf:3600", "empirical", "empirical:KTH-SP2"])
def test_a_bound_model_gives_the_estimates_of_one_call_per_job(spec: str) -> None:
    """A user's bound model draws ahead in blocks; job by job it must agree with
    ``estimate`` called with the same generator, across several blocks and with
    short jobs (mf's x10) and long ones."""
    runtimes = [1 + (k * 7919) % 20_000 if k % 3 else 1 + k % 89 for k in range(1000)]
    model = make_estimates(spec)
    bound = make_estimates(spec).bound(np.random.default_rng(11))
    rng = np.random.default_rng(11)
    assert [bound(r, -1) for r in runtimes] == [model.estimate(r, -1, rng) for r in runtimes]


def test_a_bound_empirical_model_takes_tables_handed_over_after_binding() -> None:
    from sitesim.distributions import load_empirical

    tables = load_empirical("KTH-SP2")
    bound_first = make_estimates("empirical")
    bound = bound_first.bound(np.random.default_rng(3))
    bound_first.use_tables(tables)
    model = make_estimates("empirical")
    model.use_tables(tables)
    rng = np.random.default_rng(3)
    assert [bound(100, -1) for _ in range(200)] == [model.estimate(100, -1, rng) for _ in range(200)]


def test_a_subclass_that_overrides_estimate_is_bound_to_its_own() -> None:
    from sitesim.workload.estimates import EmpiricalEstimates, FactorEstimates, MualemFeitelsonEstimates

    for parent, arg in ((FactorEstimates, "2"), (MualemFeitelsonEstimates, None), (EmpiricalEstimates, None)):
        class Doubled(parent):  # type: ignore[valid-type, misc]
            def estimate(self, runtime, requested, rng):
                return 2 * super().estimate(runtime, requested, rng)

        bound = Doubled(arg).bound(np.random.default_rng(5))
        model, rng = Doubled(arg), np.random.default_rng(5)
        assert [bound(r, -1) for r in range(1, 300)] == [model.estimate(r, -1, rng) for r in range(1, 300)]


def test_a_random_model_needs_a_generator_to_be_bound() -> None:
    with pytest.raises(ValueError, match="needs a generator"):
        make_estimates("f:2").bound(None)
