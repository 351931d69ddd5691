"""Nodes against processors: whether a log's jobs were given whole nodes, measured.

A log's header gives the machine as ``MaxNodes`` nodes of ``MaxProcs`` processors in
all, and each job's size (SWF field 5) in processors. When a node has several
processors, a scheduler may give each job whole nodes (a job of one processor then
holds a node, and its other processors stay idle), or share nodes between jobs. The
two are different machines: OSC-Clust's 57 nodes of 178 processors, simulated as 178
interchangeable processors, ran its log without a wait where the log waited hours.

Why measured rather than read off the sizes: sizes that are all multiples of the
processors per node say nothing about a cluster whose one-processor jobs each took a
node. Where the log records starts (submit + wait), its occupancy is known at every
instant, and the two hypotheses predict different things about it:

- *whole nodes*: the jobs running at once never demanded more than ``MaxNodes`` nodes,
  a job of ``s`` processors demanding ``ceil(s / p)`` of them (``p`` processors per
  node); and where the constraint was binding, the nodes were all taken while
  processors stood idle;
- *shared nodes*: the jobs' node demands, so counted, summed over ``MaxNodes`` (more
  jobs ran at once than whole nodes could hold).

``p`` is ``ceil(MaxProcs / MaxNodes)``. With nodes of one size it is their processors;
with nodes of several sizes (OSC-Clust: 178 processors on 57 nodes) it is the average
rounded up, so ``ceil(s / p)`` is the fewest nodes a job could have held: a sum over
``MaxNodes`` is then proof of sharing, and a site simulated in these demands is, if
anything, more generous than the real machine (a job on the small nodes held more).

:func:`node_allocation` decides with the rule of :data:`OVER_TOLERANCE` and
:data:`BINDING_SHARE` and keeps the figures it measured. A log without starts (its
starts are simulated) has no occupancy of its own: it is decided by its sizes alone,
as before (:data:`MULTIPLE_SHARE` of them multiples of ``p``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from attrs import define

from sitesim.analysis.cleaning import TraceJob
from sitesim.workload.nodes import node_demand, processors_per_node
from sitesim.workload.swf_header import SwfHeader

#: Share of the log's occupied time during which the jobs' node demands may sum over
#: ``MaxNodes`` and the jobs still count as given whole nodes: a few seconds of
#: overlap where a log rounds its starts and ends, or a node counted twice at a
#: restart, are not sharing.
OVER_TOLERANCE = 0.01
#: Share of the occupied time the node demands must fill every node for the log to
#: show that whole nodes were binding: below it, the log never tested the constraint,
#: and its jobs keep processors unless their sizes decide it (:data:`MULTIPLE_SHARE`).
BINDING_SHARE = 0.01
#: Share of the sizes that must be multiples of the processors per node for a log to
#: count as whole-node on its sizes alone (a log without starts, or one whose
#: occupancy never reached the nodes): then processors and nodes are one machine.
MULTIPLE_SHARE = 0.99


@define(slots=True, frozen=True)
class NodeAllocation:
    """What the fit concluded about nodes and processors, and the figures it measured."""

    max_nodes: int | None
    max_procs: int | None
    per_node: int
    #: Whether the jobs were given whole nodes: the site is then simulated in nodes.
    whole: bool
    #: ``occupancy`` (measured from the log's starts), ``sizes`` (multiples alone) or
    #: ``header`` (one processor per node: nothing to decide).
    decided_by: str
    why: str
    figures: dict[str, Any]

    @property
    def nodes(self) -> int | None:
        """The machine's nodes, when the jobs take whole nodes."""
        return self.max_nodes if self.whole else None

    def size(self, processors: int) -> int:
        """A job's size on the simulated machine: its node demand, or its processors."""
        return node_demand(processors, self.per_node) if self.whole else processors


