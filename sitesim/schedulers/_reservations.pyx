# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The reservations of conservative backfilling, compiled: the same interface and answers
as :class:`sitesim.schedulers.reservations.Reservations`, with the data in C arrays.

Why it exists: compression is almost all the cost of conservative backfilling, and in
Python each step of a scan is a bytecode dispatch and a boxed integer. Here the profile
is two growable ``int64`` arrays (breakpoints and free nodes, adjacent frames always
merged, as in :mod:`sitesim.schedulers.profile`) and the waiting jobs three more (size,
planned length, reserved start, by position in queue order).

Compression is the reference's algorithm: the paper's pass repeated until nothing moves,
each job tested only against the room added since it last sat at its earliest start (the
hull bounds of releases and moves), and then read only near that room
(``earliest_near``). The reference's blocking-instant certificates are left out: they
only spare scans, and a scan here costs less than the bookkeeping they need. The answers,
and so the schedules, are the same; ``tests/schedulers/test_reservations.py`` runs both
implementations side by side to check it.
"""

from libc.stdlib cimport realloc, free as cfree
from libc.string cimport memmove

from sitesim.schedulers.profile import MissedReservation, check_profile

ctypedef long long i64

# Lower bound of an empty hull of additions: above every time, and the end of the
# range of times a reservation may reach (add() refuses to go past it).
cdef i64 NONE = 1LL << 62


cdef int _in_range(i64 length) except -1:
    """Refuse a length past the schedule's range, so that no sum of times wraps around:
    every breakpoint and length is below 2**62, every sum of two below 2**63."""
    if length >= NONE:
        raise OverflowError(f"a reservation of {length} s is beyond the schedule's range (2**62 s)")
    return 0


cdef void* _grown(void* block, size_t size) except NULL:
    """``block`` reallocated to ``size`` bytes; MemoryError, with ``block`` kept, on failure."""
    cdef void* grown = realloc(block, size)
    if grown is NULL:
        raise MemoryError()
    return grown


cdef class Reservations:
    """The planned schedule of a ``nodes``-node machine under conservative backfilling."""

    cdef i64 nodes
    # The profile: times[k] is a breakpoint, free[k] the free nodes up to the next.
    cdef i64* times
    cdef i64* free
    cdef Py_ssize_t n, cap
    # The waiting jobs, by position in queue order.
    cdef i64* sizes
    cdef i64* lengths
    cdef i64* starts
    cdef Py_ssize_t m, mcap
    # Scratch of compression (capacity mcap + 1): the previous pass's moves as suffix
    # hulls, and this pass's moves.
    cdef Py_ssize_t* prev_pos
    cdef i64* prev_lo
    cdef i64* prev_hi
    cdef Py_ssize_t* mv_pos
    cdef i64* mv_lo
    cdef i64* mv_hi
    cdef i64 next_due
    cdef bint dirty
    cdef i64 rel_lo, rel_hi

    def __cinit__(self, i64 nodes):
        if nodes < 1:
            raise ValueError(f"a profile needs at least one node, got {nodes}")
        self.nodes = nodes
        self.cap = 64
        self.times = <i64*> _grown(NULL, self.cap * sizeof(i64))
        self.free = <i64*> _grown(NULL, self.cap * sizeof(i64))
        self.mcap = 0
        self.m = 0
        self._grow_waiting(64)
        self.n = 1
        self.times[0] = 0
        self.free[0] = nodes
        self.next_due = NONE
        self.dirty = False
        self.rel_lo = NONE
        self.rel_hi = -1

    def __dealloc__(self):
        cfree(self.times)
        cfree(self.free)
        cfree(self.sizes)
        cfree(self.lengths)
        cfree(self.starts)
        cfree(self.prev_pos)
        cfree(self.prev_lo)
        cfree(self.prev_hi)
        cfree(self.mv_pos)
        cfree(self.mv_lo)
        cfree(self.mv_hi)

    def __len__(self):
        return self.m

    # -- what the scheduler asks ---------------------------------------------------
    def add(self, i64 size, i64 length, i64 now, pos=None):
        """Reserve the anchor point for a job arriving ``now``; put it at queue position
        ``pos`` (None: last); return its start."""
        cdef Py_ssize_t at = self.m if pos is None else pos
        if at < 0 or at > self.m:
            raise IndexError(f"no queue position {at} among {self.m} waiting jobs")
        _in_range(length)
        self._sync(now)
        cdef i64 start = self._earliest(now, size, length)
        if start >= NONE - length:
            raise OverflowError(f"a reservation ending at {start + length} s is beyond the schedule's range (2**62 s)")
        if self.m == self.mcap:
            self._grow_waiting(2 * self.mcap)
        self._add_checked(start, start + length, -size)
        if at < self.m:
            memmove(self.sizes + at + 1, self.sizes + at, (self.m - at) * sizeof(i64))
            memmove(self.lengths + at + 1, self.lengths + at, (self.m - at) * sizeof(i64))
            memmove(self.starts + at + 1, self.starts + at, (self.m - at) * sizeof(i64))
        self.sizes[at] = size
        self.lengths[at] = length
        self.starts[at] = start
        self.m += 1
        if start < self.next_due:
            self.next_due = start
        return start

    def anchor(self, i64 now, i64 size, i64 length):
        """The anchor point a job of ``size`` x ``length`` arriving ``now`` would get (nothing is reserved)."""
        _in_range(length)
        self._sync(now)
        return self._earliest(now, size, length)

    def release(self, i64 now, i64 planned, i64 size):
        """A running job of ``size`` nodes planned to end at ``planned`` ended ``now``."""
        self._advance(now)
        if now < planned:
            self._add_checked(now, planned, size)
            self.dirty = True
            if now < self.rel_lo:
                self.rel_lo = now
            if planned > self.rel_hi:
                self.rel_hi = planned

    def start(self, Py_ssize_t pos):
        """The start guaranteed to the job at ``pos``, after any compression owed."""
        if pos < 0 or pos >= self.m:
            raise IndexError(f"no waiting job at position {pos}")
        if self.dirty:
            self._compress(self.times[0])
        return self.starts[pos]

    def due(self, i64 now):
        """Remove, and return in queue order, the positions whose reservation is ``now``."""
        self._sync(now)
        if self.next_due > now:
            return []
        cdef Py_ssize_t p, w = 0
        cdef i64 s, nd = NONE
        for p in range(self.m):
            if self.starts[p] < now:
                raise MissedReservation(p, self.starts[p], now)
        out = []
        for p in range(self.m):
            s = self.starts[p]
            if s <= now:
                out.append(p)
            else:
                self.sizes[w] = self.sizes[p]
                self.lengths[w] = self.lengths[p]
                self.starts[w] = s
                w += 1
                if s < nd:
                    nd = s
        self.m = w
        self.next_due = nd
        return out

    def frames(self, i64 now):
        """The availability list from ``now``: ``[(start, end or None, free), ...]``."""
        self._sync(now)
        cdef Py_ssize_t k, i = self._frame(now)
        out = []
        for k in range(i, self.n):
            out.append((max(self.times[k], now), self.times[k + 1] if k + 1 < self.n else None, self.free[k]))
        return out

    def check(self):
        """Raise AssertionError unless the profile's invariants hold."""
        check_profile(self.profile_times, self.profile_free, self.nodes)

    @property
    def profile_times(self):
        """The profile's breakpoints, as a list (for tests)."""
        return [self.times[k] for k in range(self.n)]

    @property
    def profile_free(self):
        """Free nodes from each breakpoint on, as a list (for tests)."""
        return [self.free[k] for k in range(self.n)]

    # -- the profile ---------------------------------------------------------------
    cdef inline Py_ssize_t _bisect_right(self, i64 t, Py_ssize_t lo) noexcept nogil:
        """First index >= lo whose breakpoint is after ``t``."""
        cdef Py_ssize_t hi = self.n, mid
        while lo < hi:
            mid = (lo + hi) >> 1
            if t < self.times[mid]:
                hi = mid
            else:
                lo = mid + 1
        return lo

    cdef inline Py_ssize_t _bisect_left(self, i64 t, Py_ssize_t lo) noexcept nogil:
        """First index >= lo whose breakpoint is at or after ``t``."""
        cdef Py_ssize_t hi = self.n, mid
        while lo < hi:
            mid = (lo + hi) >> 1
            if self.times[mid] < t:
                lo = mid + 1
            else:
                hi = mid
        return lo

    cdef Py_ssize_t _frame(self, i64 t) except -1:
        cdef Py_ssize_t i = self._bisect_right(t, 0) - 1
        if i < 0:
            raise ValueError(f"time {t} is before the profile's origin {self.times[0]}")
        return i

    cdef int _insert(self, Py_ssize_t i, i64 t, i64 f) except -1:
        if self.n == self.cap:
            self.times = <i64*> _grown(self.times, 2 * self.cap * sizeof(i64))
            self.free = <i64*> _grown(self.free, 2 * self.cap * sizeof(i64))
            self.cap *= 2
        memmove(self.times + i + 1, self.times + i, (self.n - i) * sizeof(i64))
        memmove(self.free + i + 1, self.free + i, (self.n - i) * sizeof(i64))
        self.times[i] = t
        self.free[i] = f
        self.n += 1
        return 0

    cdef inline void _delete(self, Py_ssize_t i) noexcept nogil:
        memmove(self.times + i, self.times + i + 1, (self.n - i - 1) * sizeof(i64))
        memmove(self.free + i, self.free + i + 1, (self.n - i - 1) * sizeof(i64))
        self.n -= 1

    cdef int _grow_waiting(self, Py_ssize_t cap) except -1:
        """Room for ``cap`` waiting jobs (and ``cap + 1`` hull entries); nothing changes on failure."""
        self.sizes = <i64*> _grown(self.sizes, cap * sizeof(i64))
        self.lengths = <i64*> _grown(self.lengths, cap * sizeof(i64))
        self.starts = <i64*> _grown(self.starts, cap * sizeof(i64))
        self.prev_pos = <Py_ssize_t*> _grown(self.prev_pos, (cap + 1) * sizeof(Py_ssize_t))
        self.mv_pos = <Py_ssize_t*> _grown(self.mv_pos, (cap + 1) * sizeof(Py_ssize_t))
        self.prev_lo = <i64*> _grown(self.prev_lo, (cap + 1) * sizeof(i64))
        self.prev_hi = <i64*> _grown(self.prev_hi, (cap + 1) * sizeof(i64))
        self.mv_lo = <i64*> _grown(self.mv_lo, (cap + 1) * sizeof(i64))
        self.mv_hi = <i64*> _grown(self.mv_hi, (cap + 1) * sizeof(i64))
        self.mcap = cap
        return 0

    cdef void _advance(self, i64 now) noexcept:
        """Forget the past: the profile starts at ``now`` (times never go back)."""
        if now <= self.times[0]:
            return
        cdef Py_ssize_t i = self._bisect_right(now, 0) - 1
        if i:
            memmove(self.times, self.times + i, (self.n - i) * sizeof(i64))
            memmove(self.free, self.free + i, (self.n - i) * sizeof(i64))
            self.n -= i
        self.times[0] = now

    cdef Py_ssize_t _split(self, i64 t) except -1:
        """Make ``t`` a breakpoint and return its index."""
        cdef Py_ssize_t i = self._bisect_left(t, 0)
        if i < self.n and self.times[i] == t:
            return i
        if i == 0:
            raise ValueError(f"time {t} is before the profile's origin {self.times[0]}")
        self._insert(i, t, self.free[i - 1])
        return i

    cdef int _add_checked(self, i64 start, i64 end, i64 delta) except -1:
        """Add ``delta`` free nodes over ``[start, end)``, refusing to overbook."""
        if start >= end or delta == 0:
            return 0
        cdef Py_ssize_t i = self._split(start)
        cdef Py_ssize_t j = self._split(end)
        cdef Py_ssize_t k
        for k in range(i, j):
            if self.free[k] + delta < 0 or self.free[k] + delta > self.nodes:
                raise RuntimeError(
                    f"profile cannot {'take' if delta < 0 else 'give back'} {abs(delta)} nodes"
                    f" over [{start}, {end}) (machine of {self.nodes})"
                )
        for k in range(i, j):
            self.free[k] += delta
        self._merge(i, j)
        return 0

    cdef inline void _merge(self, Py_ssize_t i, Py_ssize_t j) noexcept nogil:
        """Only the edges of a changed range [i, j) can equal their neighbour: merge them."""
        if self.free[j] == self.free[j - 1]:
            self._delete(j)
        if i > 0 and self.free[i] == self.free[i - 1]:
            self._delete(i)

    cdef int _apply(self, i64 start, i64 end, i64 delta) except -1:
        """Add ``delta`` over ``[start, end)`` unchecked, for updates known to be valid."""
        cdef Py_ssize_t i = self._bisect_left(start, 0)
        if i == self.n or self.times[i] != start:
            self._insert(i, start, self.free[i - 1])
        cdef Py_ssize_t j = self._bisect_left(end, i + 1)
        if j == self.n or self.times[j] != end:
            self._insert(j, end, self.free[j - 1])
        cdef Py_ssize_t k
        for k in range(i, j):
            self.free[k] += delta
        self._merge(i, j)
        return 0

    cdef int _shift(self, i64 old, i64 new, i64 length, i64 size) except -1:
        """Move a reservation of ``size`` nodes for ``length`` seconds from ``old`` to ``new``."""
        cdef i64 end = new + length
        if end > old:  # overlapping windows: [new, old) is taken, [end, old + length) freed
            self._apply(new, old, -size)
            self._apply(end, old + length, size)
        else:
            self._apply(new, end, -size)
            self._apply(old, old + length, size)
        return 0

    cdef i64 _earliest(self, i64 now, i64 size, i64 duration) except? -1:
        """The anchor point: first time >= ``now`` with ``size`` nodes free for ``duration``."""
        if size > self.nodes:
            raise ValueError(f"a job of {size} nodes never fits on {self.nodes} nodes")
        cdef Py_ssize_t i = self._frame(now), j
        cdef i64 anchor, end
        while i < self.n:
            if self.free[i] < size:
                i += 1
                continue
            anchor = self.times[i] if self.times[i] > now else now
            end = anchor + duration
            j = i + 1
            while j < self.n and self.times[j] < end and self.free[j] >= size:
                j += 1
            if j == self.n or self.times[j] >= end:
                return anchor
            # Every anchor up to frame j would overlap frame j: resume after it.
            i = j + 1
        raise AssertionError("the last frame of a profile is always fully free")

    cdef i64 _earliest_near(self, i64 now, i64 size, i64 duration, i64 latest, i64 start, i64 end) noexcept nogil:
        """The first anchor in ``[now, latest)`` reachable from ``[start, end)``, else ``latest``.

        See :meth:`sitesim.schedulers.profile.Profile.earliest_near` for why this equals
        the full scan's answer for a job at its earliest before room was added there.
        """
        cdef i64* times = self.times
        cdef i64* free = self.free
        cdef Py_ssize_t n = self.n
        cdef Py_ssize_t k = self._bisect_right(start, 0) - 1
        cdef Py_ssize_t stop = self._bisect_left(end, k)
        cdef Py_ssize_t first = -1, low, e
        cdef i64 anchor, until
        if k < stop and free[k] >= size:
            # The run may begin before ``start``: walk back to its first frame.
            low = self._bisect_right(now, 0) - 1
            first = k
            while first > low and free[first - 1] >= size:
                first -= 1
        while True:
            while k < stop and free[k] < size:  # frames without room: skip
                k += 1
            if k >= stop:
                return latest
            anchor = times[first if first >= 0 else k]
            first = -1
            if anchor < now:
                anchor = now
            until = anchor + duration
            if until > latest:
                until = latest
            e = k + 1
            while e < n and times[e] < until and free[e] >= size:
                e += 1
            if e == n or times[e] >= until:
                return anchor
            k = e + 1  # frame e is too full: the next run starts after it

    # -- compression ---------------------------------------------------------------
    cdef int _sync(self, i64 now) except -1:
        if now < self.times[0]:
            raise ValueError(f"time {now} is before the profile's origin {self.times[0]}")
        self._advance(now)
        if self.dirty:
            self._compress(now)
        return 0

    cdef int _compress(self, i64 now) except -1:
        """Move every waiting job, in queue order, to its earliest start (never later).

        The reference's passes and hull bounds (see ``Reservations._compress`` in
        :mod:`sitesim.schedulers.reservations`), without its certificates.
        """
        self.dirty = False
        cdef i64* sizes = self.sizes
        cdef i64* lengths = self.lengths
        cdef i64* starts = self.starts
        cdef Py_ssize_t* prev_pos = self.prev_pos
        cdef i64* prev_lo = self.prev_lo
        cdef i64* prev_hi = self.prev_hi
        cdef Py_ssize_t* mv_pos = self.mv_pos
        cdef i64* mv_lo = self.mv_lo
        cdef i64* mv_hi = self.mv_hi
        cdef Py_ssize_t n = self.m, p, j, q, i, stop, moves
        cdef i64 next_due = self.next_due
        cdef i64 lo, hi, cur_lo, cur_hi, old, size, length, new, end, add_lo, add_hi
        cdef bint room
        # Before the first pass: the releases, unseen by every position (clamped at
        # ``now``, which clamps every later hull too).
        prev_pos[0] = n
        prev_lo[0] = now if now > self.rel_lo else self.rel_lo
        prev_hi[0] = self.rel_hi
        moves = 1
        self.rel_lo = NONE
        self.rel_hi = -1
        while True:
            # Close the previous pass's suffix hulls with the sentinel (position n, empty).
            prev_pos[moves] = n
            prev_lo[moves] = NONE
            prev_hi[moves] = -1
            moves = 0
            cur_lo = cur_hi = -1
            j = 0
            for p in range(n):
                while prev_pos[j] <= p:
                    j += 1
                lo = prev_lo[j]
                hi = prev_hi[j]
                if cur_hi >= 0:
                    if cur_lo < lo:
                        lo = cur_lo
                    if cur_hi > hi:
                        hi = cur_hi
                elif hi < 0:
                    break  # nothing unseen is left for this or any later position
                old = starts[p]
                if hi > old:
                    hi = old
                if lo >= hi:
                    continue
                size = sizes[p]
                # No frame meeting [lo, hi) has room: no run can start there.
                i = self._bisect_right(lo, 0) - 1
                stop = self._bisect_left(hi, i + 1)
                room = False
                while i < stop:
                    if self.free[i] >= size:
                        room = True
                        break
                    i += 1
                if not room:
                    continue
                length = lengths[p]
                new = self._earliest_near(now, size, length, old, lo, hi)
                if new >= old:
                    continue
                self._shift(old, new, length, size)
                starts[p] = new
                if new < next_due:
                    next_due = new
                # Room is added only where the old window does not overlap the new.
                end = new + length
                add_lo = end if end > old else old
                add_hi = old + length
                mv_pos[moves] = p
                mv_lo[moves] = add_lo
                mv_hi[moves] = add_hi
                moves += 1
                if cur_hi < 0 or add_lo < cur_lo:
                    cur_lo = add_lo
                if add_hi > cur_hi:
                    cur_hi = add_hi
            if moves == 0:
                break
            # Suffix bounds of this pass's additions, for the next pass.
            lo = NONE
            hi = -1
            for q in range(moves - 1, -1, -1):
                if mv_lo[q] < lo:
                    lo = mv_lo[q]
                if mv_hi[q] > hi:
                    hi = mv_hi[q]
                prev_pos[q] = mv_pos[q]
                prev_lo[q] = lo
                prev_hi[q] = hi
        self.next_due = next_due
        return 0
