"""The benchmark's reference EASY loop (scripts/reference_easy.py) gives sitesim's schedule.

``scripts/bench.py --compare`` divides sitesim's time by that loop's, which means
something only if both do the same work: every job must start at the same instant.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from sitesim.runs.replay import ReplayConfig, run_replay
from tests.helpers import stress_trace

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "reference_easy.py"


def reference():
    spec = importlib.util.spec_from_file_location("reference_easy", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def sitesim_starts(trace: Path, out: Path) -> list[int]:
    run_replay(ReplayConfig(trace=str(trace), scheduler="easy"), out=out)
    starts = []
    for line in (out / "schedule.swf").read_text().splitlines():
        if not line.startswith(";"):
            fields = line.split()
            starts.append(int(fields[1]) + int(fields[2]))  # submit + wait
    return starts


@pytest.mark.parametrize(("seed", "nodes"), [(14, 32), (3, 8), (5, 64)])
def test_reference_loop_starts_every_job_when_sitesim_does(tmp_path: Path, seed: int, nodes: int) -> None:
    trace = stress_trace(tmp_path / "t.swf", n=800, seed=seed, nodes=nodes)
    ref = reference()
    machine, jobs = ref.read_trace(str(trace))
    assert machine == nodes
    expect = sitesim_starts(trace, tmp_path / "out")
    assert len(jobs) == len(expect) > 700
    assert ref.simulate(machine, jobs) == expect
    assert ref.simulate_on_simpy(machine, jobs) == expect


def test_reference_loop_command(tmp_path: Path) -> None:
    trace = stress_trace(tmp_path / "t.swf", n=50)
    assert reference().main([str(trace)]) == 0
    assert reference().main(["--simpy", str(trace)]) == 0
    assert reference().main([]) == 2
    assert reference().main(["--simpy"]) == 2
