"""Partitions: one machine split into groups of nodes, each with its own queue and policy.

Shmueli & Feitelson's SiteSim runs several schedulers in one simulation to model "a
single machine having multiple partitions ... dedicated for executing a specific class
of jobs e.g., interactive or batch, short or long" (section 5). Here that is a
composite :class:`PartitionedScheduler`: it owns one sub-scheduler per partition and
keeps each partition's free-node count itself, so the site and the machine see one
ordinary scheduler of ``sum(nodes)`` nodes and need no change.

A partitioned machine is a registered policy like any other: ``partitioned:FILE`` runs
the ``[[partitions]]`` of a TOML file (a ``--partitions FILE``, a site file's own
partitions), and declares the machine size, their total (:meth:`declared_nodes`);
``partitioned:FILE@POLICY`` runs every partition under ``POLICY`` (a study compares
policies on the same partitions). A ``[[partitions]]`` table has ``name``, ``nodes``,
optional ``scheduler`` (default easy), ``max_size`` and ``max_estimate`` (seconds);
unknown keys and wrong types are input errors naming the file and the key.

Routing rule (docs/partitions.md): a job goes to the *first* partition, in file order,
whose thresholds admit it: ``size <= max_size`` (default: the partition's node count)
and ``estimate <= max_estimate`` (default: no limit). The router sees only what every
scheduler sees (size and estimate), never the real runtime. A job no partition admits
is not silently moved elsewhere: trace replay skips and counts it (``unroutable``), and
a site-level submission of one is an input error, since it means the configured
partitions leave a class of jobs without a home (add a catch-all last partition).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from attrs import define

import attrs

from sitesim.errors import InputError
from sitesim.metrics.stats import JobStats
from sitesim.schedulers.base import Control, Scheduler, make_scheduler, register
from sitesim.schedulers.composite import Composite
from sitesim.workload.job import Job

#: The ``scheduler`` name a partitioned configuration reports (Table 2's policy column).
PARTITIONED = "partitioned"


@define(frozen=True, slots=True)
class PartitionSpec:
    """One partition: ``nodes`` nodes under policy ``scheduler`` for the jobs it admits.

    Frozen and made of plain values so a configuration holding a tuple of these stays
    hashable and ``attrs.asdict`` turns it into JSON directly.
    """

    name: str
    nodes: int
    scheduler: str = "easy"
    #: Largest job admitted; None means the partition's node count.
    max_size: int | None = None
    #: Longest runtime estimate admitted, in seconds; None means no limit.
    max_estimate: int | None = None

    def __attrs_post_init__(self) -> None:
        where = f"partition {self.name!r}"
        if not self.name:
            raise InputError("a partition needs a non-empty name", field="name")
        if self.nodes < 1:
            raise InputError(f"{where}: nodes must be positive, got {self.nodes}", field="nodes")
        if self.max_size is not None and not 1 <= self.max_size <= self.nodes:
            raise InputError(
                f"{where}: max_size must be in 1..{self.nodes} (its nodes), got {self.max_size}",
                field="max_size",
            )
        if self.max_estimate is not None and self.max_estimate < 1:
            raise InputError(
                f"{where}: max_estimate must be positive, got {self.max_estimate}",
                field="max_estimate",
            )

    def admits(self, job: Job) -> bool:
        """Whether this partition's class of jobs includes ``job``."""
        return self.admits_shape(job.size, job.estimate)

    def admits_shape(self, size: int, estimate: int) -> bool:
        """Whether a job of ``size`` nodes and runtime estimate ``estimate`` belongs here."""
        limit = self.nodes if self.max_size is None else self.max_size
        return size <= limit and (self.max_estimate is None or estimate <= self.max_estimate)


