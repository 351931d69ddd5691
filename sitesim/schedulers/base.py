"""The scheduler interface and the registry of policies by name.

A scheduler knows its queue and the nodes, nothing about users or runtimes: it is told
about arrivals and ends, and in each pass it answers "which waiting jobs start now?".
It sees only each job's ``size`` and ``estimate`` (never the real runtime), exactly the
information a production scheduler has (with one exception that is not a production
policy: the log's service, ``hold``, reads the wait a fitted job had in its log). The
site performs the allocation.

A new policy is one class with a ``name`` and ``@register``; the CLI, site files and
sweeps find it through :func:`make_scheduler`, by ``NAME`` or ``NAME:ARG`` (as estimate
models are named); a policy that takes an argument overrides :meth:`Scheduler.from_arg`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar, Protocol

from sitesim.errors import InputError
from sitesim.registry import Registry
from sitesim.workload.job import Job


class Control(Protocol):
    """What a scheduler may do besides starting jobs (kill or time a running one, ask
    for a later pass).

    The site provides it (:class:`sitesim.engine.site.Control`); a composite scheduler
    may hand its parts a wrapper that keeps its own accounting right.
    """

    def kill(self, job: Job) -> None: ...
    def timer(self, job: Job, seconds: int) -> None: ...
    def wake(self, seconds: int) -> None: ...


class Scheduler(ABC):
    """Base of every scheduling policy for a machine of ``nodes`` nodes."""

    #: Registry name (``-s NAME`` on the command line).
    name: ClassVar[str]
    #: One-line description shown by ``sitesim -h``.
    summary: ClassVar[str] = ""
    #: A table of a site file that describes this policy's machine (``[[partitions]]``):
    #: a site file holding it runs ``NAME:`` that file.
    site_table: ClassVar[str | None] = None

    def __init__(self, nodes: int) -> None:
        self.nodes = nodes
        #: Waiting jobs in arrival order.
        self.queue: list[Job] = []

    def enqueue(self, job: Job, now: int) -> None:
        """A job arrived (``now`` is its submit time)."""
        self.queue.append(job)

    def job_ended(self, job: Job, now: int) -> None:
        """A running job ended (completed or killed) and its nodes are free again."""

    @property
    def spec(self) -> str:
        """The ``-s`` spec that recreates this policy (its name, plus any argument)."""
        return self.name

    @classmethod
    def from_arg(cls, nodes: int, arg: str | None) -> Scheduler:
        """Build from what follows ``NAME:`` in the spec (None if nothing does)."""
        if arg is not None:
            raise InputError(f"scheduler {cls.name!r} takes no argument (got {arg!r})", field="--scheduler")
        return cls(nodes)

    @classmethod
    def check_arg(cls, arg: str | None) -> None:
        """Raise the input error a bad ``NAME:ARG`` argument would, with no machine at hand."""
        cls.from_arg(1, arg)

    @classmethod
    def declared_nodes(cls, arg: str | None) -> int | None:
        """The machine size this policy brings with it (a partition file's total), or
        None: the machine is the run's (given, the site's, or the trace header's)."""
        return None

    @classmethod
    def needs_recorded_waits(cls, arg: str | None) -> bool:
        """Whether the policy serves jobs by the waits a log recorded for them (the log's
        service): a site whose users carry none (only a fitted population does) cannot
        run it, since every job would start at once on an unbounded machine."""
        return False

    @classmethod
    def under(cls, arg: str | None, policy: str) -> str:
        """The spec of this policy's machine run under ``policy`` instead (a study compares
        policies on one site): by default ``policy`` itself; a composite keeps its
        structure and runs ``policy`` in its parts."""
        return policy

    @classmethod
    def files(cls, arg: str | None) -> list[str]:
        """The files the spec reads (a sweep's model fingerprint hashes their content)."""
        return []

    @classmethod
    def label(cls, arg: str | None) -> str | None:
        """The policy as the paper's Table 2 names it (its ``policy`` column), when not by
        its spec (a partitioned machine: ``partitioned``, not its file)."""
        return None

    def bind(self, control: Control) -> None:
        """The site hands over its :class:`~sitesim.engine.site.Control` (kill, timers).

        Policies that only ever start jobs ignore it.
        """

    def use_seed(self, seed: int) -> None:
        """The run hands over its seed, before the first job. A policy that draws (a fitted
        service's delays, sitesim/schedulers/service.py) spawns its own stream from it,
        so every other stream of the run stays as it was; the others ignore it."""

    def timer_expired(self, job: Job, now: int) -> None:
        """A timer set with ``control.timer`` rang; a scheduling pass follows, unless
        :meth:`needs_pass` says it would do nothing."""

    def needs_pass(self, free: int) -> bool:
        """Whether a pass now, with ``free`` idle nodes, might start a job or change the
        policy's state; asked after :meth:`timer_expired` (a policy whose timers often
        change nothing, ``easy++``, saves the pass). False only where the pass provably
        starts nothing and leaves every state as it is. Default: True."""
        return True

    @property
    def largest_job(self) -> int:
        """The most nodes a job may ask for here (what simulated users are capped at)."""
        return self.nodes

    def admits(self, job: Job) -> bool:
        """Whether this scheduler can ever run ``job`` (trace replay skips those it can't).

        A whole machine admits any job that fits on it; a partitioned one only jobs
        that some partition's routing rule accepts.
        """
        return job.size <= self.nodes

    @property
    def waiting(self) -> int:
        """Jobs submitted and not started: the queue, and any a policy keeps apart from it
        (``hold`` keeps its held jobs out of its base's queue). A composite scheduler asks
        this, not ``len(queue)``, whether a part has anything to do."""
        return len(self.queue)

    @property
    def bounded(self) -> bool:
        """Whether the policy shares out the machine's nodes (every scheduler does). The
        log's service (``hold`` without a base) gives each job its recorded wait whatever
        the nodes, and the site then lets the nodes in use exceed the machine."""
        return True

    @property
    def short_job_threshold(self) -> int | None:
        """Seconds under which this policy treats a job as short, if it has such a notion
        (timed-run scheduling: the trial length); the run's metrics class waits by it.
        None: the metrics' default (90 s, sitesim/metrics/waits.py)."""
        return None

    def note(self) -> str | None:
        """What this policy is made of, for the header of the traces it schedules (a
        partitioned machine: its partitions); None for a plain policy."""
        return None

    def report(self, window: int) -> dict[str, Any]:
        """Extra entries for the run summary, e.g. ``{"trial_runs": {...}}``.

        The one place a policy reports what only it knows, so the run layer never asks
        which concrete class it ran; ``window`` is the run's observation window in
        seconds. Default: nothing.
        """
        return {}

    @abstractmethod
    def schedule(self, now: int, free: int) -> list[Job]:
        """Remove from the queue, and return in start order, the jobs to start now.

        ``free`` is the number of idle nodes; the returned jobs must fit in it together.
        """


SCHEDULERS: Registry[type[Scheduler]] = Registry("scheduler", "--scheduler", Scheduler)
#: Class decorator: make a scheduler available under its ``name``.
register = SCHEDULERS.register


def available() -> dict[str, type[Scheduler]]:
    """Registered schedulers by name (importing the package registers the built-ins)."""
    return SCHEDULERS.items()


def make_scheduler(spec: str, nodes: int) -> Scheduler:
    """Instantiate ``NAME`` or ``NAME:ARG`` (e.g. ``timed:easy:300``); unknown names are
    input errors."""
    cls, arg = SCHEDULERS.lookup(spec)
    return cls.from_arg(nodes, arg)


def check_scheduler(spec: str) -> None:
    """Raise the input error :func:`make_scheduler` would, without a run to build it for."""
    cls, arg = SCHEDULERS.lookup(spec)
    cls.check_arg(arg)
