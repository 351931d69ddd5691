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

from bisect import bisect_left, bisect_right
from itertools import accumulate

from sitesim.schedulers.base import Scheduler, register
from sitesim.schedulers.profile import Frame, Profile
from sitesim.workload.job import Job


#: Lower bound of an empty hull of additions: above every time.
_NONE = 1 << 62


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
        # No reservation starts before this: a pass before it starts nothing, for the
        # price of one comparison (starts only ever move earlier, so it is kept as a
        # running minimum and recomputed only when jobs start).
        self._next_due: int | None = None
        self._dirty = False
        # Intervals (from, to) given back by early ends since the last compression.
        self._released: list[tuple[int, int]] = []
        # Blocking instants of waiting jobs found unable to move twice in a row
        # (Profile.blockers); () marks a job that failed once and has none yet.
        self._certs: dict[Job, tuple[int, ...]] = {}

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
        self._start[job] = start
        if self._next_due is None or start < self._next_due:
            self._next_due = start

    def job_ended(self, job: Job, now: int) -> None:
        self.profile.advance(now)
        planned = self._planned_end.pop(job)
        if now < planned:
            self.profile.release(now, planned, job.size)
            self._dirty = True
            self._released.append((now, planned))

    def schedule(self, now: int, free: int) -> list[Job]:
        self._sync(now)
        if self._next_due is None or self._next_due > now:
            return []
        starts = self._start
        # The queue is in arrival order, so the starting jobs come out in it too.
        starting = [job for job in self.queue if starts[job] <= now]
        for job in starting:
            if starts[job] < now:
                raise RuntimeError(f"job {job.id} missed its reservation at {starts[job]} (now {now})")
            del starts[job]
            self._certs.pop(job, None)
            self._planned_end[job] = now + planned_length(job)
        if sum(j.size for j in starting) > free:
            raise RuntimeError(f"reservations at {now} exceed the {free} free nodes")
        self.queue = [j for j in self.queue if j in starts]
        self._next_due = min(starts.values()) if starts else None
        return starting

    # -- internals -----------------------------------------------------------------
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
        waiting job sat at its earliest start; since then nodes were only *added*: on
        the intervals released by early ends, and on the places vacated by the moves of
        this compression. An earlier start must use some added room before the job's
        reservation, so a job is tested only against the additions it has not seen
        yet: in the first pass the releases and the moves of earlier jobs; in a later
        pass the moves of later jobs in the previous pass and of earlier jobs in this
        one. Their hull, as two running bounds, rejects most jobs in a few
        comparisons; then a job whose blocking instants (:meth:`Profile.blockers`) all
        still block is skipped; only the rest reads the frames around the hull
        (:meth:`Profile.earliest_near`). The answer is the one a full scan would give,
        so the moves, and hence the schedule, are exactly the paper's.
        """
        self._dirty = False
        profile = self.profile
        times, free = profile.times, profile.free
        near, shift, blockers = profile.earliest_near, profile.shift, profile.blockers
        starts, certs, queue = self._start, self._certs, self.queue
        next_due = self._next_due
        n = len(queue)
        sizes = [job.size for job in queue]
        olds = [starts[job] for job in queue]
        # The previous pass's additions that a position has not seen: those of moves at
        # later positions, as suffix bounds of their hull by move, in position order,
        # closed by a sentinel (position n, empty hull). Before the first pass: the
        # releases, unseen by every position.
        released, self._released = self._released, []
        prev_pos = [n, n]
        # Every later addition starts at or after ``now`` (a move's vacated room lies
        # after its new start), so clamping the releases once clamps every hull.
        prev_lo = [max(now, min(lo for lo, _hi in released)), _NONE]
        prev_hi = [max(hi for _lo, hi in released), -1]
        while True:
            moves: list[tuple[int, int, int]] = []
            cur_lo = cur_hi = -1  # hull of this pass's additions so far (none yet)
            j = 0
            for p in range(n):
                while prev_pos[j] <= p:
                    j += 1
                lo, hi = prev_lo[j], prev_hi[j]
                if cur_hi >= 0:
                    if cur_lo < lo:
                        lo = cur_lo
                    if cur_hi > hi:
                        hi = cur_hi
                elif hi < 0:
                    break  # nothing unseen is left for this or any later position
                old = olds[p]
                if hi > old:
                    hi = old
                if lo >= hi:
                    continue
                size = sizes[p]
                job = queue[p]
                cert = certs.get(job)
                if cert:
                    # Only instants in [lo, hi) can have gained nodes since the check.
                    for c in cert[bisect_left(cert, lo) : bisect_left(cert, hi)]:
                        if free[bisect_right(times, c) - 1] >= size:
                            break
                    else:
                        continue  # every blocking instant still blocks
                else:
                    # No frame meeting [lo, hi) has room: no run can start there.
                    i = bisect_right(times, lo) - 1
                    if max(free[i : bisect_left(times, hi, i + 1)]) < size:
                        continue
                length = job.estimate if job.estimate > 0 else 1  # planned_length
                new = near(now, size, length, old, lo, hi)
                if new >= old:
                    # A job that fails twice in a row earns a certificate; most
                    # jobs that fail once move or start before being tested again.
                    certs[job] = blockers(now, size, length, old) if cert is not None else ()
                    continue
                if cert is not None:
                    del certs[job]
                shift(old, new, length, size)
                starts[job] = olds[p] = new
                if next_due is None or new < next_due:
                    next_due = new
                # Room is added only where the old window does not overlap the new.
                end = new + length
                add_lo = end if end > old else old
                add_hi = old + length
                moves.append((p, add_lo, add_hi))
                if cur_hi < 0 or add_lo < cur_lo:
                    cur_lo = add_lo
                if add_hi > cur_hi:
                    cur_hi = add_hi
            if not moves:
                break
            # Suffix bounds of this pass's additions, for the next pass.
            prev_pos = [mv[0] for mv in moves]
            prev_pos.append(n)
            prev_lo = list(accumulate(reversed([mv[1] for mv in moves]), min))[::-1]
            prev_lo.append(_NONE)
            prev_hi = list(accumulate(reversed([mv[2] for mv in moves]), max))[::-1]
            prev_hi.append(-1)
        self._next_due = next_due
