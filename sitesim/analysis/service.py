"""The service a log describes: its machine, and what made its waits longer than EASY's.

Measured on the shared logs (docs/service.md): the real machines sat partly idle while
jobs that fit were waiting, and the time each job spent waiting *while its size fit in
the machine's idle nodes* (its fit-wait, :func:`fit_waits`) averages close to the gap
between the log's mean wait and EASY's on the nominal machine. Limits on running jobs
per user do not explain it (the fitting jobs' users had no job running nearly all of
that time), nor do whole-machine outages (long stretches with no start at all are a
small part of it). So :func:`fit_service` fits the service as the delay before a job
becomes eligible, by size class, from the log's fit-waits, served by a real policy
on the nominal machine (:mod:`sitesim.schedulers.service`); and says what it
concluded about the machine: nodes against processors (:mod:`sitesim.analysis.nodes`,
which decides whether the site is simulated in nodes), and whether queues owned
disjoint nodes.

A log without wait times has nothing to measure: its starts were simulated under a
policy (:mod:`sitesim.runs.starts`), and its service is that policy, with no delay.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from attrs import define, field

from sitesim.analysis.cleaning import TraceJob
from sitesim.analysis.level_copula import FIT_LEVEL_MODEL, fit_levels, size_class_index
from sitesim.analysis.nodes import NodeAllocation
from sitesim.limits import MAX_TABLE_SECONDS
from sitesim.workload.swf_header import SwfHeader

#: Quantile levels kept per class: 0%, 1%, ..., 100%.
LEVELS = 101
#: Fewer jobs than this in a size class: it is merged with the next one.
MIN_CLASS = 100
#: More distinct sizes than this: fit-waits are measured on a grid of sizes rounded up.
MAX_SIZES = 256


def fit_waits(submit: np.ndarray, wait: np.ndarray, run: np.ndarray, size: np.ndarray, nodes: int) -> np.ndarray:
    """Per job, the seconds of its wait during which its size fit in the idle nodes of a
    machine of ``nodes`` nodes, as the log ran it (every job on its logged start and
    run). Nodes in use above the machine's size leave none idle."""
    start = submit + wait
    times = np.concatenate([start, start + run])
    change = np.concatenate([size, -size]).astype(np.int64)
    order = np.argsort(times, kind="stable")
    steps, last = np.unique(times[order], return_index=False, return_counts=True)
    busy_after = np.cumsum(change[order])[np.cumsum(last) - 1]
    first = min(float(submit.min()), float(steps[0]))
    # the machine is idle before its first start
    steps = np.concatenate([[first - 1.0], steps])
    free = np.concatenate([[nodes], nodes - busy_after])
    spans = np.diff(steps, append=steps[-1])
    grid = np.unique(size)
    if len(grid) > MAX_SIZES:
        grid = np.unique(np.ceil(np.geomspace(1, grid.max(), MAX_SIZES)).astype(np.int64))
    index = np.minimum(np.searchsorted(grid, size), len(grid) - 1)
    k_submit = np.searchsorted(steps, submit, side="right") - 1
    k_start = np.searchsorted(steps, start, side="right") - 1
    out = np.zeros(len(submit))
    for g, z in enumerate(grid):
        mine = np.flatnonzero(index == g)
        if not len(mine):
            continue
        fits = (free >= z).astype(np.float64)
        area = np.concatenate([[0.0], np.cumsum(fits * spans)])
        ks, ke = k_submit[mine], k_start[mine]
        at_submit = area[ks] + fits[ks] * (submit[mine] - steps[ks])
        at_start = area[ke] + fits[ke] * (start[mine] - steps[ke])
        out[mine] = np.maximum(at_start - at_submit, 0.0)
    return out


