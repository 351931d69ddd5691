"""Measuring a log's service: fit-waits by hand on tiny logs, size classes, the machine's
findings (processors per node, queues owning nodes), and a fit that reads back."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from sitesim.analysis.cleaning import TraceJob
from sitesim.analysis.level_copula import PER_USER_LEVELS
from sitesim.analysis.nodes import node_allocation
from sitesim.analysis.service import (
    LEVELS,
    MIN_CLASS,
    ServiceFit,
    fit_service,
    fit_waits,
    machine_findings,
    size_classes,
)
from sitesim.errors import InputError
from sitesim.schedulers.service import DelayModel
from sitesim.workload.swf_header import SwfHeader


def measured_service(jobs: list[TraceJob], nodes: int, header: SwfHeader, **given: Any) -> ServiceFit:
    """The service fitted as ``sitesim fit`` fits it: on the allocation measured first."""
    return fit_service(jobs, nodes, header, allocation=node_allocation(header, jobs), **given)


EIGHT = SwfHeader(["; MaxNodes: 8"])


def arrays(rows: list[tuple[int, int, int, int]]) -> tuple[np.ndarray, ...]:
    submit, wait, run, size = (np.array(c, dtype=float) for c in zip(*rows, strict=True))
    return submit, wait, run, size.astype(np.int64)


def test_fit_wait_counts_only_the_time_the_job_fit_in_idle_nodes() -> None:
    # 4 nodes. Job A (3 nodes) runs 0..100. Job B (2 nodes) waits 0..150: it fits
    # from 100 (A ends) to 150, 50 s. Job C (1 node) waits 10..40 while one node is
    # idle: 30 s. Job D waits 0 s: nothing.
    rows = [(0, 0, 100, 3), (0, 150, 10, 2), (10, 30, 5, 1), (200, 0, 5, 4)]
    assert list(fit_waits(*arrays(rows), nodes=4)) == [0.0, 50.0, 30.0, 0.0]


def test_nodes_in_use_above_the_machine_leave_none_idle() -> None:
    # Two 4-node jobs overlap on a 4-node machine (as logs sometimes record): job 3
    # waiting 0..50 fits only from 30, when the first ends and the second keeps 4.
    rows = [(0, 0, 30, 4), (0, 0, 100, 4), (0, 50, 1, 1)]
    assert fit_waits(*arrays(rows), nodes=5)[2] == 20.0  # 5 nodes: one idle from 30 on


def test_size_classes_merge_until_each_holds_enough_jobs() -> None:
    sizes = np.array([1] * MIN_CLASS + [2] * 10 + [3] * (MIN_CLASS - 10) + [16] * 5)
    assert size_classes(sizes, 16) == [1, 16]  # 2-4 join up to 100; the last 5 join them
    assert size_classes(np.array([1, 2]), 8) == [8]  # too few for any class: one


def job(n: int, submit: float, wait: float, run: float, size: int, queue: int = -1, user: int = 1) -> TraceJob:
    return TraceJob(n, submit, wait, run, size, run, 1, user, -1, queue)


def test_the_machine_findings_tell_processors_from_nodes_and_shared_queues_from_partitions() -> None:
    header = SwfHeader(["; MaxNodes: 8", "; MaxProcs: 64"])
    whole = [job(i, i, 0, 10, 8 * (1 + i % 2)) for i in range(20)]
    found = machine_findings(header, whole, 64, node_allocation(header, whole))
    assert found["processors_per_node"] == 8 and found["whole_nodes"]
    assert not machine_findings(header, [job(1, 0, 0, 1, 3)], 64, node_allocation(header, [job(1, 0, 0, 1, 3)]))["whole_nodes"]
    # queue 1 only ever uses 2 nodes, queue 2 at most 6: they could own 2 + 6 of 8
    apart = [job(i, i * 10, 0, 5, 2, queue=1) for i in range(5)] + [job(9, 0, 0, 100, 6, queue=2)]
    queues = machine_findings(EIGHT, apart, 8, node_allocation(EIGHT, apart))["queues"]
    assert queues["disjoint"] and queues["peak_nodes"] == {"1": 2, "2": 6}
    shared = apart + [job(10, 200, 0, 5, 8, queue=1)]
    assert not machine_findings(EIGHT, shared, 8, node_allocation(EIGHT, shared))["queues"]["disjoint"]


def test_a_fit_gives_each_class_the_quantiles_of_its_fit_waits() -> None:
    # 200 one-node jobs, each waiting 60 s on an empty 4-node machine: all fit-wait 60.
    jobs = [job(i, i * 1000, 60, 10, 1) for i in range(200)]
    fit = measured_service(jobs, 4, SwfHeader(["; MaxNodes: 4"]))
    assert fit.size_classes == (4,) and set(fit.delays[0]) == {60.0}
    assert DelayModel(fit.size_classes, fit.delays).draw(1, np.random.default_rng(0)) == 60
    assert fit.findings["service"]["mean_fit_wait"] == 60.0
    simulated = measured_service(jobs, 4, SwfHeader([]), simulated="under easy")
    assert set(simulated.delays[0]) == {0.0} and "records no waits" in simulated.findings["service"]["why"]


def test_the_fit_writes_recorded_levels_or_per_user_ones_with_their_dependence_by_the_gap() -> None:
    rng = np.random.default_rng(3)
    jobs = [job(i, i * 30, float(rng.integers(0, 10_000)), 10, 1, user=i % 2) for i in range(400)]
    recorded = measured_service(jobs, 4, SwfHeader(["; MaxNodes: 4"]), level_model="recorded")
    waits = np.array([j.wait for j in jobs])
    assert recorded.levels == "recorded" and not recorded.level_rho
    assert recorded.recorded_waits == (tuple(float(v) for v in np.round(np.quantile(waits, np.linspace(0, 1, LEVELS)))),)
    assert measured_service(jobs, 4, SwfHeader(["; MaxNodes: 4"])).levels == "recorded"  # the default
    fit = measured_service(jobs, 4, SwfHeader(["; MaxNodes: 4"]), level_model="gaussian")
    assert fit.levels == PER_USER_LEVELS and len(fit.level_rho) == len(fit.level_gaps) + 1
    assert fit.level_repeat == () and fit.findings["service"]["level_rho"]["rho"] == list(fit.level_rho)
    mixture = measured_service(jobs, 4, SwfHeader(["; MaxNodes: 4"]), level_model="mixture")
    assert len(mixture.level_repeat) == len(mixture.level_rho) == len(fit.level_rho)
    assert mixture.findings["service"]["level_dependence"]["rho"] == list(mixture.level_rho)
    with pytest.raises(InputError, match="unknown levels"):  # never a silent fall back to the default
        measured_service(jobs, 4, SwfHeader(["; MaxNodes: 4"]), level_model="mixtures")


def test_the_machine_is_never_measured_again_without_the_fits_allocation() -> None:
    """The fit measures nodes against processors once, on the log's own starts or
    without them; a service fitted without that allocation would measure it again, on
    recorded starts, and may conclude otherwise: so it must be given."""
    jobs = [job(1, 0, 0, 1, 3)]
    for call in (lambda: machine_findings(EIGHT, jobs, 8),  # type: ignore[call-arg]
                 lambda: fit_service(jobs, 8, EIGHT)):  # type: ignore[call-arg]
        with pytest.raises(TypeError, match="allocation"):
            call()
