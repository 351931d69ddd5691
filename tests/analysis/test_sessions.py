"""Think times, batches and sessions on small hand-made traces with known answers."""

from __future__ import annotations

import numpy as np

from sitesim.analysis.sessions import analyze_submission, job_roles, user_sequences
from tests.analysis.helpers import tj


def test_synchronous_jobs_are_width_one_batches() -> None:
    # each job submitted 100 s after the previous one ended
    jobs = [tj(1, 0, 50), tj(2, 150, 50), tj(3, 300, 50)]
    s = analyze_submission(jobs)
    assert s.think_times.tolist() == [100, 100]
    assert s.batch_widths.tolist() == [1, 1, 1]
    assert s.inter_batch_think.tolist() == [100, 100]
    assert s.inter_submission.size == 0
    assert s.session_jobs.tolist() == [3]
    assert s.session_batches.tolist() == [3]
    assert s.negative_think_fraction == 0.0


def test_asynchronous_jobs_form_one_batch() -> None:
    # jobs 2 and 3 are submitted while job 1 (ends at 1000) still runs
    jobs = [tj(1, 0, 1000), tj(2, 10, 5), tj(3, 40, 5), tj(4, 1100, 5)]
    s = analyze_submission(jobs)
    assert s.think_times.tolist() == [-990, -960, 100]
    assert s.batch_widths.tolist() == [3, 1]
    assert s.inter_submission.tolist() == [10, 30]
    assert s.inter_batch_think.tolist() == [100]
    assert abs(s.negative_think_fraction - 2 / 3) < 1e-12
    assert s.width_fraction(1) == 0.5 and s.width_fraction(3) == 0.5


def test_think_time_is_measured_from_the_latest_completion() -> None:
    # job 2 ends first (at 30); job 3 comes after it but before job 1 ends (at 500)
    jobs = [tj(1, 0, 500), tj(2, 10, 20), tj(3, 100, 10), tj(4, 700, 10)]
    roles = job_roles(jobs)
    assert [r.think for r in roles] == [None, -490, -400, 200]
    assert [r.new_batch for r in roles] == [True, False, False, True]
    s = analyze_submission(jobs)
    assert s.batch_widths.tolist() == [3, 1]


def test_wait_time_counts_towards_completion() -> None:
    jobs = [tj(1, 0, 100, wait=400), tj(2, 450, 10)]  # job 1 ends at 500
    assert analyze_submission(jobs).think_times.tolist() == [-50]


def test_session_break_only_above_twenty_minutes() -> None:
    # think exactly 1200 s stays in the session; 1201 s starts a new one
    jobs = [tj(1, 0, 100), tj(2, 1300, 100), tj(3, 2601, 100)]
    roles = job_roles(jobs)
    assert [r.think for r in roles] == [None, 1200, 1201]
    assert [r.new_session for r in roles] == [True, False, True]
    s = analyze_submission(jobs)
    assert s.inter_batch_think.tolist() == [1200]
    assert s.session_jobs.tolist() == [2, 1]
    assert s.batch_widths.tolist() == [1, 1, 1]


def test_zero_think_time_starts_a_new_batch_and_is_kept() -> None:
    jobs = [tj(1, 0, 100), tj(2, 100, 5)]
    s = analyze_submission(jobs)
    assert s.batch_widths.tolist() == [1, 1]
    assert s.inter_batch_think.tolist() == [0]


def test_users_are_analysed_separately_and_ties_use_job_number() -> None:
    jobs = [tj(3, 0, 10, user=2), tj(1, 0, 100, user=1), tj(2, 0, 100, user=1), tj(4, 5000, 1, user=2)]
    seqs = user_sequences(jobs)
    assert [j.job for j in seqs[1]] == [1, 2]
    s = analyze_submission(jobs)
    assert s.users == 2
    # user 1: jobs submitted together -> one batch of 2 with a 0 s gap; user 2: two sessions
    assert sorted(s.batch_widths.tolist()) == [1, 1, 2]
    assert s.inter_submission.tolist() == [0]
    assert sorted(s.session_jobs.tolist()) == [1, 1, 2]
    assert np.sort(s.think_times).tolist() == [-100, 4990]


def test_batch_width_counts_add_up_to_jobs() -> None:
    rng = np.random.default_rng(3)
    submits = np.cumsum(rng.integers(0, 2000, 300))
    runs = rng.integers(0, 3000, 300)
    users = rng.integers(0, 5, 300)
    jobs = [tj(i, float(s), float(r), user=int(u)) for i, (s, r, u) in enumerate(zip(submits, runs, users))]
    s = analyze_submission(jobs)
    assert s.batch_widths.sum() == 300 == s.session_jobs.sum()
    assert s.session_batches.sum() == s.batch_widths.size
    assert s.think_times.size == 300 - s.users
    assert s.inter_submission.size == 300 - s.batch_widths.size
    assert np.all(s.inter_submission >= 0)
    assert np.all((s.inter_batch_think >= 0) & (s.inter_batch_think <= 1200))
