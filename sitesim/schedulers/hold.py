"""The log's service: every job gets the wait it had in the log (``hold``, ``hold:BASE``).

Why: to validate a fitted population, its users must be served as the log served
them. The session signatures of a trace are cut by the 20-minute rule on think times
measured from job *ends*, so they hold the scheduler's waits as well as the users'
behaviour: the log's own jobs, replayed under EASY at their own submit times, miss the
session-length rule on all five shared logs (KTH-SP2: 7.5 h against the log's 14.5 h;
docs/validation.md). Served by EASY, a model of the users is judged by EASY's waits
as much as by its own behaviour. A fitted user's resampled job carries the wait it had
in the log (``Job.recorded_wait``), and this policy gives it back:

- ``hold`` starts every job exactly its recorded wait after its submission, whatever
  the nodes: a service model, not a scheduler (the machine is not ``bounded``; on the
  fitted sites the nodes in use pass the machine's size a fifth to a third of the
  time, as resampled batches land where the log had others: docs/validation.md). What
  it validates is the users: served as in the log, do they submit the log's work,
  sessions and cycle? A job without a recorded wait (``-1``) starts at once.
- ``hold:BASE`` (``hold:easy``, ...) releases each job to the base policy its recorded
  wait after submission, and the base starts it when it fits on the real nodes: a job
  released onto a busy machine waits longer than in the log. The base sees the job
  arrive at its release (its age, for ``multifactor``, and its user's last contact,
  for ``creasy``, count from then). Over users that carry no waits it is the base
  policy itself.

A trace replay carries each record's wait (SWF field 3) as its recorded wait, so
``hold`` replays any schedule exactly (tested on EASY's), a site-level run's own trace
among them when its users are not fitted. A fitted population's run keeps its jobs'
waits in the log beside its trace (``trace.recorded-waits``,
:mod:`sitesim.workload.recorded_waits`), and a replay reads those instead: under
``hold`` the trace's jobs are then served the log's waits, as in a site run under
``hold``, not the run's (move the file away to replay the run's own waits).
"""

from __future__ import annotations

from heapq import heappop, heappush
from typing import Any

from sitesim.errors import InputError
from sitesim.schedulers.base import SCHEDULERS, Control, Scheduler, register
from sitesim.schedulers.composite import Composite
from sitesim.workload.job import Job


@register
class HoldScheduler(Composite):
    """Each job started (or released to ``base``) its recorded wait after submission."""

    name = "hold"
    summary = (
        "the log's service: each job of a fitted user starts the wait it had in the log"
        " after submission, whatever the nodes; hold:BASE releases it to BASE then (hold:easy)"
    )

    def __init__(self, nodes: int, base: Scheduler | None = None) -> None:
        super().__init__(nodes, [] if base is None else [base])
        self.base = base
        if base is not None:
            #: Released jobs waiting for the base to start them.
            self.queue = base.queue
        #: (release time, arrival number, job) of the jobs still held.
        self.held: list[tuple[int, int, Job]] = []
        self.control: Control | None = None
        #: Times a pass has been asked for and has not yet come.
        self._wakes: set[int] = set()

    @classmethod
    def from_arg(cls, nodes: int, arg: str | None) -> Scheduler:
        if arg is None:
            return cls(nodes)
        if arg.partition(":")[0] == cls.name:
            raise InputError("hold cannot be its own base", field="--scheduler")
        base_cls, base_arg = SCHEDULERS.lookup(arg)
        return cls(nodes, base_cls.from_arg(nodes, base_arg))

    @classmethod
    def needs_recorded_waits(cls, arg: str | None) -> bool:
        return arg is None  # hold:BASE is its base where nothing is held

    @classmethod
    def declared_nodes(cls, arg: str | None) -> int | None:
        if arg is None:
            return None
        base_cls, base_arg = SCHEDULERS.lookup(arg)
        return base_cls.declared_nodes(base_arg)  # hold:partitioned:FILE is on the partitions

    @classmethod
    def files(cls, arg: str | None) -> list[str]:
        if arg is None:
            return []
        base_cls, base_arg = SCHEDULERS.lookup(arg)
        return base_cls.files(base_arg)

    @property
    def spec(self) -> str:
        return self.name if self.base is None else f"{self.name}:{self.base.spec}"

    def part_of(self, job: Job) -> Scheduler | None:
        return self.base

    @property
    def waiting(self) -> int:
        return len(self.held) + len(self.queue)

    def bind(self, control: Control) -> None:
        self.control = control
        if self.base is not None:
            self.base.bind(control)

    def enqueue(self, job: Job, now: int) -> None:
        if job.recorded_wait > 0:
            heappush(self.held, (now + job.recorded_wait, job.seq, job))
        elif self.base is not None:
            self.base.enqueue(job, now)
        else:
            self.queue.append(job)

    def job_ended(self, job: Job, now: int) -> None:
        if self.base is not None:
            self.base.job_ended(job, now)

    def schedule(self, now: int, free: int) -> list[Job]:
        held = self.held
        base = self.base
        self._wakes.discard(now)
        while held and held[0][0] <= now:
            job = heappop(held)[2]
            if base is not None:
                base.enqueue(job, now)
            else:
                self.queue.append(job)
        if held:
            release = held[0][0]
            if release not in self._wakes and self.control is not None:
                self._wakes.add(release)
                self.control.wake(release - now)
        if base is not None:
            return base.schedule(now, free)
        started, self.queue = self.queue, []
        return started

    @property
    def largest_job(self) -> int:
        return self.nodes if self.base is None else self.base.largest_job

    def admits(self, job: Job) -> bool:
        return job.size <= self.nodes if self.base is None else self.base.admits(job)

    def report(self, window: int) -> dict[str, Any]:
        return {} if self.base is None else self.base.report(window)
