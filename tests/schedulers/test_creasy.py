"""creasy, the user-aware EASY: what it may read, whom it serves first, its spec and report.

The scheduler must decide from what a real batch scheduler sees of a job: its submit
time, user id, arrival position, size, estimate, and when it started and ended. The
simulated user's runtime, think time, dependency and trace record are the simulator's
knowledge, not the scheduler's. The tests below watch every attribute read made from
code in ``sitesim/schedulers/`` (creasy and the EASY kernel it runs on, compiled twins
included: their reads go through the same attribute lookup) and every argument the
rest of the simulator hands the policy. Invariants and self-replay of creasy are in
tests/schedulers/test_variants.py.
"""

from __future__ import annotations

import ast
import inspect
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sitesim
from sitesim.errors import InputError
from sitesim.schedulers import creasy
from sitesim.schedulers.base import make_scheduler
from sitesim.schedulers.creasy import CreasyScheduler
from sitesim.workload.job import Job
from sitesim.workload.swf import read_swf
from tests.helpers import job, run_jobs, stress_trace
from tests.schedulers.test_invariants import _fresh, workloads

SCHEDULERS = Path(sitesim.__file__).resolve().parent / "schedulers"
JOB_FILE = sys.modules[Job.__module__].__file__
#: What a production scheduler knows of a job.
VISIBLE = {"submit", "user", "seq", "size", "estimate", "start", "end", "id"}
#: What only the simulation knows: the scheduler must never read these.
HIDDEN = {"runtime", "think", "preceding", "source", "executable", "failed"}


_IN_SCHEDULERS: dict[str, bool] = {}


def _scheduler_code(filename: str) -> bool:
    """Whether ``filename`` is a module of sitesim/schedulers (cached: asked per read)."""
    known = _IN_SCHEDULERS.get(filename)
    if known is None:
        known = _IN_SCHEDULERS[filename] = Path(filename).resolve().parent == SCHEDULERS
    return known


def _read_by_scheduler() -> bool:
    """Whether the code reading a job's attribute is the scheduler's, looking past the
    job's own properties (``job.wait`` reads ``start`` on behalf of its caller, through
    the watching ``__getattribute__`` of this file)."""
    frame = sys._getframe(2)
    while frame.f_code.co_filename in (JOB_FILE, __file__) and frame.f_back is not None:
        frame = frame.f_back
    return _scheduler_code(frame.f_code.co_filename)


def watched(reads: set[str]) -> type[Job]:
    """A Job class recording the names of the attributes that scheduler code reads.

    No slots of its own, so a job built as a plain Job can be switched to it in place.
    """

    class Watched(Job):
        __slots__ = ()

        def __getattribute__(self, name: str) -> Any:
            if _read_by_scheduler():
                reads.add(name)
            return object.__getattribute__(self, name)

    return Watched


def _stress_jobs(cls: type[Job], tmp_path: Path) -> list[Job]:
    """The stress workload (kills, zero runtimes, equal submit times) as ``cls`` jobs,
    with think times, dependencies and trace records the scheduler must not look at."""
    _, records = read_swf(stress_trace(tmp_path / "stress.swf", n=600, nodes=32))
    jobs = []
    for r in records:
        runtime = int(r.run_time)
        estimate = int(r.requested_time) if r.requested_time > 0 else max(runtime, 1)
        jobs.append(cls(
            id=r.job_number, submit=int(r.submit_time), size=r.allocated_processors,
            runtime=runtime, estimate=estimate, user=r.user_id,
            preceding=r.job_number - 1, think=5, source=r,
        ))
    return jobs


def test_reads_only_what_a_real_scheduler_sees_in_a_replay(tmp_path: Path) -> None:
    reads: set[str] = set()
    jobs = _stress_jobs(watched(reads), tmp_path)
    recorder = run_jobs(jobs, 32, "creasy:aging=2h")
    assert len(recorder.ended) == len(jobs)
    assert any(j.killed for j in jobs) and any(j.wait > 7200 for j in jobs)  # aging and kills exercised
    assert not reads & HIDDEN, f"the scheduler read {sorted(reads & HIDDEN)}"
    assert reads <= VISIBLE, f"unexpected reads: {sorted(reads - VISIBLE)}"
    # The watch works: creasy's order needs these, the EASY kernel the rest.
    assert {"submit", "user", "seq", "size", "estimate"} <= reads


