"""Each user's own hours of the day (sitesim/analysis/day_cycles.py; docs/population.md,
"Each user's own hours")."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sitesim.analysis.cleaning import TraceJob
from sitesim.analysis.day_cycles import (
    HOURS,
    STRENGTH_RANGE,
    day_counts,
    own_cycle,
    prior_strength,
    prior_strength_of,
    site_profile,
)
from sitesim.analysis.population import analyze_population
from sitesim.analysis.profiles import build_population_table
from sitesim.users.population_table import FittedPopulation
from sitesim.workload.calendar import Clock, Warp

HOUR = 3_600
DAY = 24 * HOUR


def test_day_counts_fold_the_week_onto_the_day() -> None:
    counts = day_counts([9, 33, 167, 0])
    assert counts[9] == 2 and counts[23] == 1 and counts[0] == 1 and sum(counts) == 4


def _minus_log_likelihood(counts: np.ndarray, strength: float) -> float:
    """The Dirichlet-multinomial's minus log-likelihood with the site's profile as mean,
    by the gamma function (scipy), independently of prior_strength's score."""
    from scipy.special import gammaln

    c = counts[counts.sum(axis=1) > 0]
    p = site_profile(c)
    c, p = c[:, p > 0], p[p > 0]
    n = c.sum(axis=1)
    a = strength
    return -float(np.sum(gammaln(a) - gammaln(n + a)) + np.sum(gammaln(c + a * p) - gammaln(a * p)))


@pytest.mark.parametrize("seed", range(6))
def test_the_strength_is_the_likelihoods_maximum(seed: int) -> None:
    """The root of the score (finite sums of whole counts) is where the likelihood, by
    the gamma function, is largest: scipy's bounded minimizer finds none more likely
    (beyond the gamma sums' rounding: where the users are all but the site's, the
    likelihood is flat to 1e-13 over a range of strengths), and a strength 0.1 % either
    side is less likely."""
    from scipy.optimize import minimize_scalar

    rng = np.random.default_rng(seed)
    users = int(rng.integers(5, 60))
    own = rng.dirichlet(np.full(HOURS, float(rng.choice([0.3, 3.0, 30.0]))), size=users)
    counts = np.array([rng.multinomial(int(rng.integers(0, 80)), row) for row in own])
    found = prior_strength(counts)
    low, high = (math.log(b) for b in STRENGTH_RANGE)
    best = minimize_scalar(lambda t: _minus_log_likelihood(counts, math.exp(t)), bounds=(low, high),
                           method="bounded", options={"xatol": 1e-9})
    at = _minus_log_likelihood(counts, found)
    assert at <= best.fun + 1e-11 * abs(best.fun)
    if STRENGTH_RANGE[0] < found < STRENGTH_RANGE[1]:
        assert at <= _minus_log_likelihood(counts, found * 1.001)
        assert at <= _minus_log_likelihood(counts, found / 1.001)


def test_the_range_ends_where_the_score_points_outward() -> None:
    """Users whose starts are the site's profile exactly: the score is positive at any
    strength (the top end). Users each at hours of their own, many starts each: it is
    negative at any (the bottom end). Single starts say nothing: the top end."""
    same = np.tile(np.arange(1, HOURS + 1), (5, 1))
    assert prior_strength(same) == STRENGTH_RANGE[1]
    apart = np.zeros((6, HOURS), dtype=int)
    for u in range(6):
        apart[u, 4 * u] = 500
    assert prior_strength(apart) == STRENGTH_RANGE[0]
    ones = np.zeros((8, HOURS), dtype=int)
    ones[np.arange(8), np.arange(8)] = 1
    assert prior_strength(ones) == STRENGTH_RANGE[1]


def test_start_counts_must_be_whole() -> None:
    with pytest.raises(ValueError, match="whole"):
        prior_strength([[0.5] * HOURS, [1] * HOURS])


def test_alike_users_are_drawn_to_the_site_and_unlike_ones_keep_their_own() -> None:
    """Users drawing their hours from one profile: the most likely strength is far above
    any user's starts (each user is the site's, noise apart). Users each keeping three
    hours of their own: it is below one start (each user is its own)."""
    rng = np.random.default_rng(7)
    p = np.full(HOURS, 1.0 / HOURS)
    alike = rng.multinomial(60, p, size=20)
    assert prior_strength(alike) > 1_000
    unlike = np.zeros((8, HOURS), dtype=int)
    for u in range(8):
        unlike[u, 3 * u:3 * u + 3] = rng.multinomial(60, [1 / 3] * 3)
    assert prior_strength(unlike) < 1
    # nothing to compare: a single user with starts, users without any add nothing
    assert prior_strength([[5] * HOURS, [0] * HOURS]) == STRENGTH_RANGE[1]


