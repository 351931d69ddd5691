"""Scheduling policies, registered by name (see :mod:`sitesim.schedulers.base`).

Partitioned machines (:mod:`sitesim.schedulers.partitioned`) compose registered
policies; they are built by the configuration layer, not looked up by name here.
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
    sjbf,
    timed,
)
from sitesim.schedulers.base import Scheduler, available, make_scheduler, register

__all__ = ["Scheduler", "available", "make_scheduler", "register"]
