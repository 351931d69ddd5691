"""sitesim: site-level (closed-loop) simulation of parallel-job schedulers.

The package is split by the architecture of a site:

- :mod:`sitesim.engine`      the SimPy event engine, the machine and the site that ties them;
- :mod:`sitesim.schedulers`  scheduling policies (FCFS, EASY, ...), registered by name;
- :mod:`sitesim.workload`    jobs, SWF input/output and the open-model trace replay;
- :mod:`sitesim.users`       users: submittal and workpool models (site-level runs);
- :mod:`sitesim.analysis`    trace analysis that measures the empirical models;
- :mod:`sitesim.metrics`     per-job and per-run statistics and reports;
- :mod:`sitesim.cli`         the ``sitesim`` command;
- :mod:`sitesim.api`         the Python API: ``simulate``, ``replay``, ``Result`` (docs/api.md).

Importing the package has no side effects and pulls in no heavy dependency: the API
is loaded on first use of one of its names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sitesim.errors import InputError
from sitesim.version import __version__

if TYPE_CHECKING:
    from sitesim.api import Result, replay, simulate

__all__ = ["InputError", "Result", "__version__", "replay", "simulate"]


def __getattr__(name: str) -> Any:
    if name in ("Result", "replay", "simulate"):
        from sitesim import api

        return getattr(api, name)
    raise AttributeError(f"module 'sitesim' has no attribute {name!r}")