def check_partitions(partitions: Iterable[PartitionSpec]) -> tuple[PartitionSpec, ...]:
    """Validate a partition list as a whole: non-empty, unique names, known policies."""
    specs = tuple(partitions)
    if not specs:
        raise InputError("a partitioned machine needs at least one partition", field="partitions")
    names = [p.name for p in specs]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise InputError(f"duplicate partition name(s): {', '.join(duplicates)}", field="partitions")
    for j, later in enumerate(specs):
        for earlier in specs[:j]:
            if shadows(earlier, later):
                raise InputError(
                    f"partition {later.name!r} can never receive a job: partition"
                    f" {earlier.name!r} comes first and admits every job it would"
                    " (jobs go to the first partition that admits them)",
                    field="partitions",
                )
    for i, p in enumerate(specs, 1):
        field = f"partitions[{i}].scheduler"  # the partition's own, as a file numbers them
        if p.scheduler.partition(":")[0] == PARTITIONED:
            raise InputError(f"partition {p.name!r} cannot itself be partitioned", field=field)
        # unknown policy names fail here, before a run, naming the partition that has them
        try:
            scheduler = make_scheduler(p.scheduler, p.nodes)
        except InputError as exc:
            raise InputError(f"partition {p.name!r}: {exc.message}", field=field) from None
        if not scheduler.bounded:
            raise InputError(
                f"partition {p.name!r}: {p.scheduler!r} does not share out nodes (the log's service);"
                " name a base, e.g. hold:easy",
                field=field,
            )
    return specs


def shadows(earlier: PartitionSpec, later: PartitionSpec) -> bool:
    """Whether ``earlier`` admits every job ``later`` admits (so ``later`` gets none)."""
    size = lambda p: p.nodes if p.max_size is None else p.max_size  # noqa: E731
    estimate = lambda p: float("inf") if p.max_estimate is None else p.max_estimate  # noqa: E731
    return size(earlier) >= size(later) and estimate(earlier) >= estimate(later)


def total_nodes(partitions: Iterable[PartitionSpec]) -> int:
    """The machine size of a partitioned configuration: the partitions' nodes together."""
    return sum(p.nodes for p in partitions)


#: Keys of one ``[[partitions]]`` table, their types, and whether they are required.
_PARTITION_KEYS: dict[str, tuple[type, bool]] = {
    "name": (str, True),
    "nodes": (int, True),
    "scheduler": (str, False),
    "max_size": (int, False),
    "max_estimate": (int, False),
}


def parse_partitions(raw: Any, where: str) -> tuple[PartitionSpec, ...]:
    """Validated partition specs from a parsed ``partitions`` array of tables."""
    if not isinstance(raw, list) or not all(isinstance(t, dict) for t in raw):
        raise InputError("must be an array of tables ([[partitions]])", path=where, field="partitions")
    specs = []
    for i, table in enumerate(raw, 1):
        for key, value in table.items():
            if key not in _PARTITION_KEYS:
                known = ", ".join(_PARTITION_KEYS)
                raise InputError(f"unknown key (known: {known})", path=where, field=f"partitions[{i}].{key}")
            expected = _PARTITION_KEYS[key][0]
            if isinstance(value, bool) or not isinstance(value, expected):
                raise InputError(
                    f"wrong type {type(value).__name__}", path=where, field=f"partitions[{i}].{key}"
                )
        missing = [k for k, (_t, required) in _PARTITION_KEYS.items() if required and k not in table]
        if missing:
            raise InputError(f"missing {', '.join(missing)}", path=where, field=f"partitions[{i}]")
        try:
            specs.append(PartitionSpec(**table))
        except InputError as exc:
            raise InputError(exc.message, path=where, field=f"partitions[{i}].{exc.field}") from None
    try:
        return check_partitions(specs)
    except InputError as exc:
        field = exc.field if exc.field and exc.field.startswith("partitions[") else "partitions"
        raise InputError(exc.message, path=where, field=field) from None


def load_partitions(path: str) -> tuple[PartitionSpec, ...]:
    """Only the ``[[partitions]]`` of a TOML file (other keys ignored: a site file may
    hold them beside its own settings)."""
    from sitesim.workload.tomlfile import read_toml

    data = read_toml(path, "partition file")
    if "partitions" not in data:
        raise InputError("no [[partitions]] in this file", path=str(path), field="partitions")
    return parse_partitions(data["partitions"], str(path))


