"""Population measurements on small hand-made logs with known answers: sessions,
session gaps, continuation against response time, cycles, weekly slices, arrivals."""

from __future__ import annotations

import numpy as np
import pytest

from sitesim.analysis.continuation import (
    continuation_curve,
    logistic_fit,
    user_offset,
)
from sitesim.analysis.population import analyze_population, spearman, weekly_cv
from sitesim.workload.calendar import DAY, HOUR, WEEK, Clock
from tests.analysis.helpers import tj

#: Time 0 is Monday 00:00 local time (the convention for logs without a clock).
MONDAY = Clock()


def two_users() -> list:
    """User 1: a session of two batches (second one of width 2), then after 5 hours
    away a one-job session. User 2: one job on Saturday at 10:00."""
    return [
        # user 1, session 1, batch 1: job 1 runs 09:00-09:10 (response 600 s)
        tj(1, 9 * HOUR, 600, user=1),
        # batch 2 after a 300 s think: jobs 2 and 3 (3 submitted while 2 runs)
        tj(2, 9 * HOUR + 900, 1000, user=1),
        tj(3, 9 * HOUR + 960, 100, wait=40, user=1),
        # session 2: 5 h after job 2 ended (at 09:31:40)
        tj(4, 9 * HOUR + 1900 + 5 * HOUR, 60, user=1, size=4),
        # user 2: Saturday 10:00, waits an hour
        tj(5, 5 * DAY + 10 * HOUR, 100, wait=3600, user=2, size=2),
    ]


def test_sessions_batches_and_gaps() -> None:
    pa = analyze_population(two_users(), MONDAY)
    u1, u2 = pa.users
    assert (u1.user, u1.jobs, u1.sessions, u1.batches) == (1, 4, 2, 3)
    assert u1.widths == [1, 2, 1]
    assert u1.session_batches == [2, 1]
    assert u1.gaps == [60]
    assert u1.thinks == [300]
    # session 1 ends when job 2 ends (9 h + 1900 s); session 2 starts 5 h later
    assert u1.session_breaks == [(9 * HOUR + 1900, 9 * HOUR + 1900 + 5 * HOUR)]
    assert pa.session_gaps.tolist() == [5 * HOUR]
    assert u1.span == 1900 + 5 * HOUR
    assert (u2.sessions, u2.span) == (1, 0)
    assert pa.session_batches.tolist() == [2, 1, 1]
    assert pa.session_jobs.tolist() == [3, 1, 1]
    assert pa.session_start.tolist() == [9 * HOUR, 9 * HOUR + 1900 + 5 * HOUR, 5 * DAY + 10 * HOUR]


def test_continuation_is_judged_on_the_job_waited_for() -> None:
    pa = analyze_population(two_users(), MONDAY)
    # batch 1 (job 1, response 600) continued; batch 2 waited for job 2 (response
    # 1000, not job 3's 140) and the session ended; the two one-job sessions ended.
    assert pa.batch_response.tolist() == [600, 1000, 60, 3700]
    assert pa.batch_continued.tolist() == [True, False, False, False]
    assert pa.batch_slowdown.tolist() == [1, 1, 1, 37]
    assert pa.continuation_rate() == 0.25


def test_cycles_in_local_time() -> None:
    pa = analyze_population(two_users(), MONDAY)
    sub = pa.submissions
    assert sub.events == 5
    assert sub.hourly[9] == 3 and sub.hourly[14] == 1 and sub.hourly[10] == 1
    assert sub.daytime_share == 1.0
    assert sub.weekend_share == pytest.approx(0.2)
    assert sub.peak_ratio == float("inf")  # most hours have no submission
    # the same log read in a zone 10 hours ahead: 09:00 becomes 19:00
    shifted = analyze_population(two_users(), Clock(unix_start=4 * DAY, offset=10 * HOUR))
    assert shifted.submissions.hourly[19] == 3
    assert shifted.submissions.daytime_share == pytest.approx(0.0)


