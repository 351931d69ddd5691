"""The scheduling loops every queue-based policy here is built from.

- :func:`fcfs_heads`: how many jobs at the head of the queue start now, in arrival
  order, stopping at the first that does not fit (FCFS, and the first step of EASY);
- :func:`shadow`: the head's shadow time and extra nodes;
- :func:`scan`: the backfill scan, the one loop that decides which later jobs may
  start without delaying the head;
- :func:`easy_pass`: EASY backfilling, as specified by Mu'alem & Feitelson (2001),
  section 2.2, for the EASY base of timed-run scheduling
  (:mod:`sitesim.schedulers.commit`). The EASY policy and its variants
  (:mod:`sitesim.schedulers.easy`) run their own pass, with hooks, from the same three.

They are functions over the caller's own queue and running list. Two optional sets of
arrival numbers (``job.seq``) serve the timed-run base: ``blocked`` jobs cannot be
chosen (a job in its trial run), ``continuing`` jobs are already running and keep their
start if chosen (a job running past its trial). Sets, not callables: the scan asks
both of every candidate that fits, and a membership test costs a fraction of a call.

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

The scan and the shadow time have a compiled twin (``_backfill.pyx``), used where it was
built: a saturated site's queue is long, and a 200-user year of EASY runs 1.4-2 times
slower without it (docs/performance.md). These Python ones are the specification.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping

from sitesim.compiled import twin
from sitesim.workload.job import Job

#: Running jobs as (expected end, arrival seq, size), kept sorted.
Running = list[tuple[int, int, int]]
#: Called for each job chosen, in start order, with its expected end. It may change the
#: running list and the chosen job's own state, never the queue or another job's
#: membership of the ``blocked``/``continuing`` sets: the scan chooses every job of a
#: pass before the first is held.
Hold = Callable[[Job, int], None]
#: Arrival numbers (``job.seq``) of jobs in some state: a set, a dict's keys.
Seqs = Container[int]
#: The empty set of arrival numbers.
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


def scan_python(
    candidates: list[Job],
    first: int,
    free: int,
    now: int,
    end_by: int,
    extra: int,
    planned: Mapping[int, int] | None = None,
    blocked: Seqs = NOBODY,
    continuing: Seqs = NOBODY,
) -> tuple[list[int], int, int]:
    """The backfill scan of ``candidates[first:]`` against shadow time ``end_by`` and
    ``extra`` nodes: the positions chosen, in order, and the free and extra nodes left.

    A candidate is expected to run its ``planned`` seconds (by arrival number; None:
    its estimate) from now, or from its run's start if it is ``continuing``; a
    ``blocked`` one is never chosen. Nothing is held or removed: the caller does that
    with the positions, in order (the scan reads no state a hold changes).
    """
    if first < 0:
        raise ValueError(f"a backfill scan starts at a position, got {first}")
    picked: list[int] = []
    for i in range(first, len(candidates)):
        job = candidates[i]
        size = job.size
        if size > free:
            continue
        seq = job.seq
        if seq in blocked:
            continue
        end = (job.start if seq in continuing else now) + (job.estimate if planned is None else planned[seq])
        if end > end_by:
            if size > extra:
                continue
            extra -= size
        free -= size
        picked.append(i)
        if free == 0:
            break
    return picked, free, extra


Scan = Callable[..., tuple[list[int], int, int]]
Shadow = Callable[[Running, int, int], tuple[int, int]]


def _compiled() -> tuple[Scan, Shadow] | None:
    """The compiled twins (``_backfill.pyx``), where built and not switched off."""
    module = twin("_backfill", __package__)
    if module is None:
        return None
    if not hasattr(module, "scan"):  # an in-place build older than its source
        raise ImportError(
            f"{module.__name__} was built from an older _backfill.pyx (it has no scan):"
            " rebuild it (pip install -e .) or set SITESIM_COMPILED=0"
        )
    return module.scan, module.shadow


#: The implementations in use: the compiled ones where they were built (same answers).
scan, shadow = _compiled() or (scan_python, shadow_python)


def easy_pass(
    queue: list[Job],
    free: int,
    now: int,
    running: Running,
    hold: Hold,
    *,
    blocked: Seqs = NOBODY,
    continuing: Seqs = NOBODY,
) -> list[Job]:
    """One EASY pass: remove from ``queue`` and return, in start order, the jobs to start.

    ``hold(job, expected_end)`` is called for each job chosen, in start order, and must
    add it to ``running`` (heads are held before the shadow time is computed, so they
    count in it; backfilled jobs after the scan, see :data:`Hold`). A ``blocked`` job
    cannot be chosen now (it stops the head loop and is skipped as a backfill
    candidate). A ``continuing`` job is already running: chosen, its expected end
    counts from its start (:func:`run_start`), not from ``now``.
    """
    n = fcfs_heads(queue, free, blocked)
    started = queue[:n]
    del queue[:n]
    for job in started:
        free -= job.size
        hold(job, run_start(job, now, continuing) + job.estimate)
    if len(queue) < 2 or free == 0:
        return started
    end_by, extra = shadow(running, queue[0].size, free)
    picked, _free, _extra = scan(queue, 1, free, now, end_by, extra, blocked=blocked, continuing=continuing)
    for i in picked:
        job = queue[i]
        hold(job, run_start(job, now, continuing) + job.estimate)
        started.append(job)
    for i in reversed(picked):
        del queue[i]
    return started
