"""Base schedulers of a timed-run scheduler: which waiting jobs commit now.

Thebe, Bunde & Leung (2009) run a *base scheduler* (FCFS or EASY) inside the trial-run
framework. Its view of the machine differs from the plain policy in three ways, which
the shared loops of :mod:`sitesim.schedulers.backfill` take as arguments:

- jobs past their trial run but still running (the lazily terminated ones) count as
  terminated: their nodes are in the ``pool`` the policy plans with;
- a job in its trial run "cannot fit": FCFS stops at it, EASY makes it the head whose
  reservation it computes, or skips it as a backfill candidate (``blocked``:
  ``timed.trials``);
- a job chosen while it is still running past its trial is committed by letting it go
  on (it keeps its start, ``continuing``: ``timed.expired``), not by a restart.

A policy only picks, from the queue it is handed; the timed-run scheduler
(:class:`TimedView`) does the bookkeeping of each commitment. New bases register with
:func:`register_base` under the name used in ``timed:NAME``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from enum import IntEnum
from typing import ClassVar, Protocol

from sitesim.registry import Registry
from sitesim.schedulers.backfill import Running, Seqs, easy_pass, fcfs_heads, run_start
from sitesim.workload.job import Job


class Phase(IntEnum):
    """Where a job is in a timed-run scheduler's life cycle."""

    #: Waiting for its trial run.
    UNTRIED = 0
    #: In its trial run (a timer rings at its end).
    TRIAL = 1
    #: Past its trial, still running until its nodes are needed (lazy termination).
    EXPIRED = 2
    #: Its trial run was killed; it waits to be committed and restarted.
    KILLED = 3
    #: Started (or continued) by the base scheduler; never killed again.
    COMMITTED = 4


class TimedView(Protocol):
    """What a base policy sees of its timed-run scheduler."""

    #: (expected end, seq, size) of jobs in a trial or committed, sorted.
    running: Running

    @property
    def trials(self) -> Seqs:
        """Arrival numbers of the jobs in their trial run: to the base they do not fit."""

    @property
    def expired(self) -> Seqs:
        """Arrival numbers of the jobs running past their trial: committed, they go on."""

    def commit(self, job: Job, end: int) -> None:
        """Record that the base starts (or continues) ``job``, expected to end at ``end``;
        a :data:`~sitesim.schedulers.backfill.Hold`, so it changes no other job's state."""


class CommitPolicy(ABC):
    """Chooses commitments in the base scheduler's order (arrival order)."""

    name: ClassVar[str]

    def __init__(self, timed: TimedView) -> None:
        self.timed = timed

    @abstractmethod
    def select(self, queue: list[Job], now: int, pool: int) -> None:
        """Commit (through ``timed.commit``) and remove from ``queue`` the jobs the base
        starts now. ``pool`` = idle nodes + nodes of jobs running past their trial."""


BASES: Registry[type[CommitPolicy]] = Registry("timed-run base scheduler", "--scheduler", CommitPolicy)
register_base = BASES.register


def bases() -> dict[str, type[CommitPolicy]]:
    return BASES.items()


@register_base
class FcfsCommit(CommitPolicy):
    """Commit from the head while it fits; a head in its trial run blocks everyone."""

    name = "fcfs"

    def select(self, queue: list[Job], now: int, pool: int) -> None:
        timed = self.timed
        n = fcfs_heads(queue, pool, timed.trials)
        for job in queue[:n]:
            timed.commit(job, run_start(job, now, timed.expired) + job.estimate)
        del queue[:n]


@register_base
class EasyCommit(CommitPolicy):
    """EASY (Mu'alem & Feitelson): commit from the head, then backfill without delaying
    the head's reservation. Trial runs are not held to that reservation (the paper
    disables the check): they start before the base is consulted.

    Expected ends come from ``timed.running``: committed jobs at start + estimate, jobs
    in their trial at the trial's end (they stop then at the latest, or are continued).
    """

    name = "easy"

    def select(self, queue: list[Job], now: int, pool: int) -> None:
        timed = self.timed
        easy_pass(queue, pool, now, timed.running, timed.commit, blocked=timed.trials, continuing=timed.expired)
