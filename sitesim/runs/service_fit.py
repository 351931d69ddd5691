"""The fitted service's part of ``sitesim fit``: its ``[service]`` table and its report.

The fit measures the log's machine and service (:mod:`sitesim.analysis.service`) and
writes them into the site file as a ``[service]`` table, so the site's default policy
is ``service:`` that file (:mod:`sitesim.schedulers.service`) on the fitted machine;
``-s POLICY`` on top of the site swaps the policy and keeps the machine and the delays.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sitesim.analysis.cleaning import TraceJob
from sitesim.analysis.level_copula import FIT_LEVEL_MODEL, PER_USER_LEVELS, RECORDED_LEVELS
from sitesim.analysis.nodes import NodeAllocation
from sitesim.analysis.service import ServiceFit, fit_service
from sitesim.workload.session_rule import STATES
from sitesim.runs.service_calibration import calibrate, delay_model, kept_jobs
from sitesim.runs.service_policy import choose_policy_alone
from sitesim.runs.starts import StartReplay
from sitesim.schedulers.service import RECORDED_KEY, SERVICE_TABLE, ServiceSpec
from sitesim.workload.swf_header import SwfHeader


def fit_log_service(
    jobs: Sequence[TraceJob], nodes: int, header: SwfHeader, starts: StartReplay | None, allocation: NodeAllocation,
    level_model: str = FIT_LEVEL_MODEL,
) -> ServiceFit:
    """The service of a log: its base policy chosen by replays of the log without delays
    (:mod:`sitesim.runs.service_policy`), its delays measured from its waits
    and calibrated against a replay of the log under it (:mod:`sitesim.runs.service_calibration`), or, when its starts were
    simulated, the policy that simulated them. ``jobs`` and ``nodes`` are in the units
    of ``allocation`` (whole nodes, or processors), so the calibration's replay is too;
    ``level_model``, how the service's levels are given (``--levels``)."""
    if starts is None:
        # With per-user levels, the user's state (level_states) is calibrated with the
        # delays, against the replay: measured on the raw waits, its shifts would count
        # again what the per-user correlation already carries (docs/service.md, "The
        # user's state"); recorded levels carry it themselves.
        kept = kept_jobs(jobs)  # made once for the replays of both
        measured = fit_service(jobs, nodes, header, allocation=allocation, level_model=level_model)
        chosen, alone = choose_policy_alone(jobs, measured, kept=kept)
        # Recorded levels start from the policy-alone replay's gap, not the fit-waits
        # (sitesim.runs.service_calibration.calibrate, ``alone``).
        return calibrate(jobs, chosen, kept=kept, alone=alone if level_model == RECORDED_LEVELS else None)
    return fit_service(jobs, nodes, header, policy=starts.policy,
                       simulated=f"under {starts.policy}, {starts.policy_from}", allocation=allocation)


def service_lines(fit: ServiceFit) -> list[str]:
    """The ``[service]`` table of the site file (last: it ends the top-level keys)."""
    # built as the run will read it: a table the loader would refuse fails here
    table = ServiceSpec(fit.nodes, fit.policy, delay_model(fit)).to_table()
    rows = ",\n".join("  [" + ", ".join(f"{v:.0f}" for v in row) + "]" for row in table["delays"])
    return [
        f"# the fitted service (docs/service.md): {fit.findings['service']['why']}",
        f"[{SERVICE_TABLE}]",
        f"nodes = {table['nodes']}",
        f'policy = "{table["policy"]}"',
        "size_classes = [" + ", ".join(str(c) for c in table["size_classes"]) + "]",
        *level_lines(table),
        f"# per size class: delay quantiles (s) at 0%, {100 / (len(table['delays'][0]) - 1):g}%, ..., 100%",
        "delays = [\n" + rows + ",\n]",
    ]


