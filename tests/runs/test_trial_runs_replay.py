"""End to end: KTH-SP2 under timed:easy against easy, trace estimates and failures.

Sanity, not numbers: the same jobs end, every job gets exactly one trial, the short
jobs are exactly those that end in their trial, each killed job is restarted once,
the useful work is the same, and short (and failed short) jobs wait less on average.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from sitesim.runs.replay import ReplayConfig, run_replay


def test_kth_timed_easy_against_easy(trace_path: Callable[[str], Path], tmp_path: Path) -> None:
    trace = str(trace_path("KTH-SP2"))
    runs = {
        s: run_replay(
            ReplayConfig(trace=trace, scheduler=s, estimates="trace", failures="trace"),
            tmp_path / s.replace(":", "-"),
        )
        for s in ("easy", "timed:easy")
    }
    easy, timed = runs["easy"].summary, runs["timed:easy"].summary
    trials = runs["timed:easy"].trial_runs
    assert timed["completed"] == easy["completed"] == timed["submitted"]
    assert timed["failed"] == easy["failed"] > 0
    assert trials["trials"] == timed["completed"]
    assert trials["ended_in_trial"] == timed["short_jobs"] == easy["short_jobs"]
    assert trials["killed"] == trials["restarted"] == timed["restarted"] == timed["killed_runs"]
    assert 0 < timed["restarted"] < timed["completed"] - timed["short_jobs"]
    assert easy["killed_runs"] == easy["wasted_work"] == 0 and timed["wasted_work"] > 0
    used = [r.metrics.system.used_work for r in runs.values()]
    assert used[0] == used[1]
    assert timed["utilization"] <= 1.0 and timed["useful_utilization"] < timed["utilization"]
    assert timed["mean_wait_short"] < easy["mean_wait_short"]
    assert timed["mean_wait_failed_short"] < easy["mean_wait_failed_short"]
    assert timed["mean_first_wait"] < easy["mean_first_wait"] == easy["mean_wait"]
    assert timed["max_wait"] >= timed["max_wait_short"] >= timed["max_wait_failed_short"]
    assert (tmp_path / "timed-easy" / "summary.json").read_text().count('"trial_runs"') == 1
