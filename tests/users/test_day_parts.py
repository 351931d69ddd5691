"""Batches and absences dealt by the part of the local day they begin in
(docs/population.md, "Dealt by the hour"), the weekend's batches apart ("The weekend
apart")."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import simpy

from sitesim.analysis.cleaning import clean_records
from sitesim.analysis.profiles import DAY_PARTS
from sitesim.engine.machine import Machine
from sitesim.engine.site import Site
from sitesim.schedulers import make_scheduler
from sitesim.users.population import FittedPopulation, PartDecks, populate
from sitesim.workload.calendar import Clock
from sitesim.workload.estimates import make_estimates
from sitesim.workload.swf import SwfReader

DAY = 86_400
HOUR = 3_600


def night_and_day(day_parts: int = 4) -> dict[str, Any]:
    """One user of ten one-batch sessions, alternately at 02:00 (an 8-node job of an
    hour) and at 14:00 (a 1-node job of ten minutes); each absence runs from a
    session's end to the next session's start (11 h and 11 h 50 min). The clock is UTC
    from Monday 00:00 and the cycle flat, so operational time is trace time."""
    jobs = [[8, 3600] if k % 2 == 0 else [1, 600] for k in range(10)]
    return {
        "format": "sitesim-population", "name": "night and day",
        "clock": {"unix_start": 4 * DAY, "offset": 0, "zone": "UTC", "declared": False},
        "duration": 40 * DAY, "machine_size": 16, "min_observations": 3,
        "session_start_weights": [1] * 168, "batches": "resampled", "day_parts": day_parts,
        "continuation": {"edges": [600], "probability": [0.0, 0.0], "batches": [10, 10]},
        "users": [{
            "user": 1, "arrival": 2 * HOUR, "span": 38 * DAY, "jobs": 10,
            "widths": [1] * 10, "gaps_operational": [], "jobs_in_order": jobs,
            "session_batches": [1] * 10, "thinks": [], "runs": [[s, r, 1] for s, r in jobs],
            "absences": [11 * HOUR if k % 2 == 0 else 11 * HOUR + 50 * 60 for k in range(9)],
            "continue_offset": 0.0,
            "batch_hours": [2 if k % 2 == 0 else 14 for k in range(10)],
            "absence_hours": [3 if k % 2 == 0 else 14 for k in range(9)],
        }],
    }


def test_a_users_batches_and_absences_are_split_by_the_part_of_the_day() -> None:
    profile = FittedPopulation.from_dict(night_and_day(), largest=16).profiles[0]
    night, morning, afternoon, evening = (profile.part(k) for k in range(4))
    assert {jobs for jobs, _ in night[0]} == {((8, 3600, -1),)}
    assert {jobs for jobs, _ in afternoon[0]} == {((1, 600, -1),)}
    assert set(night[2]) == {11.0 * HOUR} and set(afternoon[2]) == {11.0 * HOUR + 3000}
    # a part with fewer than min_observations of the user's own: the whole tuple, the
    # same object (so the parts share one deck)
    assert morning[0] is evening[0] is profile.first_batches
    assert morning[2] is profile.absences
    # no later batches of its own at any position: all its batches, whatever the part
    assert all(profile.part(k)[1] is profile.later_batches for k in (1, 3))


def test_one_part_or_no_hours_deals_as_before() -> None:
    one = FittedPopulation.from_dict(night_and_day(day_parts=1), largest=16)
    assert one.day_parts == 1 and one.profiles[0].parts == ()
    data = night_and_day()
    for key in ("batch_hours", "absence_hours"):
        del data["users"][0][key]
    assert FittedPopulation.from_dict(data, largest=16).profiles[0].parts == ()


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("batch_hours", [2] * 9, "batch_hours and widths differ"),
        ("absence_hours", [3] * 8, "absence_hours and absences differ"),
        ("batch_hours", [168] * 10, "not in 0..167"),
    ],
)
def test_hours_must_line_up(key: str, value: list[int], message: str) -> None:
    data = night_and_day()
    data["users"][0][key] = value
    with pytest.raises(ValueError, match=message):
        FittedPopulation.from_dict(data, largest=16)


def test_day_parts_out_of_range_are_refused() -> None:
    with pytest.raises(ValueError, match="day_parts 25"):
        FittedPopulation.from_dict(night_and_day(day_parts=25), largest=16)


def test_parts_sharing_their_values_share_one_deck() -> None:
    whole, night = ("a", "b", "c"), ("n", "m", "o")
    decks = PartDecks([night, whole, whole, whole])
    assert decks.decks[1] is decks.decks[2] is decks.decks[3] is not decks.decks[0]
    # the whole deck is dealt once a round across the parts that share it
    assert sorted(decks.deal(k, 0.0) for k in (1, 2, 3)) == ["a", "b", "c"]
    assert {decks.deal(0, u) for u in (0.0, 0.0, 0.0)} == set(night)


def submitted(data: dict[str, Any], days: int = 38) -> list[Any]:
    env = simpy.Environment()
    site = Site(env, Machine(16), make_scheduler("easy", 16))
    jobs: list[Any] = []
    site.observe(type("Obs", (), {"on_submit": lambda self, job: jobs.append(job)})())
    populate(site, FittedPopulation.from_dict(data, largest=16), 1, seed=3, estimates=make_estimates("exact"))
    env.run(until=days * DAY)
    return jobs


def test_a_night_batch_runs_at_night() -> None:
    """By the part of the day, the user's night jobs come at night and its day jobs in
    the day, session after session; dealt regardless of the hour (one part), the
    alternation breaks and some night sessions run the day's job."""
    by_part = submitted(night_and_day())
    assert len(by_part) >= 30
    hours = [(j.submit // HOUR) % 24 for j in by_part]
    assert all((j.size == 8) == (h < 6) for j, h in zip(by_part, hours, strict=True))
    assert all(2 <= h < 3 or 14 <= h < 15 for h in hours)
    mixed = submitted(night_and_day(day_parts=1))
    assert any(j.size == 1 and (j.submit // HOUR) % 24 < 6 for j in mixed)


def weekday_and_weekend(weekends: str = "apart", weekend_sessions: int = 10) -> dict[str, Any]:
    """One user of one-batch sessions every afternoon at 14:00 for five weeks from a
    Monday: a 1-node job of ten minutes on weekdays, a 16-node one on the first
    ``weekend_sessions`` weekend days, each absence running to the next day's 14:00."""
    days = [d for d in range(35) if d % 7 < 5 or d % 7 >= 5 and weekend_sessions > 0]
    weekend = [d for d in days if d % 7 >= 5][:weekend_sessions]
    days = [d for d in days if d % 7 < 5 or d in weekend]
    jobs = [[16, 600] if d % 7 >= 5 else [1, 600] for d in days]
    data = night_and_day()
    data["weekends"] = weekends
    data["duration"] = 36 * DAY
    data["users"][0].update({
        "arrival": 14 * HOUR, "span": 35 * DAY, "jobs": len(days), "widths": [1] * len(days),
        "jobs_in_order": jobs, "session_batches": [1] * len(days), "runs": [[s, r, 1] for s, r in jobs],
        # an absence begun on a weekend is a second longer, to tell the halves apart
        "absences": [(b - a) * DAY - 600 + (a % 7 >= 5) for a, b in zip(days, days[1:])],
        "batch_hours": [d % 7 * 24 + 14 for d in days],
        "absence_hours": [d % 7 * 24 + 14 for d in days[:-1]],
    })
    return data


def test_the_weekends_batches_are_dealt_apart_from_the_weekdays() -> None:
    """Parts 0-3 are the weekdays' parts of the day, 4-7 the weekend's; the parts
    where the user has nothing of its own deal from all it did."""
    pop = FittedPopulation.from_dict(weekday_and_weekend(), largest=16)
    profile = pop.profiles[0]
    assert pop.deal_parts == 8 and pop.day_parts == 4
    assert {jobs for jobs, _ in profile.part(2)[0]} == {((1, 600, -1),)}
    assert {jobs for jobs, _ in profile.part(6)[0]} == {((16, 600, -1),)}
    assert profile.part(0)[0] is profile.part(4)[0] is profile.first_batches
    # the absences by the part of the day alone: the weekend's afternoon is the weekdays'
    # (one deck), holding those begun on weekend afternoons (a second longer) and others
    assert profile.part(6)[2] is profile.part(2)[2]
    assert {a % 2 for a in profile.part(2)[2]} == {0, 1}
    # a Saturday afternoon is part 6, its continuation offset the afternoon's (part 2)
    saturday = 5 * DAY + 14 * HOUR
    assert pop.part_of(saturday) == 6 and pop.day_part_of(saturday) == 2
    together = FittedPopulation.from_dict(weekday_and_weekend("together"), largest=16)
    assert together.deal_parts == 4 and together.part_of(saturday) == 2
    assert {jobs for jobs, _ in together.profiles[0].part(2)[0]} == {((1, 600, -1),), ((16, 600, -1),)}
    # together, a part holding all of the user's values keeps its own tuple, as tables
    # without the key always did (their decks, and so their runs, unchanged)
    mine = together.profiles[0]
    assert mine.part(2)[2] == mine.absences and mine.part(2)[2] is not mine.absences


def test_a_sparse_part_of_the_week_takes_the_same_part_of_the_day_on_any_day() -> None:
    """Two weekend afternoons, fewer than min_observations (3): the weekend's afternoon
    deals from every afternoon, not from everything the user did."""
    data = weekday_and_weekend(weekend_sessions=2)
    data["users"][0]["batch_hours"][0] = 2  # one Monday batch at night: "everything" is not "the afternoons"
    profile = FittedPopulation.from_dict(data, largest=16).profiles[0]
    afternoons = {jobs for jobs, _ in profile.part(6)[0]}
    assert afternoons == {((1, 600, -1),), ((16, 600, -1),)}
    assert len(profile.part(6)[0]) == len(profile.first_batches) - 1
    assert profile.part(0)[0] is profile.first_batches  # a night of one: too few, and so on any day


def test_a_part_with_nothing_of_its_own_shares_the_deck_of_its_other_half() -> None:
    """No weekend at all: the weekend's afternoon is the weekdays' afternoon, the same
    tuple, so one deck deals those batches once a round whatever the day."""
    data = weekday_and_weekend(weekend_sessions=0)
    data["users"][0]["batch_hours"][0] = 2  # one Monday batch at night: the afternoons are not all
    profile = FittedPopulation.from_dict(data, largest=16).profiles[0]
    assert profile.part(6)[0] is profile.part(2)[0] is not profile.first_batches
    assert profile.part(6)[2] is profile.part(2)[2] is profile.absences  # every absence began in an afternoon
    assert len(PartDecks([profile.part(k)[0] for k in range(8)]).decks) == 8
    assert len({id(d) for d in PartDecks([profile.part(k)[0] for k in range(8)]).decks}) == 2
    # a user whose every batch began in the afternoons: its afternoons are all it did
    data = weekday_and_weekend()
    data["min_observations"] = 11  # the weekend's ten are too few
    profile = FittedPopulation.from_dict(data, largest=16).profiles[0]
    assert profile.part(6)[0] is profile.first_batches


def test_the_weekend_job_runs_on_weekends() -> None:
    """Apart, every weekend session runs the weekend's job and every weekday one the
    weekdays'; together, the afternoons' deck mixes them."""
    def days_and_sizes(data: dict[str, Any]) -> list[tuple[bool, int]]:
        return [((j.submit // DAY) % 7 >= 5, j.size) for j in submitted(data, days=35)]

    apart = days_and_sizes(weekday_and_weekend())
    assert len(apart) >= 30
    assert all((size == 16) == weekend for weekend, size in apart)
    together = days_and_sizes(weekday_and_weekend("together"))
    assert any((size == 16) != weekend for weekend, size in together)


def test_unknown_weekends_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown weekends 'sometimes'"):
        FittedPopulation.from_dict(weekday_and_weekend("sometimes"), largest=16)


TRACES = os.environ.get("SITESIM_TRACES")
NASA = "NASA-iPSC-1993-3.1-cln.swf.gz"


@pytest.mark.slow
@pytest.mark.skipif(not TRACES or not (Path(TRACES) / NASA).exists(), reason=f"needs SITESIM_TRACES with {NASA}")
def test_nasa_ipsc_big_jobs_run_at_night_as_in_the_log(tmp_path: Path) -> None:
    """NASA-iPSC's jobs of 64 nodes or more, 63% of its work, began at night (before
    08:00 or from 18:00) 48% of the time, its other jobs 20%. Its fitted site under the
    log's service keeps most of that difference (seeds 0-2: 0.50-0.54 against
    0.26-0.27 dealt by the hour; 0.32-0.34 against 0.30-0.31 dealt regardless)."""
    from sitesim.experiments.validation import simulate_fitted
    from sitesim.runs.fit import fit_log

    site = tmp_path / "nasa"
    fit_log(Path(TRACES or "") / NASA, site)
    simulate_fitted(site, tmp_path / "run", seed=0, scheduler="hold")
    with SwfReader(tmp_path / "run" / "trace.swf") as reader:
        jobs, _ = clean_records(reader)
        clock = Clock.from_header(reader.header)
    hour = clock.hour_of_day([j.submit for j in jobs])
    night = (hour < 8) | (hour >= 18)
    big = np.asarray([j.size >= 64 for j in jobs])
    assert DAY_PARTS == 4
    assert night[big].mean() > 0.42
    assert night[big].mean() - night[~big].mean() > 0.15


@pytest.mark.parametrize("table", [night_and_day, weekday_and_weekend])
def test_users_dealing_by_the_hour_stay_light(table: Any) -> None:
    """A deck per part with values of its own, one shared by the rest: about 5.5-6 kB a
    registered user here (the weekend's batches apart: 5.5 kB, against 5.2 kB together), against
    5.1 kB dealing from one deck (the bound of tests/users/test_population.py)."""
    import tracemalloc

    pop = FittedPopulation.from_dict(table(), largest=16)
    site = Site(simpy.Environment(), Machine(16), make_scheduler("fcfs", 16))
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    populate(site, pop, 2000, seed=1, estimates=make_estimates("exact"))
    per_user = (tracemalloc.get_traced_memory()[0] - before) / 2000
    tracemalloc.stop()
    assert per_user < 8_000, f"{per_user:.0f} bytes per registered user"


def test_a_user_goes_home_at_night_by_the_part_offsets() -> None:
    """With an even chance of going on after any batch, and an offset of -4 on the
    log-odds after batches that end 00:00-06:00, the night sessions hold about one
    batch each and the afternoon ones about two; without the offsets both hold about
    two (docs/population.md, "Going home at night")."""

    def batches_per_session(data: dict[str, Any]) -> tuple[float, float]:
        jobs = submitted(data, days=12)  # the chain drifts later; by then no night batch ends after 06:00
        night = [j for j in jobs if (j.submit // HOUR) % 24 < 12]
        day = [j for j in jobs if (j.submit // HOUR) % 24 >= 12]
        return (len(night) / len({j.submit // DAY for j in night}), len(day) / len({j.submit // DAY for j in day}))

    data = night_and_day()
    data["continuation"] = {"edges": [600], "probability": [0.5, 0.5], "batches": [10, 10]}
    assert FittedPopulation.from_dict(data, largest=16).profiles[0].part_continuation == ()
    night, day = batches_per_session(data)
    assert night > 1.5 and day > 1.5
    data["continuation_by_part"] = [-4.0, 0.0, 0.0, 0.0]
    profile = FittedPopulation.from_dict(data, largest=16).profiles[0]
    assert profile.continuation_at(0)(3600) < 0.02 and profile.continuation_at(2)(3600) == pytest.approx(0.5)
    night, day = batches_per_session(data)
    assert night < 1.2 < 1.5 < day


@pytest.mark.parametrize(("offsets", "message"), [([0.0] * 3, "3 offsets for 4 day_parts"), ([5.0] * 4, "not within")])
def test_part_offsets_must_fit_the_day_parts(offsets: list[float], message: str) -> None:
    data = night_and_day()
    data["continuation_by_part"] = offsets
    with pytest.raises(ValueError, match=message):
        FittedPopulation.from_dict(data, largest=16)
