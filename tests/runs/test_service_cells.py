"""scripts/service_cells.py: a log's waits by size and runtime class, beside a replay."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[2]
#: Monday 1 January 2024, 00:00 UTC.
MONDAY = 1_704_067_200


def script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("service_cells", REPO / "scripts" / "service_cells.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def small_log(path: Path, *, waits: bool = True) -> Path:
    """Twenty 1-node 100 s jobs submitted on Monday mornings, waiting 30 s, and twenty
    4-node 5,000 s jobs submitted in the evenings, waiting 600 s (-1: no waits)."""
    lines = [f"; UnixStartTime: {MONDAY}", "; TimeZoneString: UTC", "; MaxNodes: 8", "; MaxProcs: 8"]
    job = 0
    for week in range(20):
        for hour, size, run, wait in ((10, 1, 100, 30), (20, 4, 5000, 600)):
            job += 1
            submit = week * 7 * 86400 + hour * 3600
            fields = [job, submit, wait if waits else -1, run, size, -1, -1, size, 2 * run, -1, 1, 1, 1, 1, -1, -1, -1, -1]
            lines.append(" ".join(str(f) for f in fields))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_cells_hold_each_kind_of_job_apart_beside_a_replay(tmp_path: Path, capsys) -> None:
    log = small_log(tmp_path / "small.swf")
    assert script().main([str(log), "--policies", "easy", "--daytime"]) == 0
    out = capsys.readouterr().out
    assert "Mean wait (1,000 s): small.swf / easy" in out
    # 1 node, up to 10 min: the log's 30 s; alone on an idle machine, the replay's 0 s
    assert "| 1-1 | 0.0 / 0.0 (20) | - | - | - | - |" in out
    # 3-4 nodes, 1-4 h: the log's 600 s
    assert "| 3-4 | - | - | 0.6 / 0.0 (20) | - | - |" in out
    # each size here has one runtime and one wait: the sizes alone explain them
    assert "explained by the size class: 1.000; by the size and runtime classes: 1.000" in out
    # the mornings' jobs all start in weekday hours, the evenings' none
    assert "| 1-1 | 20 | 1.00 |" in out
    assert "| 3-4 | 20 | 0.00 |" in out


def test_a_log_without_waits_takes_its_submits_as_starts(tmp_path: Path, capsys) -> None:
    log = small_log(tmp_path / "nowaits.swf", waits=False)
    assert script().main([str(log), "--policies", "", "--daytime"]) == 0
    out = capsys.readouterr().out
    assert "| 1-1 | - (20) | - | - | - | - |" in out  # no wait recorded: none to show
    assert "no waits recorded: nothing to explain" in out
    assert "| 1-1 | 20 | 1.00 |" in out


def test_wide_jobs_by_user_against_the_users_other_jobs(tmp_path: Path, capsys) -> None:
    # user 1 runs the mornings' 1-node jobs and the evenings' 4-node ones: its wide
    # jobs' hours are not its other jobs' hours
    log = small_log(tmp_path / "small.swf")
    assert script().main([str(log), "--policies", "", "--daytime", "--wide", "2"]) == 0
    out = capsys.readouterr().out
    assert "| user | jobs > 2 | started on weekdays 08:00-18:00 | other jobs | started then |" in out
    assert "| 1 | 20 | 0.00 | 20 | 1.00 |" in out
