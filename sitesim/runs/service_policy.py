"""The fitted service's base policy, chosen by measurement (docs/service.md, "Which base policy").

Why: a job's wait under the service is its fitted delay *plus* what the base policy
makes it wait, so the policy sets the floor of the low quantiles: a delay cannot take
away a wait the policy's own queueing gives. Under EASY on SDSC-SP2's 128 nodes the
median wait is 1,228 s where the log's is 43 s. So before the delays are fitted and
calibrated, the fit replays the log's kept jobs on the fitted machine under the first
policy of :data:`BASE_POLICIES` (no delays; the calibration's replay,
:func:`sitesim.runs.service_calibration.replay_waits`). Where that policy's waits lie
nowhere above the log's (by more than :data:`FLOOR_TOLERANCE`), its floor is no
obstacle: the delays can lift its waits to the log's, and it is kept without trying
the others. Else the fit replays the log under each other candidate too and keeps the
one whose waits are closest to the log's by :func:`quantile_distance` (the first wins a
tie). Why not always all: each candidate costs a replay, and the fit's time has a
budget (docs/service.md, "Speed").
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs
import numpy as np

from sitesim.analysis.cleaning import TraceJob
from sitesim.analysis.service import ServiceFit
from sitesim.engine.replay import CheckedJobs
from sitesim.runs.service_calibration import kept_jobs, replay_waits

#: The policies the fit chooses the service's base policy among (registered names;
#: each one replayed costs the fit a replay of the log: on CTC-SP2's 77,222 jobs about
#: 1.0 s of CPU under ``easy``, 2.0-2.1 s under ``easy++``, the jobs made once for all of
#: the fit's replays). The first is replayed always, the others only where it puts a
#: floor above the log's waits (:func:`choose_policy`); it is also the choice on a tie.
BASE_POLICIES = ("easy", "easy++")
#: Quantile levels the distance compares: 1, 2, ..., 99 %.
LEVELS = np.arange(1, 100) / 100.0
#: How far (nepers of log(1 + wait)) the first candidate's quantile function may lie
#: above the log's at some level of :data:`LEVELS` and still count as no floor. A
#: numerical tolerance, not a fitted one: on the shared logs the first candidate's
#: largest excess is 0 (CTC-SP2), 0.01 (KTH-SP2), 0.94 (SDSC-BLUE), 3.3 (SDSC-SP2)
#: and 5.7 (LANL-CM5), so any value from 0.01 to 0.9 decides alike.
FLOOR_TOLERANCE = 0.1


def quantile_distance(replayed: np.ndarray, log: np.ndarray) -> float:
    """Mean absolute gap between the two quantile functions of log(1 + wait) at
    :data:`LEVELS` (a Wasserstein-1 distance on a log scale, in nepers). Why a log
    scale: waits span seconds to weeks, and the low quantiles (the floor the policy
    sets) weigh as much as the high ones, which the delays can still raise."""
    return float(np.mean(np.abs(np.log1p(np.quantile(replayed, LEVELS)) - np.log1p(np.quantile(log, LEVELS)))))


def floor_excess(replayed: np.ndarray, log: np.ndarray) -> float:
    """The largest excess of the replay's quantile function of log(1 + wait) over the
    log's at :data:`LEVELS` (0 where it lies nowhere above): how far the policy's own
    queueing puts a floor under the waits that no delay can take away."""
    gap = np.log1p(np.quantile(replayed, LEVELS)) - np.log1p(np.quantile(log, LEVELS))
    return float(max(0.0, np.max(gap)))


def choose_policy(
    jobs: Sequence[TraceJob], fit: ServiceFit, candidates: Sequence[str] = BASE_POLICIES, *, kept: CheckedJobs | None = None
) -> ServiceFit:
    """``fit`` under the first candidate policy where its replay of ``jobs`` (no delays)
    puts no floor above the log's waits (:func:`floor_excess`), else under the candidate
    whose replay is closest to the log's waits; its findings' ``service.base_policy``
    give the floor and every distance measured. With no job that fits the machine
    (nothing to replay), the first candidate. ``kept``:
    ``jobs`` as :func:`~sitesim.runs.service_calibration.kept_jobs` made them (None: made here)."""
    return choose_policy_alone(jobs, fit, candidates, kept=kept)[0]


def choose_policy_alone(
    jobs: Sequence[TraceJob], fit: ServiceFit, candidates: Sequence[str] = BASE_POLICIES, *, kept: CheckedJobs | None = None
) -> tuple[ServiceFit, np.ndarray | None]:
    """:func:`choose_policy`, and the waits of the chosen policy's replay without
    delays (None: nothing was replayed), which a calibration may start from."""
    log = np.fromiter((j.wait for j in jobs), np.float64, len(jobs))
    distances: dict[str, float] = {}
    kept = kept_jobs(jobs) if kept is None else kept
    floor: float | None = None
    alone: dict[str, np.ndarray] = {}
    for policy in candidates:
        replayed = replay_waits(jobs, attrs.evolve(fit, policy=policy), None, kept=kept)
        ok = ~np.isnan(replayed)
        if not ok.any():
            break
        alone[policy] = replayed
        distances[policy] = round(quantile_distance(replayed[ok], log[ok]), 3)
        if floor is None:
            floor = round(floor_excess(replayed[ok], log[ok]), 3)
            if floor <= FLOOR_TOLERANCE:
                break  # the first candidate's floor is nowhere above the log's
    chosen = min(distances, key=lambda p: distances[p]) if distances else candidates[0]
    found = {"candidates": list(candidates), "chosen": chosen, "distance": distances,
             "distance_is": "mean |log(1+wait) quantile gap| at 1..99 %, replay without delays against the log",
             "floor_excess": floor, "floor_tolerance": FLOOR_TOLERANCE,
             "floor_is": f"largest excess of the {candidates[0]} replay's log(1+wait) quantiles over the log's;"
                         " within the tolerance, the other candidates are not replayed"}
    service = {**fit.findings["service"], "base_policy": found}
    return attrs.evolve(fit, policy=chosen, findings={**fit.findings, "service": service}), alone.get(chosen)
