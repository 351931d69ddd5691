# cython: language_level=3, boundscheck=False, wraparound=False
"""The ordered queues of the policies that order the whole queue, compiled: the same
priorities and the same starts as their Python originals. ``MultifactorQueue``:
multifactor's (:meth:`sitesim.schedulers.multifactor.MultifactorScheduler.priority` and
the sorts by it), with ``fairshare``, its fair-share factors; ``CreasyQueue``: creasy's
(:meth:`sitesim.schedulers.creasy.CreasyScheduler._rank`).

Why: these orders change with time, so a pass orders the waiting jobs again, and on a
saturated site the queue is long. In Python that made a fitted CTC-SP2 year at 1,018
users 5 times EASY's time under creasy (docs/performance.md). Here what an order reads
of a job is copied into C arrays once, on arrival, and a pass sorts only the jobs it
can start. The arithmetic is the same IEEE operations in the same order, with the C
library functions ``math`` and ``**`` call (the extension is built without contracting
a multiply and an add into one instruction), so every priority is the same number.
"""

cimport cython
from libc.errno cimport ERANGE
from libc.math cimport exp, isinf, log10, pow
from libc.stdlib cimport free, realloc
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


cdef class _Waiting:
    """Waiting jobs with what an order reads of them copied into C arrays on arrival
    (arrival number, submit time, size, user slot, one number of the policy's), so that
    ordering them at a pass reads no job attribute; and the arrangement both policies
    hand their pass (:meth:`_arranged`)."""

    cdef i64* seqs
    cdef i64* submits
    cdef i64* sizes
    #: A number of each job's, the policy's: creasy's max(estimate, 1), multifactor's
    #: priority as the queue is ordered now.
    cdef double* numbers
    cdef Py_ssize_t* slots
    cdef Entry* entries
    cdef Entry* spare
    cdef Py_ssize_t* rest
    #: Where each job is in the last arrangement (:meth:`_arranged`), while ``current``:
    #: no job has arrived or left since, so the pass's queue is that arrangement.
    cdef Py_ssize_t* where
    cdef bint current
    cdef Py_ssize_t n, capacity
    cdef list jobs
    cdef dict position
    cdef Py_ssize_t users, user_capacity
    cdef dict slot_of

    def __cinit__(self, *args):
        self.n = self.capacity = self.users = self.user_capacity = 0
        self.seqs = self.submits = self.sizes = NULL
        self.numbers = NULL
        self.slots = self.rest = self.where = NULL
        self.current = False
        self.entries = self.spare = NULL
        self.jobs = []
        self.position = {}
        self.slot_of = {}

    def __dealloc__(self):
        free(self.seqs)
        free(self.submits)
        free(self.sizes)
        free(self.numbers)
        free(self.slots)
        free(self.rest)
        free(self.where)
        free(self.entries)
        free(self.spare)

    cdef void _grow(self) except *:
        cdef Py_ssize_t capacity = max(16, 2 * self.capacity)
        self.seqs = <i64*> _resized(self.seqs, capacity * sizeof(i64))
        self.submits = <i64*> _resized(self.submits, capacity * sizeof(i64))
        self.sizes = <i64*> _resized(self.sizes, capacity * sizeof(i64))
        self.numbers = <double*> _resized(self.numbers, capacity * sizeof(double))
        self.slots = <Py_ssize_t*> _resized(self.slots, capacity * sizeof(Py_ssize_t))
        self.rest = <Py_ssize_t*> _resized(self.rest, capacity * sizeof(Py_ssize_t))
        self.where = <Py_ssize_t*> _resized(self.where, capacity * sizeof(Py_ssize_t))
        self.entries = <Entry*> _resized(self.entries, capacity * sizeof(Entry))
        self.spare = <Entry*> _resized(self.spare, capacity * sizeof(Entry))
        self.capacity = capacity

    cdef void _new_users(self, Py_ssize_t capacity) except *:
        """Room for ``capacity`` user slots in the policy's per-user arrays."""

    cdef Py_ssize_t _slot(self, user) except -1:
        cdef Py_ssize_t slot
        known = self.slot_of.get(user)
        if known is not None:
            return <Py_ssize_t> known
        if self.users == self.user_capacity:
            self.user_capacity = max(16, 2 * self.user_capacity)
            self._new_users(self.user_capacity)
        slot = self.users
        self.users += 1
        self.slot_of[user] = slot
        return slot

    cdef Py_ssize_t _add(self, job, double number) except -1:
        if self.n == self.capacity:
            self._grow()
        cdef Py_ssize_t i = self.n
        self.seqs[i] = job.seq
        self.submits[i] = job.submit
        self.sizes[i] = job.size
        self.numbers[i] = number
        self.slots[i] = self._slot(job.user)
        self.position[job.seq] = i
        self.jobs.append(job)
        self.n += 1
        self.current = False
        return i

    def remove(self, job):
        """A waiting job started: the last one takes its place."""
        self._remove_at(<Py_ssize_t> self.position[job.seq], job.seq)

    cdef void _drop(self, Py_ssize_t i, Py_ssize_t last) noexcept:
        """The policy's own per-job arrays: entry ``last`` moves to ``i``."""

    cdef void _remove_at(self, Py_ssize_t i, seq) except *:
        cdef Py_ssize_t last = self.n - 1
        self.current = False
        del self.position[seq]
        if i != last:
            self._drop(i, last)
            self.seqs[i] = self.seqs[last]
            self.submits[i] = self.submits[last]
            self.sizes[i] = self.sizes[last]
            self.numbers[i] = self.numbers[last]
            self.slots[i] = self.slots[last]
            moved = self.jobs[last]
            self.jobs[i] = moved
            self.position[moved.seq] = i
        self.jobs.pop()
        self.n = last

    cdef list _arranged(self, Py_ssize_t n_first, Py_ssize_t n_small, Py_ssize_t best, double best_value,
                        i64 best_seq, Py_ssize_t n_rest, Order order):
        """The queue for a pass: ``entries[:n_first]`` (sorted by arrival, first
        whatever their size), then the entries that fit (the last ``n_small``) sorted in
        ``order`` with the first larger job ``best`` in its place among them, then the
        other larger jobs (``rest``) in no particular order.

        Why that is enough: a pass never starts a job larger than its free nodes (it
        only takes nodes), so those jobs matter only as the head, the first job that
        does not fit; the head is at the latest the first of them. The pass therefore
        starts the very jobs, in the same order, as from the whole queue in order.
        """
        cdef Py_ssize_t i
        cdef Entry* entries = self.entries
        cdef Entry* small = entries + (self.n - n_small)
        cdef Entry candidate
        cdef list jobs = self.jobs
        _sort(entries, n_first, self.spare, BY_SEQ)
        _sort(small, n_small, self.spare, order)
        cdef Py_ssize_t* where = self.where
        cdef Py_ssize_t at = 0
        arranged = []
        for i in range(n_first):
            where[entries[i].index] = at
            at += 1
            arranged.append(jobs[entries[i].index])
        candidate.value = best_value
        candidate.seq = best_seq
        for i in range(n_small):
            if best >= 0 and _precedes(&candidate, &small[i], order):
                where[best] = at
                at += 1
                arranged.append(jobs[best])
                best = -1
            where[small[i].index] = at
            at += 1
            arranged.append(jobs[small[i].index])
        if best >= 0:
            where[best] = at
            at += 1
            arranged.append(jobs[best])
        for i in range(n_rest):
            where[self.rest[i]] = at
            at += 1
            arranged.append(jobs[self.rest[i]])
        self.current = True
        return arranged

    def positions(self, jobs):
        """Where the waiting ``jobs`` are in the last arrangement, ascending, or None if a
        job has arrived or left since it (the pass's queue is then another list)."""
        if not self.current:
            return None
        found = [self.where[<Py_ssize_t> self.position[job.seq]] for job in jobs]
        found.sort()
        return found


