"""Small traces written in code, and a fake run function for resume tests."""

from __future__ import annotations

from pathlib import Path

from sitesim.sweep.grid import Point
from sitesim.sweep.run import Row, make_row
from sitesim.workload.swf import SwfRecord, write_swf


def small_trace(path: Path, jobs: int = 120, nodes: int = 8) -> Path:
    """Three users, each job depending on that user's previous one (fields 17/18)."""
    records = [
        SwfRecord(
            job_number=i + 1, submit_time=60 * i, run_time=100 + 7 * (i % 5),
            allocated_processors=1 + i % 4, requested_processors=1 + i % 4,
            requested_time=150 + 50 * (i % 3), status=1, user_id=1 + i % 3,
            preceding_job=i - 2 if i >= 3 else -1, think_time=0,
        )
        for i in range(jobs)
    ]
    write_swf(path, records, [f"; MaxNodes: {nodes}"])
    return path


def fake_run(point: Point) -> Row:
    """Instant, deterministic 'results' that depend on the point."""
    value = (point.seed + 1) * (point.load_factor or 1.0)
    return make_row(point, point.nodes or 8, {"mean_wait": value, "completed": 10})
