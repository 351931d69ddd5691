# cython: language_level=3, boundscheck=False, wraparound=False
"""EASY's inner loops, compiled: the same answers as their Python originals,
:func:`sitesim.schedulers.backfill.scan_python` and
:func:`~sitesim.schedulers.backfill.shadow_python`.

Why: on a saturated site the queue is long, and every pass after a job ends walks it for
backfill candidates and walks the running jobs for the shadow time. In Python that walk
makes a 200-user year of EASY 1.4-2 times slower on whole runs (docs/performance.md);
here each step is a few C comparisons, attribute reads and set lookups.
"""

cimport cython

ctypedef long long i64


def scan(list candidates, Py_ssize_t first, i64 free, i64 now, i64 end_by, i64 extra, planned=None,
         blocked=frozenset(), continuing=frozenset()):
    """The backfill scan of ``candidates[first:]``: (positions chosen, free left, extra left)."""
    cdef Py_ssize_t i, n = len(candidates)
    cdef i64 size, start, length
    # Empty sets (every pass but a timed-run base's) are not asked.
    cdef bint any_blocked = bool(blocked), any_continuing = bool(continuing), by_plan = planned is not None
    if first < 0:
        raise ValueError(f"a backfill scan starts at a position, got {first}")
    picked = []
    for i in range(first, n):
        job = candidates[i]
        size = job.size
        if size > free:
            continue
        seq = job.seq
        if any_blocked and seq in blocked:
            continue
        start = job.start if any_continuing and seq in continuing else now
        length = planned[seq] if by_plan else job.estimate
        # start + length > end_by, written so that a huge length cannot wrap around
        # (start is a time, never negative, so end_by - start cannot either).
        if length > end_by - start:
            if size > extra:
                continue
            extra -= size
        free -= size
        picked.append(i)
        if free == 0:
            break
    return picked, free, extra


@cython.boundscheck(True)
def shadow(list running, i64 need, i64 free):
    """Shadow time and extra nodes for a head job of ``need`` nodes (see the Python one)."""
    cdef Py_ssize_t i, k, n = len(running)
    cdef i64 avail = free, end, total
    cdef tuple entry
    for i in range(n):
        entry = <tuple?> running[i]
        avail += <i64> entry[2]
        if avail >= need:
            end = entry[0]
            # Jobs expected to end at the very same instant free their nodes too.
            for k in range(i + 1, n):
                entry = <tuple?> running[k]
                if <i64> entry[0] != end:
                    break
                avail += <i64> entry[2]
            return end, avail - need
    total = free
    for entry in running:
        total += <i64> entry[2]
    raise RuntimeError(f"job of {need} nodes can never run on {total} nodes")
