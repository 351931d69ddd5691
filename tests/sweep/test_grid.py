"""Grid expansion: per-mode products, replications, keys, and the grid's sources."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitesim.errors import InputError
from sitesim.sweep.cli import build_parser, grid_spec
from sitesim.sweep.grid import Grid, Point, format_cell, grid_from_mapping

from tests.sweep.helpers import small_trace


def test_site_grid_is_the_product_of_site_parameters() -> None:
    points = Grid(users=(5, 10, 20), scheduler=("fcfs", "easy"), replications=3).points()
    assert len(points) == 3 * 2 * 3
    assert {p.seed for p in points} == {0, 1, 2}
    first = points[0]
    assert (first.estimates, first.nodes, first.trace, first.load_factor) == ("exact", 128, None, None)


def test_modes_only_multiply_their_own_parameters(tmp_path: Path) -> None:
    trace = str(small_trace(tmp_path / "t.swf"))
    grid = Grid(mode=("site", "replay"), users=(5, 10), trace=trace, load_factor=(0.5, 1, 2))
    points = grid.points()
    site = [p for p in points if p.mode == "site"]
    replay = [p for p in points if p.mode == "replay"]
    assert len(site) == 2 and len(replay) == 3
    assert all(p.users is None and p.estimates == "trace" and p.nodes is None for p in replay)
    assert all(p.trace is None and p.load_factor is None for p in site)


def test_replications_shift_each_base_seed_and_duplicates_collapse() -> None:
    grid = Grid(seed=(10, 11), replications=2)
    assert grid.seeds() == (10, 11, 12)
    assert len(grid.points()) == 3


def test_keys_are_canonical_text() -> None:
    a = Point(mode="replay", scheduler="fcfs", estimates="trace", seed=0, trace="t.swf", load_factor=1.0)
    b = Point(mode="replay", scheduler="fcfs", estimates="trace", seed=0, trace="t.swf", load_factor=1)
    assert a.key() == b.key()
    assert a.key() == ("replay", "t.swf", "1", "", "", "", "fcfs", "trace", "", "", "", "0")
    assert [format_cell(v) for v in (0.1 + 0.2, 2 / 3, -0.0, None, True)] == [
        "0.3", "0.6666666667", "0", "", "1"]


@pytest.mark.parametrize("spec, message", [
    ({"mode": "open"}, "unknown mode"),
    ({"mode": "replay"}, "need at least one trace"),
    ({"scheduler": "sjf-magic"}, "unknown scheduler"),
    ({"users": 0}, "users: must be in 1.."),
    ({"colour": "blue"}, "unknown grid parameter"),
    ({"replications": 0}, "replications: must be a whole number in 1.."),
    # Issue cases 3, 4 and 12: wrong types, absurd values and unknown names fail up front.
    ({"replications": [2]}, "replications: must be a whole number"),
    ({"replications": True}, "replications: must be a whole number"),
    ({"users": [True]}, "users: must be a whole number"),
    ({"users": 10**20}, "users: must be in 1..1000000"),
    ({"nodes": 2**63}, "nodes: must be in 1..10000000"),
    ({"duration": True}, "duration: must be a number of days"),
    ({"duration": 1e20}, "duration: must be a number of days above 0 and at most"),
    ({"duration": "2d"}, "duration: must be a number of days"),
    ({"users": []}, "users: needs at least one value"),
    ({"submittal": "bogus"}, "submittal: unknown submittal model"),
    ({"workpool": ["plain", "bogus"]}, "workpool: unknown workpool model"),
    ({"seed": [1.5]}, "seed: seeds are whole numbers"),
    ({"mode": "replay", "trace": "t.swf", "load_factor": [True]}, "load_factor: must be a number"),
])
def test_bad_grids_are_input_errors(spec: dict, message: str) -> None:
    with pytest.raises(InputError, match=message):
        grid_from_mapping(spec).points()


def test_durations_are_days_as_everywhere() -> None:
    grid = Grid(duration=(1, 0.5, 365))
    assert grid.duration == (1, 0.5, 365)  # as given, in days
    assert [p.duration for p in grid.points()] == [86400, 43200, 365 * 86400]  # stored in seconds
    with pytest.raises(InputError, match="given twice"):
        Grid(duration=1, duration_days=2)
    with pytest.raises(InputError):
        Grid(duration="soon").points()


def test_flags_override_the_toml_grid(tmp_path: Path) -> None:
    toml = tmp_path / "grid.toml"
    toml.write_text('[grid]\nusers = [5, 10]\nscheduler = ["fcfs", "easy"]\nduration = 2\n')
    args = build_parser().parse_args(["--grid", str(toml), "--users", "20,40", "--replications", "2"])
    grid = grid_from_mapping(grid_spec(args))
    assert grid.users == (20, 40) and grid.scheduler == ("fcfs", "easy")
    assert grid.duration == (2,) and grid.replications == 2


def test_nodes_trace_means_the_trace_header(tmp_path: Path) -> None:
    trace = str(small_trace(tmp_path / "t.swf"))
    grid = grid_from_mapping({"mode": ["site", "replay"], "trace": trace, "nodes": ["trace", 64]})
    cells = sorted((p.mode, p.nodes or 0) for p in grid.points())
    assert cells == [("replay", 0), ("replay", 64), ("site", 64), ("site", 128)]


def test_a_pipe_as_trace_is_refused_in_one_line() -> None:
    """Workers re-read a sweep's traces, and a pipe can be read only once: refused
    as a pipe (not as "trace not found")."""
    import os

    read_fd, write_fd = os.pipe()
    try:
        with pytest.raises(InputError, match="is a pipe; a sweep re-reads its traces"):
            grid_from_mapping({"mode": ["replay"], "trace": [f"/dev/fd/{read_fd}"]}).points()
    finally:
        os.close(read_fd)
        os.close(write_fd)
