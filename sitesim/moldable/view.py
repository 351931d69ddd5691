"""A read-only window on the site's availability list, for application schedulers.

An application scheduler (Gas, or an adaptive user) may read what the scheduler plans
-- free processors per future time frame -- but must not touch the scheduler itself.
The view is built from a site, holds only the bound query and the site's clock, and
exists only when the site's scheduler has the capability
(:class:`~sitesim.moldable.gas.ExportsAvailability`); asking for one on a site whose
policy exports no list is a usage error, whatever class the policy is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from sitesim.errors import InputError
from sitesim.moldable.gas import ExportsAvailability, Frame


class SiteLike(Protocol):
    """What the view needs of a site (:class:`sitesim.engine.site.Site`), named here so
    this package stays below the engine: its scheduler, clock and machine."""

    scheduler: Any
    env: Any
    machine: Any

    def observe(self, observer: object) -> None: ...


class AvailabilityView:
    """``frames()``: the availability list from the site's current time on."""

    __slots__ = ("_query", "_clock")

    def __init__(self, query: Callable[[int], list[Frame]], clock: Callable[[], float]) -> None:
        self._query = query
        self._clock = clock

    @classmethod
    def of(cls, site: SiteLike, purpose: str = "moldable policy gas") -> AvailabilityView:
        scheduler = site.scheduler
        if not isinstance(scheduler, ExportsAvailability):
            raise InputError(
                f"{purpose} needs the scheduler's availability list, and scheduler"
                f" {getattr(scheduler, 'name', type(scheduler).__name__)!r} exports none"
                " (use -s cons)",
                field="--scheduler",
            )
        env = site.env
        return cls(scheduler.availability, lambda: env.now)

    def frames(self) -> list[Frame]:
        return self._query(int(self._clock()))
