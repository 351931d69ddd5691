"""Per-job metrics and streaming per-run / per-user accumulators.

Definitions (docs/metrics.md has the full text):

- wait = start - submit; response = end - submit; ran = end - start (the runtime, or
  the estimate for a job killed at it);
- slowdown = response / max(ran, 1);
- bounded slowdown = response / max(ran, 10), Mu'alem & Feitelson's formula with a
  10 s threshold;
- the observation window starts at the first submission (time origin) and ends at the
  last completion (replay) or at the end of the simulated period (site-level runs);
- utilisation = node-seconds used inside the window / (nodes x window);
- offered load = node-seconds requested (size x runtime of every submitted job) /
  (nodes x submission span); accepted load = node-seconds used during the submission
  span / (nodes x submission span) -- lower than offered when the site cannot keep up;
- load (Table 2's column) = offered work over the window for users, and for the system
  of a site-level run, so the users' loads add up to the system's (the paper's Table 2
  does the same); the offered load for the system of a replay, whose window ends with
  the trace's last completion (:attr:`RunMetrics.load_over_window`);
- throughput = completed jobs per 24 h of window;
- waits by class (all, short, failed short), and runs killed by a preempting scheduler
  with their lost work: sitesim/metrics/waits.py. A killed run's nodes stop counting as
  busy when it is killed, so utilisation is the node-seconds really occupied (the lost
  ones included; ``useful_utilization`` leaves them out).

Everything is accumulated as jobs end, so memory does not grow with the trace.
"""

from __future__ import annotations

from attrs import define, field

from sitesim.metrics.waits import SHORT_THRESHOLD, WaitStats
from sitesim.workload.job import Job

DAY = 86_400
BSLD_THRESHOLD = 10


def slowdown(job: Job) -> float:
    return (job.end - job.submit) / max(job.end - job.start, 1)


def bounded_slowdown(job: Job, threshold: int = BSLD_THRESHOLD) -> float:
    return (job.end - job.submit) / max(job.end - job.start, threshold)


@define(slots=True)
class JobStats:
    """Sums over ended jobs, and the work each party offered and used."""

    submitted: int = 0
    completed: int = 0
    killed: int = 0
    #: Ended by failing (``job.failed``) before their estimate; killed jobs not included.
    failed: int = 0
    sum_wait: float = 0.0
    sum_response: float = 0.0
    sum_slowdown: float = 0.0
    sum_bsld: float = 0.0
    offered_work: float = 0.0
    used_work: float = 0.0
    last_end: int = -1

    def add_end(self, job: Job, also: JobStats | None = None) -> None:
        """Count ``job``'s end here and, if given, in ``also`` (the run adds each job to
        the system's and its user's sums: the terms are computed once for both)."""
        end = job.end
        ran = end - job.start
        response = end - job.submit
        killed = job.killed
        failed = job.failed and not killed
        wait = job.start - job.submit
        slowdown = response / (ran if ran > 1 else 1)
        bsld = response / (ran if ran > BSLD_THRESHOLD else BSLD_THRESHOLD)
        work = job.size * ran
        for stats in (self,) if also is None else (self, also):
            stats.completed += 1
            if killed or failed:  # rare: most jobs add nothing here
                stats.killed += killed
                stats.failed += failed
            stats.sum_wait += wait
            stats.sum_response += response
            stats.sum_slowdown += slowdown
            stats.sum_bsld += bsld
            stats.used_work += work
            if end > stats.last_end:
                stats.last_end = end

    def mean(self, total: float) -> float:
        return total / self.completed if self.completed else 0.0

    def summary(self, nodes: int, t0: int, window: int) -> dict[str, float | int]:
        """Means and loads of this group over a window of ``window`` seconds from ``t0``."""
        capacity = nodes * window if window > 0 else 0
        return {
            "submitted": self.submitted,
            "completed": self.completed,
            "killed": self.killed,
            "failed": self.failed,
            "mean_wait": self.mean(self.sum_wait),
            "mean_response": self.mean(self.sum_response),
            "mean_slowdown": self.mean(self.sum_slowdown),
            "mean_bounded_slowdown": self.mean(self.sum_bsld),
            "load": self.offered_work / capacity if capacity else 0.0,
            "utilization": self.used_work / capacity if capacity else 0.0,
            "complete": self.last_end - t0 if self.last_end >= 0 else 0,
        }


