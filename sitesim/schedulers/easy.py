"""EASY backfilling, as specified by Mu'alem & Feitelson (2001), section 2.2.

Start jobs from the head of the queue while they fit; then let later jobs jump ahead
as long as they do not delay the first waiting job (the algorithm, and why one scan
suffices: :mod:`sitesim.schedulers.backfill`, shared with the timed-run EASY base).
"""

from __future__ import annotations

from bisect import bisect_left, insort

from sitesim.schedulers.backfill import Running, Settled, backfill, easy_pass_settled, shadow
from sitesim.schedulers.base import Scheduler, register
from sitesim.workload.job import Job


@register
class EasyScheduler(Scheduler):
    """Aggressive backfilling that never delays the head job's reservation."""

    name = "easy"
    summary = "EASY backfilling: backfill as long as the first queued job is not delayed"

    def __init__(self, nodes: int) -> None:
        super().__init__(nodes)
        #: Running jobs as (expected end, arrival seq, size), kept sorted.
        self._running: Running = []
        #: The last pass's state while no job has ended since (only arrivals).
        self._settled: Settled | None = None

    def job_ended(self, job: Job, now: int) -> None:
        self._settled = None
        running = self._running
        i = bisect_left(running, (job.start + job.estimate, job.seq, job.size))
        del running[i]

    def shadow(self, need: int, free: int) -> tuple[int, int]:
        """Shadow time and extra nodes for a head job of ``need`` nodes."""
        return shadow(self._running, need, free)

    def _hold(self, job: Job, end: int) -> None:
        insort(self._running, (end, job.seq, job.size))

    def schedule(self, now: int, free: int) -> list[Job]:
        """An EASY pass; after a pass that only arrivals followed, just their backfill
        scan (the same result for a fraction of the work: :func:`backfill`)."""
        settled, self._settled = self._settled, None
        if not self.queue:
            return []
        if settled is not None and settled[0] == free:
            started: list[Job] = []
            _free, end_by, extra, tried = settled
            self._settled = backfill(self.queue, tried, free, now, end_by, extra, self._hold, started)
            return started
        started, self._settled = easy_pass_settled(self.queue, free, now, self._running, self._hold)
        return started