def test_the_watch_sees_a_peeking_scheduler() -> None:
    """Non-vacuity: a read of ``runtime`` by code compiled as a scheduler module is seen,
    also through a job property, and a read from elsewhere is not."""
    reads: set[str] = set()
    spy = watched(reads)(id=1, submit=0, size=1, runtime=5, estimate=9, start=2, end=7)
    namespace: dict[str, Any] = {}
    exec(compile("def peek(job):\n    return job.runtime, job.ran", str(SCHEDULERS / "creasy.py"), "exec"), namespace)
    assert spy.think == -1 and not reads  # this file is no scheduler
    assert namespace["peek"](spy) == (5, 5)
    assert reads == {"runtime", "ran", "start", "end"}


class Recording(CreasyScheduler):
    """creasy that records what the simulator hands it and watches the jobs it gets."""

    def __init__(self, nodes: int, reads: set[str], **options: Any) -> None:
        super().__init__(nodes, **options)
        self.watched = watched(reads)
        self.calls: list[tuple[str, tuple[type, ...]]] = []

    def __getattribute__(self, name: str) -> Any:
        value = object.__getattribute__(self, name)
        if name.startswith("_") or not inspect.ismethod(value) or _scheduler_code(sys._getframe(1).f_code.co_filename):
            return value
        calls = object.__getattribute__(self, "calls")

        def call(*args: Any, **kwargs: Any) -> Any:
            calls.append((name, tuple(type(a) for a in (*args, *kwargs.values()))))
            return value(*args, **kwargs)

        return call

    def admits(self, job: Job) -> bool:
        job.__class__ = self.watched  # from here on, scheduler reads of this job are seen
        return super().admits(job)

    def enqueue(self, job: Job, now: int) -> None:
        job.__class__ = self.watched
        super().enqueue(job, now)


def test_site_level_run_hands_creasy_jobs_and_times_never_users() -> None:
    reads: set[str] = set()
    policy = Recording(128, reads, aging=3600)
    result = sitesim.simulate(users=12, scheduler=policy, duration_days=8, seed=4)
    assert result.summary["system"]["completed"] > 500
    assert not reads & HIDDEN and reads <= VISIBLE, sorted(reads)
    assert {"submit", "user", "estimate"} <= reads
    seen = {name for name, _ in policy.calls}
    assert {"enqueue", "job_ended", "schedule", "report"} <= seen
    for name, types in policy.calls:
        if name == "bind":  # the site's handle to kill runs and set timers
            continue
        for t in types:
            assert issubclass(t, (Job, int)), f"{name} was given a {t.__module__}.{t.__qualname__}"
            assert not t.__module__.startswith("sitesim.users")


def test_creasy_imports_nothing_of_users_runs_or_the_engine() -> None:
    tree = ast.parse((SCHEDULERS / "creasy.py").read_text(encoding="utf-8"))
    modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    modules |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    sitesim_modules = {m for m in modules if m.startswith("sitesim")}
    assert sitesim_modules <= {
        "sitesim.errors", "sitesim.schedulers.base", "sitesim.schedulers.easy",
        "sitesim.schedulers.options", "sitesim.workload.job", "sitesim.schedulers.ranked",
        "sitesim.compiled", "sitesim.schedulers._priority",  # its compiled twin
    }, sorted(sitesim_modules)


# --- whom it serves first --------------------------------------------------------------


def _one_node(jobs: list[Job], spec: str = "creasy") -> dict[int, int]:
    return run_jobs(jobs, 1, spec).starts()


def with_user(j: Job, user: int) -> Job:
    j.user = user
    return j


def test_equal_estimates_the_most_recently_active_user_first() -> None:
    # Job 1 holds the node until 10,000. Users 2 and 3 last interacted at their
    # submissions (100 and 5,000); user 1 just saw job 1 end.
    jobs = [
        with_user(job(1, 0, 1, 10_000), 1),
        with_user(job(2, 100, 1, 500), 2),
        with_user(job(4, 200, 1, 500), 1),
        with_user(job(3, 5_000, 1, 500), 3),
    ]
    starts = _one_node(jobs)
    assert starts == {1: 0, 4: 10_000, 3: 10_500, 2: 11_000}
    easy = run_jobs([with_user(job(j.id, j.submit, 1, j.runtime), j.user) for j in jobs], 1, "easy").starts()
    assert easy == {1: 0, 2: 10_000, 4: 10_500, 3: 11_000}


