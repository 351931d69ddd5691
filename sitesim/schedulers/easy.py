"""EASY backfilling (Mu'alem & Feitelson 2001, section 2.2), and the kernel its variants
plug into.

Start jobs from the head of the queue while they fit; then let later jobs jump ahead
as long as they do not delay the first waiting job (the algorithm, and why one scan
suffices: :mod:`sitesim.schedulers.backfill`, shared with the timed-run EASY base).

The classic variants differ from EASY in one or two answers only, so
:class:`EasyScheduler` is their one kernel, with one pass, and each variant overrides
named hooks, never the pass itself (docs/schedulers.md counts the lines each took):

- :meth:`~EasyScheduler.order`: put the queue in *queue order* before a pass (default:
  arrival order, nothing to do). The head of that order gets the reservation. A policy
  whose order changes with time sets ``arrival_order = False`` (``multifactor``). It is
  told the free nodes: with none, the pass starts nothing whatever the order;
- :meth:`~EasyScheduler.backfill_key`: the order in which backfill candidates are tried
  (default None: queue order; ``sjbf``: shortest estimate first);
- :meth:`~EasyScheduler.planned`: the seconds the plan reserves for a job, in the
  shadow time and the backfill test (default: its estimate; ``easy++``: a prediction);
- :meth:`~EasyScheduler.select`: which candidates start, given the free and extra
  nodes (default: EASY's greedy scan; ``los``: the packing that uses most nodes);
- :meth:`~EasyScheduler.started`: told of each job a pass started, in start order
  (``easy++`` sets its prediction's timer, ``multifactor`` accrues usage).

A pass that only arrivals followed resumes the last one: with no job ended and the
same free nodes, the head and its shadow time are the same, and every job tried
before is refused again (no more free or extra nodes than then, a later end), so only
the arrivals are tried (the extra nodes kept are those the last pass *left*: the jobs
it backfilled past the shadow time took theirs). A running job's planned end moved
(:meth:`~EasyScheduler.replan`) keeps that state when the shadow time and extra nodes
it gives are no later and no more; a pass with no arrival either would then start
nothing, and the site holds none after a timer (:meth:`~EasyScheduler.needs_pass`).
"""

from __future__ import annotations

from bisect import bisect_left, insort
from typing import ClassVar

from sitesim.schedulers.backfill import fcfs_heads, scan, shadow
from sitesim.schedulers.base import Scheduler, register
from sitesim.workload.job import Job

#: The hooks asked per job or per pass, in the order of the flags :class:`EasyScheduler`
#: keeps for them.
_PER_JOB_HOOKS = ("place", "planned", "backfill_key", "select", "started")

#: What a pass that tried every waiting job leaves for the next: (free nodes, shadow
#: time, extra nodes, queue length) after it.
Settled = tuple[int, int, int, int]


