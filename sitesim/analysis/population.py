"""A trace's user population: who is active when, sessions, and why sessions end.

Builds on the definitions of :mod:`sitesim.analysis.sessions` (think time against the
latest completion so far, batches, the 20-minute session threshold) and measures, per
real user and over the whole trace:

- *activity*: first and last submission (the active span), jobs, sessions, batches;
- *sessions*: start (first submission), end (latest completion of its jobs), batches
  and jobs; the *session gap* from one session's end to the next session's start;
- *continuation*: for every batch, the response time and bounded slowdown of the job
  the user waited for (the batch's last-ending job, as field 17 names it), and whether
  the user's next batch came within the session (continued) or not (the session ended:
  the user went home, or left the site);
- *weekly slices* (7-day slices from time 0): jobs, distinct users, mean node-seconds
  per job -- the paper's Figure 1 -- and the weekly job counts' variation;
- *cycles*: submissions and session starts per local hour (:mod:`~sitesim.workload.calendar`).

Every number here is a plain function of the jobs, so hand-made traces in the tests
have known answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from attrs import define, field
from numpy.typing import NDArray

from sitesim.workload.calendar import WEEK, Clock, CycleSignature, cycle_signature
from sitesim.analysis.cleaning import TraceJob
from sitesim.analysis.sessions import SESSION_THRESHOLD, job_roles, user_sequences
from sitesim.analysis.workpool import repetition_runs

#: Slowdown bound (s): runtimes below it count as this long (docs/metrics.md).
SLOWDOWN_BOUND = 10.0


@define(slots=True)
class UserActivity:
    """Everything measured about one real user (times in trace seconds)."""

    user: int
    first: float
    last: float
    jobs: int = 0
    widths: list[int] = field(factory=list)
    #: Submit-to-submit gaps inside batches, and the (earlier, later) submit pairs.
    gaps: list[float] = field(factory=list)
    gap_pairs: list[tuple[float, float]] = field(factory=list)
    #: Think times that start a batch within a session, in [0, threshold].
    thinks: list[float] = field(factory=list)
    #: (end of a session, start of the user's next session) pairs.
    session_breaks: list[tuple[float, float]] = field(factory=list)
    #: Batches per session.
    session_batches: list[int] = field(factory=list)
    #: When each batch began (its first submission), in batch order.
    batch_starts: list[float] = field(factory=list)
    #: Distinct jobs: (size, runtime, repetitions) of each repetition run.
    runs: list[tuple[int, float, int]] = field(factory=list)
    #: Every job's (size, runtime), in submission order (batch after batch).
    jobs_in_order: list[tuple[int, float]] = field(factory=list)
    #: Every job's wait in the log, in the same order.
    waits_in_order: list[float] = field(factory=list)
    #: Batches followed by another batch of the same session.
    continued: int = 0

    @property
    def span(self) -> float:
        return self.last - self.first

    @property
    def batches(self) -> int:
        return len(self.widths)

    @property
    def sessions(self) -> int:
        return len(self.session_batches)


@define(slots=True)
class PopulationAnalysis:
    """The population of one trace."""

    clock: Clock
    #: Time of the last submission (the trace's duration from 0).
    duration: float
    users: list[UserActivity]
    #: Per batch: response (s) and bounded slowdown of the waited job, continued or not.
    batch_response: NDArray[np.float64]
    batch_slowdown: NDArray[np.float64]
    batch_continued: NDArray[np.bool_]
    #: Per batch: when the waited job ended (the moment the user decides).
    batch_end: NDArray[np.float64]
    #: Per session: start, end, batches, jobs.
    session_start: NDArray[np.float64]
    session_end: NDArray[np.float64]
    session_batches: NDArray[np.int64]
    session_jobs: NDArray[np.int64]
    submissions: CycleSignature
    session_starts: CycleSignature
    #: Submissions of the jobs of sessions with at least two jobs (the jobs submitted
    #: inside a session, as chains of batches; docs/validation.md).
    in_session: CycleSignature
    #: Per full 7-day slice: jobs, distinct users, mean node-seconds per job.
    weekly_jobs: NDArray[np.int64]
    weekly_users: NDArray[np.int64]
    weekly_node_seconds: NDArray[np.float64]

    @property
    def session_gaps(self) -> NDArray[np.float64]:
        return np.asarray([b - a for u in self.users for a, b in u.session_breaks], dtype=float)

    @property
    def spans(self) -> NDArray[np.float64]:
        return np.asarray([u.span for u in self.users], dtype=float)

    def arrivals(self) -> NDArray[np.float64]:
        """First submission of every user, sorted."""
        return np.sort(np.asarray([u.first for u in self.users], dtype=float))

    def arrival_rate(self, skip: float = 4 * WEEK) -> float:
        """New users per week after the first ``skip`` seconds (when every user is new)."""
        window = self.duration - skip
        if window <= 0:
            return float("nan")
        return float(np.sum(self.arrivals() >= skip) / (window / WEEK))

    def continuation_rate(self) -> float:
        c = self.batch_continued
        return float(c.mean()) if c.size else float("nan")

    def signatures(self) -> dict[str, float]:
        """The comparison signatures of docs/validation.md (Figure 1: weeks with jobs)."""
        busy = self.weekly_jobs > 0
        return {
            "jobs": float(self.session_jobs.sum()),
            "users": float(len(self.users)),
            "daytime_share": self.submissions.daytime_share,
            "weekend_share": self.submissions.weekend_share,
            "peak_ratio": self.submissions.peak_ratio,
            "users_per_week": _mean(self.weekly_users),
            "weekly_jobs_cv": weekly_cv(self.weekly_jobs),
            "figure1_correlation": spearman(self.weekly_jobs[busy], self.weekly_node_seconds[busy]),
            "batches_per_session": _mean(self.session_batches),
            "jobs_per_session": _mean(self.session_jobs),
            "session_hours": _mean(self.session_end - self.session_start) / 3600,
            "continuation": self.continuation_rate(),
            "night_share_in_session": 1 - self.in_session.daytime_share if self.in_session.events else float("nan"),
            "night_share_of_session_starts": 1 - self.session_starts.daytime_share,
        }


def _mean(a: NDArray[Any]) -> float:
    return float(np.mean(a)) if a.size else float("nan")


def weekly_cv(jobs: NDArray[np.int64]) -> float:
    """Coefficient of variation of the weekly job counts."""
    if jobs.size < 2 or jobs.mean() == 0:
        return float("nan")
    return float(jobs.std(ddof=1) / jobs.mean())


def spearman(x: NDArray[np.generic], y: NDArray[np.generic]) -> float:
    """Spearman rank correlation (average ranks for ties); NaN under 3 points."""
    if len(x) < 3:
        return float("nan")

    def ranks(a: NDArray[np.generic]) -> NDArray[np.float64]:
        a = np.asarray(a, dtype=float)
        order = np.argsort(a, kind="stable")
        r = np.empty(a.size)
        r[order] = np.arange(a.size, dtype=float)
        _, inverse, counts = np.unique(a, return_inverse=True, return_counts=True)
        sums = np.bincount(inverse, weights=r)
        return sums[inverse] / counts[inverse]

    rx, ry = ranks(x), ranks(y)
    if rx.std() == 0 or ry.std() == 0:
        return float("nan")
    return float(np.corrcoef(rx, ry)[0, 1])


def _user_activity(seq: Sequence[TraceJob], threshold: float, acc: dict[str, list[float]]) -> UserActivity:
    """Measure one user; append per-batch and per-session observations to ``acc``."""
    user = UserActivity(seq[0].user, first=seq[0].submit, last=seq[-1].submit, jobs=len(seq))
    batch_end = float("-inf")
    waited: TraceJob | None = None
    session_end = float("-inf")
    prev_submit = 0.0
    # once per job of the log: the accumulators and TraceJob.end looked up once
    s_jobs, s_end, j_submit, j_session = acc["s_jobs"], acc["s_end"], acc["j_submit"], acc["j_session"]
    widths, session_batches = user.widths, user.session_batches
    for job, role in zip(seq, job_roles(seq, threshold), strict=True):
        submit = job.submit
        if role.new_batch:
            if waited is not None:  # close the previous batch
                _close_batch(waited, not role.new_session, acc)
                user.continued += not role.new_session
            if role.new_session:
                if session_batches:
                    user.session_breaks.append((session_end, submit))
                    s_end.append(session_end)
                acc["s_start"].append(submit)
                s_jobs.append(0)
                session_batches.append(0)
            elif role.think is not None:
                user.thinks.append(role.think)
            session_batches[-1] += 1
            widths.append(0)
            user.batch_starts.append(submit)
            waited, batch_end = None, float("-inf")
        else:
            user.gaps.append(submit - prev_submit)
            user.gap_pairs.append((prev_submit, submit))
        widths[-1] += 1
        s_jobs[-1] += 1
        j_submit.append(submit)
        j_session.append(len(s_jobs) - 1)
        end = submit + job.wait + job.run
        if end >= batch_end:
            waited, batch_end = job, end
        if end > session_end:
            session_end = end
        prev_submit = submit
    assert waited is not None
    _close_batch(waited, False, acc)
    acc["s_end"].append(session_end)
    user.runs = [(run[0].size, run[0].run, len(run)) for run in repetition_runs(seq)]
    user.jobs_in_order = [(j.size, j.run) for j in seq]
    user.waits_in_order = [j.wait for j in seq]
    return user


def _close_batch(waited: TraceJob, continued: bool, acc: dict[str, list[float]]) -> None:
    response = waited.end - waited.submit
    acc["response"].append(response)
    acc["slowdown"].append(max(1.0, response / max(waited.run, SLOWDOWN_BOUND)))
    acc["continued"].append(continued)
    acc["b_end"].append(waited.end)


def analyze_population(
    jobs: Sequence[TraceJob], clock: Clock, threshold: float = SESSION_THRESHOLD
) -> PopulationAnalysis:
    """Measure the population of a cleaned trace whose time 0 is ``clock``."""
    acc: dict[str, list[float]] = {
        k: [] for k in ("response", "slowdown", "continued", "b_end", "s_start", "s_end", "s_jobs", "j_submit", "j_session")
    }
    users = [_user_activity(seq, threshold, acc) for seq in user_sequences(jobs).values()]
    submits = np.asarray([j.submit for j in jobs], dtype=float)
    duration = float(submits.max()) if submits.size else 0.0
    weeks = max(1, int(duration // WEEK))
    # Full 7-day slices only (a trace shorter than a week counts as one slice).
    slice_of = (submits // WEEK).astype(np.int64)
    node_seconds = np.asarray([j.size * j.run for j in jobs], dtype=float)
    weekly_jobs = np.bincount(slice_of, minlength=weeks)[:weeks]
    weekly_ns = np.bincount(slice_of, weights=node_seconds, minlength=weeks)[:weeks]
    pairs = {(w, j.user) for w, j in zip(slice_of.tolist(), jobs, strict=True) if w < weeks}
    weekly_users = np.bincount(np.asarray([w for w, _ in pairs], dtype=np.int64), minlength=weeks)[:weeks]
    busy = weekly_jobs > 0
    s_start = np.asarray(acc["s_start"], dtype=float)
    s_jobs = np.asarray(acc["s_jobs"], dtype=np.int64)
    j_session = np.asarray(acc["j_session"], dtype=np.int64)
    chained = s_jobs[j_session] >= 2 if j_session.size else np.zeros(0, dtype=bool)
    return PopulationAnalysis(
        clock=clock,
        duration=duration,
        users=users,
        batch_response=np.asarray(acc["response"], dtype=float),
        batch_slowdown=np.asarray(acc["slowdown"], dtype=float),
        batch_continued=np.asarray(acc["continued"], dtype=bool),
        batch_end=np.asarray(acc["b_end"], dtype=float),
        session_start=s_start,
        session_end=np.asarray(acc["s_end"], dtype=float),
        session_batches=np.asarray([b for u in users for b in u.session_batches], dtype=np.int64),
        session_jobs=s_jobs,
        submissions=cycle_signature(submits, clock),
        session_starts=cycle_signature(s_start, clock),
        in_session=cycle_signature(np.asarray(acc["j_submit"], dtype=float)[chained], clock),
        weekly_jobs=weekly_jobs.astype(np.int64),
        weekly_users=weekly_users.astype(np.int64),
        weekly_node_seconds=np.where(busy, weekly_ns / np.maximum(weekly_jobs, 1), 0.0),
    )
