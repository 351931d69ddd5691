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
from libc.math cimport exp, log10, pow
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
    cdef Py_ssize_t n, capacity
    cdef list jobs
    cdef dict position
    cdef Py_ssize_t users, user_capacity
    cdef dict slot_of

    def __cinit__(self, *args):
        self.n = self.capacity = self.users = self.user_capacity = 0
        self.seqs = self.submits = self.sizes = NULL
        self.numbers = NULL
        self.slots = self.rest = NULL
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
        return i

    def remove(self, job):
        """A waiting job started: the last one takes its place."""
        cdef Py_ssize_t i = self.position.pop(job.seq), last = self.n - 1
        if i != last:
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
        arranged = [jobs[entries[i].index] for i in range(n_first)]
        candidate.value = best_value
        candidate.seq = best_seq
        for i in range(n_small):
            if best >= 0 and _precedes(&candidate, &small[i], order):
                arranged.append(jobs[best])
                best = -1
            arranged.append(jobs[small[i].index])
        if best >= 0:
            arranged.append(jobs[best])
        for i in range(n_rest):
            arranged.append(jobs[self.rest[i]])
        return arranged


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
    size terms.

    :meth:`compute` is the twin of the computation of ``MultifactorScheduler._refresh``
    (:func:`rank`'s arithmetic), :meth:`rank` arranges the queue by decreasing priority,
    ties by arrival, as its sorts and insertions keep it, sorting only what the pass can
    use (:meth:`_Waiting._arranged`).
    """

    cdef double* static
    #: Per user slot: the fair-share factor of the computation (or given since, to a
    #: user with no job waiting at it), valid where ``epochs`` holds ``epoch``.
    cdef double* factors
    cdef i64* epochs
    cdef i64 epoch
    cdef Py_ssize_t static_capacity, epoch_capacity
    #: Per user slot: the user.
    cdef list user_of
    #: Sums of the weighted factors of the started jobs at their start (age, size,
    #: fair-share, priority), added in the order ``MultifactorScheduler.started`` adds
    #: them; and how many started.
    cdef double sum_age, sum_size, sum_fairshare, sum_priority
    cdef i64 n_started

    def __cinit__(self):
        self.static = NULL
        self.factors = NULL
        self.epochs = NULL
        self.epoch = 0
        self.static_capacity = self.epoch_capacity = 0
        self.user_of = []
        self.sum_age = self.sum_size = self.sum_fairshare = self.sum_priority = 0.0
        self.n_started = 0

    def __dealloc__(self):
        free(self.static)
        free(self.factors)
        free(self.epochs)

    cdef void _new_users(self, Py_ssize_t capacity) except *:
        cdef Py_ssize_t i
        self.factors = <double*> _resized(self.factors, capacity * sizeof(double))
        self.epochs = <i64*> _resized(self.epochs, capacity * sizeof(i64))
        for i in range(self.epoch_capacity, capacity):
            self.epochs[i] = -1
        self.epoch_capacity = capacity

    cdef Py_ssize_t _user_slot(self, user) except -1:
        cdef Py_ssize_t slot = self._slot(user)
        if slot == len(self.user_of):
            self.user_of.append(user)
        return slot

    def factor(self, user):
        """``user``'s fair-share factor of the last computation, or given since (with
        :meth:`give`); None when there is neither."""
        known = self.slot_of.get(user)
        if known is None:
            return None
        cdef Py_ssize_t slot = <Py_ssize_t> known
        if self.epochs[slot] != self.epoch:
            return None
        return self.factors[slot]

    def give(self, user, double factor):
        """``user``, with no job waiting at the last computation, has ``factor`` until the
        next."""
        cdef Py_ssize_t slot = self._user_slot(user)
        self.factors[slot] = factor
        self.epochs[slot] = self.epoch

    def add(self, job, double static, double given):
        """A job arrived with its size term and the priority it is given until the next
        computation."""
        self._user_slot(job.user)
        cdef Py_ssize_t i = self._add(job, given)
        if self.static_capacity < self.capacity:
            self.static = <double*> _resized(self.static, self.capacity * sizeof(double))
            self.static_capacity = self.capacity
        self.static[i] = static

    def remove(self, job):
        cdef Py_ssize_t i = self.position[job.seq], last = self.n - 1
        self.static[i] = self.static[last]
        _Waiting.remove(self, job)

    def priority(self, job):
        """Waiting ``job``'s priority as the queue is ordered now."""
        return self.numbers[<Py_ssize_t> self.position[job.seq]]

    @cython.cdivision(True)
    def started(self, job, i64 now, i64 cap, double age, double fairshare_term):
        """Waiting ``job`` started at ``now``: its weighted factors at the start added to
        the sums (the twin of ``MultifactorScheduler.started``'s sums: the age term
        ``age * (min(waited, cap) / cap)``, its size term, ``fairshare_term`` (the
        weighted fair-share factor), its priority as the queue was ordered), and the job
        taken out of the queue."""
        cdef Py_ssize_t i = self.position[job.seq]
        cdef i64 waited = now - self.submits[i]
        if waited > cap:
            waited = cap
        self.sum_age += age * ((<double> waited) / (<double> cap))
        self.sum_size += self.static[i]
        self.sum_fairshare += fairshare_term
        self.sum_priority += self.numbers[i]
        self.n_started += 1
        self.remove(job)

    def sums(self):
        """The sums of :meth:`started`, by factor, as the report names them."""
        return {"age": self.sum_age, "size": self.sum_size, "fairshare": self.sum_fairshare,
                "priority": self.sum_priority}

    def compute(self, i64 now, dict table, double gt, double k, double scale, bint flat, i64 cap,
                double per_second, double age, double w_fairshare):
        """Every waiting job's priority at ``now`` (the twin of ``MultifactorScheduler._refresh``),
        with its user's fair-share factor computed once per user with a job waiting
        (``fairshare_factors``' loop, ``flat``: 1 for all): ``2 ** (-usage * scale)`` from
        the usage ``table``'s [done, rate, offset] entries, 1 for a user with none; by
        the C library's ``pow``, which Python's ``**`` on floats calls."""
        cdef Py_ssize_t i, slot
        cdef i64 waited
        cdef list entry
        cdef double factor
        self.epoch += 1
        for i in range(self.n):
            slot = self.slots[i]
            if self.epochs[slot] != self.epoch:
                factor = 1.0
                if not flat:
                    found = table.get(self.user_of[slot])
                    if found is not None:
                        entry = <list> found
                        factor = pow(2.0, -((<double> entry[0]) + ((<double> entry[1]) * gt - (<double> entry[2])) * k) * scale)
                self.factors[slot] = factor
                self.epochs[slot] = self.epoch
            waited = now - self.submits[i]
            self.numbers[i] = (per_second * waited if waited < cap else age) + self.static[i] + (
                w_fairshare * self.factors[slot]
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
