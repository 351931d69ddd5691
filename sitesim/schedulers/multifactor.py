"""Multifactor priority with fair-share, EASY-backfilled in priority order.

Modelled on the multifactor priority of production batch systems (Slurm's
``priority/multifactor`` with its classic fair-share; Maui and Moab weigh the same
kinds of factors). Each waiting job's priority is a weighted sum of factors in [0, 1]:

- **age**: the time waited, capped: ``min(wait, max_age) / max_age``;
- **size**: ``size / nodes`` favouring large jobs (Slurm's default), or
  ``(nodes - size + 1) / nodes`` favouring small ones (``favor=small``);
- **fair-share**: ``2 ** (-(U / S))``, where ``U`` is the user's share of the site's
  decayed usage and ``S`` the user's share of the machine. Usage is node-seconds, each
  one worth ``2 ** (-age / half_life)`` as it ages, accrued continuously while a job
  runs (not only when it ends), so a user with a long job running loses priority at
  once. Every user who has submitted has an equal share. The factor is 1 for a user
  with no usage, 0.5 for one using exactly their share, and falls towards 0 as usage
  exceeds it.

``priority = age·w_age + size·w_size + fairshare·w_fairshare``. Every waiting job's
priority is recomputed every ``period`` seconds, at the first pass that finds the last
computation that old (``period=0``: at every pass); a job that arrives in between gets
its priority at arrival and its place in the queue by it. The queue is in priority
order (ties: arrival order); its first job gets EASY's reservation and the others are
backfill candidates in that order.

With every weight but age zero, priority falls with arrival order (a job submitted
later has waited no longer), so the policy is plain EASY, schedule for schedule
(tested). The defaults follow the example configuration in Slurm's multifactor
documentation in giving fair-share ten times the weight of age and size: age 1000
(capped at 7 days, Slurm's default ``PriorityMaxAge``), size 1000 favouring large jobs,
fair-share 10000 with a 7-day half-life (Slurm's default ``PriorityDecayHalfLife``),
recomputed every 5 minutes (Slurm's default ``PriorityCalcPeriod``).
"""

from __future__ import annotations

import math
from bisect import insort
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from attrs import asdict, define, field

from sitesim.errors import InputError
from sitesim.schedulers.base import Scheduler, register
from sitesim.compiled import twin
from sitesim.schedulers.options import choice, duration, format_options, parse_options, weight
from sitesim.schedulers.ranked import RankedEasyScheduler
from sitesim.workload.job import Job

if TYPE_CHECKING:
    from sitesim.schedulers._priority import MultifactorQueue

DAY = 86_400
#: Rebase the usage scale before 2 ** (elapsed / half-life) gets this large.
_REBASE = 2.0**200


@define(frozen=True, slots=True)
class Priorities:
    """The multifactor parameters (``multifactor:KEY=VALUE,...``; defaults documented above)."""

    age: float = field(default=1000.0)
    size: float = field(default=1000.0)
    fairshare: float = field(default=10_000.0)
    favor: str = field(default="large")
    max_age: int = field(default=7 * DAY)
    half_life: int = field(default=7 * DAY)
    period: int = field(default=300)

    def __attrs_post_init__(self) -> None:
        for name in ("age", "size", "fairshare"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value >= 0):
                raise InputError(f"multifactor: {name} weight must be finite and >= 0, got {value}", field="--scheduler")
        if self.favor not in ("large", "small"):
            raise InputError(f"multifactor: favor must be large or small, got {self.favor!r}", field="--scheduler")
        for name in ("max_age", "half_life"):
            if getattr(self, name) < 1:
                raise InputError(f"multifactor: {name} must be at least 1 s", field="--scheduler")
        if self.period < 0:
            raise InputError("multifactor: period must be >= 0 s", field="--scheduler")


#: How each parameter is read from a spec.
FIELDS = {
    "age": weight, "size": weight, "fairshare": weight, "favor": choice("large", "small"),
    "max_age": duration, "half_life": duration, "period": duration,
}


