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

``pack`` is the packing step of LOS, the twin of
:func:`sitesim.schedulers.lookahead.pack_python`: a dynamic program over the lookahead's
candidates and the free nodes, a few hundred thousand steps per pass at most, which in
C take tens of microseconds rather than milliseconds.
"""

cimport cython
from cpython.mem cimport PyMem_Malloc, PyMem_Free
from libc.string cimport memcpy

cdef extern from "Python.h":
    const Py_ssize_t PY_SSIZE_T_MAX

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


# The packing step of LOS (sitesim.schedulers.lookahead): pack is the twin of
# pack_python, the same fast path and dynamic program on C arrays.

# Totals at or above this are refused, as in lookahead.LIMIT: the rows hold 32-bit
# late totals, and none + cost (at most 2 * top + 1) must not wrap around.
cdef i64 PACK_LIMIT = 1LL << 30


def pack(sizes, late, i64 free, i64 extra):
    """The sorted positions of the lexicographically first feasible set of candidates of
    the largest total size (see :func:`sitesim.schedulers.lookahead.pack_python`)."""
    cdef Py_ssize_t n = len(sizes), i, j, k, a, hi
    cdef i64 size, left, spare, plain, lateful, used, bound, top, cap, reach, target, budget, c
    cdef int none, v, ci
    cdef i64* sz = NULL
    cdef char* lt = NULL
    cdef Py_ssize_t* usable = NULL
    cdef int* rows = NULL
    cdef int* row
    cdef int* prev
    cdef Py_ssize_t width
    if len(late) != n:
        raise ValueError(f"{n} sizes but {len(late)} late flags")
    if free < 0 or extra < 0:
        raise ValueError(f"free and extra nodes cannot be negative, got free={free}, extra={extra}")
    taken = []
    if n == 0:
        return taken
    sz = <i64*> PyMem_Malloc(n * sizeof(i64))
    lt = <char*> PyMem_Malloc(n * sizeof(char))
    usable = <Py_ssize_t*> PyMem_Malloc(n * sizeof(Py_ssize_t))
    try:
        if sz is NULL or lt is NULL or usable is NULL:
            raise MemoryError()
        for i in range(n):
            size = sizes[i]
            if size <= 0:
                raise ValueError(f"a candidate needs at least one node, got size {size}")
            sz[i] = size
            lt[i] = 1 if late[i] else 0
        # EASY's scan, and the bound of the optimum from the usable sizes (the sums
        # saturate at free, which the bound never exceeds).
        left, spare, plain, lateful = free, extra, 0, 0
        for i in range(n):
            size = sz[i]
            if lt[i]:
                if size <= free and size <= extra:
                    lateful = lateful + size if size <= free - lateful else free
                    if size <= left and size <= spare:
                        taken.append(i)
                        left -= size
                        spare -= size
            elif size <= free:
                plain = plain + size if size <= free - plain else free
                if size <= left:
                    taken.append(i)
                    left -= size
            if left == 0:
                return taken
        used = free - left
        bound = plain + (extra if extra < lateful else lateful)
        if bound > free:
            bound = free
        if used == bound:
            return taken
        # The dynamic program over the usable candidates.
        k = 0
        top = 0
        for i in range(n):
            size = sz[i]
            if size <= free and (not lt[i] or size <= extra):
                usable[k] = i
                k += 1
                top = top + size if size <= free - top else free
        if top >= PACK_LIMIT:
            raise MemoryError(f"a packing over {top} nodes is beyond the packing step's range (2**30)")
        cap = extra if extra < top else top
        none = <int> (cap + 1)
        width = <Py_ssize_t> top + 1
        if k + 1 > PY_SSIZE_T_MAX // (width * <Py_ssize_t> sizeof(int)):
            raise MemoryError()
        rows = <int*> PyMem_Malloc((k + 1) * width * sizeof(int))
        if rows is NULL:
            raise MemoryError()
        # rows[j * width + a]: least late total of a subset of usable[j:] of total a.
        row = rows + k * width
        row[0] = 0
        for a in range(1, width):
            row[a] = none
        reach = 0
        for j in range(k - 1, -1, -1):
            prev = row
            row = rows + j * width
            memcpy(row, prev, width * sizeof(int))
            size = sz[usable[j]]
            c = size if lt[usable[j]] else 0
            ci = <int> c
            hi = <Py_ssize_t> (reach + size if reach + size < top else top)
            for a in range(<Py_ssize_t> size, hi + 1):
                # Branch-free, so that the compiler can vectorise the loop.
                v = prev[a - size] + ci
                row[a] = v if v < row[a] else row[a]
            reach = hi
        target = top
        while rows[target] > cap:
            target -= 1
        taken = []
        budget = cap
        for j in range(k):
            if target == 0:
                break
            size = sz[usable[j]]
            c = size if lt[usable[j]] else 0
            if size <= target and c <= budget and rows[(j + 1) * width + target - size] <= budget - c:
                taken.append(usable[j])
                target -= size
                budget -= c
        return taken
    finally:
        PyMem_Free(sz)
        PyMem_Free(lt)
        PyMem_Free(usable)
        PyMem_Free(rows)
