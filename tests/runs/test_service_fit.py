"""A shared log replayed under its fitted service waits as long as the log, within
±30 % (issue 33, must-show 1; docs/service.md), where EASY on the nominal machine
waits far less. Needs ``$SITESIM_TRACES``; KTH-SP2 runs by default (about 15 s), the
larger logs are marked ``slow``."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from sitesim.runs.fit import fit_log
from sitesim.runs.replay import ReplayConfig, run_replay
from sitesim.runs.sitefile import load_site_file, replay_on_site
from sitesim.workload.swf import SwfReader

LOGS = [
    pytest.param("KTH-SP2", id="KTH-SP2"),
    *(pytest.param(name, id=name, marks=pytest.mark.slow) for name in ("CTC-SP2", "SDSC-SP2", "LANL-CM5", "SDSC-BLUE")),
]


def _waits(path: Path) -> dict[int, int]:
    with SwfReader(path) as reader:
        return {int(r.job_number): int(r.wait_time) for r in reader if r.wait_time >= 0}


@pytest.mark.traces
@pytest.mark.parametrize("name", LOGS)
def test_a_log_replayed_under_its_fitted_service_waits_as_long_as_the_log(name: str, tmp_path: Path) -> None:
    traces = os.environ.get("SITESIM_TRACES")
    if not traces:
        pytest.skip("real traces not available: set SITESIM_TRACES to the traces directory")
    found = sorted(Path(traces).glob(f"{name}-*.swf*"))
    if not found:
        pytest.skip(f"{name} is not in $SITESIM_TRACES")
    trace = found[0]
    info = fit_log(trace, tmp_path / "site")
    assert info.service is not None
    site = load_site_file(tmp_path / "site" / "site.toml")
    assert site["scheduler"].startswith("service:") and site["nodes"] == info.nodes
    log = _waits(trace)
    run_replay(ReplayConfig(str(trace), **replay_on_site(site, {})), out=tmp_path / "replay", progress=False)
    replayed = _waits(tmp_path / "replay" / "schedule.swf")
    jobs = sorted(set(replayed) & set(log))
    assert len(jobs) > 0.9 * len(log)
    ratio = np.mean([replayed[j] for j in jobs]) / np.mean([log[j] for j in jobs])
    assert 0.7 <= ratio <= 1.3, f"{name}: mean wait {ratio:.2f} times the log's"
