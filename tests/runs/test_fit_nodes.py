"""A whole-node log through ``sitesim fit`` and back: fitted, served and replayed in
nodes; a log whose jobs shared nodes stays in processors; sites and replays without
``processors_per_node`` keep their bytes; a bad value is one line naming file and key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitesim.cli import main
from sitesim.runs.fit import fit_log
from sitesim.runs.replay import ReplayConfig, run_replay
from sitesim.workload.swf import SwfRecord, read_swf, write_swf

DAY = 86_400
#: 4 nodes of 14 processors (two of 4, two of 3), as OSC-Clust's 57 nodes of 178.
HEADER = ["; UnixStartTime: 0", "; MaxNodes: 4", "; MaxProcs: 14"]


def cluster_log(path: Path, *, whole: bool, days: int = 12) -> Path:
    """Six users' one-processor jobs of 20 minutes, in bursts of eight a few times a
    day. ``whole``: four run at once, each on a node, and four wait for them (ten
    processors idle meanwhile); else all eight start at once (nodes shared)."""
    records, n = [], 0
    for day in range(days):
        for hour in (9, 11, 14, 16):
            submit = day * DAY + hour * 3600 + 60 * (day % 5)
            for k in range(8):
                n += 1
                wait = 1196 if whole and k >= 4 else 0  # each as one of the first four ends
                records.append(SwfRecord(n, submit + k, wait, 1200, 1, -1, -1, 1, 1800, -1, 1,
                                         (n + day) % 6 + 1, 1, -1, 1, -1, -1, -1))
    write_swf(path, records, HEADER)
    return path


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("whole")
    log = cluster_log(root / "cluster.swf", whole=True)
    fit_log(log, root / "site")
    return log, root / "site"


def test_one_processor_jobs_that_held_nodes_fit_a_site_of_nodes(whole: tuple[Path, Path]) -> None:
    _log, site = whole
    toml = (site / "site.toml").read_text()
    assert "\nnodes = 4\n" in toml and "\nprocessors_per_node = 4\n" in toml
    assert "jobs were given whole nodes" in toml
    provenance = json.loads((site / "population.json").read_text())["provenance"]
    machine = provenance["service"]["machine"]
    assert machine["whole_nodes"] and machine["decided_by"] == "occupancy" and machine["nodes"] == 4
    assert machine["measured"]["over_share"] == 0.0 and machine["measured"]["processors_in_use_when_full"] == 4.0
    assert provenance["machine_size_from"] == "header (MaxNodes: jobs given whole nodes)"
    # In nodes, no job fit in idle nodes while it waited: the log's queueing is the machine's own,
    # and the calibration's replay (in nodes, under EASY) already waits like the log.
    service = provenance["service"]["service"]
    assert service["mean_fit_wait"] == 0.0
    replay = service["calibration"]["replays"][0]["mean_wait"]
    assert replay["log"] > 0 and replay["replay"] == pytest.approx(replay["log"], rel=0.05)


def test_the_log_replayed_in_nodes_waits_and_in_processors_does_not(whole: tuple[Path, Path], tmp_path: Path) -> None:
    log, _site = whole
    nodes = run_replay(ReplayConfig(trace=str(log), scheduler="easy", processors_per_node=4))
    processors = run_replay(ReplayConfig(trace=str(log), scheduler="easy"))
    assert nodes.nodes == 4 and processors.nodes == 14  # the header's MaxNodes, else MaxProcs
    assert nodes.summary["mean_wait"] > 500 and processors.summary["mean_wait"] == 0
    assert nodes.document()["config"]["processors_per_node"] == 4
    assert "processors_per_node" not in processors.document()["config"]  # its bytes as before


def test_a_replay_under_the_site_divides_the_logs_sizes_the_same_way(
    whole: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log, site = whole
    out = tmp_path / "replay"
    assert main(["-c", str(log), "--site", str(site / "site.toml"), "-s", "easy", "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["config"]["processors_per_node"] == 4 and summary["config"]["nodes_used"] == 4
    assert summary["system"]["mean_wait"] > 500
    assert {r.allocated_processors for r in read_swf(out / "schedule.swf")[1]} == {1}


def test_the_fitted_site_runs_in_nodes(whole: tuple[Path, Path], tmp_path: Path) -> None:
    _log, site = whole
    out = tmp_path / "run"
    assert main(["--site", str(site / "site.toml"), "--duration", "3", "--out", str(out)]) == 0
    trace = (out / "trace.swf").read_text()
    assert "; Note: sizes are whole nodes of 4 processors each (processors_per_node)" in trace
    assert "; MaxNodes: 4\n" in trace
    assert json.loads((out / "summary.json").read_text())["config"]["processors_per_node"] == 4
    assert all(0 < r.allocated_processors <= 4 for r in read_swf(out / "trace.swf")[1] if r.allocated_processors > 0)


def test_jobs_that_shared_nodes_keep_a_site_of_processors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = cluster_log(tmp_path / "shared.swf", whole=False)
    assert main(["fit", str(log), "-o", str(tmp_path / "site")]) == 0
    out = capsys.readouterr().out
    assert "# machine: 14 nodes; 4 nodes of 14 processors, 4 per node" in out and "jobs shared nodes" in out
    toml = (tmp_path / "site" / "site.toml").read_text()
    assert "\nnodes = 14\n" in toml and "processors_per_node" not in toml


def test_processors_per_node_one_is_every_run_as_before(tmp_path: Path) -> None:
    log = cluster_log(tmp_path / "c.swf", whole=True, days=2)
    plain, ones = tmp_path / "plain.toml", tmp_path / "ones.toml"
    plain.write_text("users = 3\nscheduler = \"easy\"\nnodes = 16\nduration = 2\n")
    ones.write_text(plain.read_text() + "processors_per_node = 1\n")
    outputs = {}
    for site in (plain, ones):
        out = tmp_path / site.stem
        assert main(["--site", str(site), "--out", str(out)]) == 0
        assert main(["-c", str(log), "--site", str(site), "--out", str(out / "replay")]) == 0
        outputs[site.stem] = [(out / f).read_bytes() for f in ("summary.json", "trace.swf", "replay/summary.json",
                                                                  "replay/schedule.swf")]
    assert outputs["plain"] == outputs["ones"]
    assert b'"processors_per_node"' not in b"".join(outputs["plain"])  # no config key, as before


@pytest.mark.parametrize("value", ["0", "-4", '"four"', "2.5"])
def test_a_bad_processors_per_node_names_the_file_and_the_key(
    tmp_path: Path, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    site = tmp_path / "site.toml"
    site.write_text(f"users = 3\nduration = 1\nprocessors_per_node = {value}\n")
    assert main(["--site", str(site), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and f"{site}: processors_per_node: " in err, err
    assert not (tmp_path / "out").exists()


def test_a_whole_node_log_is_measured_in_nodes_against_its_site(whole: tuple[Path, Path], tmp_path: Path) -> None:
    from sitesim.experiments.validation import trace_signatures

    log, _site = whole
    info = fit_log(log, tmp_path / "again")
    assert info.processors_per_node == 4 and info.nodes == 4
    in_nodes = trace_signatures(log, per_node=info.processors_per_node)
    in_processors = trace_signatures(log)
    assert set(in_nodes.sizes) == {1.0} == set(in_processors.sizes)  # one node, one processor
    # the same node-seconds on 4 nodes, against processor-seconds on 14 processors
    assert in_nodes.values["utilization"] == pytest.approx(in_processors.values["utilization"] * 14 / 4)


def test_a_site_runs_own_trace_is_replayed_in_its_nodes_undivided(tmp_path: Path) -> None:
    site = tmp_path / "site.toml"
    site.write_text('users = 6\nnodes = 8\nduration = 2\nscheduler = "fcfs"\nprocessors_per_node = 4\n')
    assert main(["--site", str(site), "--out", str(tmp_path / "run")]) == 0
    trace = tmp_path / "run" / "trace.swf"
    on_site = tmp_path / "on_site"
    assert main(["-c", str(trace), "--site", str(site), "--out", str(on_site)]) == 0
    plain = run_replay(ReplayConfig(trace=str(trace), scheduler="fcfs", nodes=8))
    replayed = json.loads((on_site / "summary.json").read_text())
    assert replayed["system"]["mean_wait"] == plain.summary["mean_wait"] > 0
    records = read_swf(on_site / "schedule.swf")[1]
    assert [r.allocated_processors for r in records] == [r.allocated_processors for r in read_swf(trace)[1]]
    # The trace's own note, carried with its header; the replay divided nothing, so adds none.
    assert (on_site / "schedule.swf").read_text().count("; Note: sizes are whole nodes") == 1


def test_a_whole_node_replay_notes_its_sizes_in_the_schedule(whole: tuple[Path, Path], tmp_path: Path) -> None:
    log, _site = whole
    run_replay(ReplayConfig(trace=str(log), scheduler="easy", processors_per_node=4), out=tmp_path / "r")
    schedule = (tmp_path / "r" / "schedule.swf").read_text()
    assert "; Note: sizes are whole nodes of 4 processors each (processors_per_node)\n" in schedule
    assert "; MaxNodes: 4\n; MaxProcs: 14\n" in schedule


def test_processors_per_node_the_header_does_not_declare_is_blamed_where_given(
    whole: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log, _site = whole
    from tests.helpers import one_line_error

    flag = one_line_error(["-c", str(log), "--processors-per-node", "8", "--out", str(tmp_path / "a")], capsys)
    assert "--processors-per-node: 8 processors per node, but the header of" in flag
    assert "declares 14 processors on 4 nodes (4 per node)" in flag
    site = tmp_path / "site.toml"
    site.write_text("nodes = 4\nprocessors_per_node = 2\n")
    keyed = one_line_error(["-c", str(log), "--site", str(site), "--out", str(tmp_path / "b")], capsys)
    assert f"{site}: processors_per_node: 2 processors per node" in keyed
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_the_validation_script_replays_a_whole_node_log_in_its_nodes(
    whole: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    scripts = Path(__file__).resolve().parents[2] / "scripts"
    monkeypatch.syspath_prepend(str(scripts))  # the script's own helpers sit beside it
    spec = importlib.util.spec_from_file_location("validate_population", scripts / "validate_population.py")
    assert spec and spec.loader
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    log, _site = whole
    info = fit_log(log, log.parent / "again")
    rows = script.replays(log, 12 * DAY, info.starts, info.processors_per_node)
    # In nodes the log's second four wait for the first (in processors, on 14, none would).
    assert rows["conventional replay"]["mean_wait"] > 500
