"""Gas vs static on the real logs -- small subsets, so the suite stays fast.

The full experiments (every slice, every share, 5 seeds) are in
scripts/moldable_bushel.py and scripts/moldable_one_apples.py (docs/moldable.md);
these tests run the same code on the logs' first slices only:

- bushel: KTH-SP2's first 15 days with 20% of its jobs replaced, seeds 0-4;
- one AppLeS: the first 14-day slice of each of SDSC-SP2, CTC-SP2 and KTH-SP2, three
  replaced jobs each (nine Gas/static pairs).
"""

from __future__ import annotations

import attrs
import pytest

from sitesim.experiments.moldable import one_apples_runs, slice_trace
from sitesim.moldable.replace import MoldableSpec
from sitesim.runs.replay import ReplayConfig, run_replay


@pytest.fixture
def kth_first_days(trace_path, tmp_path):
    return slice_trace(trace_path("KTH-SP2"), 15, tmp_path, max_slices=1)[0]


def test_kth_20_percent_gas_mean_turnaround_at_most_0_7_of_static(kth_first_days):
    base = ReplayConfig(trace=str(kth_first_days), scheduler="cons")
    for seed in range(5):
        means = {}
        for policy in ("gas", "static"):
            config = attrs.evolve(base, seed=seed, moldable=MoldableSpec(policy=policy, fraction=0.2))
            result = run_replay(config)
            block = result.replacement.summary()
            assert block["jobs"] > 50 and block["late_starts"] == 0
            means[policy] = block["mean_turnaround"]
        assert means["gas"] <= 0.7 * means["static"], (seed, means)


def test_one_apples_gas_not_worse_than_static_in_90_percent_of_runs(trace_path):
    pairs = []
    for name in ("SDSC-SP2", "CTC-SP2", "KTH-SP2"):
        rows = one_apples_runs(trace_path(name), 3, slice_days=14, max_slices=1, seed=1)
        assert len(rows) == 3
        pairs += [(r["gas"], r["static"]) for r in rows]
    not_worse = sum(g <= s for g, s in pairs) / len(pairs)
    assert not_worse >= 0.9, pairs
