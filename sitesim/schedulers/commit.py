"""Base schedulers of a timed-run scheduler: which waiting jobs commit now.

Thebe, Bunde & Leung (2009) run a *base scheduler* (FCFS or EASY) inside the trial-run
framework. Its view of the machine differs from the plain policy in three ways, which
is why these are small classes of their own rather than the plain FCFS/EASY objects:

- jobs past their trial run but still running (the lazily terminated ones) count as
  terminated: their nodes are in the ``pool`` the policy plans with;
- a job in its trial run "cannot fit": FCFS stops at it, EASY makes it the head whose
  reservation it computes, or skips it as a backfill candidate;
- a job chosen while it is still running past its trial is committed by letting it go
  on (it keeps its start), not by a restart.

A policy only picks; :meth:`TimedScheduler.commit` does the bookkeeping. New bases
register with :func:`register_base` under the name used in ``timed:NAME``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, ClassVar

from sitesim.registry import Registry
from sitesim.schedulers.easy import shadow

if TYPE_CHECKING:
    from sitesim.schedulers.timed import TimedScheduler

#: Phases of a job inside a timed-run scheduler.
UNTRIED, TRIAL, EXPIRED, KILLED, COMMITTED = range(5)


class CommitPolicy(ABC):
    """Chooses commitments in the base scheduler's order (``timed.queue``, arrival order)."""

    name: ClassVar[str]

    def __init__(self, timed: TimedScheduler) -> None:
        self.timed = timed

    def commit_heads(self, now: int, pool: int) -> int:
        """Commit from the head of the queue while the head fits and is not in its trial
        run; returns the pool left. Every base starts this way."""
        timed = self.timed
        queue = timed.queue
        phase = timed.phase
        n = 0
        for job in queue:
            if phase[job.seq] == TRIAL or job.size > pool:
                break
            pool -= job.size
            timed.commit(job, now)
            n += 1
        del queue[:n]
        return pool

    @abstractmethod
    def select(self, now: int, pool: int) -> None:
        """Commit (through ``timed.commit``) and unqueue the jobs the base starts now.

        ``pool`` = idle nodes + nodes of jobs running past their trial.
        """


BASES: Registry[type[CommitPolicy]] = Registry("timed-run base scheduler", "--scheduler")
register_base = BASES.register


def bases() -> dict[str, type[CommitPolicy]]:
    return BASES.items()


@register_base
class FcfsCommit(CommitPolicy):
    """Commit from the head while it fits; a head in its trial run blocks everyone."""

    name = "fcfs"

    def select(self, now: int, pool: int) -> None:
        self.commit_heads(now, pool)


@register_base
class EasyCommit(CommitPolicy):
    """EASY (Mu'alem & Feitelson): commit from the head, then backfill without delaying
    the head's reservation. Trial runs are not held to that reservation (the paper
    disables the check): they start before the base is consulted.

    Expected ends come from ``timed.running``: committed jobs at start + estimate, jobs
    in their trial at the trial's end (they stop then at the latest, or are continued).
    """

    name = "easy"

    def select(self, now: int, pool: int) -> None:
        timed = self.timed
        queue = timed.queue
        phase = timed.phase
        pool = self.commit_heads(now, pool)
        if len(queue) < 2 or pool == 0:
            return
        end_by, extra = shadow(timed.running, queue[0].size, pool)
        picked: list[int] = []
        for i in range(1, len(queue)):
            job = queue[i]
            size = job.size
            if size > pool:
                continue
            state = phase[job.seq]
            if state == TRIAL:
                continue
            end = (job.start if state == EXPIRED else now) + job.estimate
            if end > end_by:
                if size > extra:
                    continue
                extra -= size
            pool -= size
            timed.commit(job, now)
            picked.append(i)
            if pool == 0:
                break
        for i in reversed(picked):
            del queue[i]
