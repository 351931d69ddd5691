"""The productivity recorder on scripted sessions with known answers, and its calendar
days against a brute-force count (hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitesim.metrics.productivity import DAY, HOUR, ProductivityRecorder, Session


def scripted() -> ProductivityRecorder:
    """Two users, four sessions: completed, cut by the end of the run, completed, stopped
    by the job limit.

    user 1, session A: 0 .. 400, batches ending at 100 (2 jobs, response 100) and 400
      (1 job, response 550), then the user ends it;
    user 1, session B: from 90,000 (day 1), a batch ending at 90,500 (response 500), in
      progress when the run ends at 200,000 (day 2);
    user 2, session C: 3,600 .. 4,000, one batch (response 50), ended by the user;
    user 2, session D: from 5,000, one batch ending at 5,600 (response 600), then the job
      limit stops it.
    """
    r = ProductivityRecorder()
    a = r.open(1, 0)
    r.batch_ended(a, 100, 2, 100)
    c = r.open(2, 3_600)
    r.batch_ended(a, 400, 1, 550)
    r.complete(a, 400)
    r.batch_ended(c, 4_000, 1, 50)
    r.complete(c, 4_000)
    d = r.open(2, 5_000)
    r.batch_ended(d, 5_600, 1, 600)
    r.stop(d)
    b = r.open(1, 90_000)
    r.batch_ended(b, 90_500, 1, 500)
    r.close(200_000)
    return r


#: Jobs that ended, per user (the run metrics' ``completed``).
COMPLETED = {1: 5, 2: 2, 7: 11}  # user 7 had no session: it does not count


def test_the_site_figures_of_a_scripted_run() -> None:
    s = scripted().summary(COMPLETED)
    assert s == {
        "users": 2,
        "sessions_started": 4,
        "sessions_completed": 2,  # A and C
        "batches_per_session": 1.5,  # (2 + 1) / 2
        "jobs_per_session": 2.0,  # (3 + 1) / 2
        "mean_session_hours": pytest.approx((400 + 400) / 2 / HOUR),
        # responses 100, 550, 50, 600, 500: median 500; A ended after 550 > 500, C after 50
        "ended_after_long_response": 0.5,
        "batches_ended": 5,
        "median_batch_response": 500.0,
        # user 1: day 0 (A), days 1 and 2 (B cut at 200,000); user 2: day 0 (C and D,
        # which the job limit stopped at its batch's end, 5,600)
        "active_days": 4,
        "jobs_per_active_day": 7 / 4,
    }


def test_the_figures_of_each_user() -> None:
    users = scripted().user_summaries(COMPLETED)
    assert sorted(users) == [1, 2]
    one, two = users[1], users[2]
    assert (one["sessions_started"], one["sessions_completed"]) == (2, 1)
    assert (one["batches_per_session"], one["jobs_per_session"]) == (2.0, 3.0)
    assert one["mean_session_hours"] == pytest.approx(400 / HOUR)
    assert one["ended_after_long_response"] == 1.0  # against the site's median, 500
    assert (one["active_days"], one["jobs_per_active_day"]) == (3, 5 / 3)
    assert (two["sessions_started"], two["sessions_completed"]) == (2, 1)
    assert two["ended_after_long_response"] == 0.0
    assert (two["active_days"], two["jobs_per_active_day"]) == (1, 2.0)


def test_an_even_number_of_responses_takes_the_mean_of_the_middle_two() -> None:
    r = ProductivityRecorder()
    s = r.open(1, 0)
    for response in (40, 10, 30, 20):
        r.batch_ended(s, response, 1, response)
    r.complete(s, 40)
    r.close(100)
    assert r.median_response() == 25.0
    # the last batch's response (20) is not above 25
    assert r.summary({1: 4})["ended_after_long_response"] == 0.0


def test_a_response_equal_to_the_median_is_not_long() -> None:
    r = ProductivityRecorder()
    for user, response in ((1, 10), (2, 20), (3, 30)):
        s = r.open(user, 0)
        r.batch_ended(s, response, 1, response)
        r.complete(s, response)
    r.close(100)
    assert r.median_response() == 20.0
    assert r.summary({})["ended_after_long_response"] == pytest.approx(1 / 3)


def test_without_sessions_every_mean_is_none() -> None:
    r = ProductivityRecorder()
    r.close(1_000)
    assert r.summary({1: 3}) == {
        "users": 0, "sessions_started": 0, "sessions_completed": 0, "batches_per_session": None,
        "jobs_per_session": None, "mean_session_hours": None, "ended_after_long_response": None,
        "batches_ended": 0, "median_batch_response": None, "active_days": 0, "jobs_per_active_day": None,
    }
    assert r.user_summaries({1: 3}) == {}


def test_sessions_that_never_completed_leave_the_per_session_means_empty() -> None:
    """The paper's static users: one session each, cut by the end of the run."""
    r = ProductivityRecorder()
    for user in (1, 2):
        s = r.open(user, 0)
        r.batch_ended(s, 500, 3, 500)
    r.close(3 * DAY)
    s = r.summary({1: 3, 2: 3})
    assert (s["sessions_started"], s["sessions_completed"]) == (2, 0)
    assert s["batches_per_session"] is None and s["ended_after_long_response"] is None
    assert (s["active_days"], s["jobs_per_active_day"]) == (6, 1.0)


