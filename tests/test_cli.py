"""The ``sitesim`` command's replay path: exit codes, one-line errors, output files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sitesim.cli import main

HEADER = "; MaxNodes: 8\n; MaxProcs: 8\n"
#: job, submit, wait, run, alloc, cpu, mem, req procs, req time, req mem, status, user...
GOOD = [
    "1 0 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1",
    "2 5 -1 50 8 -1 -1 8 40 -1 1 2 1 -1 -1 -1 -1 -1",  # runs 50 > requested 40: killed
    "3 6 -1 -1 2 -1 -1 2 100 -1 5 1 1 -1 -1 -1 -1 -1",  # no runtime: skipped as unknown
    "4 7 -1 10 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1",
]


def trace(tmp_path: Path, lines: list[str], name: str = "t.swf") -> Path:
    path = tmp_path / name
    path.write_text(HEADER + "\n".join(lines) + "\n")
    return path


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_replay_writes_outputs_and_counts(tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    code, stdout, err = run(["-c", str(trace(tmp_path, GOOD)), "-s", "easy", "--out", str(out)], capsys)
    assert code == 0, err
    assert sorted(p.name for p in out.iterdir()) == ["schedule.swf", "stats.txt", "summary.json"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["trace_jobs"]["read"] == 4
    assert summary["trace_jobs"]["submitted"] == 3
    assert summary["trace_jobs"]["unknown"] == 1
    assert summary["system"]["killed"] == 1
    assert summary["system"]["completed"] == 3
    assert "3 jobs replayed on 8 nodes" in stdout
    schedule = [ln.split() for ln in (out / "schedule.swf").read_text().splitlines() if not ln.startswith(";")]
    assert [row[0] for row in schedule] == ["1", "2", "4"]
    assert schedule[1][3] == "40" and schedule[1][10] == "0"  # killed: ran 40, status 0


def test_job_larger_than_the_machine_is_counted_not_run(tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    code, stdout, err = run(["-c", str(trace(tmp_path, GOOD)), "--nodes", "4", "--out", str(out)], capsys)
    assert code == 0, err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["trace_jobs"]["too_large"] == 1
    assert summary["trace_jobs"]["submitted"] == 2
    assert "1 larger than the machine" in stdout


@pytest.mark.parametrize(
    ("bad", "expected"),
    [
        ("5 8 -1 10 2 -1", "t.swf:7: truncated line: expected 18 fields, found 6"),
        ("5 8 -1 ten 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1", "t.swf:7: field 4 (run_time): 'ten' is not a number"),
        ("5 8 -1 10 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1 9", "t.swf:7: too many fields"),
        ("5 1 -1 10 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1", "t.swf:7: field 2 (submit_time): submit time 1"),
    ],
)
def test_bad_trace_is_one_line_exit_2_and_no_output(tmp_path: Path, capsys, bad: str, expected: str) -> None:
    out = tmp_path / "out"
    code, stdout, err = run(["-c", str(trace(tmp_path, [*GOOD, bad])), "-s", "easy", "--out", str(out)], capsys)
    assert code == 2
    assert err.startswith("sitesim: error: ")
    assert expected in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not out.exists()  # not even the directory


def test_bad_lines_can_be_skipped_and_counted(tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    lines = [*GOOD, "5 8 -1 10 2 -1", "6 9 x 10 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1"]
    code, stdout, err = run(["-c", str(trace(tmp_path, lines)), "--skip-malformed", "--out", str(out)], capsys)
    assert code == 0, err
    assert json.loads((out / "summary.json").read_text())["trace_jobs"]["malformed"] == 2
    assert "2 malformed lines" in stdout


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["-c", "{missing}"], "cannot open trace"),
        (["-c", "{trace}", "-s", "nosuch"], "unknown scheduler 'nosuch'"),
        (["-c", "{trace}", "--estimates", "nosuch"], "unknown estimate model 'nosuch'"),
        (["-c", "{badgzip}"], "cannot read trace"),
    ],
)
def test_input_errors(tmp_path: Path, capsys, argv: list[str], expected: str) -> None:
    # gzip is recognised by its magic bytes (a text file named .gz is read as text).
    badgzip = tmp_path / "bad.swf"
    badgzip.write_bytes(b"\x1f\x8b" + b"not really gzip" * 4)
    names = {"missing": tmp_path / "nope.swf", "trace": trace(tmp_path, GOOD), "badgzip": badgzip}
    argv = [a.format(**names) for a in argv] + ["--out", str(tmp_path / "out")]
    code, _, err = run(argv, capsys)
    assert code == 2
    assert expected in err and err.count("\n") == 1
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "argv", [["--nodes", "0"], ["--load-factor", "-1"], ["--bogus"], ["--feedback", "sometimes"]]
)
def test_usage_errors_exit_2(tmp_path: Path, capsys, argv: list[str]) -> None:
    try:
        code = main(["-c", str(trace(tmp_path, GOOD)), *argv])
    except SystemExit as exc:  # found by the parser
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "error:" in err


def test_help_exits_0(capsys) -> None:
    with pytest.raises(SystemExit) as info:
        main(["-h"])
    assert info.value.code == 0
    text = capsys.readouterr().out
    assert "--conventional" in text and "easy" in text


def test_python_m_sitesim_subprocess(tmp_path: Path) -> None:
    path = trace(tmp_path, GOOD)
    ok = subprocess.run(
        [sys.executable, "-m", "sitesim", "-c", str(path), "-s", "easy"],
        capture_output=True, text=True, timeout=120,
    )
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith("#sid ")
    bad = trace(tmp_path, [*GOOD, "5 8 -1 10"], name="bad.swf")
    failed = subprocess.run(
        [sys.executable, "-m", "sitesim", "-c", str(bad)], capture_output=True, text=True, timeout=120
    )
    assert failed.returncode == 2
    assert failed.stderr.startswith("sitesim: error: ") and failed.stderr.count("\n") == 1


def test_out_that_is_a_file_is_an_input_error(tmp_path: Path, capsys) -> None:
    target = tmp_path / "taken"
    target.write_text("x")
    code, _, err = run(["-c", str(trace(tmp_path, GOOD)), "--out", str(target)], capsys)
    assert code == 2
    assert "--out" in err and "not a directory" in err and err.count("\n") == 1
    assert target.read_text() == "x"


def test_feedback_replay_reports_its_batches(tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    code, stdout, err = run(["-c", str(trace(tmp_path, GOOD)), "--feedback", "--out", str(out)], capsys)
    assert code == 0, err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["config"]["feedback"] == "absolute"
    # User 1's job 4 came while job 1 ran (a negative think time): same batch, no wait.
    assert summary["feedback"]["batches"] == 2 and summary["feedback"]["dependent_batches"] == 0
    assert "# feedback (docs/feedback-replay.md), dependencies from derived (session rules)" in stdout
    assert "replay with feedback (session starts absolute)" in (out / "schedule.swf").read_text()


def test_feedback_is_for_replays_only(capsys) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--feedback", "--jobs", "10"])
    assert info.value.code == 2
    assert "--feedback applies to trace replay (-c) only" in capsys.readouterr().err
