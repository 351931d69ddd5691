"""Hostile sweeps (issue cases 2, 7, 8, 12): refused up front, or resumed exactly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sitesim.cli import main
from sitesim.sweep.store import CsvLock, read_rows
from tests.helpers import one_line_error

ROOT = Path(__file__).resolve().parents[2]
SMALL = ["--users", "1,2", "--duration", "2", "--serial", "--no-progress"]


@pytest.mark.parametrize("value", [",", "1,,2", "1,"])
def test_empty_list_items_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str) -> None:
    line = one_line_error(["--users", value, "-o", str(tmp_path / "s.csv")], capsys, sweep=True)
    assert "empty value" in line
    assert not (tmp_path / "s.csv").exists()


@pytest.mark.parametrize("flag", [["--confidence", "0.9"], ["--metrics", "mean_wait"], ["--output", "x"]])
def test_summarize_options_without_summarize(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: list[str]
) -> None:
    line = one_line_error([*SMALL, *flag, "-o", str(tmp_path / "s.csv")], capsys, sweep=True)
    assert "--summarize only" in line


def test_binary_files_are_one_line_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    binary = tmp_path / "x.bin"
    binary.write_bytes(b"\x00\xff\xfe\x80" * 50)
    for argv in (["--summarize", str(binary)], [*SMALL, "-o", str(binary)], ["--grid", str(binary), "-o", "y.csv"]):
        line = one_line_error(argv, capsys, sweep=True)
        assert str(binary) in line
    assert binary.read_bytes() == b"\x00\xff\xfe\x80" * 50


def test_a_damaged_metric_cell_is_redone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "s.csv"
    assert main(["sweep", *SMALL, "-o", str(out)]) == 0
    before = out.read_text()
    lines = before.splitlines(keepends=True)
    header = lines[0].rstrip("\n").split(",")
    cells = lines[1].rstrip("\n").split(",")
    cells[header.index("mean_wait")] = "12#4"  # a damaged metric cell, config cells intact
    out.write_text(lines[0] + ",".join(cells) + "\n" + "".join(lines[2:]))
    capsys.readouterr()
    assert main(["sweep", *SMALL, "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "1 already" in err and "1 run now" in err and "1 damaged rows" in err
    assert out.read_text() == before


def test_a_second_sweep_on_a_locked_csv_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "s.csv"
    with CsvLock(out):
        line = one_line_error([*SMALL, "-o", str(out)], capsys, sweep=True)
    assert "another sweep" in line and str(out) in line
    assert main(["sweep", *SMALL, "-o", str(out)]) == 0  # free again afterwards
    assert sorted(os.listdir(tmp_path)) == ["s.csv"]


def _marked(mark: str) -> list[int]:
    """Processes whose environment carries ``mark`` (the sweep and everything it started)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if mark.encode() in (entry / "environ").read_bytes():
                status = (entry / "status").read_text()
                if "\nState:\tZ" not in status:
                    pids.append(int(entry.name))
        except OSError:
            continue
    return pids


def _signal_all(pids: list[int], signum: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, signum)
        except ProcessLookupError:  # already gone
            continue


#: Ten one-year runs on two workers: nine are still to run when the first row is in.
USERS = list(range(30, 40))
SWEEP = ["--users", ",".join(map(str, USERS)), "--duration", "365", "-j", "2", "--no-progress"]


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM])
def test_a_killed_sweep_leaves_no_process_and_resumes_exactly(tmp_path: Path, signum: int) -> None:
    out = tmp_path / "s.csv"
    mark = f"SITESIM_TEST_MARK={os.getpid()}-{signum}-{time.monotonic_ns()}"
    name, value = mark.split("=")
    env = {**os.environ, "PYTHONPATH": str(ROOT), name: value}
    argv = [sys.executable, "-m", "sitesim", "sweep", *SWEEP, "-o", str(out)]
    proc = subprocess.Popen(argv, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    # Once the first row is in, the workers are busy with the next runs.
    while not (out.exists() and len(out.read_text().splitlines()) >= 2):
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    helpers = [pid for pid in _marked(mark) if pid != proc.pid]
    assert len(helpers) >= 2  # the sweep's forkserver and workers
    # Its helpers are paused, so the sweep cannot finish however fast the machine is:
    # the second sweep below and the signal always find it holding the CSV, mid-run.
    _signal_all(helpers, signal.SIGSTOP)
    # A concurrent sweep on the same CSV is refused while this one runs.
    second = subprocess.run(argv, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
                            capture_output=True, text=True, timeout=120)
    assert second.returncode == 2 and "another sweep" in second.stderr
    proc.send_signal(signum)
    _signal_all(helpers, signal.SIGCONT)  # a stopped process would hold a SIGTERM pending
    proc.wait(timeout=60)
    killed_at = time.monotonic()
    while _marked(mark):
        assert time.monotonic() - killed_at < 60, f"left behind: {_marked(mark)}"
        time.sleep(0.1)
    rerun = subprocess.run(argv, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
                           capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr
    _, rows = read_rows(out)
    assert sorted(int(r["users"]) for r in rows) == USERS
    assert len(out.read_text().splitlines()) == len(USERS) + 1
