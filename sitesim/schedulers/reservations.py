"""The reservations of conservative backfilling: the profile and every waiting job's start.

Mu'alem & Feitelson (2001, section 2.1) give every job a reservation when it arrives,
at the *anchor point* of the processor-availability profile, and *compress* the
schedule when a job ends before its estimate. This module keeps that planned schedule
for :class:`~sitesim.schedulers.conservative.ConservativeScheduler`, which only maps
its queue of jobs onto it: the waiting jobs are *positions* here, in the scheduler's
queue order (arrival order for ``cons``; a variant may place an arrival anywhere), each
with its size, planned length and reserved start.

Why a class of its own: it is the whole cost of conservative backfilling, so it comes in
two implementations with one interface and the same answers. This one, in Python, is
the readable reference, and runs wherever sitesim does; the compiled one
(``sitesim/schedulers/_reservations.pyx``, built when the package is installed with a C
compiler) keeps the same data in C arrays. The scheduler takes the compiled one when it
was built (:data:`RESERVATIONS`); the test suite runs both through the same audits and
checks that they give identical schedules.

Compression is *lazy*: :meth:`Reservations.release` only gives the nodes back and marks
the schedule dirty; it is compressed once, before the next arrival is placed or the
next question is answered. Several completions at one instant thus cost one
compression, and an arrival at that instant never grabs a hole before the older jobs
have had their chance at it.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from itertools import accumulate
from typing import Protocol

from sitesim.compiled import twin
from sitesim.schedulers.profile import Frame, MissedReservation, Profile

#: Lower bound of an empty hull of additions: above every time.
_NONE = 1 << 62


class ReservationsLike(Protocol):
    """What the scheduler needs of an implementation of the reservations."""

    def __init__(self, nodes: int) -> None: ...
    def __len__(self) -> int: ...
    def add(self, size: int, length: int, now: int, pos: int | None = None) -> int: ...
    def release(self, now: int, planned: int, size: int) -> None: ...
    def anchor(self, now: int, size: int, length: int) -> int: ...
    def start(self, pos: int) -> int: ...
    def due(self, now: int) -> list[int]: ...
    def frames(self, now: int) -> list[Frame]: ...
    def check(self) -> None: ...


class Reservations:
    """The planned schedule of a ``nodes``-node machine under conservative backfilling.

    Running jobs are held in the profile until their planned ends; the waiting jobs, by
    position in queue order, each hold ``size`` nodes over ``[start, start + length)``.
    """

    __slots__ = ("profile", "_sizes", "_lengths", "_starts", "_certs", "_next_due", "_dirty", "_rel_lo", "_rel_hi")

    def __init__(self, nodes: int) -> None:
        self.profile = Profile(nodes)
        self._sizes: list[int] = []
        self._lengths: list[int] = []
        #: Reserved start of each waiting job.
        self._starts: list[int] = []
        # Blocking instants of waiting jobs found unable to move twice in a row
        # (Profile.blockers); () marks a job that failed once, None one that never did.
        self._certs: list[tuple[int, ...] | None] = []
        # No reservation starts before this: a pass before it starts nothing, for the
        # price of one comparison (starts only ever move earlier, so it is kept as a
        # running minimum and recomputed only when jobs start).
        self._next_due: int | None = None
        self._dirty = False
        # Hull of the intervals given back by early ends since the last compression.
        self._rel_lo = _NONE
        self._rel_hi = -1

    def __len__(self) -> int:
        return len(self._starts)

    # -- what the scheduler asks ---------------------------------------------------
    def add(self, size: int, length: int, now: int, pos: int | None = None) -> int:
        """Reserve the anchor point for a job arriving ``now``; put it at queue position
        ``pos`` (None: last); return its start."""
        at = len(self._starts) if pos is None else pos
        if not 0 <= at <= len(self._starts):
            raise IndexError(f"no queue position {at} among {len(self._starts)} waiting jobs")
        _in_range(length)
        self._sync(now)
        start = self.profile.earliest(now, size, length)
        if start + length >= _NONE:
            raise OverflowError(f"a reservation ending at {start + length} s is beyond the schedule's range (2**62 s)")
        self.profile.reserve(start, start + length, size)
        self._sizes.insert(at, size)
        self._lengths.insert(at, length)
        self._starts.insert(at, start)
        self._certs.insert(at, None)
        if self._next_due is None or start < self._next_due:
            self._next_due = start
        return start

    def anchor(self, now: int, size: int, length: int) -> int:
        """The anchor point a job of ``size`` x ``length`` arriving ``now`` would get (nothing is reserved)."""
        _in_range(length)
        self._sync(now)
        return self.profile.earliest(now, size, length)

    def release(self, now: int, planned: int, size: int) -> None:
        """A running job of ``size`` nodes planned to end at ``planned`` ended ``now``."""
        self.profile.advance(now)
        if now < planned:
            self.profile.release(now, planned, size)
            self._dirty = True
            if now < self._rel_lo:
                self._rel_lo = now
            if planned > self._rel_hi:
                self._rel_hi = planned

    def start(self, pos: int) -> int:
        """The start guaranteed to the job at ``pos``, after any compression owed."""
        if self._dirty:
            self._compress(self.profile.times[0])
        return self._starts[pos]

    def due(self, now: int) -> list[int]:
        """Remove, and return in queue order, the positions whose reservation is ``now``.

        The positions are those before the removal; the jobs behind them move up.
        """
        self._sync(now)
        if self._next_due is None or self._next_due > now:
            return []
        starts = self._starts
        due = [p for p, s in enumerate(starts) if s <= now]
        for p in due:
            if starts[p] < now:
                raise MissedReservation(p, starts[p], now)
        keep = [p for p, s in enumerate(starts) if s > now]
        self._sizes = [self._sizes[p] for p in keep]
        self._lengths = [self._lengths[p] for p in keep]
        self._starts = [starts[p] for p in keep]
        self._certs = [self._certs[p] for p in keep]
        self._next_due = min(self._starts) if keep else None
        return due

    def frames(self, now: int) -> list[Frame]:
        """The availability list from ``now`` (see :meth:`Profile.frames`)."""
        self._sync(now)
        return self.profile.frames(now)

    def check(self) -> None:
        """Raise AssertionError unless the profile's invariants hold."""
        self.profile.check()

    # -- internals -----------------------------------------------------------------
    def _sync(self, now: int) -> None:
        if now < self.profile.times[0]:
            raise ValueError(f"time {now} is before the profile's origin {self.profile.times[0]}")
        self.profile.advance(now)
        if self._dirty:
            self._compress(now)

    def _compress(self, now: int) -> None:
        """Move every waiting job, in queue order, to its earliest start (never later).

        The paper's single pass is repeated until nothing moves. One pass can leave a
        job reserved at the planned end of a *later* job that then moves forward too;
        nothing would happen at that instant any more, and since the site calls the
        scheduler only at events, the job would miss its start. At the fixed point
        every reservation begins where some planned end frees the nodes, so an event
        (that end, or an earlier one that triggers a new compression) is guaranteed.
        Each repetition only moves starts earlier, so it terminates.

        What keeps this cheap: after the previous compression (and at its arrival) each
        waiting job sat at its earliest start; since then nodes were only *added*
        (an arrival, wherever placed in the queue, only takes nodes away): on
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
        sizes, lengths, olds, certs = self._sizes, self._lengths, self._starts, self._certs
        next_due = self._next_due
        n = len(olds)
        # The previous pass's additions that a position has not seen: those of moves at
        # later positions, as suffix bounds of their hull by move, in position order,
        # closed by a sentinel (position n, empty hull). Before the first pass: the
        # releases, unseen by every position.
        prev_pos = [n, n]
        # Every later addition starts at or after ``now`` (a move's vacated room lies
        # after its new start), so clamping the releases once clamps every hull.
        prev_lo = [max(now, self._rel_lo), _NONE]
        prev_hi = [self._rel_hi, -1]
        self._rel_lo, self._rel_hi = _NONE, -1
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
                cert = certs[p]
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
                length = lengths[p]
                new = near(now, size, length, old, lo, hi)
                if new >= old:
                    # A job that fails twice in a row earns a certificate; most
                    # jobs that fail once move or start before being tested again.
                    certs[p] = blockers(now, size, length, old) if cert is not None else ()
                    continue
                certs[p] = None
                shift(old, new, length, size)
                olds[p] = new
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


def _in_range(length: int) -> None:
    """Refuse a length past the schedule's range: the compiled twin adds times in 64 bits."""
    if length >= _NONE:
        raise OverflowError(f"a reservation of {length} s is beyond the schedule's range (2**62 s)")


def _compiled() -> type[ReservationsLike] | None:
    """The compiled implementation, where it was built and is not switched off."""
    module = twin("_reservations", __package__)
    return None if module is None else module.Reservations


#: The implementation the scheduler uses: the compiled one where it was built.
RESERVATIONS: type[ReservationsLike] = _compiled() or Reservations