def test_shorter_job_first_among_users_equally_present() -> None:
    jobs = [with_user(job(1, 0, 1, 1_000), 1), with_user(job(2, 10, 1, 900), 2), with_user(job(3, 10, 1, 300), 3)]
    assert _one_node(jobs) == {1: 0, 3: 1_000, 2: 1_300}


def test_a_job_waiting_past_aging_goes_first() -> None:
    def jobs() -> list[Job]:
        return [
            with_user(job(1, 0, 1, 7_200), 1),
            with_user(job(2, 1, 1, 5_000), 2),  # long, its user long gone: lowest value
            with_user(job(3, 7_000, 1, 10), 3),  # short, its user just submitted
        ]

    assert _one_node(jobs()) == {1: 0, 3: 7_200, 2: 7_210}
    aged = make_scheduler("creasy:aging=1h", 1)
    assert run_jobs(jobs(), 1, aged).starts() == {1: 0, 2: 7_200, 3: 12_200}
    assert aged.report(0)["creasy"]["aged_first"] >= 1


def test_presence_is_one_within_a_minute_and_fades() -> None:
    policy = CreasyScheduler(8)
    assert policy.presence(0) == policy.presence(60) == 1.0
    # The defaults' documented half-life: one half after 22 minutes.
    assert policy.presence(22 * 60) == pytest.approx(0.5, abs=0.01)


@settings(max_examples=50, deadline=None)
@given(
    slope=st.floats(min_value=-10, max_value=-0.01),
    taus=st.lists(st.integers(min_value=0, max_value=10**9), min_size=2, max_size=20),
)
def test_presence_decreases_with_idle_time(slope: float, taus: list[int]) -> None:
    policy = CreasyScheduler(8, slope=slope)
    values = [policy.presence(t) for t in sorted(taus)]
    assert all(0.0 <= v <= 1.0 for v in values)
    assert all(a >= b for a, b in zip(values, values[1:]))
    assert policy.presence(61) < 1.0


# --- spec and API ----------------------------------------------------------------------


def test_spec_round_trip() -> None:
    policy = make_scheduler("creasy:aging=2h,slope=-1.5", 64)
    assert isinstance(policy, CreasyScheduler)
    assert (policy.aging, policy.slope) == (7_200, -1.5)
    assert policy.spec == "creasy:aging=7200,slope=-1.5"
    assert make_scheduler(policy.spec, 64).spec == policy.spec
    assert make_scheduler("creasy", 64).spec == "creasy:aging=604800,slope=-1.2"
    assert CreasyScheduler(64, aging=7_200, slope=-1.5).spec == policy.spec


@pytest.mark.parametrize(
    "spec",
    [
        "creasy:aging=0", "creasy:aging=-5", "creasy:aging=2x", "creasy:slope=0", "creasy:slope=1",
        "creasy:slope=-11", "creasy:slope=nan", "creasy:slope=abc", "creasy:speed=1", "creasy:aging",
        "creasy:aging=1h,aging=2h",
    ],
)
def test_bad_specs_are_input_errors(spec: str) -> None:
    with pytest.raises(InputError) as caught:
        make_scheduler(spec, 64)
    assert "\n" not in str(caught.value) and "creasy" in str(caught.value)


def test_report_in_summary_json(tmp_path: Path) -> None:
    sitesim.simulate(users=6, scheduler="creasy:aging=2h,slope=-1.5", duration_days=5, seed=3, out=tmp_path)
    summary = json.loads((tmp_path / "summary.json").read_text())
    report = summary["system"]["creasy"]
    assert report["aging"] == 7_200 and report["slope"] == -1.5
    assert report["passes"] > 0 and 0 <= report["aged_first"] <= report["passes"]
    assert summary["productivity"]["users"] == 6



# --- the compiled ranking and the passes that need no order ---------------------------------

needs_twin = pytest.mark.skipif(creasy.QUEUE is None, reason="the compiled queue is not in use (not built, or SITESIM_COMPILED=0)")


class RankedAtEveryPass(CreasyScheduler):
    """The specification: the whole queue in creasy's order (Python) at every pass, free
    nodes or not, and every pass a full one, as creasy did before the passes with no
    free node were spared the ranking and those that only arrivals followed resumed."""

    def order(self, now: int, free: int) -> bool:
        self.counts["passes"] += 1
        if self._rank(now):
            self.counts["aged_first"] += 1
        return True


