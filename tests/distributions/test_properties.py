"""Property tests: quantile and cdf are monotone inverses; samples stay in support."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sitesim.distributions import EmpiricalContinuous, EmpiricalDiscrete

observations = st.lists(
    st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False, allow_subnormal=False),
    min_size=1,
    max_size=300,
)
int_observations = st.lists(st.integers(min_value=0, max_value=2000), min_size=1, max_size=300)
probs = st.lists(st.floats(min_value=0, max_value=1), min_size=1, max_size=50)


@settings(max_examples=60, deadline=None)
@given(observations, probs, st.integers(min_value=2, max_value=40))
def test_continuous_quantile_cdf_inverse(data: list[float], qs: list[float], knots: int) -> None:
    d = EmpiricalContinuous.from_samples(data, knots=knots, tail_knots=4)
    q = np.sort(np.asarray(qs))
    x = d.quantile(q)
    assert np.all(np.diff(x) >= 0)
    lo, hi = d.support()
    assert np.all((x >= lo) & (x <= hi))
    tol = 1e-9 * max(1.0, hi - lo)
    assert np.all(d.cdf(x + tol) >= q - 1e-9)  # cdf(quantile(q)) >= q, up to rounding of x
    xs = np.sort(np.asarray(data))
    c = d.cdf(xs)
    assert np.all(np.diff(c) >= -1e-12) and c[0] >= 0 and c[-1] == 1
    assert np.all(np.abs(d.quantile(c) - np.clip(xs, lo, hi)) <= tol + 1e-6 * np.abs(xs))


@settings(max_examples=60, deadline=None)
@given(int_observations, probs)
def test_discrete_quantile_cdf_inverse(data: list[int], qs: list[float]) -> None:
    d = EmpiricalDiscrete.from_samples(data)
    q = np.sort(np.asarray(qs))
    v = d.quantile(q)
    assert np.all(np.diff(v) >= 0)
    assert np.all(d.cdf(v) >= q - 1e-12)
    assert d.quantile(d.cdf(d.values)).tolist() == d.values.tolist()
    assert abs(d.mean() - float(np.mean(data))) <= 1e-9 * max(1, max(data))


@settings(max_examples=40, deadline=None)
@given(observations, int_observations, st.integers(min_value=0, max_value=2**32 - 1))
def test_samples_within_support(data: list[float], ints: list[int], seed: int) -> None:
    rng = np.random.default_rng(seed)
    c = EmpiricalContinuous.from_samples(data)
    s = c.sample(rng, 200)
    lo, hi = c.support()
    assert np.all((s >= lo) & (s <= hi))
    d = EmpiricalDiscrete.from_samples(ints)
    assert set(d.sample(rng, 200).tolist()) <= set(ints)
