"""The scheduler interface and the registry of policies by name.

A scheduler knows its queue and the nodes, nothing about users or runtimes: it is told
about arrivals and ends, and in each pass it answers "which waiting jobs start now?".
It sees only each job's ``size`` and ``estimate`` (never the real runtime), exactly the
information a production scheduler has. The site performs the allocation.

A new policy is one class with a ``name`` and ``@register``; the CLI, site files and
sweeps find it through :func:`make_scheduler`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar, TypeVar

from sitesim.errors import InputError
from sitesim.workload.job import Job

_REGISTRY: dict[str, type[Scheduler]] = {}

S = TypeVar("S", bound="type[Scheduler]")


class Scheduler(ABC):
    """Base of every scheduling policy for a machine of ``nodes`` nodes."""

    #: Registry name (``-s NAME`` on the command line).
    name: ClassVar[str]
    #: One-line description shown by ``sitesim -h``.
    summary: ClassVar[str] = ""

    def __init__(self, nodes: int) -> None:
        self.nodes = nodes
        #: Waiting jobs in arrival order.
        self.queue: list[Job] = []

    def enqueue(self, job: Job, now: int) -> None:
        """A job arrived (``now`` is its submit time)."""
        self.queue.append(job)

    def job_ended(self, job: Job, now: int) -> None:
        """A running job ended (completed or killed) and its nodes are free again."""

    def admits(self, job: Job) -> bool:
        """Whether this scheduler can ever run ``job`` (trace replay skips those it can't).

        A whole machine admits any job that fits on it; a partitioned one only jobs
        that some partition's routing rule accepts.
        """
        return job.size <= self.nodes

    @abstractmethod
    def schedule(self, now: int, free: int) -> list[Job]:
        """Remove from the queue, and return in start order, the jobs to start now.

        ``free`` is the number of idle nodes; the returned jobs must fit in it together.
        """


def register(cls: S) -> S:
    """Class decorator: make a scheduler available under its ``name``."""
    if cls.name in _REGISTRY:
        raise ValueError(f"scheduler name {cls.name!r} registered twice")
    _REGISTRY[cls.name] = cls
    return cls


def available() -> dict[str, type[Scheduler]]:
    """Registered schedulers by name (importing the package registers the built-ins)."""
    return dict(_REGISTRY)


def make_scheduler(name: str, nodes: int) -> Scheduler:
    """Instantiate the scheduler registered as ``name``; unknown names are input errors."""
    cls = _REGISTRY.get(name)
    if cls is None:
        known = ", ".join(sorted(_REGISTRY))
        raise InputError(f"unknown scheduler {name!r} (known: {known})", field="--scheduler")
    return cls(nodes)