class Usage:
    """Each user's decayed usage in node-seconds, kept on a growing scale.

    Decay multiplies everyone's usage by the same factor, so only the ratios matter and
    usage is stored multiplied by ``2 ** ((t - t0) / half_life)`` of the instant it
    accrued: nothing decays, new usage simply weighs more. A running job of ``size``
    nodes started at ``s`` has accrued ``size · (g(t) - g(s)) · h / ln 2`` by ``t``.
    """

    __slots__ = ("half_life", "t0", "users", "total_done", "total_rate", "total_offset", "k")

    def __init__(self, half_life: int) -> None:
        self.half_life = half_life
        self.t0 = 0
        #: Per user, [usage of ended runs, nodes running now, sum of size · g(start) of
        #: those]; and the same summed over users (kept as they change, not re-added).
        self.users: dict[int, list[float]] = {}
        self.total_done = 0.0
        self.total_rate = 0
        self.total_offset = 0.0
        #: Node-seconds accrued per node per unit of g: h / ln 2.
        self.k = half_life / math.log(2)

    def g(self, t: int) -> float:
        return float(2.0 ** ((t - self.t0) / self.half_life))

    def start(self, user: int, size: int, now: int) -> None:
        gn = self.g(now)
        if gn > _REBASE:
            self._rebase(now)
            gn = self.g(now)
        entry = self.users.get(user)
        if entry is None:
            entry = self.users[user] = [0.0, 0, 0.0]
        weighed = size * gn
        entry[1] += size
        entry[2] += weighed
        self.total_rate += size
        self.total_offset += weighed

    def end(self, user: int, size: int, start: int, end: int) -> None:
        entry = self.users[user]
        t0, h = self.t0, self.half_life  # g() written out: once per job end, twice
        gs = float(2.0 ** ((start - t0) / h))
        used = size * (float(2.0 ** ((end - t0) / h)) - gs) * self.k
        entry[0] += used
        self.total_done += used
        entry[1] -= size
        self.total_rate -= size
        # With nothing left running an offset is exactly zero (no rounding left over).
        entry[2] = entry[2] - size * gs if entry[1] else 0.0
        self.total_offset = self.total_offset - size * gs if self.total_rate else 0.0

    def of(self, user: int, now: int) -> float:
        """The user's usage at ``now``, on the current scale."""
        entry = self.users.get(user)
        if entry is None:
            return 0.0
        return entry[0] + (entry[1] * self.g(now) - entry[2]) * self.k

    def total(self, now: int) -> float:
        """Everyone's usage at ``now``, on the current scale."""
        return self.total_done + (self.total_rate * self.g(now) - self.total_offset) * self.k

    def _rebase(self, now: int) -> None:
        factor = 1.0 / self.g(now)
        for entry in self.users.values():
            entry[0] *= factor
            entry[2] *= factor
        self.total_done *= factor
        self.total_offset *= factor
        self.t0 = now


_TWIN = twin("_priority", __package__)
#: The compiled waiting queue (``_priority.pyx``): the priorities of
#: :meth:`MultifactorScheduler.priority` and the fair-share factors of
#: :meth:`MultifactorScheduler.fairshare_factors` computed on C arrays (the same
#: numbers), the queue in their order for each pass, the sums of the factors at the
#: starts and the users' decayed usage (:class:`Usage`'s arithmetic), where it was
#: built, else None.
QUEUE: type[MultifactorQueue] | None = None if _TWIN is None else _TWIN.MultifactorQueue


