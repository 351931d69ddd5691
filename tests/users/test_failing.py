"""The ``failing`` workpool at fixed seeds: fraction, failure times, common random numbers,
and a site-level run whose trace and summary tell failed and killed jobs apart."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from sitesim.distributions import load_empirical
from sitesim.errors import InputError
from sitesim.runs.site import DAY, SiteConfig, run_site
from sitesim.users import WORKPOOL_MODELS
from sitesim.workload.swf import STATUS_FAILED, read_swf

N = 20_000


@pytest.fixture(scope="module")
def tables():
    return load_empirical("combined")


def draws(tables, name: str, seed: int = 11) -> list:
    pool = WORKPOOL_MODELS.get(name)(tables, np.random.default_rng(seed), 128)
    return [pool.next_job() for _ in range(N)]


def test_failing_runs_follow_the_empirical_fraction_and_times(tables) -> None:
    jobs = draws(tables, "failing")
    fails = [j for j in jobs if j.fails_after is not None]
    expected = tables.status_fractions["failed"]
    assert len(fails) / N == pytest.approx(expected, abs=0.01)
    assert all(1 <= j.fails_after <= j.runtime for j in fails)
    # Uncapped failure times follow the failed_runtime table: compare medians on the
    # failures whose run was long enough not to cap them.
    long = [j.fails_after for j in fails if j.runtime > 10 * tables.failed_runtime.quantile(0.5)]
    assert np.median(long) == pytest.approx(tables.failed_runtime.quantile(0.5), rel=0.25)


def test_failing_draws_the_plain_programs_and_fates_per_run(tables) -> None:
    plain, failing = draws(tables, "plain"), draws(tables, "failing")
    assert [(j.size, j.runtime, j.executable) for j in plain] == [
        (j.size, j.runtime, j.executable) for j in failing
    ]
    # Repeats of one program draw their fates independently: some programs have both
    # failed and successful runs.
    fates: dict[int, set[bool]] = {}
    for j in failing:
        fates.setdefault(j.executable, set()).add(j.fails_after is not None)
    assert sum(len(f) == 2 for f in fates.values()) > 100


def test_tables_without_failed_runtimes_are_refused(tables) -> None:
    import attrs

    bare = attrs.evolve(tables, failed_runtime=None)
    with pytest.raises(InputError, match="no failed runtimes"):
        WORKPOOL_MODELS.get("failing")(bare, np.random.default_rng(0), 128)


def test_site_level_run_with_failures(tmp_path: Path) -> None:
    config = SiteConfig(users=10, workpool="failing", scheduler="easy", estimates="empirical",
                        duration=60 * DAY, seed=5)
    result = run_site(config, out=tmp_path)
    s = result.summary
    assert s["failed"] / s["completed"] == pytest.approx(0.15, abs=0.04)
    assert s["killed"] > 0
    _, records = read_swf(tmp_path / "trace.swf")
    assert sum(r.status == STATUS_FAILED for r in records) == s["failed"] + s["killed"]
    document = json.loads((tmp_path / "summary.json").read_text())
    assert document["system"]["failed"] == s["failed"]
    assert document["config"]["workpool"] == "failing"
    # Same seed with the plain workpool: the same users, no failures.
    plain = run_site(SiteConfig(users=10, scheduler="easy", estimates="empirical",
                                duration=60 * DAY, seed=5))
    assert plain.summary["failed"] == 0
