"""The fitted service's delays, calibrated against a replay of the log under the service.

Why: a job's wait under the service is its eligibility delay *plus* what the policy
then makes it wait on the fitted machine. Delays drawn from the log's fit-waits
(:func:`sitesim.analysis.service.fit_waits`) and simply added gave the right mean on
the development logs but the wrong shape: medians far too high (most of the log's jobs
waited little, yet nearly every one drew some delay) and the top quantiles too low;
and where the policy's own queueing already explained the log's waits, the delays
counted them twice (docs/service.md). So the fit replays the log's kept jobs on the
fitted machine under the fitted service, in process and through the same engine and
policy code as ``sitesim -c LOG --site DIR/site.toml``, on a fixed seed, and corrects
each size class's delay quantiles by the gap between the log's wait quantiles and the
replay's at the same levels:

    d(q) <- d(q) + STEP * (W_log(q) - W_replay(q)), then made non-decreasing,

and then shifted by one amount and cut at zero so that the class's mean delay moves by
STEP times the gap between the log's mean wait and the replay's (a delay cannot be
negative: cut alone, the corrected quantiles would lift the mean past the log's where
the policy already makes jobs wait longer than the log's low quantiles). The top level
is the largest wait, a single job: there the mean of the top segment is matched, not
the largest value. What the policy's queueing already gives is left out of the delays;
a class whose jobs mostly started at once in the log gets a mass of delays at zero.
With recorded levels the delays start instead from none, corrected once against the
replay under the policy alone that chose the base policy (``calibrate``'s ``alone``):
ranked by the log's own waits, delays on the very jobs that queued would reproduce the
log's waits too, and a calibration starting from the fit-waits would keep them. The result is still
a statistical model (per size class quantiles, read per job at its level: where its
recorded wait falls, or drawn per user; sitesim.schedulers.service), serving any
users, user counts and run lengths. The fit reports how far each replay was from the log (per
class and over all jobs) before its correction.

The same replay corrects the shifts of the jobs' levels by their users' states
(``level_states``: in a batch, continuing a session, opening one), where the levels
go per user: each state's mean wait score in the replay, by the states the replay's
own ends give (what a scheduler sees), moved to the log's, then centred
(:func:`_state_shifts`). No further replay: the fit's time is held to its budget.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, cast

import attrs
import numpy as np
import simpy

from sitesim.analysis.cleaning import TraceJob
from sitesim.analysis.level_copula import PER_USER_LEVELS, size_class_index
from sitesim.analysis.service import ServiceFit
from sitesim.analysis.wait_states import MAX_SHIFT, served_states, state_means
from sitesim.engine.events import run as run_events
from sitesim.engine.machine import Machine
from sitesim.engine.replay import CheckedJobs, CheckedReplay
from sitesim.engine.site import Site
from sitesim.limits import MAX_TABLE_SECONDS
from sitesim.schedulers.base import Scheduler, make_scheduler
from sitesim.schedulers.service import LEVEL_KEYS, DelayModel, ServiceScheduler
from sitesim.workload.estimates import make_estimates
from sitesim.workload.job import Job
from sitesim.workload.swf import SwfReader, SwfRecord

#: Corrections of the delays, each after a replay of the log under the service as it
#: then stands. One: a replay of CTC-SP2's 77,222 jobs costs about 2 s of CPU against
#: about 5 s for the rest of the fit, and the fit's time is held to 1.5 times what it
#: was before the service; the first correction does most of the work (docs/service.md,
#: "Calibrated against a replay"). What the corrected service leaves is measured by
#: ``scripts/service_table.py``.
ROUNDS = 1
#: λ, the share of the gap between the log's wait quantiles and the replay's that one
#: correction adds to the delay quantiles (1: all of it).
STEP = 1.0
#: The seed of the calibration's replays (the delays' stream of a run of this seed).
SEED = 0
#: Quantile levels the fit reports the replay's waits at, beside the log's.
REPORTED = (0.5, 0.9, 0.99)


class _KeptRecords:
    """The log's kept jobs as SWF records, quacking like the :class:`SwfReader` a
    :class:`TraceReplay` reads, so each becomes a job by the replay's own rule
    (:func:`sitesim.workload.replay.job_from_record`: the request as the estimate, a
    failed job failing at its runtime)."""

    path = None
    line = 0
    skip_malformed = False
    skipped = 0

    def __init__(self, jobs: Sequence[TraceJob]) -> None:
        self._jobs = jobs

    def __iter__(self) -> Iterator[SwfRecord]:
        for j in self._jobs:
            yield SwfRecord(j.job, int(j.submit), int(j.wait), int(j.run), j.size, -1, -1, j.size,
                            int(j.requested_time), -1, j.status, j.user, -1, j.executable, j.queue)


class _Times:
    """Observer: each job's first start and its end (a job the replay kills at its
    request ends there, not at its logged runtime)."""

    __slots__ = ("starts", "ends")

    def __init__(self) -> None:
        self.starts: dict[int, int] = {}
        self.ends: dict[int, int] = {}

    def on_start(self, job: Job) -> None:
        self.starts.setdefault(job.id, job.start)

    def on_end(self, job: Job) -> None:
        self.ends[job.id] = job.end


def delay_model(fit: ServiceFit) -> DelayModel:
    """The delays of a fitted service, as a run reads them."""
    return DelayModel(fit.size_classes, fit.delays, fit.levels,
                      **{key: getattr(fit, key) for key in LEVEL_KEYS}, recorded_waits=fit.recorded_waits)


def kept_jobs(jobs: Sequence[TraceJob]) -> CheckedJobs:
    """The log's kept jobs as a replay makes them (:class:`_KeptRecords`), made once for
    all of a fit's replays."""
    return CheckedJobs(cast(SwfReader, _KeptRecords(jobs)), make_estimates("trace"), failures=True)


