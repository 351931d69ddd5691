"""Model validation (paper Figure 11): the emitted trace gives back the input models.

Analysing a site-level run's SWF trace with the same trace analysis that measured the
empirical tables must recover the batch-width, inter-submission and think-time
distributions. Bounds are honest, not tight: the analysis cannot see batch boundaries
the way the generator drew them (a batch whose running jobs all ended before its next
submission looks like two batches), which shortens the recovered inter-submission
times most, the more so the shorter the jobs (KS about 0.14 under EASY at this seed on
the paper site); widths and think times come back within about 0.02.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sitesim.analysis import analyze_trace
from sitesim.distributions import load_empirical
from sitesim.runs.site import DAY, SiteConfig, run_site


def ks_statistic(sample: np.ndarray, cdf) -> float:  # type: ignore[no-untyped-def]
    """Two-sided Kolmogorov-Smirnov distance between a sample and a model CDF."""
    x = np.sort(np.asarray(sample, dtype=float))
    n = x.size
    f = np.asarray(cdf(x), dtype=float)
    return float(max(np.max(np.arange(1, n + 1) / n - f), np.max(f - np.arange(n) / n)))


@pytest.mark.parametrize("scheduler", ["fcfs", "easy"])
def test_emitted_trace_recovers_the_submittal_model(tmp_path: Path, scheduler: str) -> None:
    tables = load_empirical()
    run_site(SiteConfig(users=10, scheduler=scheduler, duration=365 * DAY, seed=0), out=tmp_path)
    behaviour = analyze_trace(tmp_path / "trace.swf").submission
    assert behaviour.batch_widths.size > 8000
    widths = np.arange(1, 60)
    width_ks = np.max(
        np.abs((behaviour.batch_widths[:, None] <= widths).mean(axis=0) - tables.batch_width.cdf(widths))
    )
    assert width_ks < 0.04
    assert ks_statistic(behaviour.inter_batch_think, tables.think_time.cdf) < 0.03
    assert ks_statistic(behaviour.inter_submission, tables.inter_submission.cdf) < 0.16
    assert behaviour.width_fraction(1) == pytest.approx(
        float(tables.batch_width.cdf(1)), abs=0.03
    )