cdef class CreasyQueue(_Waiting):
    """creasy's waiting jobs (:class:`_Waiting`; its number is ``max(estimate, 1)``), and
    each user's latest interaction.

    :meth:`rank` is the twin of ``CreasyScheduler._rank``: the aged jobs by arrival, then
    the others by the key ``-presence / max(estimate, 1)``, ties by arrival. A presence
    is the Python one's expression with the same C library's ``exp`` and ``log10`` that
    ``math`` calls, so every key is the same number. It sorts only what the pass can use
    (:meth:`_Waiting._arranged`).
    """

    #: Per user slot: latest interaction, and the presence computed at ``cached_at``.
    cdef i64* seen
    cdef double* presence
    cdef i64* cached_at
    cdef i64 aging, minute
    cdef double b0, slope, at_once

    def __cinit__(self, i64 aging, double b0, double slope, i64 minute, double at_once):
        self.aging, self.b0, self.slope, self.minute, self.at_once = aging, b0, slope, minute, at_once
        self.seen = self.cached_at = NULL
        self.presence = NULL

    def __dealloc__(self):
        free(self.seen)
        free(self.presence)
        free(self.cached_at)

    cdef void _new_users(self, Py_ssize_t capacity) except *:
        self.seen = <i64*> _resized(self.seen, capacity * sizeof(i64))
        self.cached_at = <i64*> _resized(self.cached_at, capacity * sizeof(i64))
        self.presence = <double*> _resized(self.presence, capacity * sizeof(double))

    def interacted(self, user, i64 now):
        """``user`` interacted with the site at ``now`` (a submission, an end seen)."""
        cdef Py_ssize_t slot = self._slot(user)
        self.seen[slot] = now
        self.cached_at[slot] = -1

    def add(self, job):
        """A job arrived (after its user's :meth:`interacted`)."""
        cdef i64 length = job.estimate
        self._add(job, <double> (length if length > 1 else 1))

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
        return -self.presence[slot] / self.numbers[i]

    def key(self, job, i64 now):
        """Waiting ``job``'s key at ``now`` (what the tests hold to the Python one's)."""
        return self._value(self.position[job.seq], now)

    def rank(self, i64 now, i64 nodes):
        """For a pass with ``nodes`` free nodes at ``now``: (the waiting jobs arranged
        for it (:meth:`_Waiting._arranged`; the aged ones first), or None when no
        waiting job fits: the pass starts nothing in any order; whether any is aged)."""
        cdef Py_ssize_t i, n = self.n, n_aged = 0, n_small = 0, n_rest = 0, best = -1
        cdef double value, best_value = 0.0
        cdef i64 seq, best_seq = 0
        cdef bint fits = False
        cdef Entry* entries = self.entries
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
        return self._arranged(n_aged, n_small, best, best_value, best_seq, n_rest, INCREASING_VALUE), n_aged > 0


