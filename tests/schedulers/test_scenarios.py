"""Hand-built scenarios after Mu'alem & Feitelson (2001), section 2.2 and Fig. 3.

Each test states the exact event trace ``(time, event, job)`` it expects, so a change
in tie-breaking or event order shows up as a readable diff. Estimates equal runtimes
unless a test says otherwise, so the "expected" schedule is also the real one.
"""

from __future__ import annotations

from sitesim.schedulers.fcfs import FcfsScheduler
from sitesim.workload.job import Job
from tests.helpers import job, run_jobs


def fig3_jobs() -> list[Job]:
    """10 nodes. A (7 nodes) runs 0-100; B (6) and C (4) queue behind it; D (3, long)."""
    return [
        job(1, 0, 7, 100),  # A: running, leaves 3 nodes free
        job(2, 1, 6, 50),  # B: the head; shadow time 100, extra nodes 10 - 6 = 4
        job(3, 2, 4, 30),  # C: second in the queue, does not fit in 3 free nodes
        job(4, 3, 3, 200),  # D: fits in 3 free nodes, ends after the shadow, 3 <= extra
    ]


def test_easy_backfill_delays_second_queued_job_but_not_the_head() -> None:
    """Fig. 3: D backfills on the extra nodes; B still starts at 100, C is pushed to 150."""
    recorder = run_jobs(fig3_jobs(), 10, "easy")
    assert recorder.events == [
        (0, "submit", 1),
        (0, "start", 1),
        (1, "submit", 2),
        (2, "submit", 3),
        (3, "submit", 4),
        (3, "start", 4),  # backfilled by condition (ii): 3 nodes <= 4 extra nodes
        (100, "end", 1),
        (100, "start", 2),  # the head, exactly at its shadow time
        (150, "end", 2),
        (150, "start", 3),  # would have started at 100 alongside B without D
        (180, "end", 3),
        (203, "end", 4),
    ]


def test_fcfs_on_fig3_starts_b_and_c_together_and_d_last() -> None:
    recorder = run_jobs(fig3_jobs(), 10, "fcfs")
    assert recorder.starts() == {1: 0, 2: 100, 3: 100, 4: 130}


def test_backfill_that_would_delay_the_head_is_refused() -> None:
    """Head B needs the whole machine: no extra nodes, so only jobs ending by 100 may go."""
    jobs = [
        job(1, 0, 7, 100),  # A
        job(2, 1, 10, 50),  # B: head, shadow 100, extra 0
        job(3, 2, 3, 99),  # ends at 101 > 100: would delay B, refused
        job(4, 3, 3, 97),  # ends at exactly 100: condition (i), backfilled
    ]
    recorder = run_jobs(jobs, 10, "easy")
    assert recorder.events == [
        (0, "submit", 1),
        (0, "start", 1),
        (1, "submit", 2),
        (2, "submit", 3),
        (3, "submit", 4),
        (3, "start", 4),
        (100, "end", 1),
        (100, "end", 4),
        (100, "start", 2),
        (150, "end", 2),
        (150, "start", 3),
        (249, "end", 3),
    ]


def test_extra_nodes_are_used_up_by_condition_ii() -> None:
    """Two long jobs each fit in the free nodes, but only one fits in the extra nodes."""
    jobs = [
        job(1, 0, 6, 100),  # A: leaves 4 free
        job(2, 1, 8, 50),  # B: head, shadow 100, extra 10 - 8 = 2
        job(3, 2, 2, 500),  # long, 2 <= extra 2: backfilled, extra now 0
        job(4, 3, 2, 500),  # long, fits in the 2 free nodes but extra is used up
        job(5, 4, 1, 96),  # short: ends at 100, backfilled by condition (i)
    ]
    recorder = run_jobs(jobs, 10, "easy")
    starts = recorder.starts()
    assert starts[3] == 2
    assert starts[5] == 4
    assert starts[2] == 100  # the head is not delayed
    # At 100, 10 - 8 (B) - 2 (job 3) = 0 nodes are free: job 4 waits for B to end.
    assert starts[4] == 150


def test_head_reservation_uses_estimates_not_runtimes() -> None:
    """A's estimate says 200 although it runs 100: EASY plans with 200 and lets C run
    past the real end of A; B is then started when A really ends, as soon as C allows."""
    jobs = [
        job(1, 0, 8, 100, 200),  # A: estimate 200 -> shadow for B is 200
        job(2, 1, 10, 50),  # B: head, whole machine
        job(3, 2, 2, 150),  # C: ends at 152 <= 200: backfilled by condition (i)
    ]
    recorder = run_jobs(jobs, 10, "easy")
    assert recorder.events == [
        (0, "submit", 1),
        (0, "start", 1),
        (1, "submit", 2),
        (2, "submit", 3),
        (2, "start", 3),
        (100, "end", 1),
        (152, "end", 3),
        (152, "start", 2),  # before its reservation at 200: the head is never late
        (202, "end", 2),
    ]


def test_completion_at_t_frees_nodes_for_a_submission_at_t() -> None:
    """At equal times: completions, then submissions, then one scheduling pass."""
    jobs = [job(1, 0, 4, 10), job(2, 10, 4, 5)]
    recorder = run_jobs(jobs, 4, "fcfs")
    assert recorder.events == [
        (0, "submit", 1),
        (0, "start", 1),
        (10, "end", 1),
        (10, "submit", 2),
        (10, "start", 2),
        (15, "end", 2),
    ]


def test_one_pass_sees_every_submission_of_an_instant() -> None:
    """Three jobs submitted at t=5 are scheduled together in one pass, in arrival order."""

    class Counting(FcfsScheduler):
        def __init__(self, nodes: int) -> None:
            super().__init__(nodes)
            self.calls: list[tuple[int, int]] = []

        def schedule(self, now: int, free: int) -> list[Job]:
            self.calls.append((now, len(self.queue)))
            return super().schedule(now, free)

    scheduler = Counting(4)
    jobs = [job(1, 0, 4, 5), job(2, 5, 2, 1), job(3, 5, 1, 1), job(4, 5, 1, 1)]
    recorder = run_jobs(jobs, 4, scheduler)
    assert scheduler.calls[:2] == [(0, 1), (5, 3)]
    assert recorder.events[3:10] == [
        (5, "submit", 2),
        (5, "submit", 3),
        (5, "submit", 4),
        (5, "start", 2),
        (5, "start", 3),
        (5, "start", 4),
        (6, "end", 2),
    ]


def test_job_killed_at_its_estimate_frees_nodes_then() -> None:
    jobs = [job(1, 0, 4, 100, 30), job(2, 1, 4, 10)]
    recorder = run_jobs(jobs, 4, "easy")
    assert recorder.events == [
        (0, "submit", 1),
        (0, "start", 1),
        (1, "submit", 2),
        (30, "end", 1),  # killed at its estimate, not at its runtime
        (30, "start", 2),
        (40, "end", 2),
    ]
    assert jobs[0].killed and not jobs[1].killed