@settings(max_examples=60, deadline=None)
@given(case=workloads(), users=st.lists(st.integers(1, 4), min_size=25, max_size=25),
       aging=st.sampled_from([5, 30, 200, 7 * 86_400]), slope=st.sampled_from([-1.2, -10.0, -0.5]))
def test_every_pass_starts_what_ranking_the_whole_queue_at_every_pass_starts(case, users: list[int], aging: int,
                                                                          slope: float) -> None:
    """Compiled or in Python, sparing the passes with no free node their ranking,
    resuming the last pass after arrivals and sorting only the jobs that fit (compiled)
    starts the same jobs at the same times, with the same report, as ranking the whole
    queue at every pass and making each pass a full one."""
    nodes, jobs = case
    runs = []
    for compiled in (True, False):
        for reference in (False, True):
            if compiled and creasy.QUEUE is None:
                continue
            fresh = _fresh(jobs)
            for j, user in zip(fresh, users):
                j.user = user
            with pytest.MonkeyPatch.context() as patch:
                if not compiled:
                    patch.setattr(creasy, "QUEUE", None)
                policy = (RankedAtEveryPass if reference else CreasyScheduler)(nodes, aging=aging, slope=slope)
                recorder = run_jobs(fresh, nodes, policy)
            runs.append((recorder.events, policy.report(0)))
    assert all(run == runs[0] for run in runs[1:])


def _waiting(draw: st.DrawFn) -> tuple[list[Job], dict[int, int], int]:
    n = draw(st.integers(1, 40))
    now = 100_000
    jobs = []
    for i in range(n):
        j = job(i + 1, draw(st.integers(0, now)), draw(st.integers(1, 16)), 1,
                draw(st.sampled_from([0, 1, 59, 60, 61, 600, 3_600, 2**40])))
        j.user = draw(st.integers(1, 6))
        j.seq = draw(st.integers(0, 10**6)) * 64 + i  # distinct, in no particular order
        jobs.append(j)
    # Each user's latest interaction: at or after their latest submission.
    latest: dict[int, int] = {}
    for j in jobs:
        latest[j.user] = max(latest.get(j.user, 0), j.submit)
    seen = {user: draw(st.integers(t, now)) for user, t in latest.items()}
    return jobs, seen, now


@needs_twin
@settings(max_examples=150, deadline=None)
@given(data=st.data(), nodes=st.integers(0, 20), aging=st.sampled_from([1_000, 50_000, 7 * 86_400]),
       slope=st.sampled_from([-1.2, -10.0, -0.1]))
def test_the_compiled_ranking_orders_the_jobs_a_pass_can_start_as_python_does(data, nodes: int, aging: int,
                                                                              slope: float) -> None:
    """The twin's keys are the Python ones, number for number; its order agrees with the
    whole queue in creasy's order up to the first job larger than the free nodes (where
    the head is at the latest) and on the jobs that fit; and it answers None exactly when
    no job fits."""
    jobs, seen, now = data.draw(st.composite(_waiting)())
    python = CreasyScheduler(64, aging=aging, slope=slope)
    twin = creasy.QUEUE(aging, creasy.B0, slope, creasy.MINUTE, python._at_once)  # type: ignore[misc]
    for user, t in seen.items():
        twin.interacted(user, t)
    for j in jobs:
        twin.add(j)
    python._seen = dict(seen)
    python.queue = list(jobs)
    aged = python._rank(now)
    expected = python.queue
    for j in jobs:
        if now - j.submit < aging:
            assert twin.key(j, now) == -python.presence(now - seen[j.user]) / max(j.estimate, 1)
    order, twin_aged = twin.rank(now, nodes)
    assert twin_aged == aged == twin.aged(now)
    if all(j.size > nodes for j in jobs):
        assert order is None
        return
    assert order is not None and sorted(j.seq for j in order) == sorted(j.seq for j in jobs)
    big = next((i for i, j in enumerate(expected) if j.size > nodes), len(expected))
    assert order[: big + 1] == expected[: big + 1]
    assert [j for j in order if j.size <= nodes] == [j for j in expected if j.size <= nodes]
    # Started jobs leave it as they leave the queue.
    for j in [j for j in order if j.size <= nodes][::2]:
        twin.remove(j)
        python.queue.remove(j)
    again, _ = twin.rank(now, 10**9)
    python._rank(now)
    assert (again or []) == python.queue
