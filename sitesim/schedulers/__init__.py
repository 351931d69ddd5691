"""Scheduling policies, registered by name (see :mod:`sitesim.schedulers.base`)."""

from sitesim.schedulers import conservative, easy, fcfs, partitioned, timed  # noqa: F401  (registers the built-in policies)
from sitesim.schedulers.base import Scheduler, available, make_scheduler, register

__all__ = ["Scheduler", "available", "make_scheduler", "register"]
