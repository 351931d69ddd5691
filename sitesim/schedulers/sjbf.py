"""EASY with shortest-job backfilling (SJBF).

The head of the queue keeps EASY's reservation; the backfill candidates are tried in
order of increasing runtime estimate (ties: arrival order) instead of arrival order.
Short jobs are the ones most likely to end by the shadow time, so trying them first
fills the hole before the head's reservation with more of them, at the price of
passing over long jobs that arrived earlier (Srinivasan et al. 2002 compared such
backfill orders; Tsafrir et al. 2007 use SJBF order inside EASY++).
"""

from __future__ import annotations

from sitesim.schedulers.base import register
from sitesim.schedulers.easy import EasyScheduler
from sitesim.workload.job import Job


@register
class SjbfScheduler(EasyScheduler):
    """EASY whose backfill candidates are tried shortest estimate first."""

    name = "sjbf"
    summary = "EASY with shortest-job backfilling: candidates tried by increasing estimate"

    def backfill_key(self, job: Job) -> int:
        return job.estimate
