"""The two implementations of conservative backfilling's reservations give the same schedules.

The compiled one (sitesim/schedulers/_reservations.pyx) is a speed-up of the Python
reference, so every test here runs both on the same input and asserts the same event
trace, job for job and event for event, and the same availability lists on the way:
random workloads (hypothesis), the seeded stress trace (kills, zero runtimes, missing
requests), and a real log under inflated estimates. Where the compiled module was not
built they are skipped, saying so; the audits of test_conservative.py run on whichever
implementations exist.
"""

from __future__ import annotations

import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sitesim
from sitesim.schedulers import reservations
from sitesim.schedulers.conservative import ConservativeScheduler
from sitesim.schedulers.profile import MissedReservation
from sitesim.schedulers.reservations import RESERVATIONS, Reservations, ReservationsLike
from sitesim.workload.job import Job
from tests.helpers import job, run_jobs, stress_trace

needs_compiled = pytest.mark.skipif(
    RESERVATIONS is Reservations,
    reason="the compiled reservations are not in use (not built: no C compiler at install; or SITESIM_COMPILED=0): nothing to compare",
)


class CompiledCons(ConservativeScheduler):
    reservations_class = RESERVATIONS


class PythonCons(ConservativeScheduler):
    reservations_class = Reservations


def policy_with(implementation: type[ReservationsLike]) -> type[ConservativeScheduler]:
    return CompiledCons if implementation is RESERVATIONS else PythonCons


class Snapshots:
    """Observer keeping, after every submission, the availability list, the job's
    reservation and the anchor point a request of the job's size for 60 s would get;
    and after every end, before the pass (so while a compression is owed), every
    waiting job's reservation."""

    def __init__(self, policy: ConservativeScheduler) -> None:
        self.policy = policy
        self.lists: list = []

    def on_submit(self, j: Job) -> None:
        p = self.policy
        self.lists.append((p.availability(j.submit), p.reservation(j), p.anchor_point(j.submit, j.size, 60)))

    def on_end(self, j: Job) -> None:
        self.lists.append([self.policy.reservation(w) for w in self.policy.queue])


def run_with(implementation: type[ReservationsLike], nodes: int, jobs: list[Job]):
    fresh = [job(j.id, j.submit, j.size, j.runtime, j.estimate) for j in jobs]
    policy = policy_with(implementation)(nodes)
    snapshots = Snapshots(policy)
    recorder = run_jobs(fresh, nodes, policy, observers=[snapshots])
    return recorder.events, snapshots.lists


@st.composite
def busy_workloads(draw: st.DrawFn) -> tuple[int, list[Job]]:
    """(nodes, jobs): up to 80 jobs, long queues, estimates from exact to 10x, some kills."""
    nodes = draw(st.integers(1, 32))
    t = 0
    jobs = []
    for i in range(draw(st.integers(1, 80))):
        t += draw(st.sampled_from([0, 0, 0, 1, 3, 10, 40]))
        runtime = draw(st.integers(0, 300))
        estimate = draw(st.one_of(st.integers(runtime, 10 * runtime + 1), st.integers(0, 300)))
        jobs.append(job(i + 1, t, draw(st.integers(1, nodes)), runtime, estimate))
    return nodes, jobs


@needs_compiled
@settings(max_examples=120, deadline=None, derandomize=True)
@given(busy_workloads())
def test_compiled_and_python_give_the_same_events_and_availability(case) -> None:
    nodes, jobs = case
    assert run_with(RESERVATIONS, nodes, jobs) == run_with(Reservations, nodes, jobs)


@needs_compiled
def test_same_schedule_on_the_stress_trace(tmp_path) -> None:
    trace = stress_trace(tmp_path / "stress.swf", n=3000)
    runs = [sitesim.replay(str(trace), scheduler=policy_with(impl), estimates="trace") for impl in (RESERVATIONS, Reservations)]
    assert runs[0].summary["system"]["killed"] > 0
    assert runs[0].jobs.tolist() == runs[1].jobs.tolist()
    assert runs[0].summary["system"] == runs[1].summary["system"]