def occupancy_figures(jobs: Sequence[TraceJob], max_nodes: int, max_procs: int, per_node: int) -> dict[str, Any]:
    """The log's occupancy counted in node demands and in processors (every job on its
    logged start and run). Of the occupied time with at most ``max_procs`` processors in
    use (the rest, ``overflow_share``, is the log running over its declared machine,
    which neither hypothesis explains): the share the demands summed over ``max_nodes``
    and the share they filled it exactly, their peak there, and the processors in use
    while every node was taken (the mean, and the share of ``max_procs`` idle then).

    Unrounded: the rule decides on these; :func:`reported` rounds them for the report."""
    n = len(jobs)
    start = np.fromiter((j.submit + j.wait for j in jobs), np.float64, n)
    run = np.fromiter((j.run for j in jobs), np.float64, n)
    size = np.fromiter((j.size for j in jobs), np.int64, n)
    demand = -(-size // per_node)  # node_demand, the same rule, on the whole array at once
    times = np.concatenate([start, start + run])
    order = np.argsort(times, kind="stable")
    steps, counts = np.unique(times[order], return_counts=True)
    last = np.cumsum(counts) - 1  # the state after every change at an instant
    in_nodes = np.cumsum(np.concatenate([demand, -demand])[order])[last]
    in_procs = np.cumsum(np.concatenate([size, -size])[order])[last]
    spans = np.diff(steps, append=steps[-1])
    occupied = spans[in_nodes > 0].sum()
    # Where the log ran more processors than it declares, neither machine holds its jobs:
    # that time (the log's own overflow, counted apart) is no evidence either way.
    within = (in_nodes > 0) & (in_procs <= max_procs)
    tested = spans[within].sum()
    over = spans[within & (in_nodes > max_nodes)].sum()
    full = within & (in_nodes == max_nodes)
    full_time = spans[full].sum()
    procs_full = float((in_procs[full] * spans[full]).sum() / full_time) if full_time else 0.0
    return {
        "occupied_days": float(occupied) / 86400,
        "overflow_share": float(1 - tested / occupied) if occupied else 0.0,
        "over_share": float(over / tested) if tested else 0.0,
        "full_share": float(full_time / tested) if tested else 0.0,
        "peak_node_demand": int(in_nodes[within].max()) if within.any() else 0,
        "processors_in_use_when_full": procs_full,
        "idle_processor_share_when_full": 1 - procs_full / max_procs if full_time else 0.0,
    }


#: Digits each figure of :func:`occupancy_figures` is reported to (the fit's report and
#: ``population.json``); a figure not named is reported as it is.
REPORTED_DIGITS = {"occupied_days": 1, "overflow_share": 4, "over_share": 4, "full_share": 4,
                   "processors_in_use_when_full": 1, "idle_processor_share_when_full": 3}


def reported(figures: dict[str, Any]) -> dict[str, Any]:
    """``figures`` rounded for the report: the rule has decided on them unrounded, so a
    share just over a tolerance is never rounded down onto it."""
    return {k: round(v, REPORTED_DIGITS[k]) if k in REPORTED_DIGITS else v for k, v in figures.items()}


def node_allocation(header: SwfHeader, jobs: Sequence[TraceJob], *, starts_recorded: bool = True) -> NodeAllocation:
    """Whether ``jobs`` (the log's kept jobs) were given whole nodes.

    With ``starts_recorded`` (the log's own waits, not simulated ones), from the log's
    occupancy: whole nodes when the node demands summed over ``MaxNodes`` for at most
    :data:`OVER_TOLERANCE` of the occupied time, and either filled every node for at
    least :data:`BINDING_SHARE` of it (the constraint was met) or the sizes are
    multiples of the processors per node (:data:`MULTIPLE_SHARE`: both machines are
    one). Without starts, from the sizes alone."""
    max_nodes, max_procs = header.size("MaxNodes"), header.size("MaxProcs")
    per_node = processors_per_node(header)
    if per_node == 1 or max_nodes is None or max_procs is None:
        return NodeAllocation(max_nodes, max_procs, 1, False, "header",
                              "one processor per node (MaxNodes = MaxProcs, or only one given): jobs take processors",
                              {})
    sizes = np.fromiter((j.size for j in jobs), np.int64, len(jobs))
    multiples = float((sizes % per_node == 0).mean()) if len(sizes) else 0.0
    figures: dict[str, Any] = {"multiple_share": round(multiples, 4)}
    machine = f"{max_nodes} nodes of {max_procs} processors, {per_node} per node (MaxProcs / MaxNodes rounded up)"
    by_sizes = multiples >= MULTIPLE_SHARE
    sizes_said = f"{multiples:.1%} of the sizes are multiples of {per_node}"
    if not starts_recorded or not jobs:
        whole = by_sizes
        why = (f"{machine}; the log records no starts, so by its sizes: {sizes_said}: "
               + ("jobs given whole nodes" if whole else "jobs given processors"))
        return NodeAllocation(max_nodes, max_procs, per_node, whole, "sizes", why, figures)
    measured = occupancy_figures(jobs, max_nodes, max_procs, per_node)
    figures.update(reported(measured))
    over, full = figures["over_share"], figures["full_share"]  # for the report, rounded
    overflow = figures["overflow_share"]
    counted = (f"counted in whole nodes, the running jobs demanded more than {max_nodes} for {over:.1%} of the"
               f" occupied time within {max_procs} processors (peak {figures['peak_node_demand']}"
               + (f"; the log ran over its {max_procs} processors for {overflow:.1%} of it, evidence of neither)"
                  if overflow else ")"))
    if measured["over_share"] > OVER_TOLERANCE:
        whole, verdict = False, "more than whole nodes could hold, so jobs shared nodes: the machine is its processors"
    elif measured["full_share"] >= BINDING_SHARE:
        whole = True
        verdict = (f"and filled every node for {full:.1%} of it, with {figures['idle_processor_share_when_full']:.0%}"
                   " of the processors idle then: jobs were given whole nodes")
    elif by_sizes:
        whole, verdict = True, f"and {sizes_said}: nodes and processors are one machine, simulated in nodes"
    else:
        whole = False
        verdict = (f"and filled every node for only {full:.1%} of it, with {sizes_said}: the log does not show"
                   " whole nodes, so jobs take processors")
    return NodeAllocation(max_nodes, max_procs, per_node, whole, "occupancy", f"{machine}; {counted}, {verdict}",
                          figures)
