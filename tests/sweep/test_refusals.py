"""Sweeps refuse up front what would fail or be ignored later (issue 26, group 5 and 10).

Each refusal is exit status 2 and exactly one line on stderr (no usage block), before
any run and without a CSV left behind.
"""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path

import pytest

from sitesim.cli import main
from sitesim.errors import InputError
from sitesim.limits import MAX_SWEEP_RUNS
from sitesim.sweep.grid import Grid
from sitesim.sweep.store import CsvLock
from tests.sweep.helpers import small_trace

SMALL = ["--users", "1", "--duration", "0.0416666667", "--serial", "--no-progress"]


def _only_line(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Exit 2 and the whole of stderr is one line."""
    try:
        code = main(["sweep", *argv])
    except SystemExit as exc:
        code = int(exc.code or 0)
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("sitesim sweep: error:"), err
    return err


@pytest.mark.parametrize("argv", [
    ["-o", "", *SMALL],
    ["--summarize", "s.csv", "--output", ""],
    ["--summarize", "s.csv", "-o", "x.csv"],
    ["--summarize", "s.csv", "--users", "3"],
    [*SMALL],  # no --out
])
def test_empty_or_misplaced_outputs(tmp_path: Path, argv: list[str], capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _only_line(argv, capsys)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("argv", "message"), [
    (["--moldable-policy", "static", *SMALL], "moldable_policy: applies with adaptive"),
    (["--nodes", "trace", *SMALL], "nodes: 'trace'"),
    (["--mode", "replay", "--trace", "TRACE", "--users", "3", "--serial"], "users: applies to site runs"),
    (["--load-factor", "2", *SMALL], "load_factor: applies to replay runs"),
    (["--adaptive", "0.5", *SMALL], "exports none"),  # gas needs cons's availability list
    (["--mode", "replay", "--trace", "BINARY", "--serial"], "truncated line"),
    (["--mode", "replay", "--trace", "TRACE", "--load-factor", "1e-300", "--serial"], "load_factor: must be a finite number in"),
])
def test_refused_before_any_run(tmp_path: Path, argv: list[str], message: str,
                                capsys: pytest.CaptureFixture[str]) -> None:
    trace = small_trace(tmp_path / "t.swf")
    binary = tmp_path / "b.swf"
    binary.write_bytes(bytes(range(256)) * 20)
    argv = [str(trace) if a == "TRACE" else str(binary) if a == "BINARY" else a for a in argv]
    out = tmp_path / "s.csv"
    assert message in _only_line([*argv, "-o", str(out)], capsys)
    assert not out.exists()


def test_the_grid_total_is_bounded_without_expanding_it() -> None:
    grid = Grid(users=tuple(range(1, 1001)), replications=10_000)
    assert grid.size() == 10**7 > MAX_SWEEP_RUNS
    with pytest.raises(InputError, match="10,000,000 runs"):
        grid.points()


def test_a_symlinked_csv_stays_a_link(tmp_path: Path) -> None:
    target = tmp_path / "real.csv"
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    assert main(["sweep", *SMALL, "-o", str(link)]) == 0
    assert link.is_symlink() and target.is_file()
    assert len(target.read_text().splitlines()) == 2
    assert main(["sweep", *SMALL, "--users", "1,2", "-o", str(link)]) == 0  # resumed through the link
    assert link.is_symlink() and len(target.read_text().splitlines()) == 3


def test_one_csv_under_two_names_is_one_lock(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    csv = tmp_path / "a.csv"
    csv.write_text("")
    (tmp_path / "sym.csv").symlink_to(csv)
    os.link(csv, tmp_path / "hard.csv")
    with CsvLock(csv):
        for other in ("sym.csv", "hard.csv"):
            with pytest.raises(InputError, match="another sweep"), CsvLock(tmp_path / other):
                pass
            line = _only_line([*SMALL, "-o", str(tmp_path / other)], capsys)
            assert "another sweep" in line and other in line
    with CsvLock(tmp_path / "hard.csv"):  # free again
        pass


def test_no_progress_bar_when_stderr_is_not_a_terminal(tmp_path: Path) -> None:
    err = io.StringIO()
    argv = ["sweep", "--users", "1,2", "--duration", "0.0416666667", "--serial", "-o", str(tmp_path / "s.csv")]
    with contextlib.redirect_stderr(err):
        assert main(argv) == 0
    assert err.getvalue().count("\n") == 1 and "\r" not in err.getvalue() and "run/s" not in err.getvalue()


def test_a_partitioned_policy_brings_its_machine(tmp_path: Path) -> None:
    """``--scheduler partitioned:FILE`` as on the command line: nodes = the partitions' total."""
    parts = tmp_path / "parts.toml"
    parts.write_text('[[partitions]]\nname = "a"\nnodes = 16\nscheduler = "easy"\n'
                     '[[partitions]]\nname = "b"\nnodes = 48\nscheduler = "fcfs"\n')
    out = tmp_path / "s.csv"
    assert main(["sweep", *SMALL, "--scheduler", f"partitioned:{parts}", "-o", str(out)]) == 0
    header, row = (line.split(",") for line in out.read_text().splitlines())
    assert row[header.index("nodes")] == "64"