cdef class MultifactorQueue(_Waiting):
    """multifactor's waiting jobs (:class:`_Waiting`; its number is the job's priority as
    the queue is ordered: given on arrival, or that of the last computation), with their
    size terms, and each user's decayed usage.

    It is the twin of ``MultifactorScheduler``'s per-job work where the queue was
    built: :meth:`arrive` of its ``place`` (the size term and the priority given on
    arrival), :meth:`start` of its ``started`` (the report's sums and the usage from the
    start), :meth:`ended` of ``Usage.end``, :meth:`compute` of ``_refresh``'s
    computation, :meth:`rank` of its sorts and insertions (by decreasing priority,
    ties by arrival, sorting only what the pass can use: :meth:`_Waiting._arranged`).
    The usage is ``Usage``'s table on C arrays, with the same operations in the same
    order, so every factor and priority is the same number.
    """

    cdef double* static
    #: Per user slot: the fair-share factor of the computation (or given since, to a
    #: user with no job waiting at it), valid where ``epochs`` holds ``epoch``.
    cdef double* factors
    cdef i64* epochs
    cdef i64 epoch
    cdef Py_ssize_t static_capacity, epoch_capacity
    #: Per user slot, ``Usage``'s entry: usage of ended runs, nodes running now, sum of
    #: size * g(start) of those; and whether the user has one (has started a job).
    cdef double* done
    cdef i64* rate
    cdef double* offset
    cdef char* used
    #: ``Usage``'s totals over users, its scale's origin and constants.
    cdef double total_done, total_offset, k, rebase_above
    cdef i64 total_rate, t0, half_life
    #: The parameters (``Priorities``): weights, the size term's nodes and direction,
    #: the age cap, the period.
    cdef double w_age, w_size, w_fairshare, per_second
    cdef i64 nodes, max_age, period
    cdef bint favor_large
    #: Sums of the weighted factors of the started jobs at their start (age, size,
    #: fair-share, priority), added in the order ``MultifactorScheduler.started`` adds
    #: them; and how many started.
    cdef double sum_age, sum_size, sum_fairshare, sum_priority
    cdef i64 n_started

    def __cinit__(self, i64 nodes, double w_age, double w_size, double w_fairshare, bint favor_large, i64 max_age,
                  i64 half_life, i64 period, double k, double rebase_above):
        self.static = NULL
        self.factors = NULL
        self.epochs = NULL
        self.done = self.offset = NULL
        self.rate = NULL
        self.used = NULL
        self.epoch = 0
        self.static_capacity = self.epoch_capacity = 0
        self.total_done = self.total_offset = 0.0
        self.total_rate = self.t0 = 0
        self.half_life, self.k, self.rebase_above = half_life, k, rebase_above
        self.nodes, self.w_age, self.w_size, self.w_fairshare = nodes, w_age, w_size, w_fairshare
        self.favor_large, self.max_age, self.period = favor_large, max_age, period
        self.per_second = w_age / max_age
        self.sum_age = self.sum_size = self.sum_fairshare = self.sum_priority = 0.0
        self.n_started = 0

    def __dealloc__(self):
        free(self.static)
        free(self.factors)
        free(self.epochs)
        free(self.done)
        free(self.rate)
        free(self.offset)
        free(self.used)

    cdef void _new_users(self, Py_ssize_t capacity) except *:
        cdef Py_ssize_t i
        self.factors = <double*> _resized(self.factors, capacity * sizeof(double))
        self.epochs = <i64*> _resized(self.epochs, capacity * sizeof(i64))
        self.done = <double*> _resized(self.done, capacity * sizeof(double))
        self.rate = <i64*> _resized(self.rate, capacity * sizeof(i64))
        self.offset = <double*> _resized(self.offset, capacity * sizeof(double))
        self.used = <char*> _resized(self.used, capacity * sizeof(char))
        for i in range(self.epoch_capacity, capacity):
            self.epochs[i] = -1
            self.done[i] = self.offset[i] = 0.0
            self.rate[i] = 0
            self.used[i] = 0
        self.epoch_capacity = capacity

    # -- the usage (``Usage``'s arithmetic) ------------------------------------------------
    cdef double _g(self, i64 t) except -1.0:
        """``Usage.g``: ``2 ** ((t - t0) / half_life)``, by the C library's ``pow`` that
        ``**`` calls, and Python's OverflowError where it overflows."""
        cdef double g = pow(2.0, (<double> (t - self.t0)) / (<double> self.half_life))
        if isinf(g):
            raise OverflowError(ERANGE, "Numerical result out of range")
        return g

    cdef void _rebase(self, i64 now) except *:
        cdef double factor = 1.0 / self._g(now)
        cdef Py_ssize_t slot
        for slot in range(self.users):
            if self.used[slot]:
                self.done[slot] *= factor
                self.offset[slot] *= factor
        self.total_done *= factor
        self.total_offset *= factor
        self.t0 = now

    cdef void _accrue(self, Py_ssize_t slot, i64 size, i64 now) except *:
        """``Usage.start``: ``size`` nodes of the user in ``slot`` run from ``now``."""
        cdef double gn = self._g(now), weighed
        if gn > self.rebase_above:
            self._rebase(now)
            gn = self._g(now)
        self.used[slot] = 1
        weighed = (<double> size) * gn
        self.rate[slot] += size
        self.offset[slot] += weighed
        self.total_rate += size
        self.total_offset += weighed

    def ended(self, job, i64 now):
        """A running ``job`` ended at ``now``: its usage, ``Usage.end``'s arithmetic."""
        cdef Py_ssize_t slot = <Py_ssize_t> self.slot_of[job.user]
        cdef i64 size = job.size, start = job.start
        cdef double h = <double> self.half_life
        cdef double gs = pow(2.0, (<double> (start - self.t0)) / h), ge, used
        if isinf(gs):
            raise OverflowError(ERANGE, "Numerical result out of range")
        ge = pow(2.0, (<double> (now - self.t0)) / h)
        if isinf(ge):
            raise OverflowError(ERANGE, "Numerical result out of range")
        used = (<double> size) * (ge - gs) * self.k
        self.done[slot] += used
        self.total_done += used
        self.rate[slot] -= size
        self.total_rate -= size
        # With nothing left running an offset is exactly zero (no rounding left over).
        self.offset[slot] = self.offset[slot] - (<double> size) * gs if self.rate[slot] else 0.0
        self.total_offset = self.total_offset - (<double> size) * gs if self.total_rate else 0.0

    cdef double _total(self, double gt) noexcept:
        return self.total_done + ((<double> self.total_rate) * gt - self.total_offset) * self.k

    cdef double _usage_factor(self, Py_ssize_t slot, double gt, double scale) noexcept:
        """``2 ** (-usage * scale)`` of the user in ``slot`` (1 for one with no usage)."""
        if not self.used[slot]:
            return 1.0
        return pow(2.0, -(self.done[slot] + ((<double> self.rate[slot]) * gt - self.offset[slot]) * self.k) * scale)

    @cython.cdivision(True)
    cdef double _fairshare(self, Py_ssize_t slot, i64 now) except -1.0:
        """``MultifactorScheduler.fairshare_factor``: one user's factor at ``now``."""
        cdef double gt = self._g(now)
        cdef double total = self._total(gt)
        if total <= 0.0 or not self.w_fairshare:
            return 1.0
        return self._usage_factor(slot, gt, (<double> self.users) / total)

    # -- the jobs ------------------------------------------------------------------------
    def factor(self, user):
        """``user``'s fair-share factor of the last computation, or given since; None
        when there is neither."""
        known = self.slot_of.get(user)
        if known is None:
            return None
        cdef Py_ssize_t slot = <Py_ssize_t> known
        if self.epochs[slot] != self.epoch:
            return None
        return self.factors[slot]

    @cython.cdivision(True)
    def arrive(self, job):
        """A job arrived: its size term, and the priority it is given until the next
        computation (``MultifactorScheduler.place``): a wait of 0 s, its user's factor
        of the last computation, else one computed at its submission and given to the
        user until the next (the user had no job waiting then). With ``period`` 0 the
        pass computes every priority."""
        cdef Py_ssize_t slot = self._slot(job.user), i
        cdef i64 size = job.size
        cdef double static, factor, given = 0.0
        if self.favor_large:
            static = self.w_size * ((<double> size) / (<double> self.nodes))
        else:
            static = self.w_size * ((<double> (self.nodes - size + 1)) / (<double> self.nodes))
        if self.period:
            if self.epochs[slot] == self.epoch:
                factor = self.factors[slot]
            else:
                factor = self._fairshare(slot, job.submit)
                self.factors[slot] = factor
                self.epochs[slot] = self.epoch
            # The age term of a job that has waited 0 s is 0.0, and 0.0 plus its size
            # term (>= 0) is that term, exactly.
            given = static + self.w_fairshare * factor
        i = self._add(job, given)
        if self.static_capacity < self.capacity:
            self.static = <double*> _resized(self.static, self.capacity * sizeof(double))
            self.static_capacity = self.capacity
        self.static[i] = static

    cdef void _drop(self, Py_ssize_t i, Py_ssize_t last) noexcept:
        self.static[i] = self.static[last]

    def priority(self, job):
        """Waiting ``job``'s priority as the queue is ordered now."""
        return self.numbers[<Py_ssize_t> self.position[job.seq]]

    @cython.cdivision(True)
    def start(self, job, i64 now):
        """Waiting ``job`` starts at ``now`` (``MultifactorScheduler.started``): its
        weighted factors at the start added to the sums (the age term
        ``age * (min(waited, cap) / cap)``, its size term, the weighted fair-share
        factor (of the last computation or given since, else computed now), its
        priority as the queue was ordered), the job taken out of the queue, and its
        usage accrued from now."""
        cdef Py_ssize_t slot = <Py_ssize_t> self.slot_of[job.user]
        cdef Py_ssize_t i = <Py_ssize_t> self.position[job.seq]
        cdef double factor
        cdef i64 waited = now - self.submits[i], size = self.sizes[i]
        if self.epochs[slot] == self.epoch:
            factor = self.factors[slot]
        else:
            factor = self._fairshare(slot, now)
        if waited > self.max_age:
            waited = self.max_age
        self.sum_age += self.w_age * ((<double> waited) / (<double> self.max_age))
        self.sum_size += self.static[i]
        self.sum_fairshare += self.w_fairshare * factor
        self.sum_priority += self.numbers[i]
        self.n_started += 1
        self._remove_at(i, job.seq)
        self._accrue(slot, size, now)

    def started(self):
        """How many jobs started."""
        return self.n_started

    def sums(self):
        """The sums of :meth:`start`, by factor, as the report names them."""
        return {"age": self.sum_age, "size": self.sum_size, "fairshare": self.sum_fairshare,
                "priority": self.sum_priority}

    def compute(self, i64 now):
        """Every waiting job's priority at ``now`` (the twin of ``MultifactorScheduler._refresh``),
        with its user's fair-share factor computed once per user with a job waiting
        (``fairshare_factors``' loop; 1 for all while nobody has used anything or with no
        fair-share weight): ``2 ** (-usage * scale)``, 1 for a user with no usage."""
        cdef Py_ssize_t i, slot
        cdef i64 waited, cap = self.max_age
        cdef double gt = self._g(now)
        cdef double total = self._total(gt), scale = 0.0
        cdef bint flat = total <= 0.0 or not self.w_fairshare
        if not flat:
            scale = (<double> self.users) / total
        self.epoch += 1
        for i in range(self.n):
            slot = self.slots[i]
            if self.epochs[slot] != self.epoch:
                self.factors[slot] = 1.0 if flat else self._usage_factor(slot, gt, scale)
                self.epochs[slot] = self.epoch
            waited = now - self.submits[i]
            self.numbers[i] = (self.per_second * waited if waited < cap else self.w_age) + self.static[i] + (
                self.w_fairshare * self.factors[slot]
            )

    def rank(self, i64 nodes):
        """The waiting jobs arranged for a pass with ``nodes`` free nodes, or None when no
        waiting job fits in them."""
        cdef Py_ssize_t i, n = self.n, n_small = 0, n_rest = 0, best = -1
        cdef double value, best_value = 0.0
        cdef i64 seq, best_seq = 0
        cdef Entry* entries = self.entries
        for i in range(n):
            value = self.numbers[i]
            seq = self.seqs[i]
            if self.sizes[i] <= nodes:
                n_small += 1
                entries[n - n_small].value = value
                entries[n - n_small].seq = seq
                entries[n - n_small].index = i
            elif best < 0 or value > best_value or (value == best_value and seq < best_seq):
                if best >= 0:
                    self.rest[n_rest] = best
                    n_rest += 1
                best, best_value, best_seq = i, value, seq
            else:
                self.rest[n_rest] = i
                n_rest += 1
        if not n_small:
            return None
        return self._arranged(0, n_small, best, best_value, best_seq, n_rest, DECREASING_VALUE)


cdef void* _resized(void* block, size_t size) except NULL:
    cdef void* grown = realloc(block, size)
    if grown == NULL:
        raise MemoryError()
    return grown
