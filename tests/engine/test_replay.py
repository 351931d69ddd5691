"""The trace replay (sitesim/engine/replay.py): its record of job numbers seen, and a
trace checked once and replayed many times."""

from collections.abc import Callable, Iterator
from typing import cast

import attrs
import pytest
import simpy
from hypothesis import given, settings
from hypothesis import strategies as st

from sitesim.engine.events import run as run_events
from sitesim.engine.machine import Machine
from sitesim.engine.replay import CheckedJobs, CheckedReplay, OpenReplay, SeenIds, TraceReplay
from sitesim.engine.site import Site
from sitesim.errors import InputError
from sitesim.schedulers.base import make_scheduler
from sitesim.workload.estimates import make_estimates
from sitesim.workload.job import Job
from sitesim.workload.replay import ReplayCounts
from sitesim.workload.swf import SwfReader, SwfRecord

class SmallSeenIds(SeenIds):
    """The same bookkeeping with the bitmap's bound lowered, so that numbers on both
    sides of it cost little to try (at the real bound the bitmap is 128 MB)."""

    __slots__ = ()
    BITMAP_LIMIT = 2**12


numbers = st.one_of(st.integers(-3, 40), st.integers(SmallSeenIds.BITMAP_LIMIT - 3, SmallSeenIds.BITMAP_LIMIT + 3))


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.lists(numbers, max_size=60))
def test_seen_ids_answers_as_a_set_does(sequence: list[int]) -> None:
    """Runs, gaps, repeats, numbers before the run, negative numbers and numbers on
    both sides of the bitmap's bound: ``add`` says True exactly for a number not seen
    before."""
    seen = SmallSeenIds()
    known: set[int] = set()
    for number in sequence:
        assert seen.add(number) is (number not in known), (sequence, number)
        known.add(number)


def test_seen_ids_at_the_real_bitmap_bound() -> None:
    """Numbers just below the bound go to the bitmap, from the bound up to the set."""
    limit = SeenIds.BITMAP_LIMIT
    seen = SeenIds()
    assert seen.add(7) and seen.add(limit + 1)  # the run of 7 moves to the bitmap
    assert seen.add(limit - 1) and seen.add(limit) and seen.add(limit + 5)
    assert not seen.add(limit - 1) and not seen.add(limit) and not seen.add(7)
    assert len(seen._bits) == limit // 8 and seen._other == {limit, limit + 1}


def test_seen_ids_keeps_a_run_of_consecutive_numbers_as_two_bounds() -> None:
    seen = SeenIds()
    assert all(seen.add(n) for n in range(1, 1001))
    assert not seen.add(500)
    assert len(seen._bits) == 0  # nothing marked while the numbers run on
    assert seen.add(2000) and not seen.add(1000) and not seen.add(2000)
    assert seen.add(0) and seen.add(1001)


# -- a trace checked once, replayed many times ----------------------------------------

NODES = 4


class _Records:
    """A few SWF records quacking like the reader a replay reads."""

    path = "fixture.swf"
    line = 0
    skip_malformed = False
    skipped = 0

    def __init__(self, records: list[SwfRecord]) -> None:
        self._records = records

    def __iter__(self) -> Iterator[SwfRecord]:
        for self.line, record in enumerate(self._records, 1):
            yield record


def _records() -> list[SwfRecord]:
    """Jobs that queue on 4 nodes, one failing, one of unknown size, one larger than the machine."""
    rows = [(1, 0, 100, 2, 1), (2, 0, 50, 3, 1), (3, 10, 20, 1, 0), (4, 10, 30, -1, 1), (5, 20, 10, 9, 1),
            (6, 30, 40, 4, 1), (7, 30, 5, 1, 1)]
    return [SwfRecord(job_number=n, submit_time=t, wait_time=0, run_time=r, allocated_processors=s,
                      requested_time=2 * r, status=status, user_id=n % 2) for n, t, r, s, status in rows]


def _schedule(source: Callable[[Site], OpenReplay]) -> tuple[list[tuple[int, int, int, bool, bool]], ReplayCounts]:
    env = simpy.Environment()
    site = Site(env, Machine(NODES), make_scheduler("easy", NODES))
    ended: list[Job] = []
    site.observe(type("Ends", (), {"on_end": staticmethod(ended.append)})())
    replay = source(site)
    replay.start()
    run_events(env)
    return [(j.id, j.start, j.end, j.failed, j.killed) for j in ended], replay.counts


def test_a_checked_trace_replays_as_its_records_do() -> None:
    """The same jobs, schedule and counts as a replay of the records themselves, at
    every replay of it (each on fresh jobs: a run changes them)."""
    estimates = make_estimates("trace")
    want = _schedule(lambda site: TraceReplay(site, cast(SwfReader, _Records(_records())), estimates))
    checked = CheckedJobs(cast(SwfReader, _Records(_records())), estimates)
    assert len(checked) == 6
    first, again = _schedule(lambda site: CheckedReplay(site, checked)), _schedule(lambda site: CheckedReplay(site, checked))
    assert first == again == want
    assert want[1] == ReplayCounts(read=7, submitted=5, unknown=1, too_large=1)
    assert [j.failed for j in checked] == [False, False, True, False, False, False]
    assert all(a is not b and attrs.astuple(a) == attrs.astuple(b) for a, b in zip(checked, checked, strict=True))


def test_a_copy_of_a_job_carries_all_its_state() -> None:
    """CheckedJobs copies a job by its ``__init__`` arguments: every field must be one."""
    assert all(a.init for a in attrs.fields(Job))


def test_a_checked_trace_is_checked_by_the_record_rules() -> None:
    """A repeated job number is the input error it is in a replay, naming its line."""
    records = _records()
    records[3] = attrs.evolve(records[3], job_number=2)
    with pytest.raises(InputError, match="appears twice") as caught:
        CheckedJobs(cast(SwfReader, _Records(records)), make_estimates("trace"))
    assert caught.value.line == 4
