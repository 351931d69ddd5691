"""EASY backfilling, as specified by Mu'alem & Feitelson (2001), section 2.2.

1. Shadow time and extra nodes: sort running jobs by expected termination (start +
   estimate), collect their nodes until the first queued job fits; that instant is the
   *shadow time*, and the nodes left over then are the *extra nodes*.
2. Backfill: scan the rest of the queue in arrival order; a job may start now if it
   fits in the free nodes and either ends by the shadow time or needs no more than the
   extra nodes (which it then uses up).

The paper repeats "find one backfill job" until none is left. Starting a job that ends
by the shadow time changes neither the shadow time nor the extra nodes, and one that
uses extra nodes only reduces them, so a single scan that keeps going after each
start finds exactly the same jobs, without recomputing the shadow.
"""

from __future__ import annotations

from bisect import bisect_left, insort

from sitesim.schedulers.base import Scheduler, register
from sitesim.workload.job import Job


@register
class EasyScheduler(Scheduler):
    """Aggressive backfilling that never delays the head job's reservation."""

    name = "easy"
    summary = "EASY backfilling: backfill as long as the first queued job is not delayed"

    def __init__(self, nodes: int) -> None:
        super().__init__(nodes)
        # Running jobs as (expected end, arrival seq, size), kept sorted.
        self._running: list[tuple[int, int, int]] = []

    def job_ended(self, job: Job, now: int) -> None:
        running = self._running
        i = bisect_left(running, (job.start + job.estimate, job.seq, job.size))
        del running[i]

    def shadow(self, need: int, free: int) -> tuple[int, int]:
        """Shadow time and extra nodes for a head job of ``need`` nodes."""
        return shadow(self._running, need, free)

    def schedule(self, now: int, free: int) -> list[Job]:
        queue = self.queue
        running = self._running
        started: list[Job] = []
        n = 0
        for job in queue:
            if job.size > free:
                break
            free -= job.size
            insort(running, (now + job.estimate, job.seq, job.size))
            n += 1
        if n:
            started = queue[:n]
            del queue[:n]
        if len(queue) < 2 or free == 0:
            return started

        shadow, extra = self.shadow(queue[0].size, free)
        picked: list[int] = []
        for i in range(1, len(queue)):
            job = queue[i]
            size = job.size
            if size > free:
                continue
            end = now + job.estimate
            if end > shadow:
                if size > extra:
                    continue
                extra -= size
            free -= size
            insort(running, (end, job.seq, size))
            started.append(job)
            picked.append(i)
            if free == 0:
                break
        for i in reversed(picked):
            del queue[i]
        return started


def shadow(running: list[tuple[int, int, int]], need: int, free: int) -> tuple[int, int]:
    """Shadow time and extra nodes for a head job of ``need`` nodes, ``free`` nodes idle
    and ``running`` = sorted (expected end, seq, size) of the jobs holding the rest.

    A function, not only a method, because the timed-run scheduler's EASY commitment
    (sitesim/schedulers/commit.py) plans with the same rule over its own running list.
    """
    avail = free
    for i, (end, _seq, size) in enumerate(running):
        avail += size
        if avail >= need:
            # Jobs expected to end at the very same instant free their nodes too.
            for later_end, _s, later_size in running[i + 1 :]:
                if later_end != end:
                    break
                avail += later_size
            return end, avail - need
    raise RuntimeError(f"job of {need} nodes can never run on {free + sum(r[2] for r in running)} nodes")
