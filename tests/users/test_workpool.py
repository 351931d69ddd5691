"""Workpool models: generated sizes and runtimes follow the tables they draw from."""

from __future__ import annotations

import numpy as np
import pytest

from sitesim.distributions import load_empirical
from sitesim.users import WORKPOOL_MODELS

JOBS = 100_000


def _means(name: str, runtime_scale: float = 1.0) -> tuple[float, float]:
    tables = load_empirical().for_site(128, "scale", runtime_scale)
    pool = WORKPOOL_MODELS.get(name)(tables, np.random.default_rng(0), 128)
    jobs = [pool.next_job() for _ in range(JOBS)]
    return float(np.mean([j.size for j in jobs])), float(np.mean([j.runtime for j in jobs]))


@pytest.mark.parametrize(("name", "size_field", "runtime_field"), [
    ("plain", "size", "runtime"), ("distinct", "run_size", "run_runtime"),
])
def test_generated_means_match_the_chosen_tables(name: str, size_field: str, runtime_field: str) -> None:
    # Repetitions are drawn independently of the job, so the generated per-job means
    # are the means of the tables drawn from. Runtimes are heavy-tailed (sd ~18,000 s)
    # and repeated jobs are correlated draws: 5% is about three standard errors.
    tables = load_empirical().for_site(128, "scale", 1.0)
    size, runtime = _means(name)
    assert size == pytest.approx(getattr(tables, size_field).mean(), rel=0.04)
    assert runtime == pytest.approx(getattr(tables, runtime_field).mean(), rel=0.05)


def test_per_job_and_distinct_job_tables_are_told_apart() -> None:
    # The distinct-job sizes are 15% larger on average: the size test above can fail.
    tables = load_empirical().for_site(128, "scale", 1.0)
    assert tables.run_size.mean() > 1.12 * tables.size.mean()
    assert _means("plain")[0] < 1.05 * tables.size.mean() < _means("distinct")[0]


def test_runtime_scale_multiplies_runtimes_and_leaves_sizes() -> None:
    tables = load_empirical().for_site(128, "scale", 1.0)
    half = load_empirical().for_site(128, "scale", 0.5)
    a = WORKPOOL_MODELS.get("plain")(tables, np.random.default_rng(4), 128)
    b = WORKPOOL_MODELS.get("plain")(half, np.random.default_rng(4), 128)
    for _ in range(2000):
        full, scaled = a.next_job(), b.next_job()
        assert (scaled.size, scaled.executable) == (full.size, full.executable)
        assert abs(scaled.runtime - full.runtime / 2) <= 1
