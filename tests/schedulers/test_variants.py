"""The EASY variants on the one kernel: sjbf, easy++, multifactor (and los, creasy where
registered). Invariants over random workloads, audited pass by pass; equalities that
pin each variant to EASY where it must coincide; self-replay of site-level runs.

The audit (:func:`audited`) recomputes, at every pass and from the policy's own plan
(each running job's planned end, the queue order its :meth:`order` produced), the head
job's shadow time and extra nodes, and checks what the policy started against it:
heads in queue order, the head not delayed by the backfilled jobs, and no job left
behind that could have started without delaying it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import sitesim
from hypothesis import given, settings
from hypothesis import strategies as st

from sitesim.runs.replay import ReplayConfig, run_replay
from sitesim.runs.site import DAY, SiteConfig, run_site
from sitesim.schedulers import multifactor
from sitesim.schedulers.base import available, make_scheduler
from sitesim.schedulers.easy import EasyScheduler
from sitesim.schedulers.easypp import EasyPlusPlusScheduler
from sitesim.workload.job import Job
from tests.helpers import job, run_jobs
from tests.schedulers.test_invariants import EXAMPLES, _fresh, check_common, workloads
from tests.users.test_feedback import _same_schedule

#: The variants on the EASY kernel, as specs (multifactor also recomputing at every pass).
VARIANTS = [
    name
    for name in ("sjbf", "easy++", "easy++:correction=steps", "multifactor", "multifactor:period=0,favor=small", "los", "los:3", "creasy")
    if name.partition(":")[0] in available()
]
#: The variants that plan with the user's estimates (the head's reservation is then a
#: guarantee under exact estimates); easy++ plans with predictions that can move back.
PLANS_ESTIMATES = [spec for spec in VARIANTS if not spec.startswith("easy++")]


def free_at(t: int, nodes: int, running: list[tuple[int, int]]) -> int:
    return nodes - sum(size for end, size in running if end > t)


def shadow_time(need: int, now: int, nodes: int, running: list[tuple[int, int]]) -> int:
    for t in sorted({now, *(end for end, _ in running if end >= now)}):
        if free_at(t, nodes, running) >= need:
            return t
    raise AssertionError(f"a job of {need} nodes never fits on {nodes}")


def audited(spec: str, nodes: int) -> EasyScheduler:
    """An instance of ``spec``'s class that audits every pass (see the module docstring)."""
    base = make_scheduler(spec, nodes)
    assert isinstance(base, EasyScheduler)
    cls = type(base)

    class Audited(cls):  # type: ignore[valid-type, misc]
        def __init__(self) -> None:
            self.__dict__.update(base.__dict__)  # the configured instance's state, as is
            self.planned_end: dict[int, int] = {}
            self.passes = 0
            #: (time, blocked head's seq, its shadow time, jobs started ahead of it then)
            self.heads: list[tuple[int, int, int, int]] = []

        def replan(self, job: Job, end: int) -> None:
            super().replan(job, end)
            self.planned_end[job.seq] = end

        def job_ended(self, job: Job, now: int) -> None:
            super().job_ended(job, now)
            del self.planned_end[job.seq]

        def order(self, now: int, free: int) -> bool:
            moved = super().order(now, free)
            self.before = list(self.queue)  # the queue order this pass works with
            return moved

        def schedule(self, now: int, free: int) -> list[Job]:
            self.before = list(self.queue)  # arrival order, unless order() runs
            started = super().schedule(now, free)
            before = self.before
            self.passes += 1
            running = [(self.planned_end[j.seq], j.size) for j in self._running_jobs()]
            assert free == free_at(now, nodes, running), "free nodes differ from the plan"
            waiting = set(map(id, before))
            assert all(id(j) in waiting for j in started), "started a job that was not waiting"
            assert sum(j.size for j in started) <= free
            planned = {j.seq: now + self.planned(j) for j in started}
            k = 0  # heads: the prefix of the queue order that started
            while k < len(started) and k < len(before) and started[k] is before[k]:
                k += 1
            heads, backfilled = started[:k], started[k:]
            for j in heads:
                running.append((planned[j.seq], j.size))
            free_now = free - sum(j.size for j in started)
            if k < len(before):
                head = before[k]
                assert head is self.queue[0], "the head of the queue order did not stay first"
                assert head.size > free - sum(j.size for j in heads), "the head fitted but did not start"
                shadow = shadow_time(head.size, now, nodes, running)
                for j in backfilled:
                    running.append((planned[j.seq], j.size))
                assert free_at(shadow, nodes, running) >= head.size, f"head {head.id} delayed at {now}"
                self.heads.append((now, head.seq, shadow, k))
                extra = free_at(shadow, nodes, running) - head.size
                for j in self.queue[1:]:
                    harmless = now + self.planned(j) <= shadow or j.size <= extra
                    assert not (j.size <= free_now and harmless), f"job {j.id} could have backfilled at {now}"
            else:
                assert not backfilled
            for j in started:
                self.planned_end[j.seq] = planned[j.seq]
            return started

        def _running_jobs(self) -> list[Job]:
            return [j for j in self._jobs.values() if j.seq in self.planned_end]

        def enqueue(self, job: Job, now: int) -> None:
            self._jobs[job.seq] = job
            super().enqueue(job, now)

    scheduler = Audited()
    scheduler._jobs = {}  # type: ignore[attr-defined]
    return scheduler


