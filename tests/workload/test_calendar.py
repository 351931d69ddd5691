"""Operational time of a weekly cycle (the warp that lays sessions on the cycle)."""

from __future__ import annotations

import numpy as np
import pytest

from sitesim.workload.calendar import DAY, HOUR, WEEK, Clock, Warp, cycle_signature


def test_flat_cycle_is_the_identity() -> None:
    warp = Warp(Clock(), np.ones(168))
    for t in (0.0, 1234.5, 3 * DAY + 7, 5 * WEEK + 11):
        assert warp.forward(t) - warp.forward(0) == pytest.approx(t)
        assert warp.inverse(warp.forward(t)) == pytest.approx(t)


def test_busy_hours_pass_faster_in_operational_time() -> None:
    w = np.zeros(168)
    w[9:17] = 1.0  # Monday 09:00-17:00 only (other hours get the floor)
    warp = Warp(Clock(), w)
    assert warp.after(9 * HOUR, 0) == pytest.approx(9 * HOUR)
    # an operational hour at 09:00 is much shorter than an hour of clock time...
    assert warp.after(9 * HOUR, HOUR) - 9 * HOUR < HOUR / 10
    # ...and one laid down from Monday 17:00 waits for the next busy hours
    assert warp.after(17 * HOUR, HOUR) > 2 * DAY
    for t in (0.0, 9.5 * HOUR, 2 * WEEK + 100):
        assert warp.inverse(warp.forward(t)) == pytest.approx(t, abs=1e-5)


def test_intervals_laid_down_in_operational_time_follow_the_cycle() -> None:
    weights = np.ones(168)
    weights[8:18] = 20.0  # Monday daytime
    clock = Clock(unix_start=4 * 86400 + 5 * HOUR, offset=-5 * HOUR)  # same local calendar
    warp = Warp(clock, weights)
    rng = np.random.default_rng(1)
    t, events = 0.0, []
    for gap in rng.exponential(WEEK / 50, 5000):
        t = warp.after(t, gap)
        events.append(t)
    sig = cycle_signature(events, clock)
    expected = 10 * 20 / (10 * 20 + 158)
    assert sig.weekly[8:18].sum() / sig.events == pytest.approx(expected, abs=0.03)


def test_bad_weights_are_rejected() -> None:
    with pytest.raises(ValueError):
        Warp(Clock(), np.zeros(168))
    with pytest.raises(ValueError):
        Warp(Clock(), np.ones(24))


# -- local time of a zone with daylight saving (TimeZoneString) against a fixed offset --

#: Sat 1996-03-30 12:00 UTC; Stockholm moved its clocks on at 01:00 UTC the next night.
SPRING = 828187200


def _header(*lines: str) -> Clock:
    from sitesim.workload.swf import SwfHeader

    return Clock.from_header(SwfHeader([f"; UnixStartTime: {SPRING}", *lines]))


def test_a_named_zone_follows_daylight_saving_and_an_offset_does_not() -> None:
    zone = _header("; TimeZone: 3600", "; TimeZoneString: Europe/Stockholm")
    fixed = _header("; TimeZone: 3600")
    assert (zone.local_time, zone.zone) == ("zone", "Europe/Stockholm")
    assert (fixed.local_time, fixed.zone) == ("offset", "UTC+1")
    noon_utc = np.array([0, DAY, 220 * DAY])  # Saturday, Sunday (summer time), November (winter again)
    assert zone.hour_of_day(noon_utc).tolist() == [13, 14, 13]
    assert fixed.hour_of_day(noon_utc).tolist() == [13, 13, 13]
    assert zone.hour_of_week(noon_utc[:2]).tolist() == [5 * 24 + 13, 6 * 24 + 14]
    # scalars and arrays alike; the table round trip keeps the zone
    assert zone.hour_of_day(DAY) == 14
    assert Clock.from_dict(zone.to_dict()) == zone
    assert "daylight saving" in zone.describe() and "fixed offset" in fixed.describe()


def test_an_unknown_zone_name_falls_back_on_the_offset() -> None:
    clock = _header("; TimeZone: -18000", "; TimeZoneString: Mars/Olympus")
    assert clock.local_time == "offset" and clock.hour_of_day(0) == 7
    assert "Mars/Olympus" in clock.describe() and "not a zone" in clock.describe()
    with pytest.raises(ValueError, match="unknown time zone"):
        Clock.from_dict({**clock.to_dict(), "local_time": "zone"})


def test_office_hours_stay_on_the_local_hour_across_the_change() -> None:
    """09:00 local every day for two weeks around the change: one hour with the zone,
    two with the fixed offset (08:00 UTC+1 after the change)."""
    zone = _header("; TimeZone: 3600", "; TimeZoneString: Europe/Stockholm")
    fixed = _header("; TimeZone: 3600")
    nine = [d * DAY - 4 * HOUR - (HOUR if d >= 1 else 0) for d in range(-6, 8)]  # 08:00 UTC, then 07:00 UTC
    assert np.flatnonzero(cycle_signature(nine, zone).hourly).tolist() == [9]
    assert np.flatnonzero(cycle_signature(nine, fixed).hourly).tolist() == [8, 9]


