"""Downey's speedup model: no superlinear speedup, runtimes that never grow with n."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitesim.moldable.speedup import (
    RuntimeFunction,
    accepted_sizes,
    downey_function,
    downey_speedup,
    whole_seconds,
)
from sitesim.errors import InputError

params = st.tuples(
    st.floats(1, 512, allow_nan=False),  # A
    st.floats(0, 10, allow_nan=False),  # sigma
    st.floats(1, 1e7, allow_nan=False),  # T1 (seconds on one processor)
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(params, st.sampled_from(["pow2", "square", "any"]), st.integers(1, 512))
def test_downey_runtime_never_grows_and_work_never_shrinks(p, rule, nodes):
    average, sigma, work = p
    sizes = accepted_sizes(rule, nodes)
    n = np.asarray(sizes, dtype=float)
    model = work / downey_speedup(n, average, sigma)  # the model, in real seconds
    assert np.all(np.diff(model) <= 1e-9 * model[:-1])
    assert np.all(np.diff(n * model) >= -1e-9 * (n * model)[1:])
    f = downey_function(work, average, sigma, sizes)  # whole seconds, what jobs get
    r = np.asarray(f.runtimes)
    assert np.all(np.diff(r) <= 0)
    assert np.all(np.diff(n * r) >= 0)
    assert np.all(r >= np.ceil(model - 1e-6)) and np.all(r >= 1)


def test_speedup_branches_meet_and_match_known_points():
    # sigma = 0: ideal up to A, flat after.
    assert downey_speedup(np.array([1, 8, 16, 64]), 16, 0).tolist() == [1, 8, 16, 16]
    # Low variance: S(A) = A / (1 + sigma (A-1) / (2A)); continuous at n = A and 2A - 1.
    a, s = 32.0, 0.5
    assert downey_speedup(a, a, s) == pytest.approx(a * a / (a + s * (a - 1) / 2))
    assert downey_speedup(2 * a - 1, a, s) == pytest.approx(a)
    # High variance: S reaches A at A + A sigma - sigma.
    a, s = 10.0, 2.0
    assert downey_speedup(a + a * s - s, a, s) == pytest.approx(a)
    assert downey_speedup(1, a, s) == pytest.approx(1)


def test_whole_seconds_keeps_work_for_short_jobs():
    # Rounding 1.5 s and 1.2 s up on their own gives 4 x 2 = 8 > 5 x 1 = 5 node-seconds.
    assert whole_seconds([4, 5], [1.5, 1.2]).tolist() == [2, 2]


def test_size_rules():
    assert accepted_sizes("pow2", 100) == [1, 2, 4, 8, 16, 32, 64]
    assert accepted_sizes("square", 100) == [k * k for k in range(1, 11)]
    assert accepted_sizes("any", 5) == [1, 2, 3, 4, 5]
    with pytest.raises(InputError, match="unknown size rule"):
        accepted_sizes("odd", 8)


def test_runtime_function_lookup_and_cap():
    f = RuntimeFunction((1, 4, 16), (100, 30, 10))
    assert f.runtime(4) == 30 and f.accepts(16) and not f.accepts(2)
    assert f.capped(8).sizes == (1, 4)
    with pytest.raises(ValueError):
        RuntimeFunction((4, 2), (1, 1))
