"""Sweeps over adaptive users: optional columns, written only by sweeps that set them."""

from __future__ import annotations

from sitesim.sweep.grid import CONFIG_COLUMNS, Grid
from sitesim.sweep.run import COLUMNS, columns_for
from sitesim.sweep.runner import run_sweep
from sitesim.sweep.store import read_rows


def test_sweeps_without_adaptive_keep_their_columns():
    points = Grid(users=2, duration=1).points()
    assert columns_for(points) == COLUMNS
    assert all(len(p.key()) == len(CONFIG_COLUMNS) for p in points)


def test_adaptive_sweep_rows_and_resume(tmp_path):
    grid = Grid(users=4, scheduler="cons", duration=2, adaptive=[0, 0.5], moldable_policy=["gas", "static"])
    out = tmp_path / "s.csv"
    report = run_sweep(grid, out, "serial", progress=False)
    assert report.ok and report.ran == 4
    header, rows = read_rows(out)
    assert {"adaptive", "moldable_policy", "adaptive_mean_turnaround", "rigid_mean_wait"} <= set(header)
    half = [r for r in rows if r["adaptive"] == "0.5"]
    assert len(half) == 2 and all(r["adaptive_mean_turnaround"] for r in half)
    assert all(r["adaptive_mean_turnaround"] == "" for r in rows if r["adaptive"] == "0")
    again = run_sweep(grid, out, "serial", progress=False)
    assert again.ran == 0 and again.existing == 4
