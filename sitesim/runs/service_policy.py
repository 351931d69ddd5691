"""The fitted service's base policy, chosen by measurement (docs/service.md, "Which base policy").

Why: a job's wait under the service is its fitted delay *plus* what the base policy
makes it wait, so the policy sets the floor of the low quantiles: a delay cannot take
away a wait the policy's own queueing gives. Under EASY on SDSC-SP2's 128 nodes the
median wait is 1,228 s where the log's is 43 s. So before the delays are fitted and
calibrated, the fit replays the log's kept jobs on the fitted machine under each policy
of :data:`BASE_POLICIES` (no delays; the calibration's replay,
:func:`sitesim.runs.service_calibration.replay_waits`) and keeps the one whose waits are
closest to the log's by :func:`quantile_distance`. The first candidate wins a tie.
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
#: each costs the fit one replay of the log: on CTC-SP2's 77,222 jobs about 1.0 s of CPU
#: under ``easy``, 2.0-2.1 s under ``easy++``, the jobs made once for all of the fit's
#: replays). The first is the choice on a tie.
BASE_POLICIES = ("easy", "easy++")
#: Quantile levels the distance compares: 1, 2, ..., 99 %.
LEVELS = np.arange(1, 100) / 100.0


def quantile_distance(replayed: np.ndarray, log: np.ndarray) -> float:
    """Mean absolute gap between the two quantile functions of log(1 + wait) at
    :data:`LEVELS` (a Wasserstein-1 distance on a log scale, in nepers). Why a log
    scale: waits span seconds to weeks, and the low quantiles (the floor the policy
    sets) weigh as much as the high ones, which the delays can still raise."""
    return float(np.mean(np.abs(np.log1p(np.quantile(replayed, LEVELS)) - np.log1p(np.quantile(log, LEVELS)))))


def choose_policy(
    jobs: Sequence[TraceJob], fit: ServiceFit, candidates: Sequence[str] = BASE_POLICIES, *, kept: CheckedJobs | None = None
) -> ServiceFit:
    """``fit`` under the candidate policy whose replay of ``jobs`` (no delays) is closest
    to the log's waits; its findings' ``service.base_policy`` give every distance. With
    no job that fits the machine (nothing to replay), the first candidate. ``kept``:
    ``jobs`` as :func:`~sitesim.runs.service_calibration.kept_jobs` made them (None: made here)."""
    log = np.fromiter((j.wait for j in jobs), np.float64, len(jobs))
    distances: dict[str, float] = {}
    kept = kept_jobs(jobs) if kept is None else kept
    for policy in candidates:
        replayed = replay_waits(jobs, attrs.evolve(fit, policy=policy), None, kept=kept)
        ok = ~np.isnan(replayed)
        if not ok.any():
            break
        distances[policy] = round(quantile_distance(replayed[ok], log[ok]), 3)
    chosen = min(distances, key=lambda p: distances[p]) if distances else candidates[0]
    found = {"candidates": list(candidates), "chosen": chosen, "distance": distances,
             "distance_is": "mean |log(1+wait) quantile gap| at 1..99 %, replay without delays against the log"}
    service = {**fit.findings["service"], "base_policy": found}
    return attrs.evolve(fit, policy=chosen, findings={**fit.findings, "service": service})
