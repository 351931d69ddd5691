"""Schedules stay byte-identical: synthetic workloads against hashes recorded before the
scheduler speed-ups (docs/performance.md).

The quick in-suite half of ``scripts/check_schedules.py`` (which replays every shipped
log): a seeded workload that stresses what optimisations get wrong (equal submit
times, zero runtimes, kills at the estimate, missing requests, loose estimates that
make conservative backfilling compress a lot) is replayed under each scheduler and the
SHA-256 of the schedule's job records compared with the recorded value. A failure
means some job started at a different time than before: a refactor must not do that.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from sitesim.runs.replay import ReplayConfig, run_replay
from tests.helpers import stress_trace

#: (scheduler, estimates) -> SHA-256 of schedule.swf without comment lines.
RECORDED = {
    ("fcfs", "trace"): "47e5f911682b778b05b76a09e88aa7d98f0e9c8aaa0a41174300bf36c34e8e8e",
    ("easy", "trace"): "35fbb1e8be26d9648a15c6d2f6e2861b076d6a7132e4d7a6657f772f5ee600fb",
    ("cons", "trace"): "e82b48c7ef1fe48a0b50f15f56bdab643b9fd5f6de31dcc7b43d8d25078cf3d3",
    ("timed:easy", "trace"): "91e347c8ad1551e98cd401d9078b99b6c6a6b906f9584f9635f0f7028d6c0530",
    ("timed:fcfs", "trace"): "4ab49fa2bf41ec43b67ee55f37d0d5b3d43dc90f2aacbb8d96ce5bc6942208b3",
    ("easy", "f:4"): "eeed6fd4388ce1381c274a6fef5a371bb3550f7ca96c47418bcd69d1e5be2a0c",
    ("cons", "f:4"): "d87112d17806b538e1e8296324631fdee2fa1f3d90dc87e047ba1000e19dccf2",
    ("cons", "f:11"): "21a1a257fa45bc8b173c1919bb67ae11f1998bf28c27fd966201f2c5a21c0675",
}


def schedule_hash(path: Path) -> str:
    digest = hashlib.sha256()
    for line in path.read_bytes().splitlines(keepends=True):
        if not line.startswith(b";"):
            digest.update(line)
    return digest.hexdigest()


@pytest.fixture(scope="module")
def trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return stress_trace(tmp_path_factory.mktemp("identity") / "stress.swf")


@pytest.mark.parametrize(("scheduler", "estimates"), sorted(RECORDED))
def test_schedule_is_the_recorded_one(trace: Path, tmp_path: Path, scheduler: str, estimates: str) -> None:
    out = tmp_path / "out"
    run_replay(ReplayConfig(trace=str(trace), scheduler=scheduler, estimates=estimates, seed=0), out=out)
    assert schedule_hash(out / "schedule.swf") == RECORDED[(scheduler, estimates)]
