"""The two scheduling loops every queue-based policy here is built from.

- :func:`fcfs_heads`: how many jobs at the head of the queue start now, in arrival
  order, stopping at the first that does not fit (FCFS, and the first step of EASY);
- :func:`easy_pass`: EASY backfilling, as specified by Mu'alem & Feitelson (2001),
  section 2.2, over a queue and a sorted list of running jobs' expected ends.

They are functions over the caller's own queue and running list, so the plain EASY
policy (:mod:`sitesim.schedulers.easy`) and the EASY base of timed-run scheduling
(:mod:`sitesim.schedulers.commit`) share one implementation; they differ only in two
optional sets of arrival numbers (``job.seq``): ``blocked`` jobs cannot be chosen (a
job in its trial run), ``continuing`` jobs are already running and keep their start if
chosen (a job running past its trial). Sets, not callables: the timed-run scan asks
both of every candidate, and a membership test costs a fraction of a call.

EASY, step by step:

1. Shadow time and extra nodes: sort running jobs by expected termination (start +
   estimate), collect their nodes until the first queued job fits; that instant is the
   *shadow time*, and the nodes left over then are the *extra nodes*.
2. Backfill: scan the rest of the queue in arrival order; a job may start now if it
   fits in the free nodes and either ends by the shadow time or needs no more than the
   extra nodes (which it then uses up).

The paper repeats "find one backfill job" until none is left. Starting a job that ends
by the shadow time changes neither the shadow time nor the extra nodes, and one that
uses extra nodes only reduces them, so a single scan that keeps going after each
start finds exactly the same jobs, without recomputing the shadow.
"""

from __future__ import annotations

from collections.abc import Callable, Container

from sitesim.schedulers.compiled import twin
from sitesim.workload.job import Job

#: Running jobs as (expected end, arrival seq, size), kept sorted.
Running = list[tuple[int, int, int]]
#: Called for each job chosen, in start order, with its expected end. It may change the
#: running list and the chosen job's own state, never the queue or another job's
#: membership of the ``blocked``/``continuing`` sets: the scans choose every job of a
#: pass before the first is held.
Hold = Callable[[Job, int], None]
#: Arrival numbers (``job.seq``) of jobs in some state: a set, a dict's keys.
Seqs = Container[int]
#: The empty set of arrival numbers, for a timed-run pass given only one of the sets.
NOBODY: frozenset[int] = frozenset()


def fcfs_heads(queue: list[Job], free: int, blocked: Seqs | None = None) -> int:
    """How many jobs from the head of ``queue`` fit, one after the other, in ``free``
    nodes; a ``blocked`` job stops the count as a misfit does."""
    n = 0
    for job in queue:
        if job.size > free or (blocked is not None and job.seq in blocked):
            break
        free -= job.size
        n += 1
    return n


def run_start(job: Job, now: int, continuing: Seqs | None) -> int:
    """Start of the run ``job`` would be chosen with now: its current run's start for a
    ``continuing`` job (it goes on), else ``now``."""
    return job.start if continuing is not None and job.seq in continuing else now


def shadow_python(running: Running, need: int, free: int) -> tuple[int, int]:
    """Shadow time and extra nodes for a head job of ``need`` nodes, ``free`` nodes idle
    and ``running`` = sorted (expected end, seq, size) of the jobs holding the rest."""
    avail = free
    for i, (end, _seq, size) in enumerate(running):
        avail += size
        if avail >= need:
            # Jobs expected to end at the very same instant free their nodes too.
            for later_end, _s, later_size in running[i + 1 :]:
                if later_end != end:
                    break
                avail += later_size
            return end, avail - need
    raise RuntimeError(f"job of {need} nodes can never run on {free + sum(r[2] for r in running)} nodes")


def easy_pass(
    queue: list[Job],
    free: int,
    now: int,
    running: Running,
    hold: Hold,
    *,
    blocked: Seqs | None = None,
    continuing: Seqs | None = None,
) -> list[Job]:
    """One EASY pass: remove from ``queue`` and return, in start order, the jobs to start.

    ``hold(job, expected_end)`` is called for each job chosen, in start order, and must
    add it to ``running`` (heads are held before the shadow time is computed, so they
    count in it; backfilled jobs after the scan, see :data:`Hold`). A ``blocked`` job
    cannot be chosen now (it stops the head loop and is skipped as a backfill
    candidate). A ``continuing`` job is already running: chosen, its
    expected end counts from its start (:func:`run_start`), not from ``now``.
    """
    started, _ = easy_pass_settled(queue, free, now, running, hold, blocked=blocked, continuing=continuing)
    return started


#: What a complete EASY pass leaves behind: (free nodes, shadow time, extra nodes,
#: queue length) after it, all jobs in the queue having been tried.
Settled = tuple[int, int, int, int]


def easy_pass_settled(
    queue: list[Job],
    free: int,
    now: int,
    running: Running,
    hold: Hold,
    *,
    blocked: Seqs | None = None,
    continuing: Seqs | None = None,
) -> tuple[list[Job], Settled | None]:
    """:func:`easy_pass`, and its :data:`Settled` state when its backfill scan tried
    every queued job (None when it did not compute a shadow time or ran out of nodes)."""
    n = fcfs_heads(queue, free, blocked)
    started = queue[:n]
    if n:
        del queue[:n]
        for job in started:
            free -= job.size
            hold(job, (now if continuing is None else run_start(job, now, continuing)) + job.estimate)
    if len(queue) < 2 or free == 0:
        return started, None
    end_by, extra = shadow(running, queue[0].size, free)
    return started, backfill(
        queue, 1, free, now, end_by, extra, hold, started, blocked=blocked, continuing=continuing
    )


