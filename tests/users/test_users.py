"""Users and their models: common random numbers, model behaviour, registries."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from sitesim.distributions import load_empirical
from sitesim.errors import InputError
from sitesim.runs.site import DAY, SiteConfig, run_site
from sitesim.users import SUBMITTAL_MODELS, WORKPOOL_MODELS, user_streams
from sitesim.workload.swf import SwfRecord, read_swf


def _per_user(records: list[SwfRecord]) -> tuple[dict[int, list[tuple]], dict[int, list[int]]]:
    """Each user's job sequence and batch widths (a batch = jobs sharing field 17)."""
    jobs: dict[int, list[tuple]] = defaultdict(list)
    widths: dict[int, list[int]] = defaultdict(list)
    last_batch: dict[int, int] = {}
    for r in records:
        jobs[r.user_id].append((r.allocated_processors, r.requested_time, r.executable))
        if last_batch.get(r.user_id, None) == r.preceding_job and widths[r.user_id]:
            widths[r.user_id][-1] += 1
        else:
            widths[r.user_id].append(1)
        last_batch[r.user_id] = r.preceding_job
    return jobs, widths


def test_common_random_numbers_across_schedulers(tmp_path: Path) -> None:
    """A user's work and batch structure depend on the seed only, not on the scheduler."""
    traces = {}
    for scheduler in ("fcfs", "easy"):
        out = tmp_path / scheduler
        run_site(SiteConfig(users=8, scheduler=scheduler, duration=60 * DAY, seed=11), out=out)
        traces[scheduler] = _per_user(read_swf(out / "trace.swf")[1])
    (fj, fw), (ej, ew) = traces["fcfs"], traces["easy"]
    assert set(fj) == set(ej)
    for user in fj:
        n = min(len(fj[user]), len(ej[user]))
        assert n > 50
        assert fj[user][:n] == ej[user][:n], f"user {user} got other jobs"
        b = min(len(fw[user]), len(ew[user])) - 1  # the last batch may be cut off
        assert fw[user][:b] == ew[user][:b], f"user {user} got other batch widths"
    # ...while timing differs: EASY's users got further.
    assert sum(map(len, ej.values())) > sum(map(len, fj.values()))


def test_user_streams_are_independent_of_population_size() -> None:
    few = user_streams(5, 2)
    many = user_streams(5, 10)
    for a, b in zip(few, many):
        for ga, gb in zip(a, b):
            assert ga.integers(0, 2**32, 5).tolist() == gb.integers(0, 2**32, 5).tolist()


def test_closed_model_is_one_job_at_a_time(tmp_path: Path) -> None:
    out = tmp_path / "closed"
    run_site(SiteConfig(users=4, submittal="closed", scheduler="fcfs", duration=30 * DAY), out=out)
    _, records = read_swf(out / "trace.swf")
    by_id = {r.job_number: r for r in records}
    seen_users = set()
    for r in records:
        if r.preceding_job == -1:
            assert r.user_id not in seen_users
            seen_users.add(r.user_id)
            continue
        dep = by_id[r.preceding_job]
        assert r.think_time == 0
        assert r.submit_time == dep.submit_time + dep.wait_time + dep.run_time
    _, widths = _per_user(records)
    assert all(w == 1 for ws in widths.values() for w in ws)


def test_plain_workpool_repeats_jobs_and_fits_the_machine() -> None:
    tables = load_empirical()
    pool = WORKPOOL_MODELS.get("plain")(tables, np.random.default_rng(3), 128)
    jobs = [pool.next_job() for _ in range(20_000)]
    assert max(j.size for j in jobs) <= 128 and min(j.size for j in jobs) >= 1
    assert min(j.runtime for j in jobs) >= 1
    runs = 1 + sum(a.executable != b.executable for a, b in zip(jobs, jobs[1:]))
    mean_run = len(jobs) / runs
    # Runs of one program have the length of the repetitions table (up to sampling noise).
    assert mean_run == pytest.approx(tables.repetitions.mean(), rel=0.1)
    for a, b in zip(jobs, jobs[1:]):
        if a.executable == b.executable:
            assert (a.size, a.runtime) == (b.size, b.runtime)


def test_batch_model_draws_from_the_tables() -> None:
    tables = load_empirical()
    model = SUBMITTAL_MODELS.get("batch")(tables, np.random.default_rng(9))
    widths = np.array([model.batch_width() for _ in range(20_000)])
    thinks = np.array([model.think() for _ in range(20_000)])
    assert widths.min() >= 1
    assert widths.mean() == pytest.approx(tables.batch_width.mean(), rel=0.05)
    assert 0 <= thinks.min() and thinks.max() <= 1200
    assert thinks.mean() == pytest.approx(tables.think_time.mean(), rel=0.05)


def test_unknown_models_list_the_known_ones() -> None:
    with pytest.raises(InputError, match="known: batch, closed"):
        SUBMITTAL_MODELS.get("poisson")
    with pytest.raises(InputError, match="known: distinct, failing, plain"):
        WORKPOOL_MODELS.get("fancy")
