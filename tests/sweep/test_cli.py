"""``sitesim sweep`` from the command line: flags, TOML grid, exit status."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitesim.cli import main as sitesim_main
from sitesim.sweep.store import read_rows

from tests.sweep.helpers import small_trace


def test_sweep_from_toml_and_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = small_trace(tmp_path / "t.swf", jobs=30)
    grid = tmp_path / "grid.toml"
    grid.write_text(f'mode = "replay"\ntrace = ["{trace.as_posix()}"]\nload_factor = [1, 2]\n')
    out = tmp_path / "runs.csv"
    argv = ["sweep", "--grid", str(grid), "--scheduler", "fcfs,easy", "--serial",
            "--no-progress", "-o", str(out)]
    assert sitesim_main(argv) == 0
    _, rows = read_rows(out)
    assert [(r["load_factor"], r["scheduler"]) for r in rows] == [
        ("1", "easy"), ("1", "fcfs"), ("2", "easy"), ("2", "fcfs")]
    assert "4 runs: 0 already" in capsys.readouterr().err
    assert sitesim_main(argv) == 0
    assert "4 runs: 4 already" in capsys.readouterr().err


def test_bad_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "runs.csv"
    assert sitesim_main(["sweep", "--mode", "replay", "--trace", "missing.swf", "-o", str(out)]) == 2
    assert "trace not found" in capsys.readouterr().err
    assert not out.exists()


def test_failed_runs_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A run that fails only when it runs (a bad line deep in a trace) fails alone."""
    out = tmp_path / "runs.csv"
    bad = tmp_path / "bad.swf"
    bad.write_text("1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n2 x\n")
    argv = ["sweep", "--mode", "replay", "--trace", str(bad), "--serial", "--no-progress",
            "-o", str(out)]
    assert sitesim_main(argv) == 1
    assert "failed" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--estimates", "f:0.5"], "badness factor"),
        (["--estimates", "trace"], "needs a trace"),
        (["--seed", "-1"], "non-negative"),
        (["--duration", "inf"], "must be a number of days above 0"),
    ],
)
def test_grid_is_validated_before_any_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], expected: str
) -> None:
    out = str(tmp_path / "s.csv")
    code = sitesim_main(["sweep", *argv, "--users", "1", "-o", out, "--serial", "--no-progress"])
    assert code == 2
    assert expected in capsys.readouterr().err
    assert not (tmp_path / "s.csv").exists()