def backfill(
    queue: list[Job],
    first: int,
    free: int,
    now: int,
    end_by: int,
    extra: int,
    hold: Hold,
    started: list[Job],
    *,
    blocked: Seqs | None = None,
    continuing: Seqs | None = None,
) -> Settled | None:
    """The backfill scan of ``queue[first:]`` against shadow time ``end_by`` and
    ``extra`` nodes: chosen jobs are held, appended to ``started`` and removed from the
    queue. Returns the :data:`Settled` state, or None if the free nodes ran out.

    Resuming from a settled state (``first`` = its queue length) when only arrivals
    happened since gives the pass a full scan would: with no job ended, the head still
    does not fit, the shadow time is the same (jobs backfilled before it give their
    nodes back by then; the others took them from the extra nodes, which is why the
    state holds the extra nodes *left*), and every job tried before was refused with at
    least as many free and extra nodes as remain, and an earlier end than it would now
    have. Only the jobs that arrived since can start.
    """
    # Two scans, each with a compiled twin (_backfill.pyx): the plain one (no blocked
    # jobs, every start now) is the inner loop of every EASY replay and saturated site;
    # the other serves the timed-run variants, which pass the two sets. Neither reads
    # anything a hold changes (they read free and extra nodes, and the sets' entries of
    # jobs not yet chosen), so holding the chosen jobs after the scan, in the same order,
    # is the same as holding each as it is chosen.
    if blocked is None and continuing is None:
        picked, free, extra = scan_plain(queue, first, free, now, end_by, extra)
        for i in picked:
            job = queue[i]
            hold(job, now + job.estimate)
            started.append(job)
    else:
        if continuing is None:
            continuing = NOBODY
        picked, free, extra = scan_sets(
            queue, first, free, now, end_by, extra, NOBODY if blocked is None else blocked, continuing
        )
        for i in picked:
            job = queue[i]
            hold(job, run_start(job, now, continuing) + job.estimate)
            started.append(job)
    for i in reversed(picked):
        del queue[i]
    return (free, end_by, extra, len(queue)) if free else None


def scan_python(queue: list[Job], first: int, free: int, now: int, end_by: int, extra: int) -> tuple[list[int], int, int]:
    """The plain backfill scan of ``queue[first:]`` (every start now, no job blocked):
    the positions chosen, in order, and the free and extra nodes left after them."""
    if first < 0:
        raise ValueError(f"a backfill scan starts at a queue position, got {first}")
    picked: list[int] = []
    for i in range(first, len(queue)):
        job = queue[i]
        size = job.size
        if size > free:
            continue
        end = now + job.estimate
        if end > end_by:
            if size > extra:
                continue
            extra -= size
        free -= size
        picked.append(i)
        if free == 0:
            break
    return picked, free, extra


def scan_lengths(
    candidates: list[Job], lengths: list[int], free: int, now: int, end_by: int, extra: int
) -> tuple[list[int], int, int]:
    """The plain backfill scan over ``candidates`` whose planned lengths are ``lengths``
    (a policy that plans with predictions, not estimates): the positions chosen, in
    order, and the free and extra nodes left after them."""
    picked: list[int] = []
    for i, job in enumerate(candidates):
        size = job.size
        if size > free:
            continue
        if now + lengths[i] > end_by:
            if size > extra:
                continue
            extra -= size
        free -= size
        picked.append(i)
        if free == 0:
            break
    return picked, free, extra


def scan_sets_python(
    queue: list[Job], first: int, free: int, now: int, end_by: int, extra: int, blocked: Seqs, continuing: Seqs
) -> tuple[list[int], int, int]:
    """The backfill scan of a timed-run pass: :func:`scan_python`, except that a
    ``blocked`` job is never chosen and a ``continuing`` one is expected to end at its
    run's start + estimate (:func:`run_start`) rather than now + estimate."""
    if first < 0:
        raise ValueError(f"a backfill scan starts at a queue position, got {first}")
    picked: list[int] = []
    for i in range(first, len(queue)):
        job = queue[i]
        size = job.size
        if size > free:
            continue
        seq = job.seq
        if seq in blocked:
            continue
        end = (job.start if seq in continuing else now) + job.estimate
        if end > end_by:
            if size > extra:
                continue
            extra -= size
        free -= size
        picked.append(i)
        if free == 0:
            break
    return picked, free, extra


Scan = Callable[[list[Job], int, int, int, int, int], tuple[list[int], int, int]]
ScanSets = Callable[[list[Job], int, int, int, int, int, Seqs, Seqs], tuple[list[int], int, int]]
Shadow = Callable[[Running, int, int], tuple[int, int]]


def _compiled() -> tuple[Scan, ScanSets, Shadow] | None:
    """The compiled twins of the three loops (``_backfill.pyx``), where built and not switched off."""
    module = twin("_backfill")
    if module is None:
        return None
    missing = [name for name in ("scan_plain", "scan_sets", "shadow") if not hasattr(module, name)]
    if missing:  # an in-place build older than its source (an editable install not rebuilt)
        raise ImportError(
            f"{module.__name__} was built from an older _backfill.pyx (it has no {', '.join(missing)}):"
            " rebuild it (pip install -e .) or set SITESIM_COMPILED=0"
        )
    return module.scan_plain, module.scan_sets, module.shadow


#: The implementations in use: the compiled ones where they were built (same answers).
scan_plain, scan_sets, shadow = _compiled() or (scan_python, scan_sets_python, shadow_python)