def level_lines(table: dict[str, Any]) -> list[str]:
    """How the service draws each job's level (its ``levels`` keys)."""
    if table["levels"] == RECORDED_LEVELS:
        rows = ",\n".join("  [" + ", ".join(f"{v:.0f}" for v in row) + "]" for row in table[RECORDED_KEY])
        return [
            "# each job's level: where the wait it had in the log falls among its size class's",
            f'levels = "{table["levels"]}"',
            f"# per size class: the log's wait quantiles (s) at 0%, {100 / (len(table[RECORDED_KEY][0]) - 1):g}%,"
            " ..., 100%",
            f"{RECORDED_KEY} = [\n" + rows + ",\n]",
        ]
    if table["levels"] != PER_USER_LEVELS:
        return [f"# each job's delay drawn apart ({table['levels']} levels)", f'levels = "{table["levels"]}"']
    return [
        "# each job's level: per user, correlated with its previous submission's by the gap (s)",
        f'levels = "{table["levels"]}"',
        "level_gaps = [" + ", ".join(f"{g:.0f}" for g in table["level_gaps"]) + "]",
        "level_rho = [" + ", ".join(f"{r:g}" for r in table["level_rho"]) + "]",
        *([f"# and shifted by the user's state at the submission ({', '.join(STATES)})",
           "level_states = [" + ", ".join(f"{v:g}" for v in table["level_states"]) + "]"]
          if "level_states" in table else []),
        *(["# per gap class, the chance a job repeats its user's previous level (level_rho: the others')",
           "level_repeat = [" + ", ".join(f"{v:g}" for v in table["level_repeat"]) + "]"]
          if "level_repeat" in table else []),
    ]


def report_lines(fit: ServiceFit) -> list[str]:
    """What the fit concluded about the machine and the service, and why."""
    machine = fit.findings["machine"]
    queues = machine["queues"]
    return [
        f"# machine: {machine['nodes']} nodes; {machine['allocation']}",
        f"# queues: {queues['count']}, {'disjoint' if queues['disjoint'] else 'not partitions'}: {queues['why']}",
        f"# service: {fit.findings['service']['why']}",
        *([f"# base policy: {base_policy_line(fit.findings['service']['base_policy'])}"]
          if "base_policy" in fit.findings["service"] else []),
        *([f"# calibration: {calibration_line(fit.findings['service']['calibration'])}"]
          if "calibration" in fit.findings["service"] else []),
    ]


def calibration_line(calibration: dict[str, Any]) -> str:
    """What the calibration did, and how far the replay it corrected from was from the log."""
    if not calibration["replays"]:
        return "none: no job fits the machine, so none could be replayed; the delays are the fit-waits"
    first = calibration["replays"][0]
    log = first["mean_wait"]["log"]
    log_q = " ".join(f"{q} {v['log']:,.0f}" for q, v in first["quantiles"].items())
    replay_q = " ".join(f"{q} {v['replay']:,.0f}" for q, v in first["quantiles"].items())
    worst = max((c["distance_share_of_mean_wait"] for c in first["per_class"]), default=0.0)
    levels = " then ".join(dict.fromkeys(r["levels"] for r in calibration["replays"]))
    last = calibration["replays"][-1]
    after = (f"; the last replay ({last['levels']}) before its correction: mean {last['mean_wait']['replay']:,.0f}"
             if len(calibration["replays"]) > 1 else "")
    return (f"{calibration['rounds']} correction(s) of the delays (step {calibration['step']:g}) against"
            f" replays of the log under the service (seed {calibration['seed']}; levels {levels});"
            f" waits (s), log: mean {log:,.0f},"
            f" {log_q}; the first replay before its correction: mean {first['mean_wait']['replay']:,.0f},"
            f" {replay_q}{after};"
            f" per size class its quantile function was up to {worst:.0%} of the class's mean wait off the log's")


def base_policy_line(found: dict[str, Any]) -> str:
    """Which base policy the fit chose, and each candidate's distance from the log."""
    if not found["distance"]:
        return f"{found['chosen']}, the first candidate: no job fits the machine, so none could be replayed"
    each = ", ".join(f"{p} {d:.2f}" for p, d in found["distance"].items())
    if len(found["distance"]) == 1 and len(found["candidates"]) > 1:
        return (f"{found['chosen']}, the first candidate: replayed without delays its waits lie nowhere above the"
                f" log's (largest log(1+wait) quantile excess {found['floor_excess']:.2f}, within"
                f" {found['floor_tolerance']:g}), so the delays can lift them and no other was replayed"
                f" (distance {each})")
    return (f"{found['chosen']}, the closest to the log's waits of the replays without delays"
            f" (log(1+wait) quantile distance: {each}; the first's floor above the log's:"
            f" {found['floor_excess']:.2f})")