def size_classes(size: np.ndarray, nodes: int) -> list[int]:
    """Powers of two up to the machine, each class merged into the next until it holds
    :data:`MIN_CLASS` jobs (a short last class joins the one before)."""
    bounds = []
    b = 1
    while b < nodes:
        bounds.append(b)
        b *= 2
    bounds.append(max(nodes, int(size.max())))
    classes: list[int] = []
    count = 0
    lower = 0
    for b in bounds:
        count += int(((size > lower) & (size <= b)).sum())
        lower = b
        if count >= MIN_CLASS:
            classes.append(b)
            count = 0
    if not classes:
        return [bounds[-1]]
    classes[-1] = bounds[-1]  # the last class takes the leftover largest jobs, up to the machine
    return classes


@define(slots=True)
class ServiceFit:
    """What the fit concluded about the log's machine and service, and the service: a
    machine of ``nodes`` nodes, ``policy``, and per size class (``size_classes``, their
    largest sizes) the delay quantiles (``delays``; read by
    :class:`sitesim.schedulers.service.DelayModel`)."""

    nodes: int
    policy: str
    size_classes: tuple[int, ...]
    delays: tuple[tuple[float, ...], ...]
    #: Per-log findings for the report and the provenance (JSON-ready).
    findings: dict[str, Any] = field(factory=dict)
    #: How a job's level is drawn, and the per-user levels' correlations by the time
    #: since the user's previous submission (``levels``, ``level_gaps``, ``level_rho``
    #: of the ``[service]`` table: sitesim.schedulers.service; with ``level_repeat``,
    #: ``level_rho`` is the correlation of the draws that do not repeat).
    levels: str = "per-job"
    level_gaps: tuple[float, ...] = ()
    level_rho: tuple[float, ...] = ()
    #: Per user state at a submission, the shift of a job's level (``level_states``:
    #: sitesim.analysis.wait_states); empty, none.
    level_states: tuple[float, ...] = ()
    #: Per gap class, the chance a job repeats its user's previous level
    #: (``level_repeat``: sitesim.analysis.level_copula); empty, never.
    level_repeat: tuple[float, ...] = ()
    #: ``levels = "recorded"``: per size class, the log's wait quantiles a job's
    #: recorded wait is ranked among (``recorded_waits``); empty otherwise.
    recorded_waits: tuple[tuple[float, ...], ...] = ()


def machine_findings(
    header: SwfHeader, jobs: Sequence[TraceJob], nodes: int, allocation: NodeAllocation
) -> dict[str, Any]:
    """Nodes against processors (``allocation``, measured on the log's jobs in
    processors, with or without their recorded starts, by the fit:
    :func:`sitesim.analysis.nodes.node_allocation`; never measured again here, where
    the jobs may already be in nodes and their starts simulated), and whether the log's
    queues owned disjoint nodes (``jobs`` and ``nodes`` in the simulated machine's units)."""
    found: dict[str, Any] = {
        "nodes": nodes,
        "max_nodes": allocation.max_nodes,
        "max_procs": allocation.max_procs,
        "processors_per_node": allocation.per_node,
        "whole_nodes": allocation.whole,
        "allocation": allocation.why,
    }
    if allocation.decided_by != "header":  # one processor per node keeps its provenance's bytes
        found["decided_by"] = allocation.decided_by
        found["measured"] = allocation.figures
    found["queues"] = queue_findings(jobs, nodes)
    return found


def queue_findings(jobs: Sequence[TraceJob], nodes: int) -> dict[str, Any]:
    """Whether the queues (SWF field 15) owned disjoint node pools: they did only if
    their peak uses, added up, fit in the machine. Else they shared it (each queue's
    jobs reached nodes the others used), and are not partitions of it."""
    queues = sorted({j.queue for j in jobs if j.queue >= 0})
    if len(queues) < 2:
        return {"count": len(queues), "disjoint": False, "why": "fewer than two queues recorded (field 15)"}
    by_queue: dict[int, list[TraceJob]] = {q: [] for q in queues}
    for j in jobs:  # one pass, each queue's jobs in log order
        if j.queue >= 0:
            by_queue[j.queue].append(j)
    peaks = {}
    for q in queues:
        mine = by_queue[q]
        start = np.array([j.submit + j.wait for j in mine])
        times = np.concatenate([start, start + np.array([j.run for j in mine])])
        change = np.concatenate([[j.size for j in mine], [-j.size for j in mine]])
        order = np.lexsort((change, times))  # ends (negative) first at one instant
        peaks[str(q)] = int(np.cumsum(change[order]).max())
    total = sum(peaks.values())
    disjoint = total <= nodes
    why = (f"the queues' peak uses add up to {total} of {nodes} nodes: "
           + ("each may own its peak" if disjoint else "they shared the machine"))
    return {"count": len(queues), "peak_nodes": peaks, "disjoint": disjoint, "why": why}