@define(slots=True)
class RunMetrics:
    """Site observer accumulating system-wide and per-user statistics.

    Utilisation uses the integral of busy nodes over time, so work of jobs still running
    when a run is cut off is counted up to the cut (see :meth:`close`).
    """

    nodes: int
    system: JobStats = field(factory=JobStats)
    users: dict[int, JobStats] = field(factory=dict)
    t0: int = -1
    last_submit: int = -1
    busy: int = 0
    _busy_since: int = 0
    busy_integral: float = 0.0
    integral_at_last_submit: float = 0.0
    end: int = -1
    #: Waits by job class and killed runs; ``WaitStats(short=...)`` sets the threshold.
    waits: WaitStats = field(factory=WaitStats)
    #: The system's ``load``: offered work over the window (site-level runs, as each
    #: user's), rather than the offered load over the submission span (replays).
    load_over_window: bool = False

    @classmethod
    def with_threshold(cls, nodes: int, short: int | None, *, load_over_window: bool = False) -> RunMetrics:
        """Metrics whose short jobs last at most ``short`` seconds (None: the default
        90 s of sitesim/metrics/waits.py)."""
        waits = WaitStats(short=short if short is not None else SHORT_THRESHOLD)
        return cls(nodes, waits=waits, load_over_window=load_over_window)

    def _advance(self, now: int) -> None:
        self.busy_integral += self.busy * (now - self._busy_since)
        self._busy_since = now

    def _user(self, user: int) -> JobStats:
        stats = self.users.get(user)
        if stats is None:
            stats = self.users[user] = JobStats()
        return stats

    # The three hooks run once per job each: _advance and _user are written out in them.
    def on_submit(self, job: Job) -> None:
        now = job.submit
        if self.t0 < 0:
            self.t0 = now
            self._busy_since = now
        self.busy_integral += self.busy * (now - self._busy_since)
        self._busy_since = now
        self.last_submit = now
        self.integral_at_last_submit = self.busy_integral
        work = job.size * job.runtime
        system = self.system
        system.submitted += 1
        system.offered_work += work
        user = self.users.get(job.user)
        if user is None:
            user = self._user(job.user)
        user.submitted += 1
        user.offered_work += work

    def on_start(self, job: Job) -> None:
        now = job.start
        self.busy_integral += self.busy * (now - self._busy_since)
        self._busy_since = now
        self.busy += job.size

    def on_end(self, job: Job) -> None:
        now = job.end
        self.busy_integral += self.busy * (now - self._busy_since)
        self._busy_since = now
        self.busy -= job.size
        user = self.users.get(job.user)
        if user is None:
            user = self._user(job.user)
        self.system.add_end(job, user)
        self.waits.add(job)

    def on_kill(self, job: Job) -> None:
        """A preempting scheduler killed a run (``start``..``end``); it will be restarted."""
        self._advance(job.end)
        self.busy -= job.size
        self.waits.kill(job)

    def close(self, end: int | None = None) -> None:
        """End the observation window at ``end`` (default: the last completion)."""
        if end is None:
            end = max(self.system.last_end, self.last_submit)
        self._advance(end)
        self.end = end

    @property
    def window(self) -> int:
        return max(self.end - self.t0, 0) if self.t0 >= 0 else 0

    def system_summary(self) -> dict[str, float | int]:
        window = self.window
        out = self.system.summary(self.nodes, self.t0, window)  # "load" over the window
        span = self.last_submit - self.t0
        capacity = self.nodes * window
        out["utilization"] = self.busy_integral / capacity if capacity else 0.0
        out["offered_load"] = self.system.offered_work / (self.nodes * span) if span > 0 else 0.0
        out["accepted_load"] = (
            self.integral_at_last_submit / (self.nodes * span) if span > 0 else 0.0
        )
        if not self.load_over_window:
            out["load"] = out["offered_load"]
        out["throughput_per_day"] = self.system.completed * DAY / window if window else 0.0
        out["makespan"] = window
        out["time_origin"] = self.t0
        out.update(self.waits.summary())
        out["useful_utilization"] = (
            (self.busy_integral - self.waits.wasted_work) / capacity if capacity else 0.0
        )
        return out

    def user_summaries(self) -> dict[int, dict[str, float | int]]:
        window = self.window
        return {
            user: stats.summary(self.nodes, self.t0, window)
            for user, stats in sorted(self.users.items())
        }