def test_results_need_the_recorder_closed() -> None:
    r = ProductivityRecorder()
    r.open(1, 0)
    with pytest.raises(RuntimeError, match="close"):
        r.summary({})


def test_a_stopped_session_without_an_ended_batch_ends_where_it_started() -> None:
    r = ProductivityRecorder()
    s = r.open(1, 2 * DAY + 5)
    r.stop(s)
    r.close(10 * DAY)
    assert (s.end, s.completed) == (2 * DAY + 5, False)
    assert r.summary({})["active_days"] == 1


def test_the_session_log_of_a_user_whose_sessions_follow_one_another() -> None:
    r = ProductivityRecorder()
    log = r.log(4)
    log.stopped()  # nothing open: nothing happens
    log.started(10)
    log.batch_ended(70, 2, 60)
    log.ended(70)
    log.started(1_000)
    log.batch_ended(1_300, 1, 300)
    log.stopped()
    r.close(5_000)
    first, second = r.sessions
    assert (first.user, first.start, first.end, first.completed, first.jobs) == (4, 10, 70, True, 2)
    assert (second.start, second.end, second.completed, second.last_response) == (1_000, 1_300, False, 300)
    assert log.current is None


def test_days_are_calendar_days_of_the_shifted_clock() -> None:
    """A session from 80,000 to 90,000 s spans midnight when time 0 is midnight, but not
    when time 0 is 10,000 s after a midnight (then both ends fall on the next day)."""
    for shift, days in ((0, 2), (10_000, 1)):
        r = ProductivityRecorder(shift)
        s = r.open(1, 80_000)
        r.complete(s, 90_000)
        r.close(100_000)
        assert r.summary({1: 1})["active_days"] == days


def test_overlapping_sessions_count_a_day_once() -> None:
    """Recorded users may start a session while the previous one runs (feedback replay)."""
    r = ProductivityRecorder()
    first = r.open(1, 0)
    second = r.open(1, DAY + 10)
    r.complete(second, 2 * DAY + 10)  # days 1 and 2, ends before the first
    r.complete(first, 2 * DAY)  # days 0 and 1 (a session ending at midnight)
    r.close(3 * DAY)
    assert r.summary({1: 2})["active_days"] == 3


spans = st.lists(
    st.tuples(st.integers(0, 20 * DAY), st.integers(0, 5 * DAY)), min_size=1, max_size=12
)


@settings(max_examples=150, deadline=None)
@given(spans=spans, shift=st.integers(0, DAY - 1), completed=st.integers(0, 1000))
def test_active_days_are_the_days_touched_by_some_session(
    spans: list[tuple[int, int]], shift: int, completed: int
) -> None:
    r = ProductivityRecorder(shift)
    for start, length in spans:
        r.complete(r.open(1, start), start + length)
    r.close(30 * DAY)
    touched: set[int] = set()
    for start, length in spans:
        last = max(start + length - 1, start)
        touched.update(range((start + shift) // DAY, (last + shift) // DAY + 1))
    s = r.summary({1: completed})
    assert s["active_days"] == len(touched)
    assert s["jobs_per_active_day"] == completed / len(touched)
    assert s["sessions_completed"] == s["sessions_started"] == len(spans)


def test_a_session_record_holds_what_happened() -> None:
    s = Session(3, 100)
    assert (s.batches, s.jobs, s.last_end, s.end, s.completed) == (0, 0, -1, -1, False)
