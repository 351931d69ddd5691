"""Nodes of several processors given whole to jobs: the one rule that counts a job's
processors as nodes, and what a log's header says a replay should divide.

A log gives each job's size in processors and its machine as ``MaxNodes`` nodes of
``MaxProcs`` processors. Where the nodes went whole to jobs (docs/service.md, "The
machine as the log describes it"), a job of ``s`` processors held ``ceil(s / p)``
nodes of ``p`` processors: :func:`node_demand`, the one place that rule is written
(the fit measures a log with it, a replay and a held-out check divide sizes with it,
a header counts its machine with it).
"""

from __future__ import annotations

from typing import Protocol

from sitesim.errors import InputError


class SwfHeader(Protocol):
    """What is asked of a log's header (:class:`sitesim.workload.swf_header.SwfHeader`,
    which counts its machine with :func:`node_demand`, so it is not imported here): a
    machine size it declares under a key, None when it does not."""

    def size(self, key: str) -> int | None: ...


def node_demand(size: int, per_node: int) -> int:
    """The fewest nodes of ``per_node`` processors a job of ``size`` processors holds,
    ``ceil(size / per_node)`` in whole numbers (the fit's occupancy count applies the
    same floor division to a whole array of sizes)."""
    return -(-size // per_node)


def processors_per_node(header: SwfHeader) -> int:
    """``ceil(MaxProcs / MaxNodes)``; 1 when either is missing or there are more nodes
    than processors (a header that counts the other way)."""
    max_nodes, max_procs = header.size("MaxNodes"), header.size("MaxProcs")
    if not max_nodes or not max_procs or max_procs <= max_nodes:
        return 1
    return node_demand(max_procs, max_nodes)


def replay_divisor(header: SwfHeader, per_node: int, *, path: str | None = None) -> int:
    """What a replay given ``per_node`` processors per node divides the log's sizes by.

    Why the header is asked: a log whose sizes are processors declares ``p`` processors
    per node (``ceil(MaxProcs / MaxNodes) == p``), and its sizes are divided; a log
    whose sizes already are nodes (a site run's own trace declares ``MaxNodes =
    MaxProcs``) must not be divided a second time, so it is replayed as it is (1).
    Any other header (another count per node, or one without both keys) cannot be
    told apart from a mistake: an input error naming the option, for the caller to
    place where the value was given (``--processors-per-node``, or a site file's key).
    """
    if per_node == 1:
        return 1
    max_nodes, max_procs = header.size("MaxNodes"), header.size("MaxProcs")
    if max_nodes is None or max_procs is None:
        raise InputError(
            f"{per_node} processors per node, but the header of {path or 'the trace'} does not declare both"
            " MaxNodes and MaxProcs (needed to tell sizes in processors from sizes in nodes)",
            field="--processors-per-node",
        )
    if max_nodes == max_procs:
        return 1
    declared = processors_per_node(header)
    if declared != per_node:
        raise InputError(
            f"{per_node} processors per node, but the header of {path or 'the trace'} declares"
            f" {max_procs} processors on {max_nodes} nodes ({declared} per node)",
            field="--processors-per-node",
        )
    return per_node


def sizes_note(per_node: int) -> str:
    """The header line of a schedule whose sizes are whole nodes of ``per_node``
    processors (a whole-node site's trace, a whole-node replay's schedule): its
    ``MaxProcs`` may still count processors, its jobs count nodes."""
    return f"; Note: sizes are whole nodes of {per_node} processors each (processors_per_node)"
