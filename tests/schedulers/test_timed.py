"""Timed-run scheduling: the paper's worked examples, EASY commitment, specs, metrics.

The two instances are those of Thebe, Bunde & Leung (2009), section 2.1, on a
100-processor machine with 90 s trials and FCFS as the base scheduler. The expected
schedules are derived by hand from the paper's rules and its narrative of Figs. 2-3.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitesim.cli import main
from sitesim.errors import InputError
from sitesim.metrics.stats import RunMetrics
from sitesim.schedulers import make_scheduler
from sitesim.runs.replay import ReplayConfig, run_replay
from sitesim.schedulers.commit import Phase
from sitesim.schedulers.timed import DEFAULT_TRIAL, TimedScheduler
from sitesim.workload.job import Job
from tests.helpers import job, run_jobs, stress_trace

NODES = 100


def timed(base: str = "fcfs", trial: int = 90) -> TimedScheduler:
    return TimedScheduler(NODES, base, trial, record=True)


def fig2(c_runtime: int) -> list:
    """Jobs A-C: A 80 procs at 0 for 300 s, B 100 procs at 100 for 40 s, C 20 at 110."""
    return [job(1, 0, 80, 300), job(2, 100, 100, 40), job(3, 110, 20, c_runtime, 1000)]


def test_fig2_trial_run_continues_until_replaced_and_then_is_restarted() -> None:
    sched = timed()
    rec = run_jobs(fig2(250), NODES, sched)
    # A: trial at 0, nothing else waits when it ends, so it just goes on (committed at 90).
    # C: trial 110-200, then runs on the idle nodes until B's trial needs them at 300.
    # B: its trial (which completes it) starts when A ends; C restarts after B.
    assert rec.events == [
        (0, "submit", 1), (0, "start", 1), (100, "submit", 2), (110, "submit", 3),
        (110, "start", 3), (300, "end", 1), (300, "kill", 3), (300, "start", 2),
        (340, "end", 2), (340, "start", 3), (590, "end", 3),
    ]  # fmt: skip
    assert sched.log == [
        (0, "trial", 1), (90, "expire", 1), (90, "commit", 1), (110, "trial", 3),
        (200, "expire", 3), (300, "trial", 2), (300, "kill", 3), (340, "commit", 3),
    ]  # fmt: skip
    a, b, c = (j for j in sorted(rec.ended, key=lambda j: j.id))
    assert (a.start, a.restarts) == (0, 0)
    assert (c.first_start, c.start, c.restarts, c.lost) == (110, 340, 1, 190)
    assert c.wait == 230 and c.first_start - c.submit == 0
    assert rec.killed == [(3, 110, 300)]


def test_fig2_job_of_length_between_90_and_190_completes_in_its_extension() -> None:
    sched = timed()
    rec = run_jobs(fig2(150), NODES, sched)
    assert rec.starts() == {1: 0, 3: 110, 2: 300}
    assert (300, "kill", 3) not in rec.events
    assert (260, "end", 3) in rec.events
    assert sched.counts["ended_past_trial"] == 1 and sched.counts["killed"] == 0


def fig3() -> list:
    return [
        job(1, 0, 70, 90), job(2, 5, 70, 60), job(3, 10, 50, 200),
        job(4, 20, 20, 140), job(5, 25, 30, 40),
    ]  # fmt: skip


def test_fig3_long_job_waits_for_its_predecessor_to_commit() -> None:
    """Fig. 3(b): D, killed when E's trial needs its nodes, is not restarted at 150 when
    C begins its trial, but only once C commits (end of C's trial, 240)."""
    sched = timed()
    rec = run_jobs(fig3(), NODES, sched)
    assert rec.events == [
        (0, "submit", 1), (0, "start", 1), (5, "submit", 2), (10, "submit", 3),
        (20, "submit", 4), (20, "start", 4), (25, "submit", 5),
        (90, "end", 1), (90, "start", 2),  # A completes exactly in its trial; B's trial
        (110, "kill", 4), (110, "start", 5),  # D's trial over: E's trial replaces it
        (150, "end", 2), (150, "end", 5), (150, "start", 3),  # C's trial
        (240, "start", 4),  # C commits (goes on), then D restarts
        (350, "end", 3), (380, "end", 4),
    ]  # fmt: skip
    assert [e for e in sched.log if e[1] == "commit"] == [(240, "commit", 3), (240, "commit", 4)]
    assert sched.counts == {
        "trials": 5, "ended_in_trial": 3, "ended_past_trial": 0, "continued": 1,
        "killed": 1, "restarted": 1,
    }  # fmt: skip


def test_easy_commits_an_expired_job_as_a_backfill_so_a_later_trial_cannot_kill_it() -> None:
    """C's run past its trial ends (by its estimate) before the head B could start, so
    EASY commits it at once; FCFS cannot look past B, and D's trial kills C."""
    jobs = lambda: [  # noqa: E731
        job(1, 0, 60, 1000), job(2, 10, 100, 500), job(3, 20, 40, 200), job(4, 150, 40, 50),
    ]
    easy = timed("easy")
    rec = run_jobs(jobs(), NODES, easy)
    assert (110, "commit", 3) in easy.log
    assert rec.killed == []
    assert rec.starts() == {1: 0, 3: 20, 4: 220, 2: 1000}
    fcfs = timed("fcfs")
    rec = run_jobs(jobs(), NODES, fcfs)
    assert rec.killed == [(3, 20, 150)]
    assert rec.starts()[4] == 150


def test_trial_runs_ignore_the_easy_reservation() -> None:
    """B (whole machine) is reserved for 100, when A ends; C's trial starts anyway and is
    killed for B's trial then; plain EASY would not backfill C (it would delay B)."""
    jobs = lambda: [job(1, 0, 50, 100), job(2, 1, 100, 10), job(3, 2, 50, 300)]  # noqa: E731
    rec = run_jobs(jobs(), NODES, "easy")
    assert rec.starts() == {1: 0, 2: 100, 3: 110}
    rec = run_jobs(jobs(), NODES, timed("easy"))
    assert rec.killed == [(3, 2, 100)]
    assert rec.starts() == {1: 0, 2: 100, 3: 110}


def test_estimates_and_failures_end_a_trial_for_good() -> None:
    killed = job(1, 0, 10, 500, 30)  # killed at its estimate inside the trial
    failing = job(2, 0, 10, 20)
    failing.failed = True
    rec = run_jobs([killed, failing], NODES, timed("easy"))
    assert {(j.id, j.end, j.restarts) for j in rec.ended} == {(1, 30, 0), (2, 20, 0)}
    assert killed.killed


def test_metrics_count_killed_runs_as_occupied_and_lost() -> None:
    sched = timed()
    metrics = RunMetrics.with_threshold(NODES, sched.short_job_threshold)
    run_jobs(fig2(250), NODES, sched, observers=[metrics])
    metrics.close()
    summary = metrics.system_summary()
    useful = 80 * 300 + 100 * 40 + 20 * 250
    lost = 20 * 190
    assert metrics.busy_integral == useful + lost
    assert summary["wasted_work"] == lost and summary["killed_runs"] == 1
    assert summary["utilization"] == pytest.approx((useful + lost) / (NODES * 590))
    assert summary["useful_utilization"] == pytest.approx(useful / (NODES * 590))
    # Waits: A 0, B 200, C 230 (to its final run); B is the only short job (40 s).
    assert summary["max_wait"] == 230 and summary["mean_first_wait"] == pytest.approx(200 / 3)
    assert (summary["short_jobs"], summary["max_wait_short"]) == (1, 200)
    assert summary["restarted"] == 1 and summary["short_threshold"] == 90


@pytest.mark.parametrize(
    ("spec", "base", "trial"),
    [("timed:fcfs", "fcfs", DEFAULT_TRIAL), ("timed:easy:300", "easy", 300)],
)
def test_specs(spec: str, base: str, trial: int) -> None:
    sched = make_scheduler(spec, 16)
    assert isinstance(sched, TimedScheduler)
    assert (sched.base, sched.trial_length, sched.spec) == (base, trial, f"timed:{base}:{trial}")


@pytest.mark.parametrize("spec", ["timed", "timed:cons", "timed:easy:x", "timed:easy:0", "fcfs:3"])
def test_bad_specs_are_input_errors(spec: str) -> None:
    with pytest.raises(InputError):
        make_scheduler(spec, 16)


def test_timed_partition_keeps_its_idle_nodes_right_through_kills() -> None:
    """Fig. 2 in a 100-node timed:fcfs partition beside an EASY one: same schedule."""
    from sitesim.schedulers.partitioned import PartitionedScheduler, PartitionSpec

    sched = PartitionedScheduler(
        [PartitionSpec("small", 10, "easy", max_size=1), PartitionSpec("timed", 100, "timed:fcfs")]
    )
    jobs = [*fig2(250), job(4, 5, 1, 400)]
    rec = run_jobs(jobs, 110, sched)
    assert rec.killed == [(3, 110, 300)]
    assert rec.starts() == {1: 0, 4: 5, 3: 340, 2: 300}
    assert sched.free == [10, 100]


def test_cli_replays_under_a_timed_scheduler(tmp_path: Path) -> None:
    trace = tmp_path / "t.swf"
    trace.write_text(
        "; MaxProcs: 4\n"
        "1 0 -1 500 4 -1 -1 4 600 -1 1 1 1 -1 -1 -1 -1 -1\n"
        "2 10 -1 20 2 -1 -1 2 600 -1 0 1 1 -1 -1 -1 -1 -1\n"
    )
    assert isinstance(TimedScheduler.summary, str)  # the help line, not shadowed
    assert main(["-c", str(trace), "-s", "timed:easy:60", "--out", str(tmp_path / "out")]) == 0
    doc = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert doc["trial_runs"]["trial_length"] == 60 and doc["trial_runs"]["killed"] == 1
    assert doc["system"]["failed_short_jobs"] == 1 and doc["system"]["short_threshold"] == 60


class CheckedTimed(TimedScheduler):
    """Checks, at every pass, that the sets the bases read agree with the phases."""

    passes = 0

    def schedule(self, now: int, free: int) -> list[Job]:
        phases = self.phase
        assert self.trials == {seq for seq, p in phases.items() if p == Phase.TRIAL}
        assert set(self.expired) == {seq for seq, p in phases.items() if p == Phase.EXPIRED}
        self.passes += 1
        return super().schedule(now, free)


@pytest.mark.parametrize("base", ["fcfs", "easy"])
def test_the_bases_sets_follow_the_phases(tmp_path: Path, base: str) -> None:
    """``trials`` and ``expired`` (what a base reads instead of asking per job) are kept
    in step with ``phase`` through trials, expiries, kills, commitments and ends."""
    trace = stress_trace(tmp_path / "stress.swf", n=600)
    scheduler = CheckedTimed(32, base, 30)
    run_replay(ReplayConfig(trace=str(trace), scheduler=f"timed:{base}:30"), scheduler=scheduler)
    assert scheduler.passes > 600 and scheduler.counts["killed"] > 0
