"""Observations moved onto the bounds a table may hold, counted per field."""

from __future__ import annotations

import numpy as np

from sitesim.analysis.bounds import Capped


def test_values_beyond_a_bound_are_moved_onto_it_and_counted() -> None:
    capped = Capped()
    ratios = capped.clip("estimate_ratio", np.array([0.5, 2.0, 4.6e7, 1.3e6]), 0, 1e6)
    assert ratios.tolist() == [0.5, 2.0, 1e6, 1e6]
    widths = capped.clip("batch_width", np.array([1, 3, 200_000], dtype=np.int64), 1, 100_000)
    assert widths.dtype == np.int64 and widths.tolist() == [1, 3, 100_000]
    assert capped.value("thinks", -5.0, 0, 10) == 0 and capped.value("thinks", 4.0, 0, 10) == 4.0
    assert capped.to_dict() == {"batch_width": 1, "estimate_ratio": 2, "thinks": 1}
    assert capped.total == 4 and capped.describe() == "batch_width 1, estimate_ratio 2, thinks 1"


def test_nothing_beyond_leaves_the_values_and_the_counts_alone() -> None:
    capped = Capped()
    values = np.array([1.0, 2.0])
    assert capped.clip("runtime", values, 0, 10) is values
    assert capped.describe() == "none" and capped.total == 0
