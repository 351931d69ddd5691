"""First-come-first-served: start jobs strictly in arrival order."""

from __future__ import annotations

from sitesim.schedulers.backfill import fcfs_heads
from sitesim.schedulers.base import Scheduler, register
from sitesim.workload.job import Job


@register
class FcfsScheduler(Scheduler):
    """Start the head of the queue while it fits; never look past a blocked head."""

    name = "fcfs"
    summary = "first-come-first-served, no backfilling"

    def schedule(self, now: int, free: int) -> list[Job]:
        queue = self.queue
        n = fcfs_heads(queue, free)
        if n == 0:
            return []
        started = queue[:n]
        del queue[:n]
        return started
