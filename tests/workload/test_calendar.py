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
