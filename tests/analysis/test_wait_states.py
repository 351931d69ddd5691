"""The users' states at submission and how their jobs waited, on hand-made traces."""

from __future__ import annotations

import numpy as np
import pytest

from sitesim.analysis.sessions import job_roles
from sitesim.analysis.wait_states import MIN_JOBS, level_scores, served_states, state_means, state_shifts
from sitesim.schedulers.service import UserStates
from sitesim.workload.session_rule import state_of
from tests.analysis.helpers import tj


def test_the_state_follows_the_think_time_as_the_session_analysis_cuts() -> None:
    assert [state_of(t) for t in (None, -5.0, 0.0, 1200.0, 1200.5)] == [2, 0, 1, 1, 2]


def test_level_scores_average_zero_per_class_and_give_ties_one_score() -> None:
    klass = np.array([0, 0, 0, 0, 1, 1])
    wait = np.array([0.0, 0.0, 10.0, 20.0, 5.0, 5.0])
    scores = level_scores(klass, wait)
    assert scores[0] == scores[1] < 0 < scores[2] < scores[3]
    assert scores[:4].mean() == pytest.approx(0.0, abs=1e-12)
    assert scores[4] == scores[5] == 0.0  # all alike: the whole normal, mean zero
    # the lower half of a normal has mean -phi(0) / 0.5
    assert scores[0] == pytest.approx(-2 * 0.3989422804014327)


def test_level_scores_place_the_edges_by_the_normal_quantile_function() -> None:
    """The standard library's quantile function gives scipy's ndtri's scores (1e-12)."""
    from scipy.special import ndtri

    def density(q: np.ndarray) -> np.ndarray:
        """The standard normal's density at its ``q`` quantile (0 at 0 and 1)."""
        inside = (q > 0) & (q < 1)
        return np.where(inside, np.exp(-0.5 * ndtri(np.where(inside, q, 0.5)) ** 2) / np.sqrt(2 * np.pi), 0.0)

    rng = np.random.default_rng(2)
    klass = rng.integers(0, 3, 500)
    wait = rng.choice([0.0, 5.0, 60.0, 3_600.0], 500) + np.where(rng.random(500) < 0.5, rng.random(500) * 100, 0)
    scores = level_scores(klass, wait)
    for c in range(3):
        members = klass == c
        values, counts = np.unique(wait[members], return_counts=True)
        upper = np.cumsum(counts) / members.sum()
        lower = upper - counts / members.sum()
        mean = (density(lower) - density(upper)) / (upper - lower)
        assert np.allclose(scores[members], mean[np.searchsorted(values, wait[members])], rtol=0, atol=1e-12)


def test_jobs_continuing_a_session_that_waited_less_get_a_negative_shift() -> None:
    # each user: a batch of two (the second submitted while the first waits), a job
    # continuing 60 s after the batch ended (short wait), and one opening a session a
    # day later (long wait)
    jobs = []
    for u in range(MIN_JOBS):
        t = 200_000 * u
        jobs += [tj(4 * u + 1, t, 10, wait=500, user=u), tj(4 * u + 2, t + 100, 10, wait=600, user=u),
                 tj(4 * u + 3, t + 770, 10, wait=1, user=u), tj(4 * u + 4, t + 90_000, 10, wait=700, user=u)]
    in_batch, continuing, opening = state_shifts(jobs, [1])
    assert continuing < -0.5 and in_batch > 0 and opening > 0
    # too few jobs in a state: no shift
    assert state_shifts(jobs[:8], [1]) == [0.0, 0.0, 0.0]
    assert state_shifts([], [1]) == [0.0, 0.0, 0.0]


def test_the_service_sees_each_submission_in_the_state_the_analysis_gives_it() -> None:
    # one user: a batch of two, a job 1200 s after the batch ended (still continuing),
    # one 1201 s after (opening), one submitted the second a job ends (continuing)
    jobs = [tj(1, 0, 100, wait=50, user=7), tj(2, 10, 100, wait=0, user=7), tj(3, 1350, 40, user=7),
            tj(4, 2591, 30, user=7), tj(5, 2621, 5, user=7)]
    expected = [state_of(role.think) for role in job_roles(jobs)]
    assert expected == [2, 0, 1, 2, 1]
    # the scheduler's view, told ends before submissions at one instant (as the engine
    # orders them: completions, then arrivals; docs/schedulers.md)
    events = sorted([(j.submit + j.wait + j.run, 0, j.job) for j in jobs] + [(j.submit, 1, j.job) for j in jobs])
    states, seen = UserStates(), {}
    for time, kind, job_id in events:
        if kind == 0:
            states.ended(7, int(time))
        else:
            seen[job_id] = states.submitted(7, int(time))
    assert [seen[j.job] for j in jobs] == expected


def test_served_states_are_the_states_the_analysis_and_a_scheduler_give() -> None:
    """On random traces of three users, the states from the jobs' ends are those the
    session analysis gives them (the log's own ends); a job that never ran counts for
    nothing, as if it were not there. (That the session analysis and a scheduler's
    :class:`UserStates` agree is the test above.) Every other trace has its submissions
    on a coarse grid, so a user submits several jobs at one second."""
    rng = np.random.default_rng(4)
    for trial in range(40):
        n = 40
        user = rng.integers(0, 3, n)
        grid = 600 if trial % 2 else 1
        submit = np.sort(rng.integers(0, 20_000 // grid, n) * grid).astype(float)
        wait = rng.choice([0.0, 30.0, 2_000.0], n)
        run = rng.integers(1, 3_000, n).astype(float)
        ends = submit + wait + run
        jobs = [tj(i + 1, s, r, wait=w, user=int(u))
                for i, (s, w, r, u) in enumerate(zip(submit, wait, run, user, strict=True))]
        served = served_states(user, submit, ends)
        for u in range(3):
            seq = [j for j in jobs if j.user == u]
            mine = served[user == u]
            assert list(mine) == [state_of(role.think) for role in job_roles(seq)]
        never = ends.copy()
        never[0] = np.nan  # as if the first job were not there, for the jobs after it
        assert list(served_states(user, submit, never)[1:]) == list(served_states(user[1:], submit[1:], ends[1:]))


def test_no_jobs_have_no_states() -> None:
    none = np.zeros(0)
    assert served_states(none.astype(np.int64), none, none).size == 0
    assert state_means(none.astype(np.int64), none, served_states(none.astype(np.int64), none, none)) == [None] * 3


def test_state_means_are_each_states_mean_score_and_none_below_min_jobs() -> None:
    klass = np.zeros(2 * MIN_JOBS + 1, dtype=np.int64)
    wait = np.concatenate([np.zeros(MIN_JOBS), np.full(MIN_JOBS, 100.0), [50.0]])
    states = np.concatenate([np.zeros(MIN_JOBS), np.ones(MIN_JOBS), [2]]).astype(np.int64)
    means = state_means(klass, wait, states)
    scores = level_scores(klass, wait)
    assert means[0] == pytest.approx(scores[:MIN_JOBS].mean()) and means[0] < 0 < means[1]  # type: ignore[operator]
    assert means[2] is None
