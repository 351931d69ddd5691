"""EASY's inner loops: the compiled twins give exactly the Python ones' answers.

``scan_plain``, ``scan_sets`` and ``shadow`` (sitesim/schedulers/_backfill.pyx) replace
the Python loops of :mod:`sitesim.schedulers.backfill` where the package was built with
them; here both run on the same random queues and running lists, including the error a
job too large for the machine raises, and whole EASY and timed:easy runs with each
compare event for event. Where the compiled module was not built, the comparison is
skipped, saying so; the scheduler tests then run the Python loops.
"""

from __future__ import annotations

import sys
import types

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitesim.schedulers import backfill, easy
from tests.helpers import job, run_jobs
from tests.schedulers.test_invariants import workloads

needs_compiled = pytest.mark.skipif(
    backfill.scan_plain is backfill.scan_python,
    reason="the compiled backfill loops are not in use (not built: no C compiler at install; or SITESIM_COMPILED=0): nothing to compare",
)


@st.composite
def scans(draw: st.DrawFn):
    """(queue, first, free, now, end_by, extra): a queue of up to 60 jobs and a shadow."""
    queue = [job(i + 1, 0, draw(st.integers(1, 64)), 0, draw(st.integers(0, 500))) for i in range(draw(st.integers(0, 60)))]
    first = draw(st.integers(0, len(queue)))
    free = draw(st.integers(0, 64))
    now = draw(st.integers(0, 1000))
    return queue, first, free, now, now + draw(st.integers(0, 400)), draw(st.integers(0, free))


@needs_compiled
@settings(max_examples=300, deadline=None, derandomize=True)
@given(scans())
def test_scan_plain_is_the_python_scan(case) -> None:
    assert backfill.scan_plain(*case) == backfill.scan_python(*case)


@needs_compiled
def test_scan_plain_does_not_wrap_around_on_huge_estimates() -> None:
    case = ([job(1, 0, 1, 0, (1 << 63) - 1)], 0, 4, 5, 100, 0)
    assert backfill.scan_plain(*case) == backfill.scan_python(*case) == ([], 4, 0)


@st.composite
def set_scans(draw: st.DrawFn):
    """A :func:`scans` case with a timed-run pass's two sets: some queued jobs in their
    trial run (``blocked``), others running past it since an earlier start (``continuing``)."""
    queue, first, free, now, end_by, extra = draw(scans())
    blocked, continuing = set(), set()
    for seq, queued in enumerate(queue):
        queued.seq = seq
        phase = draw(st.sampled_from(("waiting", "waiting", "trial", "past trial")))
        if phase == "trial":
            blocked.add(seq)
        elif phase == "past trial":
            continuing.add(seq)
            queued.start = now - draw(st.integers(0, 600))
    return queue, first, free, now, end_by, extra, blocked, continuing


@needs_compiled
@settings(max_examples=300, deadline=None, derandomize=True)
@given(set_scans())
def test_scan_sets_is_the_python_scan(case) -> None:
    assert backfill.scan_sets(*case) == backfill.scan_sets_python(*case)


@needs_compiled
def test_scan_sets_does_not_wrap_around_on_huge_estimates() -> None:
    going_on = job(2, 0, 1, 0, (1 << 63) - 1)
    going_on.seq, going_on.start = 2, 0
    case = ([job(1, 0, 1, 0, (1 << 63) - 1), going_on], 0, 4, 5, 100, 0, set(), {2})
    assert backfill.scan_sets(*case) == backfill.scan_sets_python(*case) == ([], 4, 0)


def test_scan_sets_refuses_a_negative_start() -> None:
    for scan in {backfill.scan_sets, backfill.scan_sets_python}:  # the twin, where built
        with pytest.raises(ValueError, match="got -1"):
            scan([job(1, 0, 1, 1)], -1, 4, 0, 10, 0, set(), set())


@st.composite
def running_lists(draw: st.DrawFn):
    """(running, need, free): sorted (expected end, seq, size) with frequent equal ends."""
    ends = sorted(draw(st.lists(st.integers(0, 50), max_size=30)))
    running = [(end, seq, draw(st.integers(1, 16))) for seq, end in enumerate(ends)]
    return running, draw(st.integers(1, 200)), draw(st.integers(0, 16))


@needs_compiled
@settings(max_examples=300, deadline=None, derandomize=True)
@given(running_lists())
def test_shadow_is_the_python_shadow(case) -> None:
    try:
        expected = backfill.shadow_python(*case)
    except RuntimeError as error:
        with pytest.raises(RuntimeError, match=str(error)):
            backfill.shadow(*case)
    else:
        assert backfill.shadow(*case) == expected


def test_the_python_loops_are_used_when_the_compiled_module_is_missing(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "sitesim.schedulers._backfill", None)  # import fails
    assert backfill._compiled() is None


def test_a_compiled_module_older_than_its_source_says_to_rebuild(monkeypatch) -> None:
    monkeypatch.delenv("SITESIM_COMPILED", raising=False)
    stale = types.ModuleType("sitesim.schedulers._backfill")
    stale.scan_plain = backfill.scan_python  # type: ignore[attr-defined]
    stale.shadow = backfill.shadow_python  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sitesim.schedulers._backfill", stale)
    with pytest.raises(ImportError, match=r"older _backfill.pyx \(it has no scan_sets\): rebuild it"):
        backfill._compiled()


def events(jobs: list, scheduler: str) -> list:
    fresh = [job(j.id, j.submit, j.size, j.runtime, j.estimate) for j in jobs]
    return run_jobs(fresh, 8, scheduler).events


@needs_compiled
@settings(max_examples=100, deadline=None, derandomize=True)
@given(workloads(nodes=8), st.sampled_from(("easy", "timed:easy:5", "timed:easy:30")))
def test_schedules_are_the_same_with_either_loops(case, scheduler) -> None:
    """Whole EASY and timed:easy runs (short trials, so that jobs are killed and go on
    past their trial), event for event, with the compiled loops and then the Python ones."""
    _nodes, jobs = case
    compiled = events(jobs, scheduler)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(backfill, "scan_plain", backfill.scan_python)
        patch.setattr(backfill, "scan_sets", backfill.scan_sets_python)
        patch.setattr(backfill, "shadow", backfill.shadow_python)
        patch.setattr(easy, "shadow", backfill.shadow_python)
        assert events(jobs, scheduler) == compiled
