"""Partitioned scheduler: routing, validation, capacity and isolation of each partition.

The strongest check is isolation: a partition's jobs must start exactly when they would
on a machine of the partition's size running only them under the partition's policy.
That holds for FCFS and EASY because a scheduling pass triggered by another partition's
event changes nothing for a partition whose state did not change.
"""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from sitesim.errors import InputError
from sitesim.schedulers.partitioned import (
    PARTITIONED,
    PartitionedScheduler,
    PartitionSpec,
    check_partitions,
    label,
    shadows,
)
from sitesim.workload.job import Job
from tests.helpers import job, max_concurrent_nodes, run_jobs

SHORT_BATCH = (
    PartitionSpec("short", 32, "easy", max_estimate=3600),
    PartitionSpec("batch", 96, "easy"),
)


def routed(specs: tuple[PartitionSpec, ...], j: Job) -> str | None:
    i = PartitionedScheduler(specs).route(j)
    return None if i is None else specs[i].name


def test_routing_is_first_match_by_size_and_estimate() -> None:
    assert routed(SHORT_BATCH, job(1, 0, 8, 100, 600)) == "short"
    assert routed(SHORT_BATCH, job(2, 0, 32, 100, 3600)) == "short"  # thresholds inclusive
    assert routed(SHORT_BATCH, job(3, 0, 8, 100, 3601)) == "batch"
    assert routed(SHORT_BATCH, job(4, 0, 33, 100, 60)) == "batch"  # too big for short
    assert routed(SHORT_BATCH, job(5, 0, 97, 100, 60)) is None  # fits no partition
    specs = (PartitionSpec("small", 16, "fcfs", max_size=4), PartitionSpec("big", 16, "fcfs"))
    assert routed(specs, job(6, 0, 4, 10)) == "small"
    assert routed(specs, job(7, 0, 5, 10)) == "big"


def test_unroutable_submission_is_an_input_error() -> None:
    specs = (PartitionSpec("short", 8, "fcfs", max_estimate=60),)
    scheduler = PartitionedScheduler(specs)
    assert not scheduler.admits(job(1, 0, 2, 10, 61))
    with pytest.raises(InputError, match="fits no partition"):
        run_jobs([job(1, 0, 2, 10, 61)], 8, scheduler)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": "", "nodes": 4}, "non-empty name"),
        ({"name": "a", "nodes": 0}, "nodes must be positive"),
        ({"name": "a", "nodes": 4, "max_size": 5}, "max_size must be in 1..4"),
        ({"name": "a", "nodes": 4, "max_estimate": 0}, "max_estimate must be positive"),
    ],
)
def test_bad_partition_specs(kwargs: dict, message: str) -> None:
    with pytest.raises(InputError, match=message):
        PartitionSpec(**kwargs)


def test_partition_lists_are_validated_as_a_whole() -> None:
    with pytest.raises(InputError, match="at least one"):
        check_partitions([])
    with pytest.raises(InputError, match="duplicate partition name"):
        check_partitions([PartitionSpec("a", 4), PartitionSpec("a", 4)])
    with pytest.raises(InputError, match="unknown scheduler"):
        check_partitions([PartitionSpec("a", 4, "nosuch")])
    with pytest.raises(InputError, match="cannot itself be partitioned"):
        check_partitions([PartitionSpec("a", 4, PARTITIONED)])
    with pytest.raises(InputError, match="does not share out nodes"):
        check_partitions([PartitionSpec("a", 4, "hold")])
    check_partitions([PartitionSpec("a", 4, "hold:easy")])
    assert label(SHORT_BATCH) == "short:32:easy(est<=3600)+batch:96:easy"


def test_each_partition_keeps_its_policy() -> None:
    """Same job shape in an FCFS and an EASY partition: only EASY backfills."""
    specs = (
        PartitionSpec("quick", 4, "fcfs", max_estimate=100),
        PartitionSpec("long", 4, "easy"),
    )
    jobs = [
        job(1, 0, 3, 50),  # quick: runs 0-50
        job(2, 1, 4, 50),  # quick: needs the whole partition, waits until 50
        job(3, 2, 1, 10),  # quick: would fit now, but FCFS never passes the head
        job(4, 0, 3, 200),  # long: runs 0-200
        job(5, 1, 4, 200),  # long: waits until 200
        job(6, 2, 1, 150),  # long: EASY backfills it (ends at 152 <= shadow 200)
    ]
    starts = run_jobs(jobs, 8, PartitionedScheduler(specs)).starts()
    assert starts == {1: 0, 4: 0, 6: 2, 2: 50, 3: 100, 5: 200}


