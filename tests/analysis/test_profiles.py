"""The population table's numbers (sitesim/analysis/profiles.py)."""

from __future__ import annotations

import json

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sitesim.analysis.profiles import _num, _nums

EDGES = [0.0, -0.0, 1e6, -1e6, 999_999.0, -999_999.0, 999_999.5, 1e6 + 1, 123_456.0, 0.5, 1e-7, 3.0,
         float("nan"), float("inf"), float("-inf"), 5, -1, 10**7, True, np.int64(7), np.float64(2.0),
         np.float64(0.1)]


@settings(derandomize=True, max_examples=200, deadline=None, database=None)
@given(st.one_of(
    st.lists(st.one_of(st.sampled_from(EDGES), st.floats(), st.integers(-10**9, 10**9),
                       st.floats(-2e6, 2e6).map(round).map(float))),
    # long lists of floats, mostly whole (the population's times): numpy's check
    st.lists(st.one_of(st.floats(-2e6, 2e6).map(round).map(float), st.sampled_from(EDGES[:13])),
             min_size=16, max_size=60),
    st.lists(st.floats(-1e6, 1e6).map(round).map(float), min_size=16, max_size=60),
    st.lists(st.integers(-10**20, 10**20), max_size=60),
))
def test_nums_are_num_of_each_value(values: list) -> None:
    """The shortcut for ints and whole floats gives each value's own rounding: the
    same JSON text, the same types."""
    fast, slow = _nums(values), [_num(v) for v in values]
    assert json.dumps(fast) == json.dumps(slow)
    assert [type(v) for v in fast] == [type(v) for v in slow]
