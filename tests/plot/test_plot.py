"""sitesim plot: processor assignment, load curves, and the two commands end to end."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from sitesim.cli import main
from sitesim.plot.schedule import assign_processors, load_curves, read_schedule
from sitesim.workload.swf import SwfRecord, write_swf


def schedule_file(path: Path) -> Path:
    # 4 processors: A (2) 0-100, B (2) 0-50, C (2) 50-150 takes B's, D (4) 150-200 waited.
    records = [
        SwfRecord(job_number=1, submit_time=0, wait_time=0, run_time=100, allocated_processors=2, user_id=1),
        SwfRecord(job_number=2, submit_time=0, wait_time=0, run_time=50, allocated_processors=2, user_id=2),
        SwfRecord(job_number=3, submit_time=10, wait_time=40, run_time=100, allocated_processors=2, user_id=1),
        SwfRecord(job_number=4, submit_time=20, wait_time=130, run_time=50, allocated_processors=4, user_id=3),
        SwfRecord(job_number=5, submit_time=30, wait_time=-1, run_time=-1, allocated_processors=1, user_id=3),
        SwfRecord(job_number=6, submit_time=200, wait_time=0, run_time=0, allocated_processors=1, user_id=3),
        SwfRecord(job_number=7, submit_time=200, wait_time=0, run_time=10, allocated_processors=4, user_id=3),
    ]
    write_swf(path, records, ["; MaxProcs: 4"])
    return path


def test_processors_never_overlap_and_load_follows_the_schedule(tmp_path: Path) -> None:
    s = read_schedule(schedule_file(tmp_path / "s.swf"))
    assert s.machine == 4 and len(s.job) == 6 and s.waiting_submits.tolist() == [30]
    runs = assign_processors(s)
    assert runs == [[(0, 2)], [(2, 2)], [(2, 2)], [(0, 4)], [], [(0, 4)]]
    t, busy, queue = load_curves(s)
    at = dict(zip(t.tolist(), zip(busy.tolist(), queue.tolist(), strict=True), strict=True))
    assert at[0] == (4, 0) and at[10] == (4, 1) and at[30] == (4, 3)
    assert at[50] == (4, 2) and at[100] == (2, 2) and at[150] == (4, 1) and at[200] == (4, 1)
    assert np.all(busy <= 4)


def test_plot_commands_write_pngs(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    swf = schedule_file(tmp_path / "s.swf")
    assert main(["plot", "gantt", str(swf), "--from", "0", "--to", "200", "-o", str(tmp_path / "g.png")]) == 0
    assert main(["plot", "load", str(swf), "-o", str(tmp_path / "l.png")]) == 0
    for name in ("g.png", "l.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    out = capsys.readouterr().out
    assert "4 jobs drawn" in out and "mean utilisation" in out
    assert main(["plot", "gantt", str(swf), "--from", "9", "--to", "3", "-o", str(tmp_path / "x.png")]) == 2
    assert not (tmp_path / "x.png").exists()