@register
class EasyScheduler(Scheduler):
    """Aggressive backfilling that never delays the head job's reservation."""

    name = "easy"
    summary = "EASY backfilling: backfill as long as the first queued job is not delayed"

    #: The waiting jobs stay in arrival order between passes (new ones at the end), so
    #: the arrivals a resumed pass tries are the queue's tail. False for a policy whose
    #: :meth:`order` changes as time passes.
    arrival_order: ClassVar[bool] = True

    def __init__(self, nodes: int) -> None:
        super().__init__(nodes)
        #: Running jobs as (planned end, arrival seq, size), kept sorted.
        self._running: list[tuple[int, int, int]] = []
        #: Planned seconds of each waiting job (:meth:`planned`, fixed while it waits),
        #: and planned end of each running one.
        self._planned: dict[int, int] = {}
        self._ends: dict[int, int] = {}
        #: The last pass's state while no job has ended since (only arrivals).
        self._settled: Settled | None = None
        #: With an order of its own: the jobs that arrived since the last pass, and the
        #: head that pass left waiting.
        self._arrived: list[Job] = []
        self._head: Job | None = None
        #: With a backfill key: the waiting jobs sorted by (key, seq), their keys, and
        #: each one's (key, seq) by seq (asked once, on arrival: the key is fixed while
        #: the job waits).
        self._by_key: list[Job] = []
        self._keys: list[tuple[int, int]] = []
        self._key_of: dict[int, tuple[int, int]] = {}
        #: Which of the per-job hooks this policy overrides. A hook left alone is not
        #: called: its default is written out where it acts (a call per arrival and per
        #: start for each, at a few hundred thousand jobs, was most of what the kernel
        #: cost beyond its scans).
        own = {hook for hook in _PER_JOB_HOOKS if getattr(type(self), hook) is not getattr(EasyScheduler, hook)}
        self._places, self._plans, self._keyed, self._selects, self._tells = (
            hook in own for hook in _PER_JOB_HOOKS
        )

    # -- hooks -------------------------------------------------------------------------
    def order(self, now: int, free: int) -> bool:
        """Put :attr:`queue` in queue order (called before each pass unless
        :attr:`arrival_order`); the first job of that order gets the reservation.
        Return False to let a pass that only arrivals followed, with the same head, try
        only the arrivals, as EASY does: with :meth:`select`'s scan that holds in any
        order of the jobs that waited (each the last pass refused is refused again: no
        more free or extra nodes, a later end); True makes it a full pass. With ``free`` = 0
        idle nodes the pass starts nothing (every job needs a node), whatever the order
        is, so a policy may leave the queue as it is then."""
        return True

    def place(self, job: Job) -> None:
        """Put an arriving job into :attr:`queue` (default: at the end)."""
        self.queue.append(job)

    def planned(self, job: Job) -> int:
        """Seconds the plan reserves for ``job`` from its start (shadow time, backfill
        test). Asked once, on arrival; a running job's may change (:meth:`replan`)."""
        return job.estimate

    def backfill_key(self, job: Job) -> int | None:
        """Sort key of a backfill candidate, ties by arrival (None: in queue order).
        Fixed for a job while it waits: the kernel keeps the candidates sorted by it."""
        return None

    def select(self, candidates: list[Job], first: int, free: int, now: int, end_by: int,
               extra: int) -> tuple[list[int], int, int]:
        """Positions of the ``candidates[first:]`` (in backfill order) to start now with
        ``free`` nodes, never delaying the head's start at ``end_by`` beyond its
        ``extra`` nodes; and the free and extra nodes left. EASY: the first that fit,
        one after the other. The candidates may include the head, which does not fit in
        ``free`` nodes: a selection never takes a job larger than ``free``."""
        return scan(candidates, first, free, now, end_by, extra, self._planned)

    def arrival_positions(self, arrived: list[Job]) -> list[int]:
        """Where the ``arrived`` jobs are in :attr:`queue` as :meth:`order` left it,
        ascending: the candidates of a resumed pass, with an order of its own. Default:
        found by identity (``list.index``, a comparison per job ahead of each); a policy
        whose order keeps the places it gave overrides it (``multifactor``, ``creasy``)."""
        return sorted(map(self.queue.index, arrived))

    def started(self, job: Job, now: int) -> None:
        """``job`` starts now (called after the pass, for each job it started, in start
        order). Default: nothing."""

    # -- events --------------------------------------------------------------------------
    def enqueue(self, job: Job, now: int) -> None:
        if self._places:
            self.place(job)
        else:
            self.queue.append(job)
        self._planned[job.seq] = self.planned(job) if self._plans else job.estimate
        if not self.arrival_order:
            self._arrived.append(job)
        if self._keyed:
            key = self.backfill_key(job)
            if key is not None:
                entry = self._key_of[job.seq] = (key, job.seq)
                i = bisect_left(self._keys, entry)
                self._keys.insert(i, entry)
                self._by_key.insert(i, job)

    def job_ended(self, job: Job, now: int) -> None:
        self._settled = None
        running = self._running
        del running[bisect_left(running, (self._ends.pop(job.seq), job.seq, job.size))]

    def shadow(self, need: int, free: int) -> tuple[int, int]:
        """Shadow time and extra nodes for a head job of ``need`` nodes."""
        return shadow(self._running, need, free)

    def replan(self, job: Job, end: int) -> None:
        """Move running ``job``'s planned end to ``end`` (a prediction corrected).

        The last pass's state stays resumable when the head's shadow time and extra
        nodes, computed afresh, are no later and no more than it left: every job that
        pass left waiting was refused for too few free nodes (as many now), or for
        ending after the shadow time with more nodes than the extra (it would end later
        now, after a shadow time no later, and the extra is no more). A full pass would
        then refuse them all again, and compute this very shadow time and extra, which
        a resumed pass takes for the arrivals; with no arrival, it starts nothing and
        changes nothing (:meth:`needs_pass`). Otherwise the next pass is a full one.
        """
        running = self._running
        seq = job.seq
        del running[bisect_left(running, (self._ends[seq], seq, job.size))]
        self._ends[seq] = end
        insort(running, (end, seq, job.size))
        settled = self._settled
        if settled is not None:
            free, end_by, extra, first = settled
            head = self._head
            assert head is not None  # kept with every settled state
            new_end_by, new_extra = shadow(running, head.size, free)
            if new_end_by <= end_by and new_extra <= extra:
                self._settled = (free, new_end_by, new_extra, first)
            else:
                self._settled = None

    def needs_pass(self, free: int) -> bool:
        """False where a pass now starts nothing and leaves the kernel's state as it is:

        - no job waits: the pass returns at once;
        - no idle node, no state kept from the last pass (the only case: a pass keeps
          one only with nodes left idle, and an end, which frees some, drops it), and
          a head that needs a node: no head fits, and the pass stops there;
        - a resumable state (:meth:`replan`), the same free nodes, and no arrival since:
          a resumed pass over no candidate, which keeps the state it resumed.

        With an order of its own, a policy's pass may start jobs as time passes alone
        (its head changes): always True.
        """
        if not self.arrival_order:
            return True
        queue = self.queue
        if not queue:
            return False
        settled = self._settled
        if settled is None:
            return free > 0 or queue[0].size <= 0
        return settled[0] != free or settled[3] != len(queue)

    # -- the pass --------------------------------------------------------------------------
    def schedule(self, now: int, free: int) -> list[Job]:
        """An EASY pass: the queue in queue order, heads while they fit, the head's
        shadow time by planned ends, then :meth:`select` over the backfill candidates;
        after a pass that only arrivals followed, :meth:`select` over the arrivals.

        It runs at most once per instant of a run, so it is written for its common
        paths: nothing is allocated but the started list and the scan's positions, and
        a hook the policy leaves alone is not called.
        """
        settled, self._settled = self._settled, None
        queue = self.queue
        if not queue:
            return []
        in_arrival_order = self.arrival_order
        resume = settled is not None and settled[0] == free
        if not in_arrival_order:
            arrived, self._arrived = self._arrived, []
            if self.order(now, free) or queue[0] is not self._head:
                resume = False
        keys = self._keys
        # Where in the queue the candidates are, when they are some of its jobs in its
        # order (the arrivals a resumed pass tries, with an order of its own).
        positions: list[int] | None = None
        if resume:
            _free, end_by, extra, first = settled  # type: ignore[misc]
            if keys:  # the arrivals by key (one, most often, is in order as it is)
                candidates = queue[first:] if in_arrival_order else arrived
                if len(candidates) > 1:
                    candidates = sorted(candidates, key=self._by_key_order)
                first = 0
            elif in_arrival_order:
                candidates = queue
            else:  # the arrivals in queue order
                positions = self.arrival_positions(arrived)
                candidates, first = [queue[i] for i in positions], 0
            started: list[Job] = []
        else:
            n = fcfs_heads(queue, free)
            if n:
                started = queue[:n]
                del queue[:n]
                for job in started:
                    free -= job.size
                    self._hold(job, now)
            else:
                started = []
            if len(queue) < 2 or free == 0:
                if started and self._tells:
                    self._tell(started, now)
                return started
            end_by, extra = shadow(self._running, queue[0].size, free)
            # With a backfill key, every waiting job by key: the head is among them, and
            # does not fit in the free nodes (a selection never takes it).
            candidates, first = (self._by_key, 0) if keys else (queue, 1)
        if self._selects:
            picked, free, extra = self.select(candidates, first, free, now, end_by, extra)
        else:
            picked, free, extra = scan(candidates, first, free, now, end_by, extra, self._planned)
        if picked:
            hold = self._hold
            if candidates is queue:
                chosen = [queue[i] for i in picked]
                for i in reversed(picked):
                    del queue[i]
            elif positions is not None:  # the arrivals chosen, taken out where they are
                chosen = [candidates[i] for i in picked]
                for i in reversed(picked):
                    del queue[positions[i]]
            else:  # by key: each chosen found where it is (by identity: a pass starts a few)
                chosen = [candidates[i] for i in picked]
                for job in chosen:
                    del queue[queue.index(job)]
            for job in chosen:
                hold(job, now)
            started += chosen
        if free:
            self._settled = (free, end_by, extra, len(queue))
            self._head = queue[0]
        if started and self._tells:
            self._tell(started, now)
        return started

    def _by_key_order(self, job: Job) -> tuple[int, int]:
        return self._key_of[job.seq]

    def _hold(self, job: Job, now: int) -> None:
        """``job`` starts now: it holds its nodes until its planned end."""
        seq = job.seq
        end = self._ends[seq] = now + self._planned.pop(seq)
        insort(self._running, (end, seq, job.size))
        if self._keys:
            i = bisect_left(self._keys, self._key_of.pop(seq))
            del self._keys[i]
            del self._by_key[i]

    def _tell(self, started: list[Job], now: int) -> None:
        tell = self.started
        for job in started:
            tell(job, now)