@needs_compiled
@pytest.mark.traces
def test_same_schedule_on_a_real_log_with_inflated_estimates(trace_path) -> None:
    path = str(trace_path("KTH-SP2"))
    runs = [sitesim.replay(path, scheduler=policy_with(impl), estimates="f:4") for impl in (RESERVATIONS, Reservations)]
    assert runs[0].summary["system"]["completed"] > 28_000
    assert runs[0].jobs.tolist() == runs[1].jobs.tolist()


@needs_compiled
def test_long_queues_and_profiles_grow_past_the_first_allocation() -> None:
    """200 jobs at once on 8 nodes: over 64 waiting jobs and 64 breakpoints, early ends."""
    jobs = [job(i + 1, 0, 1 + i % 3, 50 + (7 * i) % 40, 100 + 3 * i) for i in range(200)]
    events, lists = run_with(RESERVATIONS, 8, jobs)
    assert (events, lists) == run_with(Reservations, 8, jobs)
    assert max(len(frames) for frames, *_ in lists[:200]) > 64


def test_switching_the_twins_off_keeps_them_unloaded(monkeypatch) -> None:
    monkeypatch.setenv("SITESIM_COMPILED", "0")
    assert reservations._compiled() is None


def test_the_python_reference_is_used_when_the_compiled_module_is_missing(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "sitesim.schedulers._reservations", None)  # import fails
    assert reservations._compiled() is None


@pytest.mark.parametrize("implementation", sorted({Reservations, RESERVATIONS}, key=str))
def test_errors_are_the_same_in_both(implementation) -> None:
    book = implementation(4)
    with pytest.raises(ValueError, match="^a job of 5 nodes never fits on 4 nodes$"):
        book.add(5, 10, 0)
    assert book.add(4, 10, 0) == 0
    assert book.add(1, 5, 0) == 10
    with pytest.raises(MissedReservation, match=r"^the job waiting at position 0 missed its reservation at 0 \(now 11\)$"):
        book.due(11)
    with pytest.raises(RuntimeError, match=r"^profile cannot give back 1 nodes over \[0, 10\) \(machine of 4\)$"):
        implementation(4).release(0, 10, 1)
    late = implementation(4)
    late.add(1, 10, 50)
    with pytest.raises(ValueError, match="^time 20 is before the profile's origin 50$"):
        late.frames(20)
    ending = r"^a reservation ending at 4611686018427387904 s is beyond the schedule's range \(2\*\*62 s\)$"
    with pytest.raises(OverflowError, match=ending):
        implementation(1).add(1, (1 << 62) - 10, 10)


@pytest.mark.parametrize("implementation", sorted({Reservations, RESERVATIONS}, key=str))
def test_an_error_after_an_early_end_leaves_the_same_state(implementation) -> None:
    """A refused request still settles the compression owed first, as a request that fits would."""
    book = implementation(4)
    assert [book.add(4, 100, 0), book.add(4, 50, 0)] == [0, 100]
    assert book.due(0) == [0]
    book.release(60, 100, 4)  # the running job ends 40 s early: the waiting one may move to 60
    with pytest.raises(ValueError, match="never fits"):
        book.add(5, 10, 60)
    # Compressed at 60 by the refused request, not later by this query.
    assert book.frames(70) == [(70, 110, 0), (110, None, 4)]


@pytest.mark.parametrize("implementation", sorted({Reservations, RESERVATIONS}, key=str))
def test_a_query_before_the_origin_is_refused_before_compressing(implementation) -> None:
    book = implementation(4)
    book.add(4, 100, 0)
    assert book.due(0) == [0]
    assert book.add(2, 30, 0) == 100
    book.release(50, 100, 4)  # origin 50, a compression owed
    with pytest.raises(ValueError, match="^time 20 is before the profile's origin 50$"):
        book.frames(20)
    assert book.frames(50) == [(50, 80, 2), (80, None, 4)]


@pytest.mark.parametrize("implementation", sorted({Reservations, RESERVATIONS}, key=str))
def test_lengths_past_the_range_are_refused(implementation) -> None:
    book = implementation(4)
    book.add(1, 10, 0)
    for call in (lambda: book.add(1, 1 << 62, 5), lambda: book.anchor(5, 1, 1 << 62)):
        with pytest.raises(OverflowError, match="beyond the schedule's range"):
            call()
    assert book.anchor(5, 4, 10) == 10
