"""Scheduling policies, registered by name (see :mod:`sitesim.schedulers.base`).

Composites are registered policies too: ``hold:BASE`` (the log's service) and
``partitioned:FILE`` (:mod:`sitesim.schedulers.partitioned`), which runs registered
policies on partitions of the machine and declares its size, and ``service:FILE``
(:mod:`sitesim.schedulers.service`), a fitted service.
"""

from sitesim.schedulers import (  # noqa: F401  (registers the built-in policies)
    conservative,
    conssjbf,
    creasy,
    easy,
    easypp,
    fcfs,
    hold,
    los,
    multifactor,
    partitioned,
    service,
    sjbf,
    timed,
)
from sitesim.schedulers.base import Scheduler, available, make_scheduler, register

__all__ = ["Scheduler", "available", "make_scheduler", "register"]
