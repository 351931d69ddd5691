"""The job record shared by every part of the simulator.

Times are whole seconds (``int``): SWF stores whole seconds, and keeping the simulated
clock integral is what makes "replay a site-level run's own trace and get the same
schedule" exact.
"""

from __future__ import annotations

from typing import Any

from attrs import define, field


@define(slots=True, eq=False)
class Job:
    """A rigid parallel job: ``size`` nodes for ``runtime`` seconds.

    The scheduler sees ``size`` and ``estimate`` (the user's runtime estimate); only the
    site knows ``runtime``. A job still running when its estimate expires is killed at
    that point, as production batch systems do (``killed`` is then set).
    """

    id: int
    submit: int
    size: int
    runtime: int
    estimate: int
    user: int = -1
    #: SWF field 17: the job whose completion this one waited for (-1: none/unknown).
    preceding: int = -1
    #: SWF field 18: submit time minus that completion (-1: none/unknown).
    think: int = -1
    #: SWF field 14: repeated runs of one workpool job share an executable number.
    executable: int = -1
    #: The trace record this job was replayed from (None for generated jobs).
    source: Any = None
    start: int = -1
    end: int = -1
    killed: bool = False
    #: The run fails: it ends after ``runtime`` seconds (the time to failure) with an
    #: error instead of completing (docs/failures.md). Killed takes precedence: a job
    #: whose estimate expires first is killed, not failed.
    failed: bool = False
    #: Position in arrival order, assigned by the site on submission.
    seq: int = field(default=-1)
    #: Runs of this job killed by its scheduler (a trial run that was replaced) and
    #: restarted from scratch later; ``start``/``end`` always describe the final run.
    restarts: int = 0
    #: Seconds run in those killed runs: work lost, ``size * lost`` node-seconds.
    lost: int = 0
    #: Start of the first run, set only when a run is killed (else it is ``start``).
    first_start: int = -1
    #: The site's token for the current run (its pending completion event); None when
    #: not running. A completion whose token is stale belongs to a killed run.
    run_token: Any = field(default=None, repr=False)
    #: The wait this job had in the log it reproduces (a fitted user's resampled job's
    #: wait in its log; a replayed record's SWF field 3, or what the trace's
    #: ``.recorded-waits`` file beside it says), -1 if none: what ``hold``
    #: serves it (sitesim/schedulers/hold.py), and where a fitted service with
    #: recorded levels ranks it (sitesim/schedulers/service.py); no base policy reads it.
    recorded_wait: int = -1

    @property
    def wait(self) -> int:
        return self.start - self.submit

    @property
    def response(self) -> int:
        return self.end - self.submit

    @property
    def ran(self) -> int:
        """Seconds actually run: the runtime, or the estimate if the job was killed."""
        return self.end - self.start
