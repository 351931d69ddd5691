"""Composite policies: a policy made of other registered policies, its *parts*.

``hold:BASE`` holds each job for its recorded wait, then hands it to one part (its
base); ``partitioned:FILE`` routes each job to the part that owns its partition of the
nodes. What they share is what follows from having parts: a timer a part set rings in
that part, the notion of a short job is the parts' when they agree, and the machine is
shared out only if every part shares it out. Each composite says which part a job is
in (:meth:`Composite.part_of`); the run layer never asks which composite it runs.
"""

from __future__ import annotations

from abc import abstractmethod

from sitesim.schedulers.base import Scheduler
from sitesim.workload.job import Job


class Composite(Scheduler):
    """Base of policies made of other policies (``parts``)."""

    def __init__(self, nodes: int, parts: list[Scheduler]) -> None:
        super().__init__(nodes)
        #: The policies this one is made of (none: ``hold`` without a base).
        self.parts = parts

    @abstractmethod
    def part_of(self, job: Job) -> Scheduler | None:
        """The part that holds ``job`` now (None: the composite itself)."""

    def use_seed(self, seed: int) -> None:
        for part in self.parts:
            part.use_seed(seed)

    def timer_expired(self, job: Job, now: int) -> None:
        part = self.part_of(job)
        if part is not None:
            part.timer_expired(job, now)

    @property
    def bounded(self) -> bool:
        return bool(self.parts) and all(p.bounded for p in self.parts)

    @property
    def short_job_threshold(self) -> int | None:
        """The parts' threshold if all that have one agree (else None)."""
        found = {t for p in self.parts if (t := p.short_job_threshold) is not None}
        return found.pop() if len(found) == 1 else None
