"""Conservative backfilling in shortest-job order (``cons-sjbf``).

Every job still gets, on arrival, the earliest start that delays no reservation already
made, and never starts later than that. What changes is the queue order: when an early
end lets the schedule be compressed, the waiting jobs are moved to their earliest
start in order of increasing estimate (ties: arrival order), not of arrival, so the
short jobs get the first claim on the room it gave back (shortest-job-first is one of
the priority orders Srinivasan et al. 2002 compared under conservative and EASY
backfilling). The reservations of Mu'alem & Feitelson (2001) stay guarantees.
"""

from __future__ import annotations

from sitesim.schedulers.base import register
from sitesim.schedulers.conservative import ConservativeScheduler
from sitesim.workload.job import Job


@register
class ConsSjbfScheduler(ConservativeScheduler):
    """Conservative backfilling whose compression moves the shortest estimates first."""

    name = "cons-sjbf"
    summary = "conservative backfilling, reservations remade shortest estimate first when the schedule is compressed"

    def order_key(self, job: Job) -> int:
        return job.estimate
