"""Population users on a hand-made fitted table: fallback to pooled observations,
arrivals and departures, the continuation feedback, and users' memory."""

from __future__ import annotations

import tracemalloc
from typing import Any

import numpy as np
import pytest
import simpy

from sitesim.analysis.cleaning import TraceJob
from sitesim.analysis.population import analyze_population
from sitesim.engine.machine import Machine
from sitesim.engine.site import Site
from sitesim.schedulers import make_scheduler
from sitesim.users.population import Deck, FittedPopulation, PopulationUser, populate
from sitesim.workload.estimates import make_estimates

DAY = 86_400


def table(**changes: Any) -> dict[str, Any]:
    """Two users: a busy one with its own observations, and one with a single job."""
    busy = {
        "user": 1, "arrival": 0, "span": 20 * DAY, "jobs": 40,
        "widths": [1, 2, 1, 1, 3], "gaps_operational": [5, 10, 15, 20, 25],
        "thinks": [0, 60, 120, 300, 600], "absences": [3600, 7200, 10800, 14400, 86400],
        "runs": [[1, 100, 2], [2, 200, 1], [4, 50, 3], [8, 1000, 1], [16, 10, 1]],
        "continue_offset": 0.0,
    }
    light = {
        "user": 2, "arrival": 2 * DAY, "span": 0, "jobs": 1, "widths": [1], "gaps_operational": [],
        "thinks": [], "absences": [], "runs": [[64, 5000, 1]], "continue_offset": 0.0,
    }
    data = {
        "format": "sitesim-population", "name": "hand-made",
        "clock": {"unix_start": 4 * DAY, "offset": 0, "zone": "UTC", "declared": False},
        "duration": 30 * DAY, "machine_size": 16, "min_observations": 5,
        "session_start_weights": [1] * 168,
        "continuation": {"edges": [600], "probability": [0.9, 0.1], "batches": [10, 10]},
        "users": [busy, light],
    }
    data.update(changes)
    return data


def test_profiles_fall_back_to_pooled_observations() -> None:
    pop = FittedPopulation.from_dict(table(), largest=16)
    busy, light = pop.profiles
    assert busy.widths == (1, 2, 1, 1, 3)
    assert busy.thinks == (0, 60, 120, 300, 600)
    # one job, one batch: everything pooled (widths of both users, the busy one's gaps)
    assert light.widths == (1, 2, 1, 1, 3, 1)
    assert light.gaps == busy.gaps and light.absences == busy.absences
    # sizes clipped to the largest job the scheduler admits, repetitions kept
    assert (16, 1000, 1) in busy.runs or (8, 1000, 1) in busy.runs
    assert max(s for s, _r, _k in light.runs) == 16
    assert light.continuation.probability == pytest.approx((0.9, 0.1))


def run(users: int, data: dict[str, Any], days: int = 30, policy: str = "easy") -> tuple[Site, list[PopulationUser]]:
    env = simpy.Environment()
    site = Site(env, Machine(16), make_scheduler(policy, 16))
    pop = FittedPopulation.from_dict(data, largest=16)
    submitted: list[Any] = []
    site.observe(type("Obs", (), {"on_submit": lambda self, job: submitted.append(job)})())
    started = populate(site, pop, users, seed=7, estimates=make_estimates("exact"))
    env.run(until=days * DAY)
    site.jobs = submitted  # type: ignore[attr-defined]
    return site, started


def test_users_arrive_and_depart() -> None:
    site, users = run(2, table())
    jobs = site.jobs  # type: ignore[attr-defined]
    by_user: dict[int, list[int]] = {}
    for job in jobs:
        by_user.setdefault(job.user, []).append(job.submit)
    follows = {u.uid: u.profile.arrival for u in users}
    for uid, submits in by_user.items():
        assert min(submits) >= follows[uid]
    light = next(u.uid for u in users if u.profile.arrival == 2 * DAY)
    # the light user holds one session at its arrival and then leaves (span 0)
    assert min(by_user[light]) == 2 * DAY
    assert max(by_user[light]) < 3 * DAY
    busy = next(u.uid for u in users if u.profile.arrival == 0)
    assert max(by_user[busy]) <= 20 * DAY + DAY  # a session in progress may finish


