"""EASY backfilling (Mu'alem & Feitelson 2001, section 2.2), and the kernel its variants
plug into.

Start jobs from the head of the queue while they fit; then let later jobs jump ahead
as long as they do not delay the first waiting job (the algorithm, and why one scan
suffices: :mod:`sitesim.schedulers.backfill`, shared with the timed-run EASY base).

The classic variants differ from EASY in one or two answers only, so
:class:`EasyScheduler` is their one kernel and each variant overrides named hooks, never
the pass itself (docs/schedulers.md counts the lines each took):

- :meth:`~EasyScheduler.order`: put the queue in *queue order* before a pass (default:
  arrival order, nothing to do). The head of that order gets the reservation. A policy
  whose order changes with time sets ``arrival_order = False`` (``multifactor``);
- :meth:`~EasyScheduler.backfill_key`: the order in which backfill candidates are tried
  (default None: queue order; ``sjbf``: shortest estimate first);
- :meth:`~EasyScheduler.planned`: the seconds the plan reserves for a job, in the
  shadow time and the backfill test (default: its estimate; ``easy++``: a prediction);
- :meth:`~EasyScheduler.select`: which candidates start, given the free and extra
  nodes (default: EASY's greedy scan; ``los``: the packing that uses most nodes).

Plain EASY overrides none of them and runs the compiled loops as before; a class that
overrides any of the last three runs the kernel's general pass, which reads the hooks
and keeps the same shortcut (a pass that only arrivals followed resumes the last one).
"""

from __future__ import annotations

from bisect import bisect_left, insort
from typing import ClassVar

from sitesim.schedulers.backfill import (
    Running,
    Settled,
    backfill,
    easy_pass_settled,
    fcfs_heads,
    scan_lengths,
    scan_plain,
    shadow,
)
from sitesim.schedulers.base import Scheduler, register
from sitesim.workload.job import Job

#: The hooks whose override switches a class to the kernel's general pass.
_GENERAL_HOOKS = ("backfill_key", "planned", "select")


