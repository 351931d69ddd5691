"""Conservative backfilling, as specified by Mu'alem & Feitelson (2001), section 2.1.

Every job gets a reservation when it arrives: the anchor point of the availability
profile (see :mod:`sitesim.schedulers.profile`), the first time enough nodes are free
for its whole estimate, taking into account the running jobs *and every reservation
already made*. So a job may backfill only if it delays no earlier job, and each job's
reservation is a guarantee: it never starts later than the start it got on arrival.

When a job ends before its estimate, the schedule is **compressed**: the waiting jobs,
in arrival order, are taken out of the profile and put back at their earliest start,
which is never later than before (at worst the old place is free again). Compression is
*lazy*: ``job_ended`` only gives the nodes back to the profile and marks it dirty; the
schedule is compressed once, before the next arrival is placed or at the next
scheduling pass, whichever comes first. Several completions at the same instant thus
cost one compression, and an arrival at that instant never grabs a hole before the
older jobs have had their chance at it. A job killed at its estimate ends exactly as
planned and changes nothing.

Two queries expose the schedule: :meth:`ConservativeScheduler.reservation` (a waiting
job's guaranteed start) and :meth:`ConservativeScheduler.availability` (the
availability list of Cirne & Berman: free nodes per future time frame).
"""

from __future__ import annotations

from heapq import heappop, heappush

from sitesim.schedulers.base import Scheduler, register
from sitesim.schedulers.profile import Frame, Profile
from sitesim.workload.job import Job


def planned_length(job: Job) -> int:
    """Seconds the profile holds a job's nodes: its estimate, but at least one second.

    A zero estimate would give an empty reservation, letting a zero-length job share
    its nodes with another job starting at the same instant before its completion is
    processed; one second is released again as soon as it ends.
    """
    return job.estimate if job.estimate > 0 else 1


@register
class ConservativeScheduler(Scheduler):
    """Backfill only when no earlier job is delayed; every job holds a reservation."""

    name = "cons"
    summary = "conservative backfilling: a reservation for every job, with compression"

    def __init__(self, nodes: int) -> None:
        super().__init__(nodes)
        self.profile = Profile(nodes)
        #: Reserved start of each waiting job.
        self._start: dict[Job, int] = {}
        #: Planned end of each running job (start + planned length).
        self._planned_end: dict[Job, int] = {}
        # (reserved start, seq, job) entries; stale ones are skipped when popped.
        self._due: list[tuple[int, int, Job]] = []
        self._dirty = False
        # Intervals (from, to) given back by early ends since the last compression.
        self._released: list[tuple[int, int]] = []

    # -- queries -------------------------------------------------------------------
    def reservation(self, job: Job) -> int | None:
        """The start guaranteed to ``job`` if it is waiting here, else None.

        Reflects any compression owed by completions already reported.
        """
        if job not in self._start:
            return None
        if self._dirty:
            self._compress(self.profile.times[0])
        return self._start[job]

    def availability(self, now: int) -> list[Frame]:
        """Free nodes per future time frame: ``[(start, end, free), ...]`` from ``now``.

        Frames are contiguous and adjacent frames differ in ``free``; the last one has
        ``end`` None (free for ever after). This is the planned schedule: running jobs
        held until their estimates, waiting jobs at their reservations.
        """
        self._sync(now)
        return self.profile.frames(now)

    # -- scheduler interface ---------------------------------------------------------
    def enqueue(self, job: Job, now: int) -> None:
        self._sync(now)
        length = planned_length(job)
        start = self.profile.earliest(now, job.size, length)
        self.profile.reserve(start, start + length, job.size)
        self.queue.append(job)
        self._set_start(job, start)

    def job_ended(self, job: Job, now: int) -> None:
        self.profile.advance(now)
        planned = self._planned_end.pop(job)
        if now < planned:
            self.profile.release(now, planned, job.size)
            self._dirty = True
            self._released.append((now, planned))

    def schedule(self, now: int, free: int) -> list[Job]:
        self._sync(now)
        due = self._due
        starting: list[Job] = []
        while due and due[0][0] <= now:
            start, _seq, job = heappop(due)
            if self._start.get(job) != start:
                continue  # stale: the job moved, or already started
            if start < now:
                raise RuntimeError(f"job {job.id} missed its reservation at {start} (now {now})")
            del self._start[job]
            self._planned_end[job] = now + planned_length(job)
            starting.append(job)
        if not starting:
            return []
        starting.sort(key=lambda j: j.seq)
        if sum(j.size for j in starting) > free:
            raise RuntimeError(f"reservations at {now} exceed the {free} free nodes")
        self.queue = [j for j in self.queue if j in self._start]
        return starting

    # -- internals -----------------------------------------------------------------
    def _set_start(self, job: Job, start: int) -> None:
        self._start[job] = start
        heappush(self._due, (start, job.seq, job))

    def _sync(self, now: int) -> None:
        self.profile.advance(now)
        if self._dirty:
            self._compress(now)

    def _compress(self, now: int) -> None:
        """Move every waiting job, in arrival order, to its earliest start (never later).

        The paper's single pass is repeated until nothing moves. One pass can leave a
        job reserved at the planned end of a *later* job that then moves forward too;
        nothing would happen at that instant any more, and since the site calls the
        scheduler only at events, the job would miss its start. At the fixed point
        every reservation begins where some planned end frees the nodes, so an event
        (that end, or an earlier one that triggers a new compression) is guaranteed.
        Each repetition only moves starts earlier, so it terminates.

        What keeps this cheap: after the previous compression (and at its arrival) each
        waiting job sat at its earliest start; since then nodes were only *added*, on
        the intervals released by early ends and on the places vacated by the moves of
        this compression (``added_lo``/``added_hi``, in order). A job that has seen no
        addition since it was last checked is skipped. Otherwise an earlier start must
        use some added room before its reservation, so only the frames around the
        hull of the new additions, clipped to ``[now, old)``, are read
        (:meth:`Profile.earliest_near`); the answer is the one a full scan would give,
        so the moves, and hence the schedule, are exactly the paper's.
        """
        self._dirty = False
        profile = self.profile
        near = profile.earliest_near
        starts = self._start
        queue = self.queue
        added_lo = [lo for lo, _hi in self._released]
        added_hi = [hi for _lo, hi in self._released]
        self._released = []
        # Per queue position: how many additions it had seen when last checked.
        checked = [0] * len(queue)
        moved = True
        while moved:
            moved = False
            for k, job in enumerate(queue):
                seen = checked[k]
                total = len(added_lo)
                if seen == total:
                    continue
                checked[k] = total
                old = starts[job]
                lo = min(added_lo[seen:])  # C-speed hull of the new additions
                if old <= now or lo >= old:
                    continue
                hi = min(max(added_hi[seen:]), old)
                lo = max(lo, now)
                if lo >= hi:
                    continue
                length = planned_length(job)
                new = near(now, job.size, length, old, lo, hi)
                if new < old:
                    profile.release(old, old + length, job.size)
                    profile.reserve(new, new + length, job.size)
                    self._set_start(job, new)
                    added_lo.append(old)
                    added_hi.append(old + length)
                    checked[k] = total + 1
                    moved = True