def test_a_users_own_cycle_reweights_the_site_cycle_by_its_hours() -> None:
    weekly = np.arange(1, 169, dtype=float)
    profile = site_profile([[1] * HOURS])
    # no starts of its own: the site's cycle, whatever the strength
    assert np.allclose(own_cycle(weekly, [0] * HOURS, profile, 5.0), weekly)
    # ten starts at 09:00 and a weak prior: 09:00 weighs ten times more than with the
    # site's profile, every other hour far less; the same on every day of the week
    mine = [0] * HOURS
    mine[9] = 10
    cycle = own_cycle(weekly, mine, profile, 0.24)
    ratio = cycle / weekly
    assert np.allclose(ratio.reshape(7, HOURS), ratio[:HOURS])
    assert ratio[9] == pytest.approx((10 + 0.01) / 10.24 * 24)
    assert ratio[3] == pytest.approx(0.01 / 10.24 * 24)


@pytest.mark.parametrize("value", [0, 5e-4, 2e7, math.inf, True, "30", None])
def test_a_strength_out_of_range_is_refused(value: object) -> None:
    with pytest.raises(ValueError, match="day_cycle_strength"):
        prior_strength_of(value)


def _two_users() -> list[TraceJob]:
    """User 1 starts a one-job session at 09:00 and one at 14:00 every weekday for three
    weeks; user 2 at 21:00 and 23:00 every day. Jobs run 10 minutes, never wait."""
    jobs = []
    for day in range(21):
        for user, hours in ((1, (9, 14) if day % 7 < 5 else ()), (2, (21, 23))):
            for h in hours:
                jobs.append(TraceJob(job=len(jobs) + 1, submit=float(day * DAY + h * HOUR), wait=0.0, run=600.0,
                                     size=1, requested_time=900.0, status=1, user=user, executable=1))
    jobs.sort(key=lambda j: j.submit)
    return jobs


def test_the_fit_measures_absences_in_the_cycle_the_users_lay_them_down_in() -> None:
    """Each absence the fit writes, laid down by the loaded user from the end of the
    session before it, starts the next session where the log's did; and the users'
    cycles are their own: one hour of operational time laid down from 17:00 brings the
    evening user back in the evening, the daytime user not before the next morning."""
    clock = Clock()  # time 0: Monday 00:00 UTC
    pa = analyze_population(_two_users(), clock)
    table = build_population_table(pa, name="two", machine_size=4, provenance={})
    assert table["absence_cycle"] == "own" and 0 < table["day_cycle_strength"] < STRENGTH_RANGE[1]
    population = FittedPopulation.from_dict(table, largest=4)
    by_user = {u["user"]: p for u, p in zip(table["users"], population.profiles, strict=True)}
    for measured in pa.users:
        warp = by_user[measured.user].absence_warp
        assert warp is not None
        written = table["users"][[u["user"] for u in table["users"]].index(measured.user)]["absences"]
        assert sum(written[k] > 0 for k in range(len(written))) == len(measured.session_breaks)
        for (end, start), absence in zip(measured.session_breaks, written, strict=True):
            assert warp.after(end, absence) == pytest.approx(start, abs=60)
    five_pm = 17 * HOUR
    day_user = by_user[1].absence_warp.after(five_pm, HOUR)
    evening_user = by_user[2].absence_warp.after(five_pm, HOUR)
    assert 18 * HOUR <= evening_user < 24 * HOUR
    assert day_user > 24 * HOUR + 7 * HOUR
    site = Warp(clock, table["session_start_weights"]).after(five_pm, HOUR)
    assert evening_user < site or day_user > site


def test_a_table_without_the_key_lays_absences_down_in_the_site_cycle() -> None:
    clock = Clock()
    table = build_population_table(analyze_population(_two_users(), clock), name="two", machine_size=4, provenance={})
    for key in ("absence_cycle", "day_cycle_strength"):
        del table[key]
    assert all(p.absence_warp is None for p in FittedPopulation.from_dict(table, largest=4).profiles)
    table["absence_cycle"] = "mine"
    with pytest.raises(ValueError, match="unknown absence_cycle 'mine'"):
        FittedPopulation.from_dict(table, largest=4)
