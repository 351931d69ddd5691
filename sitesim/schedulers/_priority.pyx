# cython: language_level=3, boundscheck=False, wraparound=False
"""The rankings of the policies that order the whole queue, compiled: the same
priorities and the same order as their Python originals. ``rank``: multifactor's,
:meth:`sitesim.schedulers.multifactor.MultifactorScheduler.priority` and a sort by it;
``CreasyQueue.rank``: creasy's, :meth:`sitesim.schedulers.creasy.CreasyScheduler._rank`.

Why: every waiting job's priority is recomputed every period, and on a saturated site
the queue is long; in Python a 200-user year of multifactor runs about 1.5 times slower
(docs/performance.md). The arithmetic is the
same IEEE operations in the same order (the extension is built without contracting a
multiply and an add into one instruction), so every priority is the same number.
"""

cimport cython
from libc.math cimport exp, log10
from libc.stdlib cimport malloc, free, realloc
from libc.string cimport memcpy

ctypedef long long i64

cdef struct Entry:
    double value
    i64 seq
    Py_ssize_t index


#: The orders :func:`_sort` puts entries in; ties by arrival in each.
cdef enum Order:
    DECREASING_VALUE  # multifactor: the highest priority first
    INCREASING_VALUE  # creasy: the lowest key first
    BY_SEQ


cdef inline bint _precedes(const Entry* x, const Entry* y, Order order) noexcept nogil:
    if order == DECREASING_VALUE:
        if x.value != y.value:
            return x.value > y.value
    elif order == INCREASING_VALUE:
        if x.value != y.value:
            return x.value < y.value
    return x.seq < y.seq


cdef void _sort(Entry* a, Py_ssize_t n, Entry* spare, Order order) noexcept nogil:
    """Sort ``a[:n]`` in ``order``, with room for ``n // 2`` entries in ``spare``: a merge
    sort, by insertion below 16 entries. Not the C library's qsort, which costs several
    times more here (it allocates and asks the system's memory size at each call).
    Every key is distinct (arrival numbers are), so any sort gives the same order."""
    cdef Py_ssize_t i, j, k, mid
    cdef Entry entry
    if n <= 16:
        for i in range(1, n):
            entry = a[i]
            j = i
            while j > 0 and _precedes(&entry, &a[j - 1], order):
                a[j] = a[j - 1]
                j -= 1
            a[j] = entry
        return
    mid = n // 2
    _sort(a, mid, spare, order)
    _sort(a + mid, n - mid, spare, order)
    if not _precedes(&a[mid], &a[mid - 1], order):
        return
    memcpy(spare, a, mid * sizeof(Entry))
    i, j, k = 0, mid, 0
    while i < mid and j < n:
        if _precedes(&a[j], &spare[i], order):
            a[k] = a[j]
            j += 1
        else:
            a[k] = spare[i]
            i += 1
        k += 1
    while i < mid:
        a[k] = spare[i]
        i += 1
        k += 1