def fit_service(
    jobs: Sequence[TraceJob], nodes: int, header: SwfHeader, *, allocation: NodeAllocation, policy: str = "easy",
    simulated: str | None = None, level_model: str = FIT_LEVEL_MODEL,
) -> ServiceFit:
    """The fitted service of a log's kept jobs on a machine of ``nodes`` nodes.

    ``simulated``: how the starts were simulated, for a log without wait times (its
    service is then ``policy``, with no delay). ``allocation``: what the fit concluded
    about nodes and processors (``jobs`` and ``nodes`` are then in its units).
    ``level_model``: how the service's levels are given
    (:data:`~sitesim.analysis.level_copula.FIT_LEVEL_MODELS`)."""
    size = np.fromiter((j.size for j in jobs), np.int64, len(jobs))
    machine = machine_findings(header, jobs, nodes, allocation)
    if simulated is not None:
        return ServiceFit(nodes, policy, (max(nodes, int(size.max())),), ((0.0, 0.0),), {
            "machine": machine,
            "service": {"delays": "none", "why": f"the log records no waits: its starts were simulated ({simulated}),"
                        f" so its service is {policy} on the nominal machine"},
        })
    submit = np.fromiter((j.submit for j in jobs), np.float64, len(jobs))
    wait = np.fromiter((j.wait for j in jobs), np.float64, len(jobs))
    run = np.fromiter((j.run for j in jobs), np.float64, len(jobs))
    waits = fit_waits(submit, wait, run, size, nodes)
    capped = int((waits > MAX_TABLE_SECONDS).sum())  # what a run accepts (sitesim/limits.py)
    waits = np.minimum(waits, MAX_TABLE_SECONDS)
    classes = size_classes(size, nodes)
    levels = np.linspace(0.0, 1.0, LEVELS)
    klass = size_class_index(size, classes)
    rows = [tuple(float(v) for v in np.round(np.quantile(waits[klass == k], levels))) for k in range(len(classes))]
    mean_wait = float(wait.mean())
    measured = (f"jobs waited {waits.mean():,.0f} s on average while their size fit in idle nodes"
                f" ({waits.sum() / max(wait.sum(), 1):.0%} of all waiting)")
    findings = {
        "machine": machine,
        "service": {
            "delays": "fit-waits by size class",
            "mean_wait": round(mean_wait, 1),
            "mean_fit_wait": round(float(waits.mean()), 1),
            "fit_wait_share_of_wait": round(float(waits.sum() / wait.sum()), 3) if wait.sum() else 0.0,
            "jobs_with_fit_wait": round(float((waits > 0).mean()), 3),
            "size_classes": classes,
            "capped": capped,
            "measured": measured,
            "why": (f"{measured}: each job is made eligible a delay drawn from the fit-waits of its size class,"
                    f" then served by {policy} on {nodes} nodes"),
        },
    }
    dependence = fit_levels(level_model, jobs, classes, LEVELS)
    findings["service"][dependence.findings_key] = dependence.findings
    return ServiceFit(nodes, policy, tuple(classes), tuple(rows), findings, dependence.levels, dependence.gaps,
                      dependence.rho, level_repeat=dependence.repeat, recorded_waits=dependence.recorded)
