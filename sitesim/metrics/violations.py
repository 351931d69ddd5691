"""Dependency violations in a conventional replay (Shmueli & Feitelson 2006, sec. 6.2).

A trace written by a site-level run records, for each job, the job whose completion
its user waited for (SWF field 17) and the think time after it (field 18). Replaying
such a trace in the open model, especially with a scaled load, can break those
dependencies; counting how often is what Figure 14 of the paper shows:

- *submission-dependency violation*: a job is submitted while the job it depends on
  has not completed yet (still queued or running). At equal times the site processes
  completions before submissions, so a zero think time is not a violation;
- *execution-ordering violation*: the scheduler starts a job while the job it depends
  on is still waiting in the queue. Both starting in the same scheduling pass is not a
  violation: the dependency did not stay in the queue. Every execution-ordering
  violation is also a submission-dependency violation (the dependency had not even
  started when the dependent was submitted).

Jobs that cannot be judged are counted apart, never as violations:

- ``no_dependency``: field 17 is -1 (or 0, which no archive log uses as a job id);
- ``unresolved``: field 17 names a job that was not replayed before this one was
  submitted -- it is absent from the trace, was skipped by the replay (unknown size
  or runtime, larger than the machine), or (against the SWF order) appears later.

Memory: only jobs in flight are kept (id -> started?), plus the set of ended ids, a
few tens of bytes per job, so a 250k-job trace costs a few MB at most.
"""

from __future__ import annotations

from typing import Any

from attrs import define, field

from sitesim.workload.job import Job


@define(slots=True)
class ViolationCounter:
    """Site observer counting dependency violations; see the module docstring."""

    jobs: int = 0
    with_dependency: int = 0
    no_dependency: int = 0
    unresolved: int = 0
    submission: int = 0
    execution: int = 0
    #: In-flight jobs: id -> start time (-1 while queued).
    _in_flight: dict[int, int] = field(factory=dict, repr=False)
    _ended: set[int] = field(factory=set, repr=False)
    #: Queued dependency id -> start times of dependents that started before it.
    _early_starts: dict[int, list[int]] = field(factory=dict, repr=False)

    def on_submit(self, job: Job) -> None:
        self.jobs += 1
        dep = job.preceding
        if dep <= 0:
            self.no_dependency += 1
        elif dep in self._ended:
            self.with_dependency += 1
        elif dep in self._in_flight and dep != job.id:
            self.with_dependency += 1
            self.submission += 1
        else:
            self.unresolved += 1
        self._in_flight[job.id] = -1

    def on_start(self, job: Job) -> None:
        self._in_flight[job.id] = job.start
        early = self._early_starts.pop(job.id, None) if self._early_starts else None
        if early is not None:
            # Dependents started in an earlier pass broke the order; same pass did not.
            self.execution += sum(1 for t in early if t < job.start)
        dep = job.preceding
        if dep > 0 and dep != job.id and self._in_flight.get(dep) == -1:
            self._early_starts.setdefault(dep, []).append(job.start)

    def on_end(self, job: Job) -> None:
        self._in_flight.pop(job.id, None)
        self._ended.add(job.id)

    def close(self) -> None:
        """Count dependents whose dependency never started (a run cut off early)."""
        for early in self._early_starts.values():
            self.execution += len(early)
        self._early_starts.clear()

    def summary(self) -> dict[str, Any]:
        """Counts, and fractions of all replayed jobs (the paper's Figure 14 y-axis)."""
        jobs = self.jobs
        return {
            "jobs": jobs,
            "with_dependency": self.with_dependency,
            "no_dependency": self.no_dependency,
            "unresolved": self.unresolved,
            "submission": self.submission,
            "execution": self.execution,
            "submission_fraction": self.submission / jobs if jobs else 0.0,
            "execution_fraction": self.execution / jobs if jobs else 0.0,
        }