@pytest.mark.parametrize("spec", VARIANTS)
@settings(max_examples=EXAMPLES // 2, deadline=None)
@given(case=workloads(), users=st.lists(st.integers(1, 3), min_size=25, max_size=25))
def test_variant_invariants_audited_pass_by_pass(spec: str, case, users: list[int]) -> None:
    nodes, jobs = case
    for j, user in zip(jobs, users):
        j.user = user
    scheduler = audited(spec, nodes)
    recorder = run_jobs(jobs, nodes, scheduler)
    check_common(nodes, jobs, recorder)
    assert scheduler.passes >= 1


@pytest.mark.parametrize("spec", PLANS_ESTIMATES)
@settings(max_examples=EXAMPLES // 2, deadline=None)
@given(case=workloads(), users=st.lists(st.integers(1, 3), min_size=25, max_size=25))
def test_head_never_delayed_beyond_its_reservation_under_exact_estimates(spec: str, case, users: list[int]) -> None:
    """While a job stays the head, its shadow time never moves later, and it starts by it.

    Under a priority order a job that arrives with a higher priority may start ahead of
    the head (it is then a head itself) and take nodes the head's reservation counted
    on: the guarantee lasts only while no job overtakes it, as in production systems.
    In arrival order nothing can start ahead of the head, so there the check is whole.
    """
    nodes, jobs = case
    for j, user in zip(jobs, users):
        j.user = user
        j.estimate = j.runtime
    scheduler = audited(spec, nodes)
    run_jobs(jobs, nodes, scheduler)
    start = {j.seq: j.start for j in jobs}
    previous: tuple[int, int, int, int] | None = None
    for entry in scheduler.heads:
        if previous is not None and previous[1] == entry[1] and not entry[3]:
            assert entry[2] <= previous[2], f"head {entry[1]}'s reservation moved from {previous[2]} to {entry[2]}"
        previous = entry
    # A job that was the blocked head at the last pass before it started, started by
    # the reservation it had then.
    for seq, begin in start.items():
        before = [entry for entry in scheduler.heads if entry[0] < begin]
        if before and before[-1][1] == seq and not any(e[3] for e in before if e[1] == seq):
            assert begin <= before[-1][2], f"head {seq} started at {begin}, after its reservation {before[-1][2]}"


@pytest.mark.parametrize(
    "spec",
    [
        "multifactor:size=0,fairshare=0",
        "multifactor:age=0,size=0,fairshare=0",
        "multifactor:size=0,fairshare=0,period=0",
        "multifactor:size=0,fairshare=0,max_age=30",
    ],
)
@settings(max_examples=EXAMPLES, deadline=None)
@given(case=workloads(), users=st.lists(st.integers(1, 3), min_size=25, max_size=25))
def test_multifactor_with_age_only_is_easy_byte_for_byte(spec: str, case, users: list[int]) -> None:
    nodes, jobs = case
    for j, user in zip(jobs, users):
        j.user = user
    easy = run_jobs(_fresh(jobs), nodes, "easy")
    fresh = _fresh(jobs)
    for j, user in zip(fresh, users):
        j.user = user
    assert run_jobs(fresh, nodes, spec).events == easy.events


@settings(max_examples=EXAMPLES, deadline=None)
@given(workloads())
def test_sjbf_with_equal_estimates_is_easy(case) -> None:
    """With every estimate equal, the estimate order is the arrival order."""
    nodes, jobs = case
    for j in jobs:
        j.estimate = 100
    assert run_jobs(_fresh(jobs), nodes, "sjbf").events == run_jobs(_fresh(jobs), nodes, "easy").events


def test_sjbf_backfills_the_shorter_job_first() -> None:
    """4 nodes, 3 busy until 100, and the head needs all 4 (shadow 100, no extra node).
    Two 1-node candidates arrive together for the one free node: a 90 s one, then a
    20 s one. Both end by the shadow time; EASY takes the first to arrive, SJBF the
    shorter."""
    jobs = [job(1, 0, 3, 100), job(2, 1, 4, 50), job(3, 2, 1, 90), job(4, 2, 1, 20)]
    easy_start = {j.id: j.start for j in run_jobs(_fresh(jobs), 4, "easy").started}
    sjbf_start = {j.id: j.start for j in run_jobs(_fresh(jobs), 4, "sjbf").started}
    assert easy_start[3] == 2 and easy_start[4] > 2
    assert sjbf_start[4] == 2 and sjbf_start[3] > 2


def test_easypp_predicts_from_the_users_last_two_runtimes_and_corrects() -> None:
    def run(spec: str) -> tuple[dict[str, int], list[Job]]:
        scheduler = make_scheduler(spec, 8)
        jobs = [job(1, 0, 1, 100, 1000), job(2, 0, 1, 300, 1000), job(3, 400, 1, 700, 1000)]
        for j in jobs:
            j.user = 7
        run_jobs(jobs, 8, scheduler)
        return scheduler.report(0)["predictions"], jobs

    # Job 3's prediction: ceil((100 + 300) / 2) = 200, under its runtime of 700. By
    # steps it is corrected 200 s into its run (to 200 + 60), at 260 (to 200 + 300) and
    # at 500 (to 200 + 900 = 1100, capped at the estimate 1000): three corrections.
    report, jobs = run("easy++:correction=steps")
    assert report == {"predicted": 1, "corrected": 3, "underpredicted": 1}
    assert not jobs[2].killed and jobs[2].end == 400 + 700
    # By the estimate: one correction, straight to 1000.
    report, jobs = run("easy++")
    assert report == {"predicted": 1, "corrected": 1, "underpredicted": 1}
    assert not jobs[2].killed and jobs[2].end == 400 + 700


class PassAfterEveryCorrection(EasyPlusPlusScheduler):
    """easy++ whose every correction drops the last pass's state and is followed by a
    full pass (as before a correction could keep that state and save the pass)."""

    def replan(self, job: Job, end: int) -> None:
        super().replan(job, end)
        self._settled = None

    def needs_pass(self, free: int) -> bool:
        return True


class CountingSkips(EasyPlusPlusScheduler):
    """easy++ counting the corrections after which the site holds no pass."""

    skipped = 0

    def needs_pass(self, free: int) -> bool:
        needed = super().needs_pass(free)
        self.skipped += not needed
        return needed


def _corrected_runs(jobs: list[Job], users: list[int], nodes: int, correction: str) -> tuple[list, list, int]:
    """Events and reports of ``jobs`` under easy++ with the passes after corrections
    saved, then with every one held; how many were saved."""
    runs = []
    saved = 0
    for cls in (CountingSkips, PassAfterEveryCorrection):
        fresh = _fresh(jobs)
        for j, user in zip(fresh, users):
            j.user = user
        policy = cls(nodes, correction)
        runs.append((run_jobs(fresh, nodes, policy).events, policy.report(0)))
        if isinstance(policy, CountingSkips):
            saved = policy.skipped
    return runs[0], runs[1], saved


@pytest.mark.parametrize("correction", ["estimate", "steps"])
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True)
@given(case=workloads(), users=st.lists(st.integers(1, 3), min_size=25, max_size=25))
def test_easypp_passes_saved_after_corrections_start_nothing(correction: str, case, users: list[int]) -> None:
    """A correction that leaves the head's shadow time and extra nodes no later and no
    more keeps the last pass's state, and with the same free nodes and no arrival the
    site holds no pass (``needs_pass``): event for event, and the same report, as with
    a full pass after every correction."""
    nodes, jobs = case
    saved, held, _ = _corrected_runs(jobs, users, nodes, correction)
    assert saved == held


@pytest.mark.parametrize("correction", ["estimate", "steps"])
def test_easypp_saves_passes_after_corrections_on_a_busy_machine(correction: str) -> None:
    """The rule is exercised (passes saved, others held) and changes nothing: a busy
    16-node machine whose users' runtimes vary, so that predictions often fall short."""
    rng = np.random.default_rng(35)
    n = 600
    jobs = [
        job(i + 1, int(t), int(z), int(r), int(e))
        for i, (t, z, r, e) in enumerate(
            zip(
                np.cumsum(rng.integers(0, 60, n)), rng.integers(1, 17, n), rng.integers(10, 2000, n),
                rng.integers(2000, 4000, n), strict=True,
            )
        )
    ]
    users = [int(u) for u in rng.integers(1, 6, n)]
    saved, held, skipped = _corrected_runs(jobs, users, 16, correction)
    assert saved == held
    corrected = saved[1]["predictions"]["corrected"]
    assert 0 < skipped < corrected


@pytest.mark.parametrize("spec", VARIANTS)
def test_site_level_run_replays_to_itself_with_feedback(tmp_path: Path, spec: str) -> None:
    out = tmp_path / "site"
    run_site(SiteConfig(users=12, scheduler=spec, estimates="f:3", duration=20 * DAY, seed=5), out=out)
    run_replay(
        ReplayConfig(trace=str(out / "trace.swf"), scheduler=spec, estimates="trace", feedback="absolute"),
        out=out / "fb",
    )
    _, compared = _same_schedule(out / "trace.swf", out / "fb" / "schedule.swf", spec)
    assert compared > 400


@pytest.mark.parametrize("spec", VARIANTS)
def test_partitions_run_every_variant(tmp_path: Path, spec: str) -> None:
    path = tmp_path / "p.toml"
    path.write_text(
        f'[[partitions]]\nname = "small"\nnodes = 32\nscheduler = "{spec}"\nmax_size = 8\n\n'
        f'[[partitions]]\nname = "big"\nnodes = 96\nscheduler = "{spec}"\n'
    )
    result = sitesim.simulate(users=8, scheduler=f"partitioned:{path}", duration=10, seed=2)
    assert result.summary["system"]["completed"] > 100
    assert [part["scheduler"] for part in result.summary["system"]["partitions"].values()] == [spec, spec]


@pytest.mark.skipif(multifactor.QUEUE is None, reason="the compiled queue is not in use (not built, or SITESIM_COMPILED=0)")
@pytest.mark.parametrize(
    "spec",
    [
        "multifactor:period=0",
        "multifactor:period=0,favor=small,age=5000,max_age=40",
        "multifactor:period=10,half_life=60",
        "multifactor:period=3,fairshare=50000",
        "multifactor:period=5,fairshare=0",
        "multifactor:period=4,half_life=1,fairshare=50000",
    ],
)
@settings(max_examples=EXAMPLES // 2, deadline=None)
@given(case=workloads(), users=st.lists(st.integers(1, 3), min_size=25, max_size=25))
def test_multifactor_ranks_the_same_compiled_or_in_python(spec: str, case, users: list[int]) -> None:
    """The compiled queue (which also computes the fair-share factors, keeps the
    users' usage, rescaled every 200 half-lives (``half_life=1``), and the report's sums
    of the factors at start) gives MultifactorScheduler.priority's order,
    event for event, and the same report, though it sorts only the jobs that fit in the
    free nodes at each pass."""
    nodes, jobs = case
    runs = []
    for compiled in (True, False):
        fresh = _fresh(jobs)
        for j, user in zip(fresh, users):
            j.user = user
        with pytest.MonkeyPatch.context() as patch:
            if not compiled:
                patch.setattr(multifactor, "QUEUE", None)
            policy = make_scheduler(spec, nodes)
            runs.append((run_jobs(fresh, nodes, policy).events, policy.report(0)))
    assert runs[0] == runs[1]


class FullPassMultifactor(multifactor.MultifactorScheduler):
    """multifactor whose every pass is a full one (as before the passes that only
    arrivals followed could resume the last after a computation)."""

    def order(self, now: int, free: int) -> bool:
        super().order(now, free)
        return True


@pytest.mark.parametrize("compiled", [True, False])
@settings(max_examples=EXAMPLES // 2, deadline=None)
@given(case=workloads(), users=st.lists(st.integers(1, 3), min_size=25, max_size=25), period=st.sampled_from([0, 3, 300]))
def test_multifactor_resumed_passes_start_what_full_passes_start(compiled: bool, case, users: list[int], period: int) -> None:
    """A pass that only arrivals followed tries only them, whatever the order of the
    jobs that waited: the same starts and report as a full pass every time."""
    if compiled and multifactor.QUEUE is None:
        pytest.skip("the compiled queue is not in use")
    nodes, jobs = case
    runs = []
    for cls in (multifactor.MultifactorScheduler, FullPassMultifactor):
        fresh = _fresh(jobs)
        for j, user in zip(fresh, users):
            j.user = user
        with pytest.MonkeyPatch.context() as patch:
            if not compiled:
                patch.setattr(multifactor, "QUEUE", None)
            policy = cls(nodes, multifactor.Priorities(period=period, fairshare=50_000, half_life=60))
            runs.append((run_jobs(fresh, nodes, policy).events, policy.report(0)))
    assert runs[0] == runs[1]


@pytest.mark.skipif(multifactor.QUEUE is None, reason="the compiled queue is not in use (not built, or SITESIM_COMPILED=0)")
@pytest.mark.parametrize("spec", ["multifactor:period=3,fairshare=50000,half_life=60", "multifactor:period=0", "creasy", "creasy:aging=40"])
@settings(max_examples=EXAMPLES // 2, deadline=None)
@given(case=workloads(), users=st.lists(st.integers(1, 3), min_size=25, max_size=25))
def test_compiled_queues_place_the_arrivals_where_a_search_finds_them(spec: str, case, users: list[int]) -> None:
    """A resumed pass takes its candidates' places from the compiled queue's last
    arrangement (``arrival_positions``): they are where ``list.index`` finds them."""
    nodes, jobs = case
    fresh = _fresh(jobs)
    for j, user in zip(fresh, users):
        j.user = user
    _check_positions(spec, nodes, fresh)


def _check_positions(spec: str, nodes: int, jobs: list[Job]) -> int:
    """Run ``jobs`` under ``spec``, checking every answer of ``arrival_positions``
    against ``list.index``; how many the compiled queue gave (not the search)."""
    policy = make_scheduler(spec, nodes)
    answered = []
    kept = type(policy).arrival_positions

    def checked(arrived: list[Job]) -> list[int]:
        answered.append(policy._ranked.positions(arrived) is not None)  # type: ignore[attr-defined]
        found = kept(policy, arrived)
        assert found == sorted(policy.queue.index(j) for j in arrived)
        return found

    policy.arrival_positions = checked  # type: ignore[method-assign]
    run_jobs(jobs, nodes, policy)
    return sum(answered)


@pytest.mark.skipif(multifactor.QUEUE is None, reason="the compiled queue is not in use (not built, or SITESIM_COMPILED=0)")
@pytest.mark.parametrize("spec", ["multifactor:period=3,fairshare=50000,half_life=60", "multifactor:period=0", "creasy"])
def test_the_compiled_queues_answer_the_resumed_passes_themselves(spec: str) -> None:
    # a busy 16-node machine, jobs arriving faster than they end: many resumed passes
    rng = np.random.default_rng(35)
    jobs = [
        job(i + 1, int(t), int(z), int(r))
        for i, (t, z, r) in enumerate(
            zip(np.cumsum(rng.integers(0, 40, 400)), rng.integers(1, 17, 400), rng.integers(50, 2000, 400), strict=True)
        )
    ]
    for j in jobs:
        j.user = j.id % 3 + 1
    assert _check_positions(spec, 16, jobs) > 0