def pop_clock() -> Any:
    from sitesim.workload.calendar import Clock

    return Clock()


def test_long_waits_end_sessions() -> None:
    # continuation 0.9 after short responses, 0.1 after long ones: with jobs that
    # always take long, sessions hold fewer batches
    short = table()
    long_jobs = table()
    long_jobs["users"] = long_jobs["users"][:1]
    short["users"] = short["users"][:1]
    long_jobs["users"][0]["runs"] = [[1, 5000, 1]] * 5
    short["users"][0]["runs"] = [[1, 50, 1]] * 5
    batches = []
    for data in (short, long_jobs):
        site, _ = run(1, data)
        done = [j for j in site.jobs if j.end >= 0]  # type: ignore[attr-defined]
        trace = [TraceJob(j.id, j.submit, j.wait, j.ran, j.size, j.estimate, 1, j.user, j.executable) for j in done]
        pa = analyze_population(trace, pop_clock())
        batches.append(pa.signatures()["batches_per_session"])
    # P(continue) 0.9 gives sessions of 10 batches on average, 0.1 of 1.1
    assert batches[0] > 5 > 1.5 > batches[1]


def test_population_scales_by_resampling_profiles() -> None:
    _site, users = run(5, table(), days=1)
    assert len(users) == 5
    profiles = [id(u.profile) for u in users]
    assert len(set(profiles)) == 2  # 5 users share the 2 profiles


@pytest.mark.parametrize("resampled", [False, True], ids=["planned", "resampled"])
def test_users_are_light(resampled: bool) -> None:
    pop = FittedPopulation.from_dict(resampled_table() if resampled else table(), largest=16)
    env = simpy.Environment()
    site = Site(env, Machine(16), make_scheduler("fcfs", 16))
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    populate(site, pop, 2000, seed=1, estimates=make_estimates("exact"))
    per_user = (tracemalloc.get_traced_memory()[0] - before) / 2000
    tracemalloc.stop()
    assert per_user < 8_000, f"{per_user:.0f} bytes per registered user"


def test_quantities_no_user_observed_fall_back_to_the_documented_defaults() -> None:
    # every user of the log: one session of one batch of one job (no gap, no think
    # time, no absence anywhere): the pooled observations are empty too
    data = table()
    data["users"] = [
        {"user": k, "arrival": k * 3600, "span": 0, "jobs": 1, "widths": [1], "gaps_operational": [],
         "thinks": [], "absences": [], "runs": [[2, 600, 1]], "continue_offset": 0.0}
        for k in (1, 2, 3)
    ]
    pop = FittedPopulation.from_dict(data, largest=16)
    for p in pop.profiles:
        assert p.gaps == (0.0,) and p.thinks == (0.0,) and p.absences == ()
    site, users = run(3, data, days=2)
    jobs = site.jobs  # type: ignore[attr-defined]
    # each user holds one session (no absence to come back after) and leaves
    for u in users:
        mine = sorted(j.submit for j in jobs if j.user == u.uid)
        assert mine and mine[0] == u.profile.arrival
        assert mine[-1] - mine[0] < 3600 * 24


def resampled_table(min_observations: int = 3) -> dict[str, Any]:
    """One user with six batches in three sessions (2, 1 and 3 batches), and one with a
    single job; ``sitesim fit``'s ``"batches": "resampled"`` layout."""
    busy = {
        "user": 1, "arrival": 0, "span": 20 * DAY, "jobs": 10,
        "widths": [1, 2, 1, 3, 1, 2], "gaps_operational": [5, 7, 9, 11],
        "jobs_in_order": [[1, 100], [2, 50], [2, 60], [4, 30], [1, 10], [1, 10], [1, 10], [8, 900], [2, 5], [2, 6]],
        "waits_in_order": [0, 10, 20, 30, 0, 0, 0, 3600, 5, 6],
        "session_batches": [2, 1, 3],
        "thinks": [0, 60, 120, 300, 600], "absences": [3600, 7200, 10800, 14400, 86400],
        "runs": [[1, 100, 1], [2, 50, 1], [2, 60, 1], [4, 30, 1], [1, 10, 3], [8, 900, 1], [2, 5, 1], [2, 6, 1]],
        "continue_offset": 0.0,
    }
    light = {
        "user": 2, "arrival": 2 * DAY, "span": 0, "jobs": 1, "widths": [1], "gaps_operational": [],
        "jobs_in_order": [[64, 5000]], "session_batches": [1],
        "thinks": [], "absences": [], "runs": [[64, 5000, 1]], "continue_offset": 0.0,
    }
    return table(users=[busy, light], batches="resampled", min_observations=min_observations)