def rank(list queue, dict static, dict fairshare, i64 now, i64 cap, double per_second, double age,
         double w_fairshare):
    """The queue sorted by decreasing priority at ``now``, ties in arrival order."""
    cdef Py_ssize_t i, n = len(queue)
    cdef i64 waited, seq
    cdef double value
    cdef Entry* entries = <Entry*> malloc(max(n, 1) * sizeof(Entry))
    cdef Entry* spare = <Entry*> malloc(max(n // 2, 1) * sizeof(Entry))
    if entries == NULL or spare == NULL:
        free(entries)
        free(spare)
        raise MemoryError()
    try:
        for i in range(n):
            job = queue[i]
            waited = now - <i64> job.submit
            seq = job.seq
            value = (per_second * waited if waited < cap else age) + <double> static[seq] + (
                w_fairshare * <double> fairshare[job.user]
            )
            entries[i].value = value
            entries[i].seq = seq
            entries[i].index = i
        _sort(entries, n, spare, DECREASING_VALUE)
        return [queue[entries[i].index] for i in range(n)]
    finally:
        free(entries)
        free(spare)



cdef class CreasyQueue:
    """creasy's waiting jobs, with what its order reads of them copied into C arrays as
    they arrive (arrival number, submit time, size, user, ``max(estimate, 1)``), and each
    user's latest interaction: ranking the queue at a pass then reads no job attribute.

    :meth:`rank` is the twin of ``CreasyScheduler._rank``: the aged jobs by arrival, then
    the others by the key ``-presence / max(estimate, 1)``, ties by arrival. A presence
    is the Python one's expression with the same C library's ``exp`` and ``log10`` that
    ``math`` calls, so every key is the same number. It sorts only what the pass can use
    (see :meth:`rank`).
    """

    cdef i64* seqs
    cdef i64* submits
    cdef i64* sizes
    cdef i64* lengths
    cdef Py_ssize_t* slots
    cdef Entry* entries
    cdef Entry* spare
    cdef Py_ssize_t* rest
    cdef Py_ssize_t n, capacity
    cdef list jobs
    cdef dict position
    #: Per user slot: latest interaction, and the presence computed at ``cached_at``.
    cdef i64* seen
    cdef double* presence
    cdef i64* cached_at
    cdef Py_ssize_t users, user_capacity
    cdef dict slot_of
    cdef i64 aging, minute
    cdef double b0, slope, at_once

    def __cinit__(self, i64 aging, double b0, double slope, i64 minute, double at_once):
        self.aging, self.b0, self.slope, self.minute, self.at_once = aging, b0, slope, minute, at_once
        self.n = self.capacity = self.users = self.user_capacity = 0
        self.seqs = self.submits = self.sizes = self.lengths = NULL
        self.slots = self.rest = NULL
        self.entries = self.spare = NULL
        self.seen = self.cached_at = NULL
        self.presence = NULL
        self.jobs = []
        self.position = {}
        self.slot_of = {}

    def __dealloc__(self):
        free(self.seqs)
        free(self.submits)
        free(self.sizes)
        free(self.lengths)
        free(self.slots)
        free(self.rest)
        free(self.entries)
        free(self.spare)
        free(self.seen)
        free(self.presence)
        free(self.cached_at)

    cdef void _grow(self) except *:
        cdef Py_ssize_t capacity = max(16, 2 * self.capacity)
        self.seqs = <i64*> _resized(self.seqs, capacity * sizeof(i64))
        self.submits = <i64*> _resized(self.submits, capacity * sizeof(i64))
        self.sizes = <i64*> _resized(self.sizes, capacity * sizeof(i64))
        self.lengths = <i64*> _resized(self.lengths, capacity * sizeof(i64))
        self.slots = <Py_ssize_t*> _resized(self.slots, capacity * sizeof(Py_ssize_t))
        self.rest = <Py_ssize_t*> _resized(self.rest, capacity * sizeof(Py_ssize_t))
        self.entries = <Entry*> _resized(self.entries, capacity * sizeof(Entry))
        self.spare = <Entry*> _resized(self.spare, capacity * sizeof(Entry))
        self.capacity = capacity

    cdef Py_ssize_t _slot(self, user) except -1:
        cdef Py_ssize_t slot, capacity
        known = self.slot_of.get(user)
        if known is not None:
            return <Py_ssize_t> known
        if self.users == self.user_capacity:
            capacity = max(16, 2 * self.user_capacity)
            self.seen = <i64*> _resized(self.seen, capacity * sizeof(i64))
            self.cached_at = <i64*> _resized(self.cached_at, capacity * sizeof(i64))
            self.presence = <double*> _resized(self.presence, capacity * sizeof(double))
            self.user_capacity = capacity
        slot = self.users
        self.users += 1
        self.slot_of[user] = slot
        self.seen[slot] = 0
        self.cached_at[slot] = -1
        return slot

    def interacted(self, user, i64 now):
        """``user`` interacted with the site at ``now`` (a submission, an end seen)."""
        cdef Py_ssize_t slot = self._slot(user)
        self.seen[slot] = now
        self.cached_at[slot] = -1

    def add(self, job):
        """A job arrived: copy what the order reads of it (fixed while it waits)."""
        cdef i64 length = job.estimate
        if self.n == self.capacity:
            self._grow()
        self.seqs[self.n] = job.seq
        self.submits[self.n] = job.submit
        self.sizes[self.n] = job.size
        self.lengths[self.n] = length if length > 1 else 1
        self.slots[self.n] = self._slot(job.user)
        self.position[job.seq] = self.n
        self.jobs.append(job)
        self.n += 1

    def remove(self, job):
        """A waiting job started: the last one takes its place."""
        cdef Py_ssize_t i = self.position.pop(job.seq), last = self.n - 1
        if i != last:
            self.seqs[i] = self.seqs[last]
            self.submits[i] = self.submits[last]
            self.sizes[i] = self.sizes[last]
            self.lengths[i] = self.lengths[last]
            self.slots[i] = self.slots[last]
            moved = self.jobs[last]
            self.jobs[i] = moved
            self.position[moved.seq] = i
        self.jobs.pop()
        self.n = last

    def aged(self, i64 now):
        """Whether a waiting job has waited ``aging`` seconds or more."""
        cdef Py_ssize_t i
        for i in range(self.n):
            if now - self.submits[i] >= self.aging:
                return True
        return False

    @cython.cdivision(True)
    cdef double _value(self, Py_ssize_t i, i64 now) noexcept:
        """Job ``i``'s key at ``now``: ``-presence / max(estimate, 1)``."""
        cdef Py_ssize_t slot = self.slots[i]
        cdef i64 idle
        cdef double p
        if self.cached_at[slot] != now:
            idle = now - self.seen[slot]
            if idle < self.minute:
                idle = self.minute
            p = 1.0 / (1.0 + exp(-(self.b0 + self.slope * log10(<double> idle))))
            self.presence[slot] = p / self.at_once
            self.cached_at[slot] = now
        return -self.presence[slot] / <double> self.lengths[i]

    def key(self, job, i64 now):
        """Waiting ``job``'s key at ``now`` (what the tests hold to the Python one's)."""
        return self._value(self.position[job.seq], now)

    def rank(self, i64 now, i64 nodes):
        """For a pass with ``nodes`` free nodes at ``now``: (the waiting jobs in an order
        from which the pass starts the very jobs it would from creasy's order, in the
        same order; or None when no waiting job fits in ``nodes``: the pass starts
        nothing in any order), and whether any job is aged.

        That order is creasy's, except that of the jobs larger than ``nodes`` only the
        first in creasy's order keeps its place: the pass never starts one (nodes are
        only taken), so they matter only as the head, the first job that does not fit,
        and the head is never after the first of them. The others follow at the end, in
        no particular order. Only the jobs that fit are sorted.
        """
        cdef Py_ssize_t i, n = self.n, n_aged = 0, n_small = 0, n_rest = 0, best = -1
        cdef double value, best_value = 0.0
        cdef i64 seq, best_seq = 0
        cdef bint fits = False
        cdef Entry* entries = self.entries
        cdef Entry* small
        cdef list jobs = self.jobs
        # The aged jobs fill the entries from the front, those that fit from the back.
        for i in range(n):
            if self.sizes[i] <= nodes:
                fits = True
            if now - self.submits[i] >= self.aging:
                entries[n_aged].seq = self.seqs[i]
                entries[n_aged].index = i
                n_aged += 1
                continue
            value = self._value(i, now)
            seq = self.seqs[i]
            if self.sizes[i] <= nodes:
                n_small += 1
                entries[n - n_small].value = value
                entries[n - n_small].seq = seq
                entries[n - n_small].index = i
            elif best < 0 or value < best_value or (value == best_value and seq < best_seq):
                if best >= 0:
                    self.rest[n_rest] = best
                    n_rest += 1
                best, best_value, best_seq = i, value, seq
            else:
                self.rest[n_rest] = i
                n_rest += 1
        if not fits:
            return None, n_aged > 0
        small = entries + (n - n_small)
        _sort(entries, n_aged, self.spare, BY_SEQ)
        _sort(small, n_small, self.spare, INCREASING_VALUE)
        order = [jobs[entries[i].index] for i in range(n_aged)]
        for i in range(n_small):
            if best >= 0 and (best_value < small[i].value or (best_value == small[i].value and best_seq < small[i].seq)):
                order.append(jobs[best])
                best = -1
            order.append(jobs[small[i].index])
        if best >= 0:
            order.append(jobs[best])
        for i in range(n_rest):
            order.append(jobs[self.rest[i]])
        return order, n_aged > 0


cdef void* _resized(void* block, size_t size) except NULL:
    cdef void* grown = realloc(block, size)
    if grown == NULL:
        raise MemoryError()
    return grown