@st.composite
def partitioned_workloads(draw: st.DrawFn):
    """Two or three partitions (the last a catch-all) and up to 30 jobs that all route."""
    k = draw(st.integers(2, 3))
    specs = []
    for i in range(k):
        nodes = draw(st.integers(1, 8))
        last = i == k - 1
        specs.append(PartitionSpec(
            f"p{i}", nodes, draw(st.sampled_from(["fcfs", "easy"])),
            max_size=None if last else draw(st.one_of(st.none(), st.integers(1, nodes))),
            max_estimate=None if last else draw(st.one_of(st.none(), st.integers(1, 150))),
        ))
    # A partition an earlier one shadows is refused (it could never receive a job).
    assume(not any(shadows(a, b) for i, b in enumerate(specs) for a in specs[:i]))
    largest_last = specs[-1].nodes
    jobs = []
    t = 0
    for n in range(draw(st.integers(1, 30))):
        t += draw(st.sampled_from([0, 0, 1, 3, 10, 40]))
        runtime = draw(st.integers(0, 120))
        estimate = draw(st.one_of(st.integers(runtime, 200), st.integers(0, 120)))
        jobs.append(job(n + 1, t, draw(st.integers(1, largest_last)), runtime, estimate))
    return tuple(specs), jobs


def fresh(jobs: list[Job]) -> list[Job]:
    return [job(j.id, j.submit, j.size, j.runtime, j.estimate) for j in jobs]


@settings(max_examples=120, deadline=None)
@given(partitioned_workloads())
def test_partitions_never_exceed_their_nodes_and_run_in_isolation(case) -> None:
    specs, jobs = case
    scheduler = PartitionedScheduler(specs)
    total = sum(p.nodes for p in specs)
    groups: dict[int, list[Job]] = {}
    for j in jobs:
        groups.setdefault(scheduler.route(j), []).append(j)
    recorder = run_jobs(jobs, total, scheduler)
    assert len(recorder.ended) == len(jobs)  # every job ran
    assert scheduler.free == [p.nodes for p in specs]
    for i, members in groups.items():
        spec = specs[i]
        assert max_concurrent_nodes(members) <= spec.nodes
        alone = fresh(members)
        run_jobs(alone, spec.nodes, spec.scheduler)
        assert [j.start for j in members] == [j.start for j in alone], spec
    stats = scheduler.report(window=1)["partitions"]
    assert sum(s["routed"] for s in stats.values()) == len(jobs)
    assert sum(s["started"] for s in stats.values()) == len(jobs)


@settings(max_examples=60, deadline=None)
@given(partitioned_workloads())
def test_a_single_partition_is_the_plain_policy(case) -> None:
    _specs, jobs = case
    nodes = max(j.size for j in jobs)
    for policy in ("fcfs", "easy"):
        one = fresh(jobs)
        run_jobs(one, nodes, PartitionedScheduler([PartitionSpec("all", nodes, policy)]))
        plain = fresh(jobs)
        run_jobs(plain, nodes, policy)
        assert [(j.start, j.end) for j in one] == [(j.start, j.end) for j in plain]


def test_a_partition_that_can_never_receive_a_job_is_refused() -> None:
    """Issue case 16: an earlier catch-all takes everything a later partition would."""
    with pytest.raises(InputError, match="'late' can never receive a job.*'all'"):
        check_partitions([PartitionSpec("all", 64), PartitionSpec("late", 32, max_estimate=3600)])
    with pytest.raises(InputError, match="'b' can never"):
        check_partitions([PartitionSpec("a", 32, max_estimate=100), PartitionSpec("b", 16, max_estimate=50)])
    # Reachable: a wider job or a longer estimate gets past the earlier partition.
    check_partitions([PartitionSpec("short", 32, max_estimate=3600), PartitionSpec("rest", 96)])
    check_partitions([PartitionSpec("small", 64, max_size=8), PartitionSpec("rest", 32)])
