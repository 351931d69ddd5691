"""Repetitions, statuses and estimate ratios on hand-made traces."""

from __future__ import annotations

from sitesim.analysis.workpool import analyze_workpool, executable_informative, repetition_runs
from tests.analysis.helpers import tj


def lengths(jobs, **kw) -> list[int]:
    return [len(r) for r in repetition_runs(jobs, **kw)]


def test_repetitions_with_executable() -> None:
    jobs = [
        tj(1, 0, 100, size=8, exe=7),
        tj(2, 1, 9000, size=8, exe=7),  # same program and size, runtime irrelevant
        tj(3, 2, 100, size=16, exe=7),  # other size
        tj(4, 3, 100, size=16, exe=9),  # other program
        tj(5, 4, 100, size=16, exe=9),
    ]
    assert lengths(jobs) == [2, 1, 2]


def test_repetitions_without_executable_use_runtime_tolerance() -> None:
    # tolerance max(60 s, 10 %) of the run's FIRST job
    long = [tj(1, 0, 1000), tj(2, 1, 1100), tj(3, 2, 900), tj(4, 3, 1101)]
    assert lengths(long) == [3, 1]
    short = [tj(1, 0, 10), tj(2, 1, 70), tj(3, 2, 71)]
    assert lengths(short) == [2, 1]
    drift = [tj(1, 0, 1000), tj(2, 1, 1090), tj(3, 2, 1180)]  # no chaining
    assert lengths(drift) == [2, 1]
    sizes = [tj(1, 0, 1000, size=4), tj(2, 1, 1000, size=8)]
    assert lengths(sizes) == [1, 1]


def test_unknown_executable_on_one_side_falls_back_to_runtime() -> None:
    jobs = [tj(1, 0, 100, exe=5), tj(2, 1, 120, exe=-1), tj(3, 2, 100, exe=6)]
    assert lengths(jobs) == [2, 1]


def test_uninformative_executables_are_ignored() -> None:
    unique = [tj(i, i, 100, exe=i) for i in range(10)]  # a fresh id per submission
    assert not executable_informative(unique)
    wp = analyze_workpool(unique)
    assert not wp.executable_used
    assert wp.repetitions.tolist() == [10]
    shared = [tj(i, i, 100 * (i + 1), exe=i % 2) for i in range(10)]
    assert executable_informative(shared)
    assert analyze_workpool(shared).repetitions.tolist() == [1] * 10


def test_repetitions_are_per_user() -> None:
    jobs = [tj(1, 0, 100, user=1), tj(2, 1, 100, user=2), tj(3, 2, 100, user=1)]
    wp = analyze_workpool(jobs)
    assert sorted(wp.repetitions.tolist()) == [1, 2]
    assert wp.run_sizes.size == 2


def test_status_estimate_and_failed_runtime() -> None:
    jobs = [
        tj(1, 0, 100, status=1, req=200),
        tj(2, 1, 50, status=0, req=500),
        tj(3, 2, 0, status=1, req=100),  # runtime 0: no ratio
        tj(4, 3, 10, status=5, req=-1),  # requested time unknown: no ratio
    ]
    wp = analyze_workpool(jobs)
    assert wp.status_counts == {"failed": 1, "completed": 2, "partial": 0, "cancelled": 1, "other": 0}
    assert wp.status_fractions()["completed"] == 0.5
    assert wp.estimate_ratio.tolist() == [2.0, 10.0]
    assert wp.failed_runtimes.tolist() == [50.0]
    assert wp.sizes.tolist() == [1, 1, 1, 1]