def test_resampled_batches_are_the_users_own_whole_batches() -> None:
    pop = FittedPopulation.from_dict(resampled_table(), largest=16)
    assert pop.resampled
    busy, light = pop.profiles
    # batch i: the next widths[i] jobs (size, runtime, wait in the log) and widths[i] - 1
    # gaps; sessions open at batches 0, 2, 3
    assert busy.first_batches == (
        (((1, 100, 0),), ()),
        (((4, 30, 30),), ()),
        (((1, 10, 0), (1, 10, 0), (1, 10, 0)), (7.0, 9.0)),
    )
    assert busy.later_batches == (
        (((2, 50, 10), (2, 60, 20)), (5.0,)),
        (((8, 900, 3600),), ()),
        (((2, 5, 5), (2, 6, 6)), (11.0,)),
    )
    # one job: its own batch at both positions (never everyone's: the pool is mostly
    # frequent users' work), its size clipped to the machine; a table without waits: -1
    assert light.first_batches == light.later_batches == ((((16, 5000, -1),), ()),)
    # the busy user's own batches however few, whatever the minimum of observations
    own = FittedPopulation.from_dict(resampled_table(min_observations=5), largest=16).profiles[0]
    assert (own.first_batches, own.later_batches) == (busy.first_batches, busy.later_batches)


def test_resampled_users_keep_their_own_absences_however_few() -> None:
    data = resampled_table(min_observations=5)
    data["users"][1]["absences"] = [123456]
    busy, light = FittedPopulation.from_dict(data, largest=16).profiles
    assert light.absences == (123456.0,)  # one absence of its own, not the pool's
    assert light.thinks == busy.thinks  # no think of its own: the pool's (busy's five)
    planned = FittedPopulation.from_dict(table(users=data["users"], min_observations=5), largest=16)
    assert planned.profiles[1].absences != (123456.0,)  # planned tables keep the minimum


def test_resampled_batches_must_line_up() -> None:
    data = resampled_table()
    data["users"][0]["gaps_operational"] = [5, 7, 9]
    with pytest.raises(ValueError, match="do not line up"):
        FittedPopulation.from_dict(data, largest=16)
    data = resampled_table()
    data["users"][0]["session_batches"] = [2, 1, 2]
    with pytest.raises(ValueError, match="do not add up"):
        FittedPopulation.from_dict(data, largest=16)
    data = resampled_table()
    data["users"][0]["waits_in_order"] = [0, 1]
    with pytest.raises(ValueError, match="waits_in_order and jobs_in_order differ"):
        FittedPopulation.from_dict(data, largest=16)
    data = resampled_table()
    data["users"][1].update(widths=[], jobs_in_order=[], session_batches=[])
    with pytest.raises(ValueError, match="no batches"):
        FittedPopulation.from_dict(data, largest=16)
    with pytest.raises(ValueError, match="unknown batches"):
        FittedPopulation.from_dict(table(batches="whole"), largest=16)


