"""CREASY: a user-aware EASY that serves first the jobs whose users are waiting for them.

After Shmueli & Feitelson, "On simulation and design of parallel-systems schedulers:
are we doing the right thing?" (IEEE TPDS 20(7), 2009): users who wait long end their
sessions, so a scheduler that answers the users still at their desks keeps them
working, while one that packs the machine best may not. The principle is theirs; the
rules below are this module's, each from something a real scheduler sees (submit times,
user ids, job starts and ends, estimates) and never from the simulated users' state.

- **Presence.** A user is taken to be at the desk just after interacting with the
  site: submitting a job or seeing one end. The chance that they still are, ``τ``
  seconds after their latest interaction, is the continuation curve measured in the
  logs, P(the session goes on | response τ), relative to its value for an immediate
  answer: ``fade(τ) = σ(b0 + b1·log10 max(τ, 60)) / σ(b0 + b1·log10 60)``.
  docs/population.md measured ``b1`` between -1.10 and -1.38 per decade of response
  on KTH-SP2, SDSC-SP2 and CTC-SP2, and P(continue) of 0.72–0.77 for answers within a
  minute; the defaults ``slope=-1.2`` and ``b0 = 3.23`` (P = 0.75 at one minute) give
  a presence of one half after 22 minutes, a quarter after 2.3 hours. Think times say
  the same: within a session they are mostly minutes (docs/models.md).
- **Whom to serve.** A job's *value* is ``fade(τ_user) / estimate``: the presence of
  its user, over the job's length. The log-odds of going on fall with the logarithm of
  the response, so a minute saved on a short job weighs more than one saved on a long
  job; serving short jobs first is also what minimises the mean response. Waiting jobs
  are ordered by value, highest first (ties: arrival order). docs/user-aware.md gives
  the designs tried before this one and what each did.
- **No starvation.** A job that has waited ``aging`` seconds (default 7 days) goes
  ahead of every job valued as above, in arrival order; and the first job of the order
  gets EASY's reservation, so once it is first nothing may delay it. Seven days is
  Slurm's default cap on the age factor (``PriorityMaxAge``, as in ``multifactor``) and
  about EASY's own longest wait at 1.5 times the fitted KTH-SP2 and CTC-SP2 users. A
  shorter bound hands the order back to arrival at high load: there, with 24 h, the
  gain in completed jobs over EASY was two fifths of what 7 days gives; where users never
  leave (the paper's site), a long bound costs jobs instead (docs/user-aware.md).

Values change as time passes and as jobs end, so the queue is ordered afresh at every
pass that has a free node (``arrival_order = False``). A pass that only arrivals
followed, with the same head, tries only the arrivals, as EASY's does (the kernel's
resumed pass, which holds in any order of the jobs that waited). A pass with no free
node starts nothing in any order, so it leaves the queue as it is. The ranking has a compiled twin (``_priority.pyx``), which
computes the same presences with the same C library calls as ``math`` and sorts by the
same keys.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from sitesim.errors import InputError
from sitesim.schedulers.base import Scheduler, register
from sitesim.compiled import twin
from sitesim.schedulers.options import duration, format_options, parse_options
from sitesim.schedulers.ranked import RankedEasyScheduler
from sitesim.workload.job import Job

if TYPE_CHECKING:
    from sitesim.schedulers._priority import CreasyQueue

#: Log-odds of going on after an immediate answer (P = 0.75 at one minute, docs/population.md).
B0 = 3.23
#: Change of those log-odds per tenfold longer response (the logs' -1.10 to -1.38).
SLOPE = -1.2
#: Presence is not resolved below a minute (the curve's first bin).
MINUTE = 60
#: The wait after which a job goes first whatever its value: seven days.
AGING = 7 * 86_400

#: The compiled twin of the waiting queue and its ranking (``_priority.pyx``), where it
#: was built, else None.
QUEUE: type[CreasyQueue] | None = getattr(twin("_priority", __package__), "CreasyQueue", None)


def _slope(text: str) -> float:
    value = float(text)
    if not (math.isfinite(value) and -10 <= value < 0):
        raise ValueError(f"must be a negative number of at least -10, got {text!r}")
    return value


@register
class CreasyScheduler(RankedEasyScheduler):
    """EASY over an order by the value to the users waiting: presence / estimate."""

    name = "creasy"
    summary = (
        "user-aware EASY (after Shmueli & Feitelson 2009): jobs of users likely at their desks first,"
        " short ones first among them; creasy:aging=T,slope=B1"
    )
    arrival_order = False
    #: The compiled queue (:class:`CreasyQueue`), or None on the Python path.
    _ranked: CreasyQueue | None

    def __init__(self, nodes: int, aging: int = AGING, slope: float = SLOPE) -> None:
        super().__init__(nodes)
        if aging < 1:
            raise InputError("creasy: aging must be at least 1 s", field="--scheduler")
        self.aging = aging
        self.slope = slope
        #: Each user's latest interaction: a submission or the end of one of their jobs.
        self._seen: dict[int, int] = {}
        self._at_once = 1.0 / (1.0 + math.exp(-(B0 + slope * math.log10(MINUTE))))
        #: The compiled waiting queue, which ranks without reading the jobs again.
        self._ranked = None if QUEUE is None else QUEUE(aging, B0, slope, MINUTE, self._at_once)
        self.counts = {"passes": 0, "aged_first": 0}

    @classmethod
    def from_arg(cls, nodes: int, arg: str | None) -> Scheduler:
        return cls(nodes, **parse_options(cls.name, arg, {"aging": duration, "slope": _slope}))

    @property
    def spec(self) -> str:
        return format_options(self.name, {"aging": self.aging, "slope": self.slope})

    def presence(self, idle: int) -> float:
        """The chance a user is still at the desk ``idle`` seconds after interacting."""
        p = 1.0 / (1.0 + math.exp(-(B0 + self.slope * math.log10(max(idle, MINUTE)))))
        return p / self._at_once

    def enqueue(self, job: Job, now: int) -> None:
        self._seen[job.user] = now
        if self._ranked is not None:
            self._ranked.interacted(job.user, now)
            self._ranked.add(job)
        super().enqueue(job, now)

    def started(self, job: Job, now: int) -> None:
        if self._ranked is not None:
            self._ranked.remove(job)

    def job_ended(self, job: Job, now: int) -> None:
        super().job_ended(job, now)
        self._seen[job.user] = now
        if self._ranked is not None:
            self._ranked.interacted(job.user, now)

    def order(self, now: int, free: int) -> bool:
        self.counts["passes"] += 1
        ranked = self._ranked
        if not free:  # the pass starts nothing, in any order: only the count is kept
            aged = ranked.aged(now) if ranked is not None else any(now - job.submit >= self.aging for job in self.queue)
        elif ranked is not None:
            order, aged = ranked.rank(now, free)
            if order is not None:
                self.queue[:] = order
        else:
            aged = self._rank(now)
        if aged:
            self.counts["aged_first"] += 1
        # The jobs that waited may have moved, yet a pass that only arrivals followed
        # may resume the last one (the kernel checks that the head is the same): every
        # job that pass refused is refused again in any order (no more free or extra
        # nodes, a later end), so only the arrivals can start, in queue order.
        return False

    def _rank(self, now: int) -> bool:
        """Put the queue in creasy's order at ``now``: the aged jobs in arrival order,
        then the others by decreasing value (ties in arrival order). Return whether any
        job was aged. The specification of the compiled ranking (``_priority.pyx``)."""
        queue = self.queue
        presence: dict[int, float] = {}
        aged = []
        ranked = []
        for job in queue:
            waited = now - job.submit
            if waited >= self.aging:
                aged.append(job)
                continue
            user = job.user
            p = presence.get(user)
            if p is None:
                p = presence[user] = self.presence(now - self._seen[user])
            ranked.append((-p / max(job.estimate, 1), job.seq, job))
        ranked.sort()
        aged.sort(key=lambda job: job.seq)
        queue[:] = [*aged, *(entry[2] for entry in ranked)]
        return bool(aged)

    def report(self, window: int) -> dict[str, Any]:
        return {"creasy": {"aging": self.aging, "slope": self.slope, **self.counts}}
