# cython: language_level=3, boundscheck=False, wraparound=False
"""The multifactor policy's ranking, compiled: the same priorities and the same order as
its Python original, :meth:`sitesim.schedulers.multifactor.MultifactorScheduler.priority`
and a sort by it.

Why: every waiting job's priority is recomputed every period, and on a saturated site
the queue is long; in Python a 200-user year of multifactor runs about 1.5 times slower
(docs/performance.md). The arithmetic is the
same IEEE operations in the same order (the extension is built without contracting a
multiply and an add into one instruction), so every priority is the same number.
"""

from libc.stdlib cimport malloc, free, qsort

ctypedef long long i64

cdef struct Entry:
    double value
    i64 seq
    Py_ssize_t index


cdef int _compare(const void* a, const void* b) noexcept nogil:
    cdef const Entry* x = <const Entry*> a
    cdef const Entry* y = <const Entry*> b
    if x.value > y.value:
        return -1
    if x.value < y.value:
        return 1
    return -1 if x.seq < y.seq else (1 if x.seq > y.seq else 0)


def rank(list queue, dict static, dict fairshare, i64 now, i64 cap, double per_second, double age,
         double w_fairshare):
    """The queue sorted by decreasing priority at ``now``, ties in arrival order."""
    cdef Py_ssize_t i, n = len(queue)
    cdef i64 waited, seq
    cdef double value
    cdef Entry* entries = <Entry*> malloc(max(n, 1) * sizeof(Entry))
    if entries == NULL:
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
        qsort(entries, n, sizeof(Entry), _compare)
        return [queue[entries[i].index] for i in range(n)]
    finally:
        free(entries)
