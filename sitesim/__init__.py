"""sitesim: site-level (closed-loop) simulation of parallel-job schedulers.

The package is split by the architecture of a site:

- :mod:`sitesim.engine`      the SimPy event engine, the machine and the site that ties them;
- :mod:`sitesim.schedulers`  scheduling policies (FCFS, EASY, ...), registered by name;
- :mod:`sitesim.workload`    jobs, SWF input/output and the open-model trace replay;
- :mod:`sitesim.users`       users: submittal and workpool models (site-level runs);
- :mod:`sitesim.analysis`    trace analysis that measures the empirical models;
- :mod:`sitesim.metrics`     per-job and per-run statistics and reports;
- :mod:`sitesim.cli`         the ``sitesim`` command.

Importing the package has no side effects and pulls in no heavy dependency.
"""

__version__ = "0.1.0"
