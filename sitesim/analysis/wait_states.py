"""How a job's wait depended on what its user was doing when it was submitted.

Measured on the development logs (docs/service.md, "The user's state"): by the state
of its user at its submission, as the session analysis sees it
(:mod:`sitesim.analysis.sessions`) and as a scheduler can (it knows which of a user's
jobs have ended, and when):

- *in a batch*: some earlier job of the user still waits or runs;
- *continuing*: every earlier job has ended, the latest at most 20 minutes before
  (the user is at its desk, going on with its session);
- *opening*: otherwise (a user's first job, or the first after an absence).

Jobs that continue a session waited far less than the others of their size (CTC-SP2:
median 18 s against 2,623 s for jobs opening one), jobs in a batch somewhat more. Each
state's mean normal score of the jobs' *levels* (where a job's wait falls in its size
class's distribution, :class:`sitesim.schedulers.service.DelayModel`) is what a site
file's ``level_states`` shift a job's level by. ``sitesim fit`` does not write these
raw means, which count again what the per-user correlation carries; it calibrates the
shifts against a replay of the log under its service instead, state by state, as the
delays are (:func:`served_states`, :func:`state_means`;
:mod:`sitesim.runs.service_calibration`; docs/service.md, "The user's state").
"""

from __future__ import annotations

from collections.abc import Sequence
from math import pi, sqrt
from statistics import NormalDist

import numpy as np

from sitesim.analysis.cleaning import TraceJob
from sitesim.analysis.sessions import job_roles, user_sequences
from sitesim.workload.session_rule import STATES, state_of, states_of

#: A state with fewer jobs than this gets no shift.
MIN_JOBS = 30
#: The shifts are kept within +-this (the deviation around a shift has the variance
#: 1 - shift^2, so the scores' overall variance stays one: sitesim.schedulers.service).
MAX_SHIFT = 0.9


#: The standard normal, whose quantile function (the standard library's: importing
#: scipy for its ndtri cost a fit 0.35 s of CPU, docs/service.md, "Speed") places the edges.
_NORMAL = NormalDist()


def level_scores(size_class: np.ndarray, wait: np.ndarray) -> np.ndarray:
    """Per job, the mean normal score of where its wait falls among its class's waits.

    A job whose wait has ``k`` equal ones (ties, most of all at zero) holds the share
    ``k / n`` of its class's levels; its score is the standard normal's mean over that
    share, so the scores of a class average zero exactly, ties or not."""
    scores = np.zeros(len(wait))
    for c in np.unique(size_class):
        members = np.flatnonzero(size_class == c)
        values, inverse, counts = np.unique(wait[members], return_inverse=True, return_counts=True)
        upper = np.cumsum(counts) / len(members)
        lower = upper - counts / len(members)
        edges = np.concatenate([lower, upper])
        inside = (edges > 0) & (edges < 1)
        density = np.zeros(edges.size)  # the standard normal's density at each edge's quantile
        z = np.fromiter(map(_NORMAL.inv_cdf, edges[inside].tolist()), np.float64, np.count_nonzero(inside))
        density[inside] = np.exp(-0.5 * z * z) / sqrt(2 * pi)
        mean = (density[: len(values)] - density[len(values):]) / (upper - lower)
        scores[members] = mean[inverse]
    return scores


def state_shifts(jobs: Sequence[TraceJob], size_classes: Sequence[int]) -> list[float]:
    """Per state (:data:`STATES`), the mean normal score of its jobs' levels within their
    size class (classes: upper edges ``size_classes``, the last taking every larger job),
    rounded to 3 decimals and kept within +-:data:`MAX_SHIFT`. The raw means of
    docs/service.md's table ("The user's state"): a measurement, not what the fit writes
    (it calibrates the shifts against its replay: :func:`state_means`)."""
    ordered: list[TraceJob] = []
    states: list[int] = []
    for seq in user_sequences([j for j in jobs if j.user >= 0]).values():
        ordered.extend(seq)
        states.extend(state_of(role.think) for role in job_roles(seq))
    if not ordered:
        return [0.0] * len(STATES)
    size = np.fromiter((j.size for j in ordered), np.int64, len(ordered))
    klass = np.minimum(np.searchsorted(np.asarray(size_classes), size, side="left"), len(size_classes) - 1)
    scores = level_scores(klass, np.fromiter((j.wait for j in ordered), np.float64, len(ordered)))
    state = np.asarray(states)
    shifts = []
    for k in range(len(STATES)):
        mine = scores[state == k]
        value = float(mine.mean()) if len(mine) >= MIN_JOBS else 0.0
        shifts.append(round(min(max(value, -MAX_SHIFT), MAX_SHIFT), 3))
    return shifts


def served_states(user: np.ndarray, submit: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Per job, its user's state at its submission when the jobs end at ``end`` (NaN: a
    job that never ran, which then counts for nothing), by the rule a scheduler applies
    (:class:`sitesim.schedulers.service.UserStates`: a job of the user not yet ended, else
    the time since the latest end); a job ending at the second another is submitted has
    ended by then. Why: a replay under a service ends the log's jobs at other times than
    the log did, so its users are in other states at the same submissions.

    In numbers: a job is in a batch where the latest end of its user's earlier jobs (in
    submission order, ties by position) is after its submission, and otherwise its think
    time is the time since that end (an end is never before its own job's submission,
    so the latest end is the last one a scheduler saw)."""
    n = len(submit)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    order = np.lexsort((np.arange(n), submit, user))
    who, when = user[order], submit[order]
    ends = np.where(np.isnan(end[order]), -np.inf, end[order])
    latest = np.full(n, -np.inf)  # per job, the latest end of its user's earlier jobs
    bounds = np.flatnonzero(np.r_[True, who[1:] != who[:-1], True])  # each user's first job, and n
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        latest[a + 1:b] = np.maximum.accumulate(ends[a:b - 1])
    ordered = states_of(np.where(np.isinf(latest), np.nan, when - latest))  # no earlier end: a first
    states = np.empty(n, dtype=np.int64)
    states[order] = ordered
    return states


def state_means(klass: np.ndarray, wait: np.ndarray, states: np.ndarray) -> list[float | None]:
    """Per state, the mean normal score of its jobs' waits within their size class
    (:func:`level_scores`); None for a state with fewer than :data:`MIN_JOBS` jobs."""
    scores = level_scores(klass, wait)
    return [float(scores[states == k].mean()) if np.count_nonzero(states == k) >= MIN_JOBS else None
            for k in range(len(STATES))]