def test_a_flat_cycle_in_a_zone_is_still_the_identity() -> None:
    """Operational time rises one second a second through both changes of the year."""
    warp = Warp(_header("; TimeZoneString: Europe/Stockholm"), np.ones(168))
    for t in (-3 * WEEK, 0.0, DAY - 1, DAY + 3 * HOUR, 100 * DAY, 220 * DAY, 400 * DAY):
        assert warp.forward(t) - warp.forward(0) == pytest.approx(t, abs=1e-6)
        assert warp.inverse(warp.forward(t)) == pytest.approx(t, abs=1e-6)


def test_a_zone_warp_rises_and_inverts_through_the_changes() -> None:
    """Any cycle: operational time rises with trace time, including the skipped and
    repeated local hours, and inverse undoes forward."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    clock = _header("; TimeZone: -18000", "; TimeZoneString: US/Eastern")

    @settings(derandomize=True, max_examples=30, deadline=None)
    @given(
        st.lists(st.floats(0, 10), min_size=168, max_size=168).filter(lambda w: sum(w) > 0),
        st.lists(st.floats(-30 * DAY, 800 * DAY), min_size=2, max_size=20),
    )
    def check(weights: list[float], times: list[float]) -> None:
        warp = Warp(clock, weights)
        ops = [warp.forward(t) for t in sorted(times)]
        assert all(b >= a - 1e-6 for a, b in zip(ops, ops[1:]))
        for t, op in zip(sorted(times), ops):
            assert warp.inverse(op) == pytest.approx(t, abs=1e-3)

    check()


def test_weekly_intervals_follow_the_local_cycle_in_summer_too() -> None:
    """Events laid down in operational time of a Monday-daytime cycle land on Monday
    daytime by the zone's clocks, in winter and in summer."""
    clock = _header("; TimeZone: 3600", "; TimeZoneString: Europe/Stockholm")
    weights = np.ones(168)
    weights[8:18] = 20.0
    warp = Warp(clock, weights)
    rng = np.random.default_rng(1)
    t, events = 0.0, []
    for gap in rng.exponential(WEEK / 50, 5000):  # about 100 weeks
        t = warp.after(t, gap)
        events.append(t)
    sig = cycle_signature(events, clock)
    expected = 10 * 20 / (10 * 20 + 158)
    assert sig.weekly[8:18].sum() / sig.events == pytest.approx(expected, abs=0.03)


@pytest.mark.parametrize(
    "clock",
    [
        Clock(unix_start=749458803, offset=-28800, zone="US/Pacific", declared=True, local_time="zone"),
        Clock(unix_start=749458803, offset=-28800, zone="UTC-8", declared=True),
        Clock(),
    ],
)
def test_a_warp_gives_the_clocks_hour_of_the_week(clock: Clock) -> None:
    """One time at a time (a simulated batch's part of the day), the hour the clock
    gives for many: daylight saving changes included (1993-10-31 in US/Pacific)."""
    warp = Warp(clock, np.ones(168))
    times = np.arange(0.0, 400 * 86_400, 1234.5)
    assert [warp.hour_of_week(t) for t in times] == clock.hour_of_week(times).tolist()


@pytest.mark.parametrize(
    "clock",
    [
        Clock(unix_start=749458803, offset=-28800, zone="US/Pacific", declared=True, local_time="zone"),
        Clock(unix_start=820454400, offset=3600, zone="Europe/Stockholm", declared=True, local_time="zone"),
        Clock(unix_start=749458803, offset=-28800, zone="UTC-8", declared=True),
        Clock(),
    ],
)
def test_forward_all_is_forward_of_each_time(clock: Clock) -> None:
    """Float for float, whatever years the zone had covered before and in any order of
    the times (a fit's absences: pairs of times across daylight saving and years)."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    @settings(derandomize=True, max_examples=60, deadline=None, database=None)
    @given(
        st.lists(st.floats(0, 10), min_size=168, max_size=168).filter(lambda w: sum(w) > 0),
        st.lists(st.one_of(st.floats(-400 * DAY, 1500 * DAY), st.integers(-20_000, 70_000).map(lambda h: h * 1800.0)),
                 max_size=40),  # on the half hour too: the hours' and weeks' edges
        st.booleans(),
    )
    def check(weights: list[float], times: list[float], used: bool) -> None:
        one, many = Warp(clock, weights), Warp(clock, weights)
        if used:  # a warp whose zone covers other years already
            many.forward(3000 * DAY)
        for t in times:  # forward itself needs its years covered first (below)
            one.forward(t)
        expected = [one.forward(t) for t in times]
        assert many.forward_all(times) == expected
        assert many.forward_all(times[::-1]) == expected[::-1]

    check()


def test_forward_all_needs_no_years_covered_first() -> None:
    """A zone that covers none of the years yet (the zones are shared and grow): one
    forward_all gives what forward gives once the years are covered, and what forward
    gives on a zone as cold. (forward's first call there was off by the hours of a
    change of offset: it took the stretch's index before covering time 0's year, which
    moves the indices.)"""
    from sitesim.workload.zones import zone_offsets

    clock = Clock(unix_start=749458803, offset=-28800, zone="US/Pacific", declared=True, local_time="zone")
    weights = np.random.default_rng(3).uniform(0.1, 10, 168)
    times = [108_700_565.6, 2e-16, -40 * DAY, 900 * DAY]
    zone_offsets.cache_clear()
    cold = Warp(clock, weights).forward_all(times)
    warm = Warp(clock, weights)
    for t in times:
        warm.forward(t)
    assert cold == [warm.forward(t) for t in times]
    zone_offsets.cache_clear()
    fresh = Warp(clock, weights)
    assert [fresh.forward(t) for t in times] == cold
