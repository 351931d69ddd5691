"""Waits the way Thebe, Bunde & Leung (2009) report them, and the work lost to kills.

The trial-run paper's claim is about *who* waits: short jobs, and above all short
jobs that fail, should learn their fate soon after submission, without long jobs
paying much. So besides the mean wait of all jobs it reports average and maximum
waits of all jobs, of short jobs and of failed short jobs. These are kept for every
scheduler, so a timed-run scheduler can be set beside its base.

Definitions (docs/trial-runs.md, docs/metrics.md):

- wait = start of the job's *final* run - submit (``job.start`` after the run): the
  run whose result the user gets, and the one ``response`` and slowdown refer to. A job
  restarted after a killed trial thus waits until its committed run starts;
  ``mean_first_wait`` is the time to the first start of any run instead;
- a job is *short* if its final run lasts at most ``short`` seconds (``ran`` = its
  runtime, time to failure, or estimate if killed at it); with ``short`` = the trial
  length this is the paper's "completes or fails during its trial run" under a
  timed-run scheduler, and it depends only on the job, so it means the same under any
  scheduler;
- *failed short*: short and failed (``job.failed``, e.g. trace status 0 with
  ``--failures trace``), not killed at its estimate.
"""

from __future__ import annotations

from attrs import define

from sitesim.workload.job import Job

#: Default short-job threshold: the trial-run paper's default trial length.
SHORT_THRESHOLD = 90


@define(slots=True)
class WaitStats:
    """Sums and maxima of waits by job class, plus killed runs and their lost work."""

    short: int = SHORT_THRESHOLD
    jobs: int = 0
    max_wait: int = 0
    sum_first_wait: float = 0.0
    short_jobs: int = 0
    sum_short: float = 0.0
    max_short: int = 0
    failed_short: int = 0
    sum_failed_short: float = 0.0
    max_failed_short: int = 0
    #: Jobs whose final run is a restart; runs killed; size x seconds of those runs.
    restarted: int = 0
    killed_runs: int = 0
    wasted_work: float = 0.0

    def add(self, job: Job) -> None:
        """A job ended (``start``/``end`` are its final run)."""
        wait = job.start - job.submit
        self.jobs += 1
        if wait > self.max_wait:
            self.max_wait = wait
        if job.restarts:
            self.restarted += 1
            self.sum_first_wait += job.first_start - job.submit
        else:
            self.sum_first_wait += wait
        if job.end - job.start <= self.short:
            self.short_jobs += 1
            self.sum_short += wait
            if wait > self.max_short:
                self.max_short = wait
            if job.failed and not job.killed:
                self.failed_short += 1
                self.sum_failed_short += wait
                if wait > self.max_failed_short:
                    self.max_failed_short = wait

    def kill(self, job: Job) -> None:
        """A run was killed (``start``/``end`` delimit it): its work is lost."""
        self.killed_runs += 1
        self.wasted_work += job.size * (job.end - job.start)

    def summary(self) -> dict[str, float | int]:
        def mean(total: float, n: int) -> float:
            return total / n if n else 0.0

        return {
            "max_wait": self.max_wait,
            "mean_first_wait": mean(self.sum_first_wait, self.jobs),
            "short_threshold": self.short,
            "short_jobs": self.short_jobs,
            "mean_wait_short": mean(self.sum_short, self.short_jobs),
            "max_wait_short": self.max_short,
            "failed_short_jobs": self.failed_short,
            "mean_wait_failed_short": mean(self.sum_failed_short, self.failed_short),
            "max_wait_failed_short": self.max_failed_short,
            "restarted": self.restarted,
            "killed_runs": self.killed_runs,
            "wasted_work": self.wasted_work,
        }