def test_simulated_batches_are_whole_batches_of_the_log() -> None:
    data = resampled_table()
    data["users"] = data["users"][:1]
    site, users = run(1, data, days=20)
    pop = users[0].population
    batches = {jobs for jobs, _gaps in pop.profiles[0].first_batches + pop.profiles[0].later_batches}
    # a simulated batch: consecutive jobs waiting for the same job (none: a session's
    # first batch), submitted seconds apart (the gaps here are at most 11 s; absences hours)
    groups: list[list[Any]] = []
    for job in sorted(site.jobs, key=lambda j: j.id):  # type: ignore[attr-defined]
        last = groups[-1][-1] if groups else None
        if last is None or job.preceding != last.preceding or job.submit - last.submit > 60:
            groups.append([])
        groups[-1].append(job)
    assert len(groups) > 20
    # each job with the wait it had in the log (for the log's service, ``hold``)
    assert all(tuple((j.size, j.runtime, j.recorded_wait) for j in g) in batches for g in groups)
    # and a session's first batch is one of the user's session-opening batches
    opening = {jobs for jobs, _gaps in pop.profiles[0].first_batches}
    assert all(tuple((j.size, j.runtime, j.recorded_wait) for j in g) in opening for g in groups if g[0].preceding < 0)


def test_under_the_logs_service_every_job_waits_as_it_did_in_the_log() -> None:
    site, _users = run(2, resampled_table(), days=20, policy="hold")
    started = [j for j in site.jobs if j.start >= 0]  # type: ignore[attr-defined]
    assert len(started) > 20 and any(j.recorded_wait > 0 for j in started)
    # the light user's table has no waits (-1): its job starts at once
    assert all(j.wait == max(0, j.recorded_wait) for j in started)


def test_a_deck_deals_every_value_once_a_round() -> None:
    deck = Deck(("a", "b", "c", "d"))
    # u picks among the values still in the deck; the picked one leaves it, the last
    # takes its place (a first deal is the independent draw: "a" for u = 0)
    assert [deck.deal(u) for u in (0.0, 0.0, 0.99, 0.0)] == ["a", "d", "b", "c"]
    assert deck.left == 0
    rng = np.random.default_rng(7)
    rounds = [sorted(deck.deal(rng.random()) for _ in range(4)) for _ in range(50)]
    assert all(r == ["a", "b", "c", "d"] for r in rounds)


def test_a_deck_holds_only_the_positions_its_deals_moved() -> None:
    """A sparse user deals from the pool of everyone's absences: a few deals must not
    cost the pool's size (a pool of 18,602 absences at CTC-SP2)."""
    deck = Deck(tuple(range(100_000)))
    rng = np.random.default_rng(3)
    dealt = [deck.deal(rng.random()) for _ in range(10)]
    assert len(set(dealt)) == 10 and len(deck.moved) <= 10


def test_resampled_users_deal_their_session_opening_batches() -> None:
    """Every one of the user's three session-opening batches opens a session once
    before any opens another (independent draws repeat some and skip others)."""
    data = resampled_table()
    data["users"] = data["users"][:1]
    site, users = run(1, data, days=20)
    opening = [jobs for jobs, _gaps in users[0].profile.first_batches]
    firsts: list[tuple[Any, ...]] = []
    last = None
    for job in sorted(site.jobs, key=lambda j: j.id):  # type: ignore[attr-defined]
        if job.preceding < 0 and (last is None or last.preceding >= 0 or job.submit - last.submit > 60):
            firsts.append(())
        if job.preceding < 0:
            firsts[-1] += ((job.size, job.runtime, job.recorded_wait),)
        last = job
    assert len(firsts) >= 9
    for k in range(0, len(firsts) - 2, 3):
        assert sorted(firsts[k:k + 3]) == sorted(opening)


def test_gaps_inside_a_batch_are_laid_down_in_the_cycle_of_batches() -> None:
    data = resampled_table()
    data["users"] = data["users"][:1]

    def submits(table: dict[str, Any]) -> list[tuple[int, int]]:
        site, _users = run(1, table, days=20)
        return [(j.submit, j.size) for j in site.jobs]  # type: ignore[attr-defined]

    without = submits(data)
    # the session starts' cycle given again as the gaps': the same draws, the same trace
    assert submits({**data, "gap_weights": list(data["session_start_weights"])}) == without
    # a cycle of batches busy only on Monday mornings stretches every other hour's gaps
    mornings = [50 if h < 12 else 0 for h in range(168)]
    moved = submits({**data, "gap_weights": mornings})
    assert moved != without and len(moved) > 20
