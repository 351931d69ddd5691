"""Replays of the real SDSC-SP2, CTC-SP2 and KTH-SP2 logs under FCFS and EASY.

Skipped with a reason when ``SITESIM_TRACES`` is unset. Each of the 12 replays runs
once per session (cached), so the cross-scheduler comparisons cost nothing extra.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sitesim.runs.replay import ReplayConfig, ReplayResult, run_replay
from sitesim.workload.swf import SwfReader

TRACES = ("SDSC-SP2", "CTC-SP2", "KTH-SP2")
SCHEDULERS = ("fcfs", "easy")
ESTIMATES = ("trace", "exact")

_results: dict[tuple[str, str, str], ReplayResult] = {}


def replay(path: Path, scheduler: str, estimates: str) -> ReplayResult:
    key = (path.name, scheduler, estimates)
    if key not in _results:
        _results[key] = run_replay(ReplayConfig(trace=str(path), scheduler=scheduler, estimates=estimates))
    return _results[key]


def offered_load_from_trace(path: Path) -> tuple[float, int, int]:
    """Offered load recomputed from the raw records, with the replay's acceptance rules.

    Returns (load, accepted jobs, records read).
    """
    with SwfReader(path) as reader:
        nodes = reader.header.machine_size()
        assert nodes is not None
        work = 0
        first = last = None
        accepted = read = 0
        for r in reader:
            read += 1
            size = r.allocated_processors if r.allocated_processors > 0 else r.requested_processors
            if size <= 0 or r.run_time < 0 or size > nodes:
                continue
            accepted += 1
            work += size * int(r.run_time)
            first = r.submit_time if first is None else first
            last = r.submit_time
    return work / (nodes * (last - first)), accepted, read


@pytest.mark.traces
@pytest.mark.parametrize("estimates", ESTIMATES)
@pytest.mark.parametrize("scheduler", SCHEDULERS)
@pytest.mark.parametrize("name", TRACES)
def test_replay_sanity(trace_path, name: str, scheduler: str, estimates: str) -> None:
    result = replay(trace_path(name), scheduler, estimates)
    s, counts = result.summary, result.counts
    assert counts["submitted"] > 0
    assert counts["submitted"] + counts["unknown"] + counts["too_large"] == counts["read"]
    assert counts["malformed"] == 0
    assert s["completed"] == s["submitted"] == counts["submitted"], "every accepted job completes"
    assert 0 < s["utilization"] <= 1
    assert 0 < s["accepted_load"] <= 1
    assert s["mean_wait"] >= 0
    assert s["mean_response"] >= s["mean_wait"]
    assert s["mean_bounded_slowdown"] >= 1
    if estimates == "exact":
        assert s["killed"] == 0
    else:
        assert s["killed"] >= 0


@pytest.mark.traces
@pytest.mark.parametrize("estimates", ESTIMATES)
@pytest.mark.parametrize("name", TRACES)
def test_easy_waits_less_than_fcfs(trace_path, name: str, estimates: str) -> None:
    path = trace_path(name)
    fcfs = replay(path, "fcfs", estimates).summary
    easy = replay(path, "easy", estimates).summary
    assert easy["mean_wait"] < fcfs["mean_wait"]
    assert easy["mean_bounded_slowdown"] < fcfs["mean_bounded_slowdown"]
    # The same jobs are offered whatever the scheduler.
    assert easy["offered_load"] == fcfs["offered_load"]


@pytest.mark.traces
@pytest.mark.parametrize("name", TRACES)
def test_offered_load_matches_the_trace(trace_path, name: str) -> None:
    path = trace_path(name)
    load, accepted, read = offered_load_from_trace(path)
    result = replay(path, "easy", "trace")
    assert result.counts["read"] == read
    assert result.counts["submitted"] == accepted
    assert result.summary["offered_load"] == pytest.approx(load, rel=1e-12)
