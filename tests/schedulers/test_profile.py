"""The availability profile against a brute-force per-second model.

The reference is a plain array of free nodes per second over a short horizon; the
profile must agree with it after any sequence of reservations, releases and advances,
keep its invariants (sorted, merged, 0 <= free <= nodes, last frame fully free), and
find exactly the anchor point the array gives.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitesim.schedulers.profile import Profile

HORIZON = 120


def brute_earliest(free: list[int], now: int, size: int, duration: int, latest: int | None = None) -> int:
    """First t >= now with free >= size on [t, t + duration); beyond the array all is free."""
    t = now
    while latest is None or t < latest:
        if all(free[u] >= size for u in range(t, min(t + duration, len(free)))):
            return t
        t += 1
    return latest


@st.composite
def operations(draw: st.DrawFn) -> tuple[int, list[tuple[str, int, int, int]]]:
    nodes = draw(st.integers(1, 12))
    ops = []
    for _ in range(draw(st.integers(0, 30))):
        kind = draw(st.sampled_from(["reserve", "reserve", "release", "advance"]))
        start = draw(st.integers(0, HORIZON - 40))
        ops.append((kind, start, draw(st.integers(0, 40)), draw(st.integers(1, nodes))))
    return nodes, ops


def build(nodes: int, ops: list[tuple[str, int, int, int]]) -> tuple[Profile, list[int], int, list]:
    """Apply the feasible operations to a profile and to the per-second reference."""
    profile = Profile(nodes)
    ref = [nodes] * HORIZON
    now = 0
    held: list[tuple[int, int, int]] = []
    for kind, start, length, size in ops:
        if kind == "advance":
            now = max(now, min(start, HORIZON - 41))
            profile.advance(now)
        elif kind == "reserve":
            start = max(start, now)
            end = start + length
            if all(ref[t] >= size for t in range(start, end)):
                profile.reserve(start, end, size)
                for t in range(start, end):
                    ref[t] -= size
                held.append((start, end, size))
        elif held:
            start, end, size = held.pop(start % len(held))
            lo = max(start, now)
            if lo < end:
                profile.release(lo, end, size)
            for t in range(lo, end):
                ref[t] += size
    return profile, ref, now, held


@settings(max_examples=200, deadline=None, derandomize=True)
@given(operations())
def test_profile_matches_per_second_reference(case) -> None:
    nodes, ops = case
    profile, ref, now, _held = build(nodes, ops)
    profile.check()
    assert profile.times[0] == now
    for t in range(now, HORIZON):
        assert profile.free_at(t) == ref[t]
    frames = profile.frames(now)
    assert frames[0][0] == now and frames[-1][1] is None
    assert all(a[1] == b[0] for a, b in zip(frames, frames[1:]))


@settings(max_examples=200, deadline=None, derandomize=True)
@given(operations(), st.integers(1, 12), st.integers(1, 50), st.integers(0, 30))
def test_earliest_is_the_anchor_point(case, size, duration, offset) -> None:
    nodes, ops = case
    profile, ref, now, _held = build(nodes, ops)
    size = min(size, nodes)
    at = now + offset
    assert profile.earliest(at, size, duration) == brute_earliest(ref, at, size, duration)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(operations(), st.integers(0, 10_000), st.integers(0, 60))
def test_earliest_with_own_reservation_and_limit(case, pick, limit_offset) -> None:
    """Counting a job's own reservation as free equals really releasing it first."""
    nodes, ops = case
    profile, ref, now, held = build(nodes, ops)
    mine = [h for h in held if h[0] >= now and h[1] > h[0]]
    if not mine:
        return
    start, end, size = mine[pick % len(mine)]
    without = list(ref)
    for t in range(start, end):
        without[t] += size
    expect = brute_earliest(without, now, size, end - start, latest=start)
    assert profile.earliest(now, size, end - start, latest=start, own=size) == expect
    # With a limit, anchors from the limit on are not tried: either the same answer
    # (found before the limit) or the old start.
    limit = now + limit_offset
    got = profile.earliest(now, size, end - start, latest=start, own=size, limit=limit)
    assert got == (expect if expect < limit else start)


def test_zero_duration_needs_the_nodes_at_the_anchor_instant() -> None:
    profile = Profile(1)
    profile.reserve(0, 1, 1)
    assert profile.earliest(0, 1, 0) == 1


