"""A read-only window on the site for application schedulers: routing and availability.

An application scheduler (Gas, or an adaptive user) may read what the scheduler plans
-- free processors per future time frame -- but must not touch the scheduler itself.
The view is built from a site and holds only bound queries and the site's clock:

- on a single machine whose policy exports its availability list
  (:class:`~sitesim.moldable.gas.ExportsAvailability`, i.e. ``cons``), Gas reads that
  one list for every size;
- on a partitioned machine (:class:`~sitesim.moldable.gas.ExportsPartitionAvailability`)
  each accepted size of a moldable job is routed as a rigid job of that shape would be
  (size, and its runtime there as the estimate: docs/partitions.md), and Gas reads, for
  the sizes routed to a partition, that partition's list. Sizes no partition admits are
  dropped for every policy, so a moldable job is never submitted where it cannot run.

Asking for the lists where some policy exports none is a usage error, whatever class
the policy is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from sitesim.errors import InputError
from sitesim.moldable.gas import Candidates, ExportsAvailability, ExportsPartitionAvailability, Frame
from sitesim.moldable.speedup import RuntimeFunction


class SiteLike(Protocol):
    """What the view needs of a site (:class:`sitesim.engine.site.Site`), named here so
    this package stays below the engine: its scheduler, clock and machine."""

    scheduler: Any
    env: Any
    machine: Any

    def observe(self, observer: object) -> None: ...


class AvailabilityView:
    """Where each size of a moldable job would run, and the availability lists there."""

    __slots__ = ("_route", "_list", "_clock")

    def __init__(
        self,
        route: Callable[[int, int], int | None] | None,
        query: Callable[[int, int], list[Frame]] | None,
        clock: Callable[[], float],
    ) -> None:
        #: Partition of a (size, estimate) shape; None on a single machine.
        self._route = route
        #: Availability list of partition ``index`` at ``now``; None when not read.
        self._list = query
        self._clock = clock

    @classmethod
    def of(cls, site: SiteLike, purpose: str = "moldable policy gas", *, lists: bool = True) -> AvailabilityView:
        """The view of ``site``; with ``lists``, one that can read availability lists
        (a usage error, naming ``purpose``, where the policy exports none)."""
        scheduler = site.scheduler
        env = site.env
        clock = lambda: env.now  # noqa: E731
        if isinstance(scheduler, ExportsPartitionAvailability):
            missing = scheduler.partitions_without_availability() if lists else []
            if missing:
                raise InputError(
                    f"{purpose} needs the availability list of every partition, and partition"
                    f" {missing[0]} exports none (run cons in every partition)",
                    field="--scheduler",
                )
            return cls(scheduler.route_shape, scheduler.partition_availability if lists else None, clock)
        if not lists:
            return cls(None, None, clock)
        if not isinstance(scheduler, ExportsAvailability):
            raise InputError(
                f"{purpose} needs the scheduler's availability list, and scheduler"
                f" {getattr(scheduler, 'name', type(scheduler).__name__)!r} exports none"
                " (use -s cons)",
                field="--scheduler",
            )
        export = scheduler.availability
        return cls(None, lambda _index, now: export(now), clock)

    def routable(self, function: RuntimeFunction) -> RuntimeFunction | None:
        """``function`` without the sizes no partition admits (None if that is all of them);
        on a single machine, ``function`` itself."""
        route = self._route
        if route is None:
            return function
        keep = [k for k, n in enumerate(function.sizes) if route(n, function.runtimes[k]) is not None]
        return function.subset(keep) if keep else None

    def candidates(self, function: RuntimeFunction) -> Candidates:
        """For Gas: each availability list to read, with the sizes routed to it."""
        if self._list is None:
            raise TypeError("this view reads no availability list")
        now = int(self._clock())
        route = self._route
        if route is None:
            return [(self._list(0, now), function)]
        groups: dict[int, list[int]] = {}
        for k, n in enumerate(function.sizes):
            where = route(n, function.runtimes[k])
            if where is not None:
                groups.setdefault(where, []).append(k)
        return [(self._list(i, now), function.subset(keep)) for i, keep in sorted(groups.items())]
