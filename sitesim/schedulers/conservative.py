"""Conservative backfilling, as specified by Mu'alem & Feitelson (2001), section 2.1.

Every job gets a reservation when it arrives: the anchor point of the availability
profile (see :mod:`sitesim.schedulers.profile`), the first time enough nodes are free
for its whole estimate, taking into account the running jobs *and every reservation
already made*. So a job may backfill only if it delays no earlier job, and each job's
reservation is a guarantee: it never starts later than the start it got on arrival.

When a job ends before its estimate, the schedule is **compressed**: the waiting jobs,
in queue order, are taken out of the profile and put back at their earliest start,
which is never later than before (at worst the old place is free again). A job killed
at its estimate ends exactly as planned and changes nothing. The queue order is arrival
order; a variant gives another with the :meth:`~ConservativeScheduler.order_key` hook
(``cons-sjbf``: shortest estimate first), and so decides which waiting jobs get the
first claim on the room an early end gives back. It changes no guarantee: each job
still gets, on arrival, the earliest start that delays no reservation already made.

The planned schedule itself (profile, reservations, compression) is kept by
:mod:`sitesim.schedulers.reservations`, compiled where that was built; this class only
maps its queue of jobs onto it. Two queries expose the schedule:
:meth:`ConservativeScheduler.reservation` (a waiting job's guaranteed start) and
:meth:`ConservativeScheduler.availability` (the availability list of Cirne & Berman:
free nodes per future time frame).
"""

from __future__ import annotations

from bisect import bisect_right

from sitesim.schedulers.base import Scheduler, register
from sitesim.schedulers.profile import Frame, MissedReservation
from sitesim.schedulers.reservations import RESERVATIONS, ReservationsLike
from sitesim.workload.job import Job


def planned_length(job: Job) -> int:
    """Seconds the profile holds a job's nodes: its estimate, but at least one second."""
    return planned_seconds(job.estimate)


def planned_seconds(estimate: int) -> int:
    """A reservation's length for ``estimate`` seconds: at least one second.

    A zero estimate would give an empty reservation, letting a zero-length job share
    its nodes with another job starting at the same instant before its completion is
    processed; one second is released again as soon as it ends.
    """
    return estimate if estimate > 0 else 1


@register
class ConservativeScheduler(Scheduler):
    """Backfill only when no earlier job is delayed; every job holds a reservation."""

    name = "cons"
    summary = "conservative backfilling: a reservation for every job, with compression"

    #: The implementation of the reservations: the compiled one where it was built.
    #: Both give the same schedules; a subclass (or a test) may set the other.
    reservations_class: type[ReservationsLike] = RESERVATIONS

    def __init__(self, nodes: int) -> None:
        super().__init__(nodes)
        #: The planned schedule; its positions are this queue's, in queue order.
        self.reservations: ReservationsLike = self.reservations_class(nodes)
        #: With an order key: each waiting job's (key, seq), in queue order.
        self._keys: list[tuple[int, int]] = []
        #: Planned end of each running job (start + planned length).
        self._planned_end: dict[Job, int] = {}

    # -- queries -------------------------------------------------------------------
    def reservation(self, job: Job) -> int | None:
        """The start guaranteed to ``job`` if it is waiting here, else None.

        Reflects any compression owed by completions already reported.
        """
        try:
            pos = self.queue.index(job)
        except ValueError:
            return None
        return self.reservations.start(pos)

    def availability(self, now: int) -> list[Frame]:
        """Free nodes per future time frame: ``[(start, end, free), ...]`` from ``now``.

        Frames are contiguous and adjacent frames differ in ``free``; the last one has
        ``end`` None (free for ever after). This is the planned schedule: running jobs
        held until their estimates, waiting jobs at their reservations.
        """
        return self.reservations.frames(now)

    def anchor_point(self, now: int, size: int, seconds: int) -> int:
        """The start a request of ``size`` nodes for ``seconds`` submitted ``now`` would be
        guaranteed, without reserving it (what an application scheduler weighs)."""
        return self.reservations.anchor(now, size, planned_seconds(seconds))

    # -- the hook --------------------------------------------------------------------
    def order_key(self, job: Job) -> int | None:
        """Sort key of the queue order, ties by arrival (None, for every job: arrival
        order). Fixed while a job waits; compression moves the jobs in this order."""
        return None

    # -- scheduler interface ---------------------------------------------------------
    def enqueue(self, job: Job, now: int) -> None:
        key = self.order_key(job)
        if key is None:
            self.reservations.add(job.size, planned_seconds(job.estimate), now)
            self.queue.append(job)
            return
        entry = (key, job.seq)
        pos = bisect_right(self._keys, entry)
        self.reservations.add(job.size, planned_seconds(job.estimate), now, pos)
        self._keys.insert(pos, entry)
        self.queue.insert(pos, job)

    def job_ended(self, job: Job, now: int) -> None:
        self.reservations.release(now, self._planned_end.pop(job), job.size)

    def schedule(self, now: int, free: int) -> list[Job]:
        try:
            due = self.reservations.due(now)
        except MissedReservation as missed:
            raise RuntimeError(
                f"job {self.queue[missed.position].id} missed its reservation at {missed.start} (now {now})"
            ) from None
        if not due:
            return []
        queue = self.queue
        # Positions are in queue order, so the starting jobs come out in it too.
        starting = [queue[p] for p in due]
        if sum(j.size for j in starting) > free:
            raise RuntimeError(f"reservations at {now} exceed the {free} free nodes")
        keys = self._keys
        for p in reversed(due):
            del queue[p]
            if keys:
                del keys[p]
        planned = self._planned_end
        for job in starting:
            planned[job] = now + planned_seconds(job.estimate)
        return starting
