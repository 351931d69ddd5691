"""Moldable replacement in trace replay: rigid jobs untouched, Gas's starts guaranteed."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitesim.cli import main
from sitesim.errors import InputError
from sitesim.moldable.replace import MoldableSpec
from sitesim.runs.replay import ReplayConfig, run_replay
from sitesim.workload.swf import SwfRecord, write_swf


def small_trace(path, seed: int, jobs: int = 60, nodes: int = 32):
    """A busy little log: sizes 1..nodes, runtimes up to 2 h, requests 1-3x runtime."""
    rng = np.random.default_rng(seed)
    t, records = 0, []
    for k in range(1, jobs + 1):
        t += int(rng.integers(0, 900))
        run = int(rng.integers(1, 7200))
        size = int(rng.integers(1, nodes + 1))
        req = int(run * rng.uniform(1, 3))
        records.append(SwfRecord(k, t, -1, run, size, -1, -1, size, req, -1, 1, 1 + k % 5))
    write_swf(path, records, [f"; MaxProcs: {nodes}"])
    return path


def test_no_replacement_leaves_the_schedule_byte_identical(tmp_path):
    trace = small_trace(tmp_path / "t.swf", 0)
    run_replay(ReplayConfig(trace=str(trace), scheduler="cons"), out=tmp_path / "plain")
    spec = MoldableSpec(policy="gas", fraction=0.0)
    result = run_replay(ReplayConfig(trace=str(trace), scheduler="cons", moldable=spec), out=tmp_path / "m")
    assert result.replacement is not None and result.replacement.records == []
    assert (tmp_path / "plain" / "schedule.swf").read_text().replace("cons", "") == (
        tmp_path / "m" / "schedule.swf"
    ).read_text().replace("cons", "")
    assert result.replacement.summary()["load_ratio"] == 1.0


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.integers(0, 10_000), st.sampled_from([0.3, 0.7, 1.0]))
def test_gas_never_starts_later_than_predicted_and_sizes_are_accepted(tmp_path_factory, seed, fraction):
    trace = small_trace(tmp_path_factory.mktemp("t") / "t.swf", seed, jobs=40)
    spec = MoldableSpec(policy="gas", fraction=fraction)
    result = run_replay(ReplayConfig(trace=str(trace), scheduler="cons", seed=seed, moldable=spec))
    records = result.replacement.records
    assert records
    for r in records:
        assert r.function.accepts(r.job.size)
        assert r.job.runtime == r.job.estimate == r.function.runtime(r.job.size)
        assert r.job.submit <= r.job.start <= r.predicted_start  # cons honours its reservation
    assert result.replacement.summary()["late_starts"] == 0


def test_gas_and_static_replace_the_same_jobs_with_the_same_programs(tmp_path):
    trace = small_trace(tmp_path / "t.swf", 3)
    runs = {
        p: run_replay(ReplayConfig(trace=str(trace), scheduler="cons", seed=7,
                                   moldable=MoldableSpec(policy=p, fraction=0.4)))
        for p in ("gas", "static")
    }
    gas, static = (runs[p].replacement.records for p in ("gas", "static"))
    assert [r.job.id for r in gas] == [r.job.id for r in static] and gas
    assert [r.function for r in gas] == [r.function for r in static]


def test_gas_without_an_availability_list_is_a_usage_error(tmp_path, capsys):
    trace = small_trace(tmp_path / "t.swf", 1)
    with pytest.raises(InputError, match="availability list"):
        run_replay(ReplayConfig(trace=str(trace), scheduler="easy", moldable=MoldableSpec(fraction=0.5)))
    out = tmp_path / "out"
    assert main(["-c", str(trace), "-s", "fcfs", "--moldable", "0.5", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "exports none" in err
    assert not out.exists()
    # Static reads no list, so it runs under any policy.
    static = MoldableSpec(policy="static", fraction=0.5)
    assert run_replay(ReplayConfig(trace=str(trace), scheduler="easy", moldable=static)).replacement.records


def test_cli_writes_the_moldable_block(tmp_path, capsys):
    trace = small_trace(tmp_path / "t.swf", 2)
    out = tmp_path / "out"
    argv = ["-c", str(trace), "-s", "cons", "--moldable", "0.3", "--moldable-policy", "gas",
            "--slice-days", "0.2", "--seed", "4", "--out", str(out)]
    assert main(argv) == 0
    document = json.loads((out / "summary.json").read_text())
    block = document["moldable"]
    assert {"jobs", "policy", "mean_turnaround", "median_turnaround", "max_turnaround", "load_ratio"} <= set(block)
    assert block["policy"] == "gas" and block["jobs"] == sum(s["moldable"]["jobs"] for s in document["slices"])
    assert len(document["slices"]) > 1
    again = tmp_path / "again"
    assert main(argv[:-1] + [str(again)]) == 0
    assert (again / "summary.json").read_text() == (out / "summary.json").read_text()
    with pytest.raises(SystemExit) as exit_:
        main(["-u", "2", "--moldable", "0.5"])  # a replay option at site level: usage error
    assert exit_.value.code == 2


def test_moldable_replay_with_feedback_faces_the_same_jobs_under_each_policy(tmp_path):
    trace = small_trace(tmp_path / "t.swf", 5)
    plain = run_replay(ReplayConfig(trace=str(trace), scheduler="cons", feedback="absolute"), out=tmp_path / "plain")
    none = MoldableSpec(policy="gas", fraction=0.0)
    same = run_replay(ReplayConfig(trace=str(trace), scheduler="cons", feedback="absolute", moldable=none),
                      out=tmp_path / "none")
    assert same.replacement.records == [] and same.summary == plain.summary
    runs = {
        p: run_replay(ReplayConfig(trace=str(trace), scheduler="cons", seed=2, feedback="absolute",
                                   moldable=MoldableSpec(policy=p, fraction=0.5)))
        for p in ("gas", "static")
    }
    gas, static = (runs[p].replacement.records for p in ("gas", "static"))
    # Submission order differs between the policies, the planned draws do not.
    assert sorted(r.job.id for r in gas) == sorted(r.job.id for r in static) and gas
    assert {r.job.id: r.function for r in gas} == {r.job.id: r.function for r in static}
    for p, result in runs.items():
        assert result.violations["submission"] == 0 and result.counts["submitted"] == plain.counts["submitted"]
        assert all(r.job.end >= 0 for r in result.replacement.records)
    assert runs["gas"].replacement.summary()["late_starts"] == 0
    out = tmp_path / "cli"
    argv = ["-c", str(trace), "-s", "cons", "--feedback", "absolute", "--moldable", "0.5", "--seed", "2", "--out", str(out)]
    assert main(argv) == 0
    block = json.loads((out / "summary.json").read_text())["moldable"]
    assert block["jobs"] == len(gas) and block["mean_turnaround"] == runs["gas"].replacement.summary()["mean_turnaround"]
