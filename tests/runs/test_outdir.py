"""A run's outputs appear together or not at all (issue cases 6, 7, 9; docs/reliability.md)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sitesim.errors import InputError
from sitesim.runs.outdir import OutputDir
from sitesim.runs.replay import ReplayConfig, run_replay
from sitesim.runs.site import DAY, SiteConfig, run_site
from tests.helpers import one_line_error

LINE = "1 5 0 100 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1"
SMALL = SiteConfig(users=2, duration=DAY)


def test_new_outputs_replace_a_previous_runs_and_never_mix(tmp_path: Path) -> None:
    out = tmp_path / "out"
    run_site(SMALL, out=out)
    assert sorted(os.listdir(out)) == ["stats.txt", "summary.json", "trace.swf"]
    trace = tmp_path / "t.swf"
    trace.write_text(LINE + "\n")
    run_replay(ReplayConfig(trace=str(trace)), out=out)
    assert sorted(os.listdir(out)) == ["schedule.swf", "stats.txt", "summary.json"]
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".")]  # no staging left


def test_a_failing_run_leaves_the_previous_outputs_untouched(tmp_path: Path) -> None:
    out = tmp_path / "out"
    run_site(SMALL, out=out)
    before = {p: (out / p).read_bytes() for p in os.listdir(out)}
    bad = tmp_path / "bad.swf"
    bad.write_text(LINE + "\n" + LINE.replace("1 5", "2 x", 1) + "\n")
    with pytest.raises(InputError):
        run_replay(ReplayConfig(trace=str(bad)), out=out)
    assert {p: (out / p).read_bytes() for p in os.listdir(out)} == before
    assert sorted(os.listdir(tmp_path)) == ["bad.swf", "out"]


def test_a_directory_with_other_files_is_refused_before_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    line = one_line_error(["-u", "2", "--duration", "1", "--out", str(out)], capsys)
    assert "--out" in line and "notes.txt" in line
    assert os.listdir(out) == ["notes.txt"]


@pytest.mark.parametrize("value", ["", "."])
def test_the_current_directory_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    monkeypatch.chdir(tmp_path)
    line = one_line_error(["-u", "2", "--duration", "1", "--out", value], capsys)
    assert "current directory" in line
    assert os.listdir(tmp_path) == []


def test_an_empty_existing_directory_and_missing_parents(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    run_site(SMALL, out=empty)
    assert (empty / "summary.json").exists()
    deep = tmp_path / "a" / "b" / "out"
    with pytest.raises(InputError):
        run_site(SiteConfig(users=2, duration=DAY, estimates="trace"), out=deep)
    assert not (tmp_path / "a").exists()  # parents made for a failed run go too


def test_two_writers_to_one_target_publish_whole_directories(tmp_path: Path) -> None:
    """Staging is private per run: interleaved runs never share a temporary name."""
    target = tmp_path / "out"
    with OutputDir(target) as first, OutputDir(target) as second:
        assert first.path("summary.json") != second.path("summary.json")
        first.path("summary.json").write_text("A")
        first.path("trace.swf").write_text("A")
        second.path("summary.json").write_text("B")
        second.path("schedule.swf").write_text("B")
    # The inner one publishes first, the outer one then replaces it whole: A's two
    # files, nothing of B.
    assert sorted(os.listdir(target)) == ["summary.json", "trace.swf"]
    assert {(target / p).read_text() for p in os.listdir(target)} == {"A"}
    assert sorted(os.listdir(tmp_path)) == ["out"]


def test_a_killed_runs_staging_is_cleaned_by_the_next_run(tmp_path: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    stale = tmp_path / f".out.{dead.stdout.strip()}.abc.part"
    stale.mkdir()
    (stale / "trace.swf").write_text("half")
    run_site(SMALL, out=tmp_path / "out")
    assert sorted(os.listdir(tmp_path)) == ["out"]


def test_sigterm_leaves_nothing_of_the_run(tmp_path: Path) -> None:
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = subprocess.Popen(
        [sys.executable, "-m", "sitesim", "-u", "300", "--duration", "3650", "--out", str(out)],
        cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    # Wait until the run is simulating (its staging directory exists), then terminate.
    deadline = time.monotonic() + 60
    while not any(p.name.endswith(".part") for p in tmp_path.iterdir()):
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert "Traceback" not in err and "terminated" in err
    assert os.listdir(tmp_path) == []
