"""First-come-first-served: start jobs strictly in arrival order."""

from __future__ import annotations

from sitesim.schedulers.base import Scheduler, register
from sitesim.workload.job import Job


@register
class FcfsScheduler(Scheduler):
    """Start the head of the queue while it fits; never look past a blocked head."""

    name = "fcfs"
    summary = "first-come-first-served, no backfilling"

    def schedule(self, now: int, free: int) -> list[Job]:
        queue = self.queue
        n = 0
        for job in queue:
            if job.size > free:
                break
            free -= job.size
            n += 1
        if n == 0:
            return []
        started = queue[:n]
        del queue[:n]
        return started