def test_reserve_splits_and_release_merges_back() -> None:
    profile = Profile(10)
    profile.reserve(5, 15, 4)
    assert profile.frames() == [(0, 5, 10), (5, 15, 6), (15, None, 10)]
    profile.reserve(15, 20, 4)  # same value on both sides of 15: merged
    assert profile.frames() == [(0, 5, 10), (5, 20, 6), (20, None, 10)]
    profile.release(5, 20, 4)
    assert profile.frames() == [(0, None, 10)]
    profile.check()


def test_anchor_skips_past_the_blocking_frame() -> None:
    """Mu'alem-Feitelson 2.1 step 1c: a window that hits a busy frame resumes after it."""
    profile = Profile(10)
    profile.reserve(0, 10, 6)  # 4 free until 10
    profile.reserve(20, 30, 8)  # 2 free on [20, 30)
    assert profile.earliest(0, 4, 10) == 0
    assert profile.earliest(0, 4, 25) == 30  # [0, 25) and [10, 35) both cross [20, 30)
    assert profile.earliest(0, 5, 10) == 10  # [10, 20) fits exactly
    assert profile.earliest(0, 5, 11) == 30


def test_advance_forgets_the_past_and_frames_start_now() -> None:
    profile = Profile(8, origin=100)
    profile.reserve(100, 200, 3)
    profile.reserve(150, 300, 2)
    assert profile.frames(120) == [(120, 150, 5), (150, 200, 3), (200, 300, 6), (300, None, 8)]
    profile.advance(160)
    assert profile.times[0] == 160
    assert profile.frames() == [(160, 200, 3), (200, 300, 6), (300, None, 8)]
    with pytest.raises(ValueError):
        profile.free_at(100)


def test_overbooking_is_refused_loudly() -> None:
    profile = Profile(4)
    profile.reserve(0, 10, 3)
    with pytest.raises(RuntimeError):
        profile.reserve(5, 6, 2)
    assert profile.free_at(5) == 1  # the refused reservation changed nothing
    with pytest.raises(RuntimeError):
        profile.release(0, 20, 2)
    with pytest.raises(ValueError):
        profile.earliest(0, 5, 1)


def brute_near(free: list[int], now: int, size: int, duration: int, latest: int, lo: int, hi: int) -> int:
    """First t in [now, latest) fitting up to latest, connected by free >= size to [lo, hi)."""
    for t in range(now, latest):
        if not all(free[u] >= size for u in range(t, min(t + duration, latest))):
            continue
        for u in range(lo, hi):
            a, b = min(t, u), max(t, u)
            if all(free[v] >= size for v in range(a, min(b + 1, latest))):
                return t
    return latest


@settings(max_examples=300, deadline=None, derandomize=True)
@given(operations(), st.integers(1, 12), st.integers(1, 50), st.integers(0, 60), st.integers(1, 40), st.integers(1, 40))
def test_earliest_near_is_the_first_anchor_of_a_run_meeting_the_room(case, size, duration, a, b, c) -> None:
    profile, ref, now, _held = build(*case)
    size = min(size, profile.nodes)
    ref = ref + [profile.nodes] * 200  # beyond the reference horizon all is free
    lo = now + a
    hi = lo + b
    latest = hi + c
    expect = brute_near(ref, now, size, duration, latest, lo, hi)
    assert profile.earliest_near(now, size, duration, latest, lo, hi) == expect


@settings(max_examples=300, deadline=None, derandomize=True)
@given(operations(), st.integers(1, 12), st.integers(1, 50))
def test_blockers_certify_that_no_earlier_window_fits(case, size, duration) -> None:
    """Before a job's anchor point, every window holds a returned instant that blocks it."""
    profile, ref, now, _held = build(*case)
    size = min(size, profile.nodes)
    ref = ref + [profile.nodes] * 200
    latest = brute_earliest(ref, now, size, duration)
    points = profile.blockers(now, size, duration, latest)
    assert list(points) == sorted(set(points))
    assert all(now <= p < latest and ref[p] < size for p in points)
    for t in range(now, latest):
        assert any(t <= p < t + duration for p in points), f"window at {t} holds no blocking instant"
    assert not points or points[-1] == latest - 1


def test_blockers_refuse_a_start_that_is_not_the_earliest() -> None:
    profile = Profile(4)
    profile.reserve(10, 20, 4)
    with pytest.raises(AssertionError):
        profile.blockers(0, 1, 5, 30)  # [0, 5) fits, so 30 is not the earliest start
