"""A log's batches laid down again with other waits, on hand-made traces with known answers."""

from __future__ import annotations

import pytest

from sitesim.analysis.batch_splits import batch_splits
from tests.analysis.helpers import tj

# job 2 is submitted while job 1 still waits (log: a batch of two); job 3 starts the
# next batch 900 s after job 1 ends: one session of three jobs in the log
WAITED = [tj(1, 0, 100, wait=5000), tj(2, 3000, 10), tj(3, 6000, 10)]


def test_the_logs_own_waits_keep_every_batch_whole() -> None:
    s = batch_splits(WAITED, {j.job: j.wait for j in WAITED})
    assert (s.sessions, s.jobs, s.gaps, s.after_start, s.new_batches, s.new_sessions) == (1, 3, 1, 0, 0, 0)
    assert s.jobs_per_session == (3.0, 3.0)


def test_a_job_ending_sooner_splits_its_batch_and_session_at_a_long_gap() -> None:
    # job 1 starts at once: it ends at 100, job 2 comes 2,900 s later, past 20 minutes
    s = batch_splits(WAITED, {1: 0, 2: 0, 3: 0})
    assert (s.new_batches, s.new_sessions) == (1, 1)
    assert s.jobs_per_session == (3.0, 1.5)
    # job 1 had not started in the log when job 2 came: measured from its start, the same
    assert batch_splits(WAITED, {1: 0, 2: 0, 3: 0}, anchor="start") == s


def test_a_gap_measured_from_the_previous_start_keeps_a_running_job_in_its_batch() -> None:
    # job 1 started at 1,000 and ran to 3,500; job 2 came 2,000 s after that start
    jobs = [tj(1, 0, 2500, wait=1000), tj(2, 3000, 10)]
    faster = {1: 0, 2: 0}
    kept = batch_splits(jobs, faster)
    assert (kept.after_start, kept.new_batches, kept.new_sessions) == (1, 1, 0)  # idle 500 s
    anchored = batch_splits(jobs, faster, anchor="start")
    assert (anchored.new_batches, anchored.new_sessions) == (0, 0)  # job 2 at 2,000, job 1 ends at 2,500


def test_a_batch_with_a_job_not_replayed_is_left_out_whole() -> None:
    s = batch_splits(WAITED, {1: 0, 3: 0})
    assert (s.sessions, s.jobs, s.gaps) == (0, 1, 0)  # job 3's batch stays, but opened no session
    other_user = [*WAITED, tj(9, 50, 10, user=2)]
    assert batch_splits(other_user, {1: 0, 2: 0, 3: 0, 9: 0}).sessions == 2


def test_an_unknown_anchor_is_refused() -> None:
    with pytest.raises(ValueError, match="anchor"):
        batch_splits(WAITED, {}, anchor="end")


def test_the_logs_sessions_end_later_when_their_jobs_wait_longer() -> None:
    from sitesim.analysis.batch_splits import session_hours

    own = {j.job: j.wait for j in WAITED}
    assert session_hours(WAITED, own) == pytest.approx(6010 / 3600)  # 0 .. job 3's end
    longer = {**own, 3: 7200}
    assert session_hours(WAITED, longer) == pytest.approx((6010 + 7200) / 3600)
    assert session_hours(WAITED, {1: 0}) != session_hours(WAITED, {1: 0})  # nan: none whole


def test_shuffled_waits_keep_each_users_waits_by_size_and_are_seeded() -> None:
    import numpy as np

    from sitesim.analysis.batch_splits import shuffled_waits

    jobs = [tj(k, 10 * k, 5, wait=100 * k, user=1 + k % 2, size=1 + (k % 3 == 0) * 7) for k in range(1, 13)]
    dealt = shuffled_waits(jobs, np.random.default_rng(1))
    assert dealt == shuffled_waits(jobs, np.random.default_rng(1))
    for user in (1, 2):
        for size in (1, 8):
            group = [j for j in jobs if j.user == user and j.size == size]
            assert sorted(dealt[j.job] for j in group) == sorted(j.wait for j in group)
    assert any(dealt[j.job] != j.wait for j in jobs)
