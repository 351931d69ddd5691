"""Jobs larger than the header's machine in ``sitesim fit``: counted in the report and
in ``population.json`` (a run clips them), and a start reconstruction that can replay
none of them refused; the starts a fit measures all come from the one replay."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitesim.cli import main
from sitesim.runs.fit import fit_log
from sitesim.workload.swf import SwfRecord, write_swf


def log(path: Path, sizes: list[int], *, machine: int = 4, waits: bool = True, nodes: int | None = None) -> Path:
    """Three users submitting every 100 s, each job 50 s long, of the given sizes."""
    records = [
        SwfRecord(n, n * 100, 3 * n if waits else -1, 50, size, -1, -1, size, 80, -1, 1, n % 3 + 1)
        for n, size in enumerate(sizes, 1)
    ]
    write_swf(path, records, [*([f"; MaxNodes: {nodes}"] if nodes else []), f"; MaxProcs: {machine}"])
    return path


def test_jobs_larger_than_the_header_machine_are_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = log(tmp_path / "big.swf", [8, 2, 6, 1] * 6)
    assert main(["fit", str(src), "-o", str(tmp_path / "site")]) == 0
    out = capsys.readouterr().out
    assert "# larger than the machine: 12 of 24 jobs ask for more than the header's machine (4; the largest 8):" \
        " a run clips them to the whole machine" in out
    provenance = json.loads((tmp_path / "site" / "population.json").read_text())["provenance"]
    assert provenance["larger_than_machine"] == {"count": 12, "largest": 8, "machine_size": 4}


def test_a_whole_node_fit_counts_them_in_nodes_against_max_nodes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 4 nodes of 4 processors; every size a multiple of 4, so the jobs took whole nodes.
    src = log(tmp_path / "big.swf", [32, 8, 24, 4] * 6, machine=16, nodes=4)
    assert main(["fit", str(src), "-o", str(tmp_path / "site")]) == 0
    out = capsys.readouterr().out
    assert "jobs given whole nodes" in out or "simulated in nodes" in out, out
    assert "# larger than the machine: 12 of 24 jobs ask for more than the header's machine (4 nodes, MaxNodes;" \
        " the largest 8 nodes): a run clips them to the whole machine; if the machine is larger, declare its size" \
        " as MaxNodes in the log's header" in out, out
    provenance = json.loads((tmp_path / "site" / "population.json").read_text())["provenance"]
    assert provenance["larger_than_machine"] == {"count": 12, "largest": 8, "machine_size": 4, "unit": "nodes"}


def test_a_log_within_its_machine_says_nothing_of_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    summary = fit_log(log(tmp_path / "fits.swf", [4, 2, 3, 1] * 6), tmp_path / "site")
    assert summary.oversized is None and "larger than the machine" not in capsys.readouterr().out
    provenance = json.loads((tmp_path / "site" / "population.json").read_text())["provenance"]
    assert "larger_than_machine" not in provenance


@pytest.mark.parametrize("waits", [True, False])
def test_starts_that_no_job_can_be_replayed_for_are_refused(
    waits: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = log(tmp_path / "big.swf", [8] * 24, waits=waits)
    before = src.read_bytes()
    assert main(["fit", str(src), "-o", str(tmp_path / "site"), "--start-policy", "easy"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "big.swf: no job could be replayed under easy on 4 nodes to simulate the starts" \
        " (24 larger_than_machine)" in err, err
    assert not (tmp_path / "site").exists() and src.read_bytes() == before


def test_jobs_left_out_of_the_replay_do_not_keep_the_logs_waits(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = log(tmp_path / "half.swf", [8, 2] * 12)
    summary = fit_log(src, tmp_path / "site", start_policy="easy")
    assert summary.starts is not None and summary.starts.replayed == 12
    assert summary.starts.left_out == {"larger_than_machine": 12}
    assert summary.jobs == 12  # the 12 too large have no simulated start: not fitted on the log's own waits
    assert summary.oversized is None