@register
class EasyScheduler(Scheduler):
    """Aggressive backfilling that never delays the head job's reservation."""

    name = "easy"
    summary = "EASY backfilling: backfill as long as the first queued job is not delayed"

    #: The waiting jobs stay in arrival order between passes (new ones at the end), so
    #: a pass that only arrivals followed may resume the last (:func:`backfill`). False
    #: for a policy whose :meth:`order` changes as time passes.
    arrival_order: ClassVar[bool] = True
    #: Set per class: True when none of the general hooks is overridden.
    _plain: ClassVar[bool] = True
    #: Set per class: True when :meth:`planned` is the estimate (the compiled scan reads it).
    _estimates_planned: ClassVar[bool] = True

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        cls._plain = all(getattr(cls, hook) is getattr(EasyScheduler, hook) for hook in _GENERAL_HOOKS)
        cls._estimates_planned = cls.planned is EasyScheduler.planned

    def __init__(self, nodes: int) -> None:
        super().__init__(nodes)
        #: Running jobs as (planned end, arrival seq, size), kept sorted.
        self._running: Running = []
        #: The last pass's state while no job has ended since (only arrivals).
        self._settled: Settled | None = None
        #: With an order of its own: the jobs that arrived since the last pass, and the
        #: head that pass left waiting (None if it left no settled state).
        self._arrived: list[Job] = []
        self._head: Job | None = None
        #: Planned end of each running job, for a policy whose plans are not estimates.
        self._ends: dict[int, int] = {}
        #: With a backfill key: the waiting jobs sorted by (key, seq), their keys and
        #: planned lengths alongside.
        self._by_key: list[Job] = []
        self._keys: list[tuple[int, int]] = []
        self._key_lengths: list[int] = []

    # -- hooks -------------------------------------------------------------------------
    def order(self, now: int) -> bool:
        """Put :attr:`queue` in queue order (called before each pass unless
        :attr:`arrival_order`); the first job of that order gets the reservation.
        Return whether the jobs that waited at the last pass may have changed order
        (False lets the pass try only the arrivals, as EASY does)."""
        return True

    def place(self, job: Job) -> None:
        """Put an arriving job into :attr:`queue` (default: at the end)."""
        self.queue.append(job)

    def planned(self, job: Job) -> int:
        """Seconds the plan reserves for ``job`` from its start (shadow time, backfill
        test). Fixed while the job waits; a running job's may change (:meth:`replan`)."""
        return job.estimate

    def backfill_key(self, job: Job) -> int | None:
        """Sort key of a backfill candidate, ties by arrival (None: in queue order).
        Fixed for a job while it waits: the kernel keeps the candidates sorted by it."""
        return None

    def select(self, candidates: list[Job], lengths: list[int], free: int, now: int, end_by: int,
               extra: int) -> tuple[list[int], int, int]:
        """Positions of the ``candidates`` (in backfill order, planned ``lengths``) to
        start now with ``free`` nodes, never delaying the head's start at ``end_by``
        beyond its ``extra`` nodes; and the free and extra nodes left. EASY: the first
        that fit, one after the other. The candidates may include the head, which does
        not fit in ``free`` nodes: a selection never takes a job larger than ``free``."""
        if self._estimates_planned:
            return scan_plain(candidates, 0, free, now, end_by, extra)
        return scan_lengths(candidates, lengths, free, now, end_by, extra)

    # -- events --------------------------------------------------------------------------
    def enqueue(self, job: Job, now: int) -> None:
        self.place(job)
        if not self.arrival_order:
            self._arrived.append(job)
        if not self._plain:
            key = self.backfill_key(job)
            if key is not None:
                entry = (key, job.seq)
                i = bisect_left(self._keys, entry)
                self._keys.insert(i, entry)
                self._by_key.insert(i, job)
                self._key_lengths.insert(i, self.planned(job))

    def job_ended(self, job: Job, now: int) -> None:
        self._settled = None
        running = self._running
        end = job.start + job.estimate if self._plain else self._ends.pop(job.seq)
        del running[bisect_left(running, (end, job.seq, job.size))]

    def shadow(self, need: int, free: int) -> tuple[int, int]:
        """Shadow time and extra nodes for a head job of ``need`` nodes."""
        return shadow(self._running, need, free)

    def _hold(self, job: Job, end: int) -> None:
        insort(self._running, (end, job.seq, job.size))

    def _hold_planned(self, job: Job, end: int) -> None:
        self._ends[job.seq] = end
        insort(self._running, (end, job.seq, job.size))

    def replan(self, job: Job, end: int) -> None:
        """Move running ``job``'s planned end to ``end`` (a prediction corrected); the
        next pass computes its shadow time afresh."""
        running = self._running
        del running[bisect_left(running, (self._ends[job.seq], job.seq, job.size))]
        self._hold_planned(job, end)
        self._settled = None

    # -- the pass --------------------------------------------------------------------------
    def schedule(self, now: int, free: int) -> list[Job]:
        """An EASY pass; after a pass that only arrivals followed, just their backfill
        scan (the same result for a fraction of the work: :func:`backfill`)."""
        settled, self._settled = self._settled, None
        if not self.queue:
            return []
        if not self._plain:
            return self._general(now, free, settled)
        if not self.arrival_order:
            return self._reordered(now, free, settled)
        if settled is not None and settled[0] == free:
            started: list[Job] = []
            _free, end_by, extra, tried = settled
            self._settled = backfill(self.queue, tried, free, now, end_by, extra, self._hold, started)
            return started
        started, self._settled = easy_pass_settled(self.queue, free, now, self._running, self._hold)
        return started

    def _reordered(self, now: int, free: int, settled: Settled | None) -> list[Job]:
        """The pass of a policy with an order of its own: :meth:`order`, then EASY; or,
        when the order of the jobs that waited at the last pass did not change, the
        head is the same and no job ended since, only the arrivals' backfill scan.

        That shortcut is :func:`backfill`'s, with the arrivals anywhere in the queue
        instead of at its end: every job tried before is refused again (no more free or
        extra nodes, a later end), and the arrivals are tried in queue order.
        """
        queue = self.queue
        arrived, self._arrived = self._arrived, []
        moved = self.order(now)
        if settled is not None and settled[0] == free and not moved and queue[0] is self._head:
            _free, end_by, extra, _tried = settled
            positions = sorted(queue.index(job) for job in arrived)
            candidates = [queue[i] for i in positions]
            picked, free, extra = scan_plain(candidates, 0, free, now, end_by, extra)
            started = [candidates[i] for i in picked]
            for job in started:
                self._hold(job, now + job.estimate)
            for i in sorted((positions[i] for i in picked), reverse=True):
                del queue[i]
            self._settled = (free, end_by, extra, len(queue)) if free else None
            return started
        started, self._settled = easy_pass_settled(queue, free, now, self._running, self._hold)
        self._head = queue[0] if self._settled is not None else None
        return started

    def _general(self, now: int, free: int, settled: Settled | None) -> list[Job]:
        """The pass of a class that overrides a general hook: heads in queue order, the
        head's shadow time by planned ends, then :meth:`select` over the candidates."""
        queue = self.queue
        hold = self._hold_planned
        if settled is not None and settled[0] == free:
            _free, end_by, extra, first = settled
            started: list[Job] = []
        else:
            if not self.arrival_order:
                self.order(now)
            n = fcfs_heads(queue, free)
            started = queue[:n]
            if n:
                del queue[:n]
                for job in started:
                    free -= job.size
                    hold(job, now + self.planned(job))
                    self._forget(job)
            if len(queue) < 2 or free == 0:
                return started
            end_by, extra = shadow(self._running, queue[0].size, free)
            first = 1
        candidates, lengths = self._candidates(first)
        if candidates:
            picked, free, extra = self.select(candidates, lengths, free, now, end_by, extra)
            if picked:
                chosen = [(candidates[i], lengths[i]) for i in picked]
                for job, length in chosen:
                    hold(job, now + length)
                    self._forget(job)
                    queue.remove(job)
                    started.append(job)
        if free and self.arrival_order:
            self._settled = (free, end_by, extra, len(queue))
        return started

    def _candidates(self, first: int) -> tuple[list[Job], list[int]]:
        """Queued jobs from position ``first``, in backfill order, and their planned
        lengths. With a backfill key, a pass from the head gets the kept sorted lists
        themselves: they hold the head too, which did not fit in the free nodes and so
        is never chosen (:meth:`select`'s contract)."""
        queue = self.queue
        if first >= len(queue):
            return [], []
        if self._keys and first == 1:
            return self._by_key, self._key_lengths
        jobs = queue[first:]
        if self._keys:
            key = self.backfill_key
            jobs.sort(key=lambda job: (key(job), job.seq))
        if self._estimates_planned:
            return jobs, [job.estimate for job in jobs]
        planned = self.planned
        return jobs, [planned(job) for job in jobs]

    def _forget(self, job: Job) -> None:
        """Drop a started job from the sorted candidates (if the policy keeps them)."""
        if self._keys:
            key = self.backfill_key(job)
            if key is not None:
                i = bisect_left(self._keys, (key, job.seq))
                del self._keys[i]
                del self._by_key[i]
                del self._key_lengths[i]