def test_header_clock_and_convention() -> None:
    from sitesim.workload.swf import SwfHeader

    header = SwfHeader(["; UnixStartTime: 893466664", "; TimeZone: -28800", "; TimeZoneString: US/Pacific"])
    clock = Clock.from_header(header)
    assert (clock.unix_start, clock.offset, clock.zone, clock.declared) == (893466664, -28800, "US/Pacific", True)
    # 893466664 is Fri 1998-04-24 18:11:04 PDT (the SDSC-SP2 header's StartTime): the
    # zone the header names gives daylight saving time
    assert clock.local_time == "zone"
    assert clock.hour_of_day(0) == 18
    assert clock.hour_of_week(0) == 4 * 24 + 18
    # without TimeZoneString the fixed TimeZone offset ignores it, and reads 17:11
    fixed = Clock.from_header(SwfHeader(["; UnixStartTime: 893466664", "; TimeZone: -28800"]))
    assert (fixed.local_time, fixed.zone) == ("offset", "UTC-8")
    assert fixed.hour_of_day(0) == 17 and fixed.hour_of_week(0) == 4 * 24 + 17
    assert Clock.from_dict(fixed.to_dict()) == fixed
    assert Clock.from_header(SwfHeader([])) == MONDAY
    assert MONDAY.hour_of_week(0) == 0 and MONDAY.hour_of_week(WEEK - 1) == 167
    assert Clock.from_dict(clock.to_dict()) == clock


def test_weekly_slices_and_figure1() -> None:
    # three full weeks: 4 small jobs, then 2 bigger ones, then 1 huge one
    jobs = [tj(i, i * 100, 10, size=1, user=1 + i % 2) for i in range(4)]
    jobs += [tj(10 + i, WEEK + i * 100, 100, size=2, user=3) for i in range(2)]
    jobs += [tj(20, 2 * WEEK, 1000, size=8, user=1), tj(21, 3 * WEEK + 5, 1, user=1)]
    pa = analyze_population(jobs, MONDAY)
    assert pa.weekly_jobs.tolist() == [4, 2, 1]  # the partial fourth week is left out
    assert pa.weekly_users.tolist() == [2, 1, 1]
    assert pa.weekly_node_seconds.tolist() == [10, 200, 8000]
    sig = pa.signatures()
    assert sig["figure1_correlation"] == pytest.approx(-1.0)
    assert sig["users_per_week"] == pytest.approx(4 / 3)
    assert weekly_cv(np.array([4, 2, 1])) == pytest.approx(np.std([4, 2, 1], ddof=1) / (7 / 3))


def test_arrivals_and_spans() -> None:
    jobs = [tj(1, 0, 1, user=1), tj(2, 10 * WEEK, 1, user=1)]
    jobs += [tj(3 + k, (5 + k) * WEEK, 1, user=2 + k) for k in range(3)]
    pa = analyze_population(jobs, MONDAY)
    assert pa.arrivals().tolist() == [0, 5 * WEEK, 6 * WEEK, 7 * WEEK]
    assert pa.spans.tolist() == [10 * WEEK, 0, 0, 0]
    # after the first 4 weeks: 3 new users in 6 weeks
    assert pa.arrival_rate() == pytest.approx(0.5)


def test_spearman_ranks_with_ties() -> None:
    assert spearman(np.array([1, 2, 3, 4]), np.array([10, 20, 30, 40])) == pytest.approx(1.0)
    assert spearman(np.array([1, 2, 2, 3]), np.array([3, 2, 2, 1])) == pytest.approx(-1.0)
    assert np.isnan(spearman(np.array([1, 2]), np.array([2, 1])))


def test_continuation_curve_bins_and_smoothing() -> None:
    curve = continuation_curve([10, 20, 100, 5000], [True, True, False, False], edges=(60, 3600))
    assert curve.batches == (2, 1, 1)
    assert curve.probability == pytest.approx((3 / 4, 1 / 3, 1 / 3))
    assert curve(59) == curve.probability[0] and curve(60) == curve.probability[1]
    assert curve(1e9) == curve.probability[2]


