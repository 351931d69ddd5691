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

``priority = age·w_age + size·w_size + fairshare·w_fairshare``. The queue is sorted by
priority (ties: arrival order) before every pass, or only every ``period`` seconds
(jobs that arrive in between get their priority at arrival); the highest-priority job
gets EASY's reservation and the others are backfill candidates in priority order.

With every weight but age zero, priority falls with arrival order (a job submitted
later has waited no longer), so the policy is plain EASY, schedule for schedule
(tested). The defaults follow the example configuration in Slurm's multifactor
documentation in giving fair-share ten times the weight of age and size: age 1000
(capped at 7 days), size 1000 favouring large jobs, fair-share 10000 with a 7-day
half-life (Slurm's default ``PriorityDecayHalfLife``), recomputed at every pass.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from attrs import asdict, define, field

from sitesim.errors import InputError
from sitesim.schedulers.base import Scheduler, register
from sitesim.schedulers.easy import EasyScheduler
from sitesim.schedulers.options import choice, duration, format_options, parse_options, weight
from sitesim.workload.job import Job

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
    period: int = field(default=0)

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

    __slots__ = ("half_life", "t0", "done", "rate", "offset", "k")

    def __init__(self, half_life: int) -> None:
        self.half_life = half_life
        self.t0 = 0
        #: Per user: usage of ended runs; nodes running now; sum of size · g(start) of those.
        self.done: dict[int, float] = {}
        self.rate: dict[int, int] = {}
        self.offset: dict[int, float] = {}
        #: Node-seconds accrued per node per unit of g: h / ln 2.
        self.k = half_life / math.log(2)

    def g(self, t: int) -> float:
        return 2.0 ** ((t - self.t0) / self.half_life)

    def start(self, user: int, size: int, now: int) -> None:
        if self.g(now) > _REBASE:
            self._rebase(now)
        self.rate[user] = self.rate.get(user, 0) + size
        self.offset[user] = self.offset.get(user, 0.0) + size * self.g(now)

    def end(self, user: int, size: int, start: int, end: int) -> None:
        gs = self.g(start)
        self.done[user] = self.done.get(user, 0.0) + size * (self.g(end) - gs) * self.k
        rate = self.rate[user] - size
        self.rate[user] = rate
        # With nothing left running the offset is exactly zero (no rounding left over).
        self.offset[user] = self.offset[user] - size * gs if rate else 0.0

    def of(self, user: int, now: int) -> float:
        """The user's usage at ``now``, on the current scale."""
        return self.done.get(user, 0.0) + (self.rate.get(user, 0) * self.g(now) - self.offset.get(user, 0.0)) * self.k

    def total(self, now: int) -> float:
        gt = self.g(now)
        running = sum(self.rate.values()) * gt - sum(self.offset.values())
        return sum(self.done.values()) + running * self.k

    def _rebase(self, now: int) -> None:
        factor = 1.0 / self.g(now)
        for table in (self.done, self.offset):
            for user in table:
                table[user] *= factor
        self.t0 = now


@register
class MultifactorScheduler(EasyScheduler):
    """Priority = weighted age, size and fair-share; EASY backfilling in priority order."""

    name = "multifactor"
    summary = (
        "multifactor priority (age, size, fair-share with decayed usage), EASY-backfilled in priority"
        " order; multifactor:age=W,size=W,fairshare=W,favor=large|small,max_age=T,half_life=T,period=T"
    )
    arrival_order = False

    def __init__(self, nodes: int, priorities: Priorities | None = None, **values: Any) -> None:
        super().__init__(nodes)
        if priorities is not None and values:
            raise TypeError("give the parameters as a Priorities or as keywords, not both")
        self.priorities = priorities if priorities is not None else Priorities(**values)
        self.usage = Usage(self.priorities.half_life)
        #: Users who have submitted (each holds an equal share).
        self._users: set[int] = set()
        #: Priority of each waiting job, as last computed; when it was last computed.
        self._priority: dict[int, float] = {}
        #: The size term of each waiting job's priority (fixed while it waits).
        self._static: dict[int, float] = {}
        self._computed = -1
        #: Fair-share factors of the last computation, by user.
        self._fairshare: dict[int, float] = {}
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
        total = usage.total(now)
        if total <= 0.0 or not self.priorities.fairshare:
            return dict.fromkeys(users, 1.0)
        # usage / total / share, with equal shares; Usage.of written out (once per user
        # with a waiting job, at every pass).
        scale = len(self._users) / total
        gt, k = usage.g(now), usage.k
        done, rate, offset = usage.done, usage.rate, usage.offset
        return {
            user: 2.0 ** (-(done.get(user, 0.0) + (rate.get(user, 0) * gt - offset.get(user, 0.0)) * k) * scale)
            for user in users
        }

    def components(self, job: Job, now: int, fairshare: float) -> tuple[float, float, float]:
        """The weighted age, size and fair-share terms of ``job``'s priority at ``now``."""
        p = self.priorities
        return p.age * self.age_factor(job, now), p.size * self.size_factor(job), p.fairshare * fairshare

    def _refresh(self, now: int) -> None:
        """Every waiting job's priority at ``now``, and the queue sorted by it (the loop
        written out: it runs for every waiting job at every pass)."""
        queue = self.queue
        fairshare = self._fairshare = self.fairshare_factors({job.user for job in queue}, now)
        p = self.priorities
        cap = p.max_age
        per_second = p.age / cap
        w_fairshare = p.fairshare
        static = self._static
        priority = self._priority
        ranked = []
        for job in queue:
            waited = now - job.submit
            seq = job.seq
            value = priority[seq] = (per_second * waited if waited < cap else p.age) + static[seq] + (
                w_fairshare * fairshare[job.user]
            )
            ranked.append((-value, seq, job))
        ranked.sort()
        queue[:] = [entry[2] for entry in ranked]
        self._computed = now

    # -- the kernel's hooks and events -------------------------------------------------------
    def order(self, now: int) -> None:
        period = self.priorities.period
        if period == 0 or self._computed < 0 or now - self._computed >= period:
            self._refresh(now)
        else:
            priority = self._priority
            self.queue.sort(key=lambda job: (-priority[job.seq], job.seq))

    def enqueue(self, job: Job, now: int) -> None:
        self._users.add(job.user)
        self._static[job.seq] = self.priorities.size * self.size_factor(job)
        if self.priorities.period:
            factor = self._fairshare.get(job.user)
            if factor is None:
                factor = self.fairshare_factors((job.user,), now)[job.user]
            self._priority[job.seq] = sum(self.components(job, now, factor))
        super().enqueue(job, now)

    def schedule(self, now: int, free: int) -> list[Job]:
        started = super().schedule(now, free)
        if started:
            sums = self._sums
            for job in started:
                factor = self._fairshare.get(job.user)
                if factor is None:
                    factor = self.fairshare_factors((job.user,), now)[job.user]
                a, s, f = self.components(job, now, factor)
                sums["age"] += a
                sums["size"] += s
                sums["fairshare"] += f
                sums["priority"] += self._priority.pop(job.seq)
                del self._static[job.seq]
                self._started += 1
                self.usage.start(job.user, job.size, now)
        return started

    def job_ended(self, job: Job, now: int) -> None:
        super().job_ended(job, now)
        self.usage.end(job.user, job.size, job.start, now)

    def report(self, window: int) -> dict[str, Any]:
        n = self._started
        means = {k: (v / n if n else None) for k, v in self._sums.items()}
        return {"multifactor": {"parameters": asdict(self.priorities), "started": n,
                                "mean_at_start": means}}
