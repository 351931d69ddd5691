"""The model fingerprint: stable across processes, changed by any model input, and a
row made with another model is never resumed or reused."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sitesim.errors import InputError
from sitesim.runs.site import SiteConfig
from sitesim.sweep.fingerprint import digest, fingerprint, site_model, stamp
from sitesim.sweep.grid import Grid, Point
from sitesim.sweep.runner import run_sweep
from sitesim.sweep.store import read_rows

from tests.sweep.helpers import fake_run, small_trace

SITE = Point(mode="site", scheduler="fcfs", estimates="exact", seed=0, nodes=128, users=2,
             submittal="batch", workpool="plain", duration=86_400)


def test_same_model_same_fingerprint_in_a_fresh_process() -> None:
    code = ("from sitesim.sweep.fingerprint import fingerprint; from sitesim.sweep.grid import Point;"
            "print(fingerprint(Point(mode='site', scheduler='easy', estimates='exact', seed=7, users=5,"
            " submittal='batch', workpool='plain', nodes=128, duration=86400)))")
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert other.stdout.strip() == fingerprint(SITE)
    assert len(fingerprint(SITE)) == 12


def test_every_model_input_changes_it() -> None:
    shipped = site_model(SiteConfig())
    assert digest(shipped) == digest(site_model(SiteConfig()))
    for change in ({"runtime_scale": 1.0}, {"size_mapping": "clip"}, {"empirical": "KTH-SP2"}):
        assert digest(site_model(SiteConfig(**change))) != digest(shipped), change


def test_the_table_content_counts_not_its_path(tmp_path: Path) -> None:
    table = tmp_path / "t.json"
    table.write_text(json.dumps({"name": "t", "values": [1, 2.5]}))
    first = digest(site_model(SiteConfig(empirical=str(table))))
    table.write_text(json.dumps({"values": [1, 2.5], "name": "t"}, indent=2))  # same data
    assert digest(site_model(SiteConfig(empirical=str(table)))) == first
    table.write_text(json.dumps({"name": "t", "values": [1, 2.6]}))
    assert digest(site_model(SiteConfig(empirical=str(table)))) != first


def test_a_replay_fingerprint_follows_the_trace(tmp_path: Path) -> None:
    trace = small_trace(tmp_path / "t.swf", jobs=10)
    point = Point(mode="replay", scheduler="fcfs", estimates="trace", seed=0, trace=str(trace), load_factor=1.0)
    before = fingerprint(point)
    small_trace(trace, jobs=11)
    assert fingerprint(point) != before
    assert stamp([point])[0].model == fingerprint(point)


def _stale_csv(tmp_path: Path, grid: Grid) -> Path:
    """A CSV of ``grid`` whose rows were made with runtime_scale 1 instead of the default."""
    csv = tmp_path / "runs.csv"
    run_sweep(grid, csv, executor="serial", run=fake_run, progress=False)
    old = digest({"mode": "site", "site": site_model(SiteConfig(runtime_scale=1.0))})
    now = stamp(grid.points())[0].model
    assert old != now
    csv.write_text(csv.read_text().replace(now, old))
    return csv


def test_rows_of_another_model_are_rerun_not_resumed(tmp_path: Path) -> None:
    grid = Grid(users=(1, 2), duration=1, replications=2)
    csv = _stale_csv(tmp_path, grid)
    calls: list[Point] = []

    def recording(point: Point) -> dict[str, str]:
        calls.append(point)
        return fake_run(point)

    report = run_sweep(grid, csv, executor="serial", run=recording, progress=False)
    assert (report.stale, report.existing, report.ran) == (4, 0, 4)
    _, rows = read_rows(csv)
    assert len(rows) == 4 and {r["model"] for r in rows} == {stamp(grid.points())[0].model}


def test_reuse_copies_only_rows_of_the_same_model(tmp_path: Path) -> None:
    grid = Grid(users=(1, 2), duration=1)
    stale = _stale_csv(tmp_path, grid)
    report = run_sweep(grid, tmp_path / "new.csv", executor="serial", run=fake_run, progress=False,
                       reuse=[stale])
    assert (report.reused, report.ran) == (0, 2)
    fresh = tmp_path / "fresh.csv"
    run_sweep(grid, fresh, executor="serial", run=fake_run, progress=False)
    report = run_sweep(grid, tmp_path / "copy.csv", executor="serial", run=fake_run, progress=False,
                       reuse=[fresh])
    assert (report.reused, report.ran) == (2, 0)


def test_a_csv_from_before_the_model_column_is_refused(tmp_path: Path) -> None:
    grid = Grid(users=1, duration=1)
    csv = tmp_path / "runs.csv"
    run_sweep(grid, csv, executor="serial", run=fake_run, progress=False)
    header, rows = read_rows(csv)
    cut = header.index("model")
    lines = [",".join(c for i, c in enumerate(line.split(",")) if i != cut) for line in csv.read_text().splitlines()]
    csv.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match="no model column"):
        run_sweep(grid, csv, executor="serial", run=fake_run, progress=False)


def test_a_scheduler_file_counts(tmp_path: Path) -> None:
    spec = tmp_path / "parts.toml"
    spec.write_text("[[partitions]]\nnodes = 64\n")
    point = Point(mode="site", scheduler=f"partitioned:{spec}", estimates="exact", seed=0, users=1,
                  submittal="batch", workpool="plain", nodes=64, duration=86_400)
    before = fingerprint(point)
    assert before != fingerprint(SITE)
    spec.write_text("[[partitions]]\nnodes = 32\n")
    assert fingerprint(point) != before


def test_fingerprints_made_before_processors_per_node_are_kept(tmp_path: Path) -> None:
    """Pinned values, computed by the code before ``processors_per_node`` existed: a
    sweep CSV made then is still resumed (the setting at 1 is not hashed), and a
    whole-node model is another model."""
    trace = small_trace(tmp_path / "t.swf", jobs=10)
    replay = Point(mode="replay", scheduler="fcfs", estimates="trace", seed=0, trace=str(trace), load_factor=1.0)
    assert fingerprint(SITE) == "4e05eca32601"
    assert fingerprint(replay) == "2b0da2c8542a"
    per_node = {p: Point(mode="site", **SITE.settings(), processors_per_node=p) for p in (1, 4)}
    assert fingerprint(per_node[1]) == "4e05eca32601"
    assert fingerprint(per_node[4]) != "4e05eca32601"
    whole = Point(mode="replay", **replay.settings(), processors_per_node=4)
    assert fingerprint(whole) != "2b0da2c8542a"
