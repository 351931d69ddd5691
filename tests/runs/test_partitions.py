"""Partitions end to end: site files, site-level runs, replays and the command line."""

from __future__ import annotations

import json
from pathlib import Path

import attrs
import pytest

from sitesim.cli import EXIT_INPUT, EXIT_OK, main
from sitesim.errors import InputError
from sitesim.runs.replay import ReplayConfig, run_replay
from sitesim.runs.site import DAY, SiteConfig, run_site
from sitesim.runs.sitefile import load_site_file, site_config
from sitesim.runs.policy import build_scheduler
from sitesim.schedulers.partitioned import PARTITIONED, PartitionedScheduler, PartitionSpec, load_partitions
from sitesim.sweep import Grid, run_sweep
from sitesim.sweep.store import read_rows
from sitesim.workload.job import Job
from sitesim.workload.swf import SwfRecord, read_swf, write_swf

MODELS = Path(__file__).resolve().parents[2] / "models"
SHIPPED = MODELS / "partitions.toml"


def write(tmp_path: Path, text: str, name: str = "site.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_shipped_site_file_loads() -> None:
    """A site file's [[partitions]] are a policy like any other: partitioned:FILE, which
    declares the machine size."""
    config = site_config(load_site_file(SHIPPED), {})
    assert config.scheduler == f"{PARTITIONED}:{SHIPPED}" and config.nodes == 128
    assert load_partitions(str(SHIPPED)) == (
        PartitionSpec("short", 32, "easy", max_estimate=3600),
        PartitionSpec("batch", 96, "easy"),
    )
    hash(config)
    doc = json.loads(json.dumps(attrs.asdict(config)))
    assert doc["scheduler"] == f"{PARTITIONED}:{SHIPPED}"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('scheduler = "easy"\n[[partitions]]\nname = "a"\nnodes = 4\n', "in \\[\\[partitions\\]\\]"),
        ('[[partitions]]\nname = "a"\nnodes = 4\nspeed = 2\n', r"partitions\[1\]\.speed: unknown key"),
        ('[[partitions]]\nname = "a"\n', r"partitions\[1\]: missing nodes"),
        ('[[partitions]]\nname = "a"\nnodes = "4"\n', r"partitions\[1\]\.nodes: wrong type"),
        ('[[partitions]]\nname = "a"\nnodes = 4\nmax_size = 8\n', r"partitions\[1\]\.max_size"),
        ('partitions = 3\n', "array of tables"),
        ('[[partitions]]\nname = "a"\nnodes = 4\nscheduler = "x"\n', "unknown scheduler"),
    ],
)
def test_bad_partition_tables_name_the_file_and_key(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(InputError, match=message) as info:
        load_site_file(path)
    assert info.value.path == str(path)


def test_explicit_nodes_must_match_the_partitions(tmp_path: Path) -> None:
    path = write(tmp_path, 'nodes = 100\n[[partitions]]\nname = "a"\nnodes = 4\n')
    with pytest.raises(InputError, match="differs from the partitions' total 4"):
        site_config(load_site_file(path), {})
    with pytest.raises(InputError, match="no \\[\\[partitions\\]\\]"):
        load_partitions(str(write(tmp_path, "users = 3\n", "plain.toml")))


def trace_partition_peaks(trace: Path, specs: tuple[PartitionSpec, ...]) -> list[int]:
    """Peak nodes in use per partition, routing each SWF job by its size and request."""
    router = PartitionedScheduler(specs)
    points: list[list[tuple[int, int]]] = [[] for _ in specs]
    for r in read_swf(trace)[1]:
        if r.wait_time < 0 or r.status == -1:
            continue
        j = Job(id=r.job_number, submit=0, size=r.allocated_processors, runtime=0,
                estimate=int(r.requested_time))
        i = router.route(j)
        assert i is not None
        start = int(r.submit_time + r.wait_time)
        if r.run_time > 0:
            points[i] += [(start, j.size), (start + int(r.run_time), -j.size)]
    peaks = []
    for pts in points:
        busy = peak = 0
        for _, delta in sorted(pts):
            busy += delta
            peak = max(peak, busy)
        peaks.append(peak)
    return peaks


def test_site_level_run_with_partitions_and_its_exact_replay(tmp_path: Path) -> None:
    config = site_config(load_site_file(SHIPPED), {"duration": 40 * DAY, "users": 12, "seed": 4})
    out = tmp_path / "site"
    result = run_site(config, out=out)
    parts = result.summary["partitions"]
    assert list(parts) == ["short", "batch"]
    assert sum(p["routed"] for p in parts.values()) == result.summary["submitted"]
    assert min(p["started"] for p in parts.values()) > 100  # both partitions are used
    specs = load_partitions(str(SHIPPED))
    peaks = trace_partition_peaks(out / "trace.swf", specs)
    assert peaks[0] <= 32 and peaks[1] <= 96 and peaks[1] > 32
    _, jobs = read_swf(out / "trace.swf")
    assert max(r.allocated_processors for r in jobs) <= 96  # sizes fit the largest partition
    document = json.loads((out / "summary.json").read_text())
    assert document["config"]["scheduler"] == config.scheduler
    assert document["system"]["partitions"]["short"]["nodes"] == 32
    assert f"scheduler {config.scheduler}" in (out / "trace.swf").read_text()

    replay = run_replay(
        ReplayConfig(trace=str(out / "trace.swf"), scheduler=config.scheduler, estimates="trace"),
        out=out / "replay",
    )
    assert replay.nodes == 128 and replay.counts["unroutable"] == 0
    _, replayed = read_swf(out / "replay" / "schedule.swf")
    for a, b in zip(jobs, replayed, strict=True):
        if a.wait_time >= 0:
            assert a.wait_time == b.wait_time, f"job {a.job_number} started at another time"
    assert replay.document()["partitions"]["batch"]["routed"] == parts["batch"]["routed"]


def small_trace(tmp_path: Path) -> Path:
    records = [
        SwfRecord(job_number=1, submit_time=0, run_time=100, allocated_processors=4,
                  requested_time=200, status=1, user_id=1),
        SwfRecord(job_number=2, submit_time=5, run_time=50, allocated_processors=4,
                  requested_time=100, status=1, user_id=1),
        SwfRecord(job_number=3, submit_time=6, run_time=5000, allocated_processors=8,
                  requested_time=9000, status=1, user_id=2),
        SwfRecord(job_number=4, submit_time=7, run_time=10, allocated_processors=12,
                  requested_time=20, status=1, user_id=2),  # fits no partition
    ]
    path = tmp_path / "small.swf"
    write_swf(path, records, ["; MaxProcs: 12"])
    return path


def test_replay_routes_by_request_and_counts_unroutable_jobs(tmp_path: Path) -> None:
    toml = write(tmp_path, '[[partitions]]\nname = "short"\nnodes = 4\nscheduler = "fcfs"\nmax_estimate = 3600\n'
                 '[[partitions]]\nname = "batch"\nnodes = 8\nscheduler = "easy"\n', "p.toml")
    result = run_replay(ReplayConfig(trace=str(small_trace(tmp_path)), scheduler=f"{PARTITIONED}:{toml}"))
    assert result.nodes == 12
    assert result.counts["unroutable"] == 1 and result.counts["submitted"] == 3
    assert result.partitions["short"]["routed"] == 2 and result.partitions["batch"]["routed"] == 1
    assert result.partitions["short"]["mean_wait"] == pytest.approx((0 + 95) / 2)
    assert result.system_line().split()[-2] == PARTITIONED


def test_cli_partitions_in_both_modes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = small_trace(tmp_path)
    assert main(["-c", str(trace), "--partitions", str(SHIPPED), "--out", str(tmp_path / "r")]) == EXIT_OK
    out = capsys.readouterr().out
    assert "# partition short: 32 nodes" in out and "partitioned" in out
    assert json.loads((tmp_path / "r" / "summary.json").read_text())["config"]["scheduler"] == f"{PARTITIONED}:{SHIPPED}"
    assert main(["-c", str(trace), "--partitions", str(SHIPPED), "-s", "easy"]) == EXIT_INPUT
    assert "each partition sets its own policy" in capsys.readouterr().err
    assert main(["-c", str(trace), "--partitions", str(SHIPPED), "--nodes", "64"]) == EXIT_INPUT
    capsys.readouterr()
    assert main(["--partitions", str(SHIPPED), "-u", "3", "--duration", "3"]) == EXIT_OK
    assert "# partition batch: 96 nodes, easy" in capsys.readouterr().out
    assert main(["--site", str(SHIPPED), "--duration", "3", "-u", "2"]) == EXIT_OK
    assert "#sid" in capsys.readouterr().out


PARTITIONS_TOML = str(Path(__file__).resolve().parents[2] / "models" / "partitions.toml")


def test_partitioned_by_name_equals_the_site_file_form(tmp_path: Path) -> None:
    """``-s partitioned:FILE`` is the same machine as ``--site FILE`` with partitions."""
    toml = PARTITIONS_TOML
    by_name = run_site(SiteConfig(scheduler=f"partitioned:{toml}", duration=20 * DAY, seed=3))
    by_file = run_site(site_config(load_site_file(toml), {"duration": 20 * DAY, "seed": 3}))
    for key in ("submitted", "completed", "mean_wait", "utilization", "throughput_per_day"):
        assert by_name.summary[key] == by_file.summary[key], key
    assert by_name.summary["partitions"] == by_file.summary["partitions"]


def test_partitioned_by_name_in_a_sweep(tmp_path: Path) -> None:
    toml = PARTITIONS_TOML
    grid = Grid(users=(2, 4), scheduler=(f"partitioned:{toml}",), duration=(5,))
    report = run_sweep(grid, tmp_path / "sweep.csv", executor="serial", progress=False)
    assert report.ok and report.ran == 2
    _, rows = read_rows(tmp_path / "sweep.csv")
    assert all(int(r["completed"]) > 0 for r in rows)


@pytest.mark.parametrize(
    ("spec", "nodes", "expected"),
    [
        ("partitioned", 128, "needs a file"),
        ("partitioned:missing.toml", 128, "cannot read partition file"),
        ("partitioned:{toml}", 100, "differs from the partitions' total 128"),
    ],
)
def test_partitioned_by_name_errors(spec: str, nodes: int, expected: str) -> None:
    toml = PARTITIONS_TOML
    with pytest.raises(InputError, match=expected):
        build_scheduler(spec.format(toml=toml), nodes)


def test_every_partition_under_one_policy_keeps_the_partitions() -> None:
    """``partitioned:FILE@POLICY``: what a study runs on a partitioned site."""
    from sitesim.runs.policy import under

    spec = under(f"{PARTITIONED}:{PARTITIONS_TOML}", "fcfs")
    assert spec == f"{PARTITIONED}:{PARTITIONS_TOML}@fcfs"
    assert under(spec, "cons") == f"{PARTITIONED}:{PARTITIONS_TOML}@cons"
    scheduler = build_scheduler(spec, 128)
    assert [p.scheduler for p in scheduler.specs] == ["fcfs", "fcfs"] and scheduler.nodes == 128
    assert under("easy", "fcfs") == "fcfs"
    with pytest.raises(InputError, match="needs a policy"):
        build_scheduler(f"{PARTITIONED}:{PARTITIONS_TOML}@", 128)


def test_timed_policy_in_a_partition_reports_like_the_whole_machine(tmp_path: Path) -> None:
    toml = tmp_path / "one.toml"
    toml.write_text('[[partitions]]\nname = "all"\nnodes = 128\nscheduler = "timed:fcfs:300"\n')
    inside = run_site(SiteConfig(scheduler=f"partitioned:{toml}", duration=30 * DAY, seed=2)).summary
    alone = run_site(SiteConfig(scheduler="timed:fcfs:300", duration=30 * DAY, seed=2)).summary
    part = inside["partitions"]["all"]
    assert part["ended"] == inside["completed"] == alone["completed"]
    assert part["mean_wait"] == pytest.approx(inside["mean_wait"])
    assert part["started"] <= part["routed"]
    assert part["trial_runs"] == {**alone["trial_runs"]}
    assert inside["short_threshold"] == alone["short_threshold"] == 300


def test_an_unknown_policy_is_reported_against_its_own_partition(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 34, group 12: the error named no partition, or another one."""
    from tests.helpers import one_line_error

    site = tmp_path / "p.toml"
    site.write_text('[[partitions]]\nname = "a"\nnodes = 8\nscheduler = "easy"\nmax_size = 4\n'
                    '[[partitions]]\nname = "b"\nnodes = 8\nscheduler = "bogus"\n', encoding="utf-8")
    line = one_line_error(["--site", str(site), "--duration", "1"], capsys)
    assert "partitions[2].scheduler: partition 'b': unknown scheduler 'bogus'" in line
