"""EASY over a whole-queue order that a compiled queue keeps (``multifactor``, ``creasy``).

Why a class of its own: both policies keep their waiting jobs in a compiled queue
(``_priority.pyx``) that arranges the queue for each pass, so it knows where it put each
arrival. A pass resumed after arrivals asks it for their places instead of searching
the queue for them, and that one rule is written here once.
"""

from __future__ import annotations

from typing import Protocol

from sitesim.schedulers.easy import EasyScheduler
from sitesim.workload.job import Job


class KnowsPlaces(Protocol):
    """What this class asks of a compiled queue: where it put each of the arrivals in
    the queue it arranged for this pass (None when it does not know)."""

    def positions(self, jobs: list[Job]) -> list[int] | None: ...


class RankedEasyScheduler(EasyScheduler):
    """EASY whose queue order is kept by a compiled queue, where one is built."""

    #: The compiled queue (set by the policy), or None on the Python path.
    _ranked: KnowsPlaces | None = None

    def arrival_positions(self, arrived: list[Job]) -> list[int]:
        """As the compiled queue arranged the queue for this pass, where it knows it (no
        search through the queue)."""
        found = None if self._ranked is None else self._ranked.positions(arrived)
        return super().arrival_positions(arrived) if found is None else found