def replay_waits(
    jobs: Sequence[TraceJob], fit: ServiceFit, delays: DelayModel | None, seed: int = SEED,
    *, kept: CheckedJobs | None = None,
) -> np.ndarray:
    """Each kept job's wait when the jobs are replayed on the fit's machine under its
    policy behind ``delays`` (None: the policy alone, no delay), NaN for a job that did
    not start (larger than the machine). ``kept``: ``jobs`` as :func:`kept_jobs` made
    them (None: made here)."""
    return replay_times(jobs, fit, delays, seed, kept=kept)[0]


def replay_times(
    jobs: Sequence[TraceJob], fit: ServiceFit, delays: DelayModel | None, seed: int = SEED,
    *, kept: CheckedJobs | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`replay_waits`, and each job's end in the replay (NaN: it did not run)."""
    nodes = fit.nodes
    scheduler: Scheduler = make_scheduler(fit.policy, nodes)
    if delays is not None:
        scheduler = ServiceScheduler(nodes, scheduler, delays, spec="service:calibration")
    scheduler.use_seed(seed)
    env = simpy.Environment()
    site = Site(env, Machine(nodes), scheduler)
    times = _Times()
    site.observe(times)
    replay = CheckedReplay(site, kept_jobs(jobs) if kept is None else kept)
    replay.start()
    run_events(env)  # SimPy's run, its loop written out (sitesim.engine.events)
    starts, ends = times.starts, times.ends
    waits = np.array([starts[j.job] - j.submit if j.job in starts else np.nan for j in jobs])
    return waits, np.array([ends.get(j.job, np.nan) for j in jobs], dtype=np.float64)


def _gaps(log: np.ndarray, replayed: np.ndarray, klass: np.ndarray, delays: DelayModel) -> list[np.ndarray | None]:
    """Per class, the log's wait quantiles minus the replay's at the levels of the
    class's delay quantiles (None: no job of the class was replayed)."""
    out: list[np.ndarray | None] = []
    for k, row in enumerate(delays.delays):
        mine = (klass == k) & ~np.isnan(replayed)
        if not mine.any():
            out.append(None)
            continue
        levels = np.linspace(0.0, 1.0, len(row))
        gap = np.quantile(log[mine], levels) - np.quantile(replayed[mine], levels)
        # The top level is the largest wait, one job: a draw reads the line from the
        # level below to it, so its segment's mean, not the largest value, is matched
        # (the mean of the jobs above the level below, the log's against the replay's).
        gap[-1] = 2 * (_top_mean(log[mine], len(row)) - _top_mean(replayed[mine], len(row))) - gap[-2]
        out.append(gap)
    return out


def _top_mean(waits: np.ndarray, levels: int) -> float:
    """The mean of the waits in the top segment of ``levels`` evenly spaced quantile levels."""
    ordered = np.sort(waits)
    return float(ordered[int(len(ordered) * (levels - 2) / (levels - 1)):].mean())


def _corrected(delays: DelayModel, gaps: list[np.ndarray | None], mean_gaps: list[float]) -> DelayModel:
    """Each class's delay quantiles moved by :data:`STEP` times its gap, kept
    non-decreasing and non-negative; then shifted by one amount so that the class's
    mean delay moves by STEP times the gap between the log's mean wait and the
    replay's (:func:`_shifted`)."""
    rows = []
    for row, gap, mean_gap, mean in zip(delays.delays, gaps, mean_gaps, delays.mean, strict=True):
        d = np.asarray(row, dtype=float)
        if gap is not None:
            moved = np.maximum.accumulate(d + STEP * gap)
            d = np.minimum(np.round(_shifted(moved, mean + STEP * mean_gap)), MAX_TABLE_SECONDS)
        rows.append(tuple(float(v) for v in d))
    return attrs.evolve(delays, delays=tuple(rows))


def _shifted(quantiles: np.ndarray, mean: float) -> np.ndarray:
    """``max(0, quantiles - c)`` with its mean (as a draw reads it: piecewise linear)
    equal to ``mean``, or all zero if ``mean`` is not positive.

    Why: a delay cannot be negative. Where the log's jobs waited less than the
    policy's own queueing makes them wait (its low quantiles), the corrected quantiles
    are cut at zero, and the raised top quantiles alone would lift the mean wait past
    the log's. One shift of the whole quantile function keeps its shape and puts its
    mean where the log's mean wait asks for."""
    if mean <= 0:
        return np.zeros_like(quantiles)

    def area(c: float) -> float:
        v = np.maximum(quantiles - c, 0.0)
        return float((v[1:] + v[:-1]).mean() / 2)

    lo, hi = float(quantiles.min()) - mean - 1.0, float(quantiles.max())  # area(lo) > mean >= area(hi) = 0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if area(mid) > mean else (lo, mid)
    return np.maximum(quantiles - hi, 0.0)


def _mean_gaps(log: np.ndarray, replayed: np.ndarray, klass: np.ndarray, classes: int) -> list[float]:
    """Per class, the log's mean wait minus the replay's."""
    out = []
    for k in range(classes):
        mine = (klass == k) & ~np.isnan(replayed)
        out.append(float(log[mine].mean() - replayed[mine].mean()) if mine.any() else 0.0)
    return out


def _error(log: np.ndarray, replayed: np.ndarray, klass: np.ndarray, classes: Sequence[int]) -> dict[str, Any]:
    """How far the replay's waits are from the log's: over all jobs, the mean and the
    quantiles of :data:`REPORTED`; per class, the mean absolute gap between the two
    quantile functions (the Wasserstein-1 distance) as a share of the log's mean wait."""
    ok = ~np.isnan(replayed)
    per_class = []
    for k, bound in enumerate(classes):
        mine = ok & (klass == k)
        if not mine.any():
            continue
        distance = float(np.abs(np.sort(log[mine]) - np.sort(replayed[mine])).mean())
        per_class.append({"size_class": int(bound), "jobs": int(mine.sum()),
                          "distance_share_of_mean_wait": round(distance / max(float(log[mine].mean()), 1.0), 3)})
    return {
        "mean_wait": {"log": round(float(log[ok].mean()), 1), "replay": round(float(replayed[ok].mean()), 1)},
        "quantiles": {f"q{q * 100:g}": {"log": round(float(np.quantile(log[ok], q)), 1),
                                       "replay": round(float(np.quantile(replayed[ok], q)), 1)}
                      for q in REPORTED},
        "per_class": per_class,
    }


def calibrate(
    jobs: Sequence[TraceJob], fit: ServiceFit, *, kept: CheckedJobs | None = None, alone: np.ndarray | None = None,
) -> ServiceFit:
    """``fit`` with its delays corrected :data:`ROUNDS` times (after one correction
    against ``alone``, if given), each against a replay of ``jobs`` under the service as
    it then stands; its findings' ``service.calibration``
    say how far each replay was from the log (before its correction), and under which
    levels. A log none of
    whose jobs fits the machine keeps its delays as measured (no correction: rounds 0).
    ``kept``: ``jobs`` as :func:`kept_jobs` made them (None: made here).

    ``alone``: the waits of a replay of ``jobs`` under the policy without delays (the
    one the base policy was chosen by). The delays then start from no delay at all,
    corrected once against that replay, before the rounds: what the policy's own
    queueing gives is left out of them from the start, whatever levels the rounds
    read them at. Why: at recorded levels the rounds alone cannot tell that queueing
    from delays (delays on the very jobs that queued reproduce the log's waits too),
    so they must not start from delays that count it (docs/service.md)."""
    log = np.fromiter((j.wait for j in jobs), np.float64, len(jobs))
    size = np.fromiter((j.size for j in jobs), np.int64, len(jobs))
    classes = len(fit.size_classes)
    klass = size_class_index(size, fit.size_classes)
    delays = delay_model(fit)
    measured = []
    kept = kept_jobs(jobs) if kept is None else kept
    states: dict[str, Any] = {}
    if alone is not None and not np.isnan(alone).all():
        measured.append({"levels": "none: the policy alone", **_error(log, alone, klass, fit.size_classes)})
        none = attrs.evolve(delays, delays=tuple((0.0,) * len(row) for row in delays.delays))
        delays = _corrected(none, _gaps(log, alone, klass, none), _mean_gaps(log, alone, klass, classes))
    for _ in range(ROUNDS):
        replayed, ended = replay_times(jobs, fit, delays, kept=kept)
        if np.isnan(replayed).all():  # every job larger than the machine: nothing to compare
            break
        measured.append({"levels": fit.levels, **_error(log, replayed, klass, fit.size_classes)})
        delays = _corrected(delays, _gaps(log, replayed, klass, delays), _mean_gaps(log, replayed, klass, classes))
        if fit.levels == PER_USER_LEVELS:  # a state shifts a user's copula levels; recorded ones carry it
            shifts, states = _state_shifts(jobs, log, replayed, ended, klass, delays.level_states)
            delays = attrs.evolve(delays, level_states=shifts)
    service = dict(fit.findings["service"])
    if measured:
        start = "waits the policy alone left short of the log's" if alone is not None else "fit-waits"
        service["delays"] = f"{start} by size class, corrected against a replay of the log under the service"
        service["why"] = (f"{service['measured']}: each job is made eligible a delay read per size class (the"
                          f" {start}, corrected against a replay of the log), then served by {fit.policy}"
                          f" on {fit.nodes} nodes")
    service["calibration"] = {"rounds": len(measured), "step": STEP, "seed": SEED, "replays": measured,
                              "mean_delay": [round(m, 1) for m in delays.mean], **states}
    return attrs.evolve(fit, delays=delays.delays, level_states=delays.level_states,
                        findings={**fit.findings, "service": service})


def _state_shifts(
    jobs: Sequence[TraceJob], log: np.ndarray, replayed: np.ndarray, ended: np.ndarray, klass: np.ndarray,
    shifts: tuple[float, ...],
) -> tuple[tuple[float, ...], dict[str, Any]]:
    """The shifts of the jobs' levels by their users' states (``level_states``),
    corrected as the delays are: by the gap between each state's mean wait score in the
    log and in the replay, each by the states its own ends give (a scheduler's view,
    :func:`~sitesim.analysis.wait_states.served_states`; the replay's ends are its
    own, a job it killed at its request ending there), then centred on the replay's mix
    of states, so the levels' mean over that mix stays 0 and the delays' classes keep
    about their means (a mixture of shifted normals is not exactly normal; the next
    replay would see what is left). What the replay shows is already net of what the
    per-user correlation carries, which raw means of the log's scores are not
    (docs/service.md, "The user's state"). A state with too few jobs on either side
    keeps its shift; none is kept beyond +-MAX_SHIFT; with no state measured on both
    sides, no shifts at all (``()``: the service then keeps no users' states)."""
    ran = ~np.isnan(replayed)
    user = np.fromiter((j.user for j in jobs), np.int64, len(jobs))
    submit = np.fromiter((j.submit for j in jobs), np.float64, len(jobs))
    run = np.fromiter((j.run for j in jobs), np.float64, len(jobs))
    mine = ran & (user >= 0)
    target = state_means(klass[mine], log[mine], served_states(user[mine], submit[mine], (submit + log + run)[mine]))
    served = served_states(user[mine], submit[mine], ended[mine])
    seen = state_means(klass[mine], replayed[mine], served)
    old = list(shifts) or [0.0] * len(target)
    new = [o + STEP * (t - s) if t is not None and s is not None else o
           for o, t, s in zip(old, target, seen, strict=True)]
    report: dict[str, Any] = {"state_scores": {"log": [None if t is None else round(t, 3) for t in target],
                                               "replay": [None if s is None else round(s, 3) for s in seen]}}
    if not shifts and all(t is None or s is None for t, s in zip(target, seen, strict=True)):
        return (), {**report, "level_states": []}
    counts = np.bincount(served, minlength=len(new))
    centre = float(np.dot(counts, new) / max(counts.sum(), 1))
    shifted = tuple(round(min(max(v - centre, -MAX_SHIFT), MAX_SHIFT), 3) for v in new)
    return shifted, {**report, "level_states": list(shifted)}