def test_user_offset_reproduces_the_users_own_rate() -> None:
    curve = continuation_curve([10] * 50 + [10_000] * 50, [True] * 40 + [False] * 10 + [True] * 5 + [False] * 45)
    responses = [10] * 10 + [10_000] * 10
    continued = [True] * 10 + [True] * 6 + [False] * 4  # goes on more than the site
    a = user_offset(curve, responses, continued)
    assert a > 0
    p = [1 / (1 + np.exp(-(np.log(curve(r) / (1 - curve(r))) + a))) for r in responses]
    assert np.mean(p) == pytest.approx(16 / 20, abs=1e-6)


def test_logistic_fit_separates_response_from_slowdown() -> None:
    # continuation depends on response time only; slowdown varies independently
    rng = np.random.default_rng(0)
    response = 10 ** rng.uniform(1, 5, 4000)
    slowdown = 10 ** rng.uniform(0, 2, 4000)
    p = 1 / (1 + np.exp(-(3 - 1.0 * np.log10(response))))
    continued = rng.random(4000) < p
    fit = logistic_fit(response, slowdown, continued)
    assert fit.coefficients[1] == pytest.approx(-1.0, abs=0.15)
    assert abs(fit.coefficients[2]) < 3 * fit.standard_errors[2] + 0.05
    assert fit.z(1) < -10


def test_session_lengths_and_the_night_share_of_in_session_jobs() -> None:
    pa = analyze_population(two_users(), MONDAY)
    sig = pa.signatures()
    # sessions: 09:00 to 09:31:40 (3 jobs), 14:31:40 to 14:32:40 (1), Saturday 10:00 to 11:01:40 (1)
    assert sig["session_hours"] == pytest.approx((1900 + 60 + 3700) / 3 / HOUR)
    assert sig["jobs_per_session"] == pytest.approx(5 / 3)
    # the jobs of sessions with two or more jobs: all three submitted by day
    assert sig["night_share_in_session"] == 0.0
    # session starts: 09:00, 14:31, 10:00 -- all by day
    assert sig["night_share_of_session_starts"] == 0.0
    night = two_users() + [tj(6, 20 * HOUR, 30, user=3), tj(7, 20 * HOUR + 10, 30, user=3)]
    sig = analyze_population(night, MONDAY).signatures()
    assert sig["night_share_in_session"] == pytest.approx(2 / 5)
    assert sig["night_share_of_session_starts"] == pytest.approx(1 / 4)


def test_the_table_keeps_each_users_jobs_in_order_and_its_sessions() -> None:
    from sitesim.analysis.profiles import build_population_table
    from sitesim.users.population_table import FittedPopulation

    pa = analyze_population(two_users(), MONDAY)
    data = build_population_table(pa, name="two", machine_size=8, provenance={})
    assert data["batches"] == "resampled"
    u1 = data["users"][0]
    assert u1["jobs_in_order"] == [[1, 600], [1, 1000], [1, 100], [4, 60]]
    assert u1["waits_in_order"] == [0, 0, 40, 0]
    assert u1["session_batches"] == [2, 1]
    # the one submission inside a batch (job 3, Monday 09:16) is the gaps' cycle
    assert sum(data["gap_weights"]) == 1 and data["gap_weights"][9] == 1
    population = FittedPopulation.from_dict({**data, "min_observations": 1}, largest=8)
    profile = population.profiles[0]
    # the log's batches rebuilt whole, each job with its wait: sessions open with batches 1 and 3
    assert [jobs for jobs, _ in profile.first_batches] == [((1, 600, 0),), ((4, 60, 0),)]
    assert [(jobs, len(gaps)) for jobs, gaps in profile.later_batches] == [(((1, 1000, 0), (1, 100, 40)), 1)]
    # gaps are laid down in the cycle of in-batch submissions, not of session starts
    assert population.gap_warp is not None
    assert population.gap_warp.forward(10 * HOUR) != population.warp.forward(10 * HOUR)
    # the hour of the week each batch began at (Monday 09:00, 09:15, 14:31) and each
    # absence (the end of the session before it: 09:31:40), for dealing by the hour
    assert data["day_parts"] == 4 and data["weekends"] == "apart"
    assert u1["batch_hours"] == [9, 9, 14] and u1["absence_hours"] == [9]
    assert data["users"][1]["batch_hours"] == [5 * 24 + 10] and data["users"][1]["absence_hours"] == []
