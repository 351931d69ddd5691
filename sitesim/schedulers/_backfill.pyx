# cython: language_level=3, boundscheck=False, wraparound=False
"""EASY's inner loops, compiled: the same answers as their Python originals,
:func:`sitesim.schedulers.backfill.scan_python`, :func:`~sitesim.schedulers.backfill.scan_sets_python`
and :func:`~sitesim.schedulers.backfill.shadow_python`.

Why: on a saturated site the queue is long, and every pass after a job ends walks it for
backfill candidates and walks the running jobs for the shadow time; in Python that walk
was a fifth of a 40-user year and two fifths of a 200-user one (docs/performance.md).
Here each step is a few C comparisons and attribute reads. The timed-run scan
(``scan_sets``) adds two set lookups per candidate; timed:easy's site runs spent about
a seventh of their time in its Python loop.
"""

cimport cython

ctypedef long long i64


def scan_plain(list queue, Py_ssize_t first, i64 free, i64 now, i64 end_by, i64 extra):
    """The plain backfill scan of ``queue[first:]``: (positions chosen, free left, extra left)."""
    cdef Py_ssize_t i, n = len(queue)
    cdef i64 size
    if first < 0:
        raise ValueError(f"a backfill scan starts at a queue position, got {first}")
    picked = []
    for i in range(first, n):
        job = queue[i]
        size = job.size
        if size > free:
            continue
        # now + estimate > end_by, written so that a huge estimate cannot wrap around.
        if <i64> job.estimate > end_by - now:
            if size > extra:
                continue
            extra -= size
        free -= size
        picked.append(i)
        if free == 0:
            break
    return picked, free, extra


def scan_sets(list queue, Py_ssize_t first, i64 free, i64 now, i64 end_by, i64 extra, blocked, continuing):
    """The timed-run backfill scan of ``queue[first:]`` (see the Python one): ``blocked``
    jobs are skipped, ``continuing`` ones end at their run's start + estimate."""
    cdef Py_ssize_t i, n = len(queue)
    cdef i64 size, start
    if first < 0:
        raise ValueError(f"a backfill scan starts at a queue position, got {first}")
    picked = []
    for i in range(first, n):
        job = queue[i]
        size = job.size
        if size > free:
            continue
        seq = job.seq
        if seq in blocked:
            continue
        start = job.start if seq in continuing else now
        # start + estimate > end_by, written so that a huge estimate cannot wrap around
        # (start is a time, never negative, so end_by - start cannot either).
        if <i64> job.estimate > end_by - start:
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