def label(partitions: Iterable[PartitionSpec]) -> str:
    """Compact description, e.g. ``short:32:easy(est<=3600)+batch:96:easy``."""
    parts = []
    for p in partitions:
        limits = []
        if p.max_size is not None:
            limits.append(f"size<={p.max_size}")
        if p.max_estimate is not None:
            limits.append(f"est<={p.max_estimate}")
        suffix = f"({','.join(limits)})" if limits else ""
        parts.append(f"{p.name}:{p.nodes}:{p.scheduler}{suffix}")
    return "+".join(parts)


@register
class PartitionedScheduler(Composite):
    """Several sub-schedulers, each on its own nodes, behind the one-scheduler interface:
    a routing composite. Built from validated partition specs (Python), or by name from
    a file (``partitioned:FILE[@POLICY]``).
    """

    name = PARTITIONED
    site_table = "partitions"
    summary = ("partitioned:FILE, the [[partitions]] of a TOML file, each with its own queue, nodes and policy;"
               " partitioned:FILE@POLICY runs POLICY in every partition")

    @staticmethod
    def _specs(arg: str | None) -> tuple[PartitionSpec, ...]:
        if not arg:
            raise InputError(f"scheduler {PARTITIONED!r} needs a file: -s {PARTITIONED}:FILE", field="--scheduler")
        path, at, policy = arg.rpartition("@") if "@" in arg else (arg, "", "")
        specs = load_partitions(path)
        if at:
            if not policy:
                raise InputError(f"{PARTITIONED}:FILE@POLICY needs a policy after '@'", field="--scheduler")
            specs = check_partitions(attrs.evolve(p, scheduler=policy) for p in specs)
        return specs

    @classmethod
    def from_arg(cls, nodes: int, arg: str | None) -> Scheduler:
        specs = cls._specs(arg)
        total = total_nodes(specs)
        if nodes != total:
            raise InputError(f"machine size {nodes} differs from the partitions' total {total}", field="--nodes")
        return cls(specs, spec=f"{cls.name}:{arg}")

    @classmethod
    def check_arg(cls, arg: str | None) -> None:
        cls._specs(arg)

    @classmethod
    def declared_nodes(cls, arg: str | None) -> int | None:
        return total_nodes(cls._specs(arg))

    @classmethod
    def under(cls, arg: str | None, policy: str) -> str:
        path = (arg or "").rpartition("@")[0] if "@" in (arg or "") else arg
        return f"{cls.name}:{path}@{policy}"

    @classmethod
    def files(cls, arg: str | None) -> list[str]:
        return [(arg or "").rpartition("@")[0] if "@" in (arg or "") else (arg or "")]

    @classmethod
    def label(cls, arg: str | None) -> str:
        return cls.name

    def __init__(self, partitions: Iterable[PartitionSpec], *, spec: str | None = None) -> None:
        self.specs = check_partitions(partitions)
        super().__init__(total_nodes(self.specs), [make_scheduler(p.scheduler, p.nodes) for p in self.specs])
        self._spec = spec
        #: Idle nodes of each partition, kept here: the machine only knows the total.
        self.free: list[int] = [p.nodes for p in self.specs]
        #: Jobs routed to and ended in each partition (``submitted`` counts the routed).
        self.stats: list[JobStats] = [JobStats() for _ in self.specs]
        #: Jobs started at least once in each partition (a restart after a killed trial
        #: run is not counted again).
        self.started: list[int] = [0 for _ in self.specs]
        # Partition of each queued or running job, by arrival sequence number.
        self._where: dict[int, int] = {}

    @property
    def spec(self) -> str:
        return self._spec or self.name

    @property
    def largest_job(self) -> int:
        return max(p.nodes if p.max_size is None else p.max_size for p in self.specs)

    def route(self, job: Job) -> int | None:
        """Index of the partition ``job`` goes to, or None if none admits it."""
        return self.route_shape(job.size, job.estimate)

    def admits(self, job: Job) -> bool:
        return self.route(job) is not None

    # -- what application schedulers may read (docs/moldable.md, "Gas on partitions") --
    def route_shape(self, size: int, estimate: int) -> int | None:
        """Index of the partition a job of this shape would go to, or None: the routing
        rule without a job, so a moldable job can ask where each of its sizes would run."""
        for i, spec in enumerate(self.specs):
            if spec.admits_shape(size, estimate):
                return i
        return None

    def partitions_without_availability(self) -> list[str]:
        """The partitions (``'name' (policy)``) whose policy exports no availability list.

        A policy exports one by having ``availability(now)`` (conservative backfilling
        does); the composite passes each partition's list on unchanged.
        """
        return [
            f"{spec.name!r} ({spec.scheduler})"
            for spec, part in zip(self.specs, self.parts, strict=True)
            if not callable(getattr(part, "availability", None))
        ]

    def partition_availability(self, index: int, now: int) -> list[tuple[int, int | None, int]]:
        """Partition ``index``'s availability list from ``now`` on, in its own nodes (only
        for partitions not named by :meth:`partitions_without_availability`)."""
        export = getattr(self.parts[index], "availability", None)
        if export is None:
            raise TypeError(f"partition {self.specs[index].name!r} exports no availability list")
        frames: list[tuple[int, int | None, int]] = export(now)
        return frames

    def enqueue(self, job: Job, now: int) -> None:
        i = self.route(job)
        if i is None:
            raise InputError(
                f"job {job.id} ({job.size} nodes, estimate {job.estimate} s) fits no partition"
                f" of {label(self.specs)}; add a catch-all last partition",
                field="partitions",
            )
        self._where[job.seq] = i
        self.stats[i].submitted += 1
        self.parts[i].enqueue(job, now)

    def bind(self, control: Control) -> None:
        """Each partition's policy gets a control that keeps its idle-node count right."""
        for i, part in enumerate(self.parts):
            part.bind(_PartControl(self, i, control))

    def note(self) -> str | None:
        return f"partitions {label(self.specs)}"

    def part_of(self, job: Job) -> Scheduler | None:
        where = self._where.get(job.seq)
        return None if where is None else self.parts[where]

    def job_ended(self, job: Job, now: int) -> None:
        i = self._where.pop(job.seq)
        self.free[i] += job.size
        self.stats[i].add_end(job)
        self.parts[i].job_ended(job, now)

    def schedule(self, now: int, free: int) -> list[Job]:
        if free != sum(self.free):  # the machine and the partitions disagree: a bug
            raise RuntimeError(f"machine has {free} free nodes, partitions {self.free}")
        started: list[Job] = []
        for i, part in enumerate(self.parts):
            if not part.waiting:
                continue
            jobs = part.schedule(now, self.free[i])
            if not jobs:
                continue
            used = sum(j.size for j in jobs)
            if used > self.free[i]:
                raise RuntimeError(f"partition {self.specs[i].name!r} overcommitted: {used} > {self.free[i]}")
            self.free[i] -= used
            # first_start is set when a run is killed: a restart is not a new start.
            self.started[i] += sum(1 for j in jobs if j.first_start < 0)
            started.extend(jobs)
        return started

    def report(self, window: int) -> dict[str, Any]:
        """Per partition: counts, mean wait of ended jobs, utilisation over ``window`` s,
        and whatever the partition's own policy reports."""
        out: dict[str, dict[str, Any]] = {}
        for spec, part, s, started in zip(self.specs, self.parts, self.stats, self.started, strict=True):
            out[spec.name] = {
                "nodes": spec.nodes,
                "scheduler": spec.scheduler,
                "routed": s.submitted,
                "started": started,
                "ended": s.completed,
                "queued_at_end": part.waiting,
                "mean_wait": s.mean(s.sum_wait),
                "utilization": s.used_work / (spec.nodes * window) if window else 0.0,
                **part.report(window),
            }
        return {"partitions": out}


class _PartControl:
    """A partition's view of the site's control: a kill frees nodes of that partition."""

    __slots__ = ("_owner", "_index", "_control")

    def __init__(self, owner: PartitionedScheduler, index: int, control: Control) -> None:
        self._owner, self._index, self._control = owner, index, control

    def kill(self, job: Job) -> None:
        self._control.kill(job)
        self._owner.free[self._index] += job.size

    def timer(self, job: Job, seconds: int) -> None:
        self._control.timer(job, seconds)

    def wake(self, seconds: int) -> None:
        self._control.wake(seconds)