@register
class MultifactorScheduler(RankedEasyScheduler):
    """Priority = weighted age, size and fair-share; EASY backfilling in priority order."""

    name = "multifactor"
    summary = (
        "multifactor priority (age, size, fair-share with decayed usage), EASY-backfilled in priority"
        " order; multifactor:age=W,size=W,fairshare=W,favor=large|small,max_age=T,half_life=T,period=T"
    )
    arrival_order = False
    #: The compiled queue (:class:`MultifactorQueue`), or None on the Python path.
    _ranked: MultifactorQueue | None

    def __init__(self, nodes: int, priorities: Priorities | None = None, **values: Any) -> None:
        super().__init__(nodes)
        if priorities is not None and values:
            raise TypeError("give the parameters as a Priorities or as keywords, not both")
        self.priorities = priorities if priorities is not None else Priorities(**values)
        p = self.priorities
        #: The compiled queue, which keeps each waiting job's priority as the queue is
        #: ordered, arranges the queue for each pass without reading the jobs again, and
        #: keeps the users and their usage. What follows is the Python path's state
        #: (with the queue, :attr:`usage` and :attr:`_users` stay empty).
        self._ranked = None if QUEUE is None else QUEUE(
            nodes, p.age, p.size, p.fairshare, p.favor == "large", p.max_age, p.half_life, p.period,
            p.half_life / math.log(2), _REBASE,
        )
        self.usage = Usage(p.half_life)
        #: Users who have submitted (each holds an equal share).
        self._users: set[int] = set()
        #: Jobs waiting, by user (in Python: the compiled queue knows its users).
        self._waiting: dict[int, int] = {}
        #: Priority of each job that arrived since the last computation, given on
        #: arrival; the others' is that of the last computation (:meth:`priority_of`),
        #: worked out when asked rather than stored for every job at every computation.
        self._priority: dict[int, float] = {}
        #: The size term of each waiting job's priority (fixed while it waits; in
        #: Python: the compiled queue keeps its own).
        self._static: dict[int, float] = {}
        self._computed = -1
        #: Fair-share factors of the last computation, by user (the compiled queue keeps its own).
        self._fairshare: dict[int, float] = {}
        #: Arrivals since the last pass, at the end of the queue until :meth:`order`
        #: puts them in their place (or a computation sorts the whole queue anyway).
        self._pending: list[Job] = []
        #: Sums of the weighted factors of started jobs at their start.
        self._sums = {"age": 0.0, "size": 0.0, "fairshare": 0.0, "priority": 0.0}
        self._started = 0

    @classmethod
    def from_arg(cls, nodes: int, arg: str | None) -> Scheduler:
        return cls(nodes, Priorities(**parse_options(cls.name, arg, FIELDS)))

    @property
    def spec(self) -> str:
        return format_options(self.name, asdict(self.priorities))

    # -- factors ---------------------------------------------------------------------
    def size_factor(self, job: Job) -> float:
        if self.priorities.favor == "large":
            return job.size / self.nodes
        return (self.nodes - job.size + 1) / self.nodes

    def age_factor(self, job: Job, now: int) -> float:
        return min(now - job.submit, self.priorities.max_age) / self.priorities.max_age

    def fairshare_factors(self, users: Iterable[int], now: int) -> dict[int, float]:
        """Each user's fair-share factor at ``now`` (1 for all while nobody has used anything)."""
        usage = self.usage
        gt, k = usage.g(now), usage.k
        # Usage.total and Usage.of written out (at every computation, once per user
        # with a waiting job): usage / total / share, with equal shares.
        total = usage.total_done + (usage.total_rate * gt - usage.total_offset) * k
        if total <= 0.0 or not self.priorities.fairshare:
            return dict.fromkeys(users, 1.0)
        scale = len(self._users) / total
        table = usage.users
        factors = {}
        for user in users:
            entry = table.get(user)
            factors[user] = 1.0 if entry is None else 2.0 ** (-(entry[0] + (entry[1] * gt - entry[2]) * k) * scale)
        return factors

    def fairshare_factor(self, user: int, now: int) -> float:
        """One user's fair-share factor at ``now``: :meth:`fairshare_factors` for a single
        user, written out (once per arrival or start of a user with no job waiting at the
        last computation), the same number."""
        usage = self.usage
        gt, k = usage.g(now), usage.k
        total = usage.total_done + (usage.total_rate * gt - usage.total_offset) * k
        if total <= 0.0 or not self.priorities.fairshare:
            return 1.0
        entry = usage.users.get(user)
        if entry is None:
            return 1.0
        return float(2.0 ** (-(entry[0] + (entry[1] * gt - entry[2]) * k) * (len(self._users) / total)))

    def components(self, job: Job, now: int, fairshare: float) -> tuple[float, float, float]:
        """The weighted age, size and fair-share terms of ``job``'s priority at ``now``."""
        p = self.priorities
        return p.age * self.age_factor(job, now), p.size * self.size_factor(job), p.fairshare * fairshare

    def priority(self, job: Job, now: int, fairshare: float) -> float:
        """``job``'s priority at ``now`` with its user's ``fairshare`` factor: the one
        formula every priority here comes from (the age term capped at ``max_age``, the
        size term kept since arrival)."""
        p = self.priorities
        waited = now - job.submit
        return (p.age / p.max_age * waited if waited < p.max_age else p.age) + self._static[job.seq] + (
            p.fairshare * fairshare
        )

    def _refresh(self, now: int) -> None:
        """Every waiting job's priority at ``now``, and the queue sorted by it (highest
        first, ties in arrival order); in the compiled queue where it was built (which
        the pass then arranges, :meth:`order`)."""
        if self._ranked is not None:  # the factors too, there (fairshare_factors' numbers)
            self._ranked.compute(now)
        else:
            self._fairshare = fairshare = self.fairshare_factors(self._waiting, now)
            priority = self.priority
            self.queue.sort(key=lambda job: (-priority(job, now, fairshare[job.user]), job.seq))
        self._priority.clear()
        self._computed = now

    def priority_of(self, job: Job) -> float:
        """A waiting job's priority as the queue is ordered now: given on arrival since
        the last computation, else as that computation found it."""
        if self._ranked is not None:
            return self._ranked.priority(job)
        given = self._priority.get(job.seq)
        if given is not None:
            return given
        return self.priority(job, self._computed, self._fairshare[job.user])

    # -- the kernel's hooks and events -------------------------------------------------------
    def order(self, now: int, free: int) -> bool:
        period = self.priorities.period
        pending = self._pending
        if period == 0 or self._computed < 0 or now - self._computed >= period:
            pending.clear()
            self._refresh(now)
        elif pending:  # each arrival to its place by the priority it got on arrival
            queue, priority = self.queue, self.priority_of
            del queue[len(queue) - len(pending):]
            for job in pending:
                insort(queue, job, key=lambda queued: (-priority(queued), queued.seq))
            pending.clear()
        if self._ranked is not None:
            # The same order, sorted only as far as the pass can use it; nothing to
            # arrange when no job fits in the free nodes.
            arranged = self._ranked.rank(free)
            if arranged is not None:
                self.queue[:] = arranged
        # Even after a computation, a pass that only arrivals followed may resume the
        # last one when the head is the same (the kernel checks it): every job that pass
        # refused is refused again in any order, so only the arrivals can start.
        return False

    def place(self, job: Job) -> None:
        ranked = self._ranked
        if ranked is not None:  # all of what follows, there (the same numbers)
            self.queue.append(job)
            ranked.arrive(job)
            return
        user = job.user
        self._users.add(user)
        self._waiting[user] = self._waiting.get(user, 0) + 1
        self._static[job.seq] = self.priorities.size * self.size_factor(job)
        if not self.priorities.period:
            self.queue.append(job)  # the pass computes every priority
            return
        # Between computations a job gets its priority at arrival (its age term is 0,
        # its user's fair-share factor that of the last computation, or computed now for
        # a user who had no job waiting then), and its place in the queue by it when the
        # next pass orders the queue: a pass that recomputes every priority sorts the
        # whole queue anyway, and the place depends on the priority alone.
        factor = self._fairshare.get(job.user)
        if factor is None:
            factor = self._fairshare[job.user] = self.fairshare_factor(job.user, job.submit)
        self._priority[job.seq] = self.priority(job, job.submit, factor)
        self.queue.append(job)
        self._pending.append(job)

    def started(self, job: Job, now: int) -> None:
        """Its factors at the start, for the report, and its usage from now on."""
        if self._ranked is not None:  # all of what follows, there (the same numbers)
            self._ranked.start(job, now)
            return
        user, seq = job.user, job.seq
        factor = self._fairshare.get(user)
        if factor is None:
            factor = self.fairshare_factor(user, now)
        p = self.priorities
        sums = self._sums
        sums["age"] += p.age * (min(now - job.submit, p.max_age) / p.max_age)
        sums["size"] += self._static[seq]
        sums["fairshare"] += p.fairshare * factor
        sums["priority"] += self.priority_of(job)
        self._priority.pop(seq, None)
        del self._static[seq]
        left = self._waiting[user] - 1
        if left:
            self._waiting[user] = left
        else:
            del self._waiting[user]
        self.usage.start(user, job.size, now)
        self._started += 1

    def job_ended(self, job: Job, now: int) -> None:
        super().job_ended(job, now)
        if self._ranked is not None:
            self._ranked.ended(job, now)
        else:
            self.usage.end(job.user, job.size, job.start, now)

    def report(self, window: int) -> dict[str, Any]:
        ranked = self._ranked
        n = self._started if ranked is None else ranked.started()
        sums = self._sums if ranked is None else ranked.sums()
        means = {k: (v / n if n else None) for k, v in sums.items()}
        return {"multifactor": {"parameters": asdict(self.priorities), "started": n,
                                "mean_at_start": means}}
