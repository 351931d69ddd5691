"""The recorded waits kept beside a site-level run's trace: written in arrival order,
read back by number, found beside the trace by name, and every malformed line an input
error naming its line and field (exit 2 from the CLI, nothing written)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from sitesim.cli import main
from sitesim.errors import InputError
from sitesim.runs.replay import ReplayConfig, run_replay
from sitesim.workload.job import Job
from sitesim.workload.recorded_waits import RecordedWaitWriter, read_recorded_waits, recorded_waits_path

LINE = "{} {} 0 100 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1"


def _job(number: int, recorded: int) -> Job:
    job = Job(number, 0, 1, 10, 10, 1)
    job.recorded_wait = recorded
    return job


@pytest.mark.parametrize(("trace", "beside"), [
    ("run/trace.swf", "run/trace.recorded-waits"),
    ("a/log.swf.gz", "a/log.recorded-waits"),
    ("log", "log.recorded-waits"),
])
def test_the_file_is_named_after_its_trace(trace: str, beside: str) -> None:
    assert recorded_waits_path(trace) == Path(beside)


def test_written_in_arrival_order_and_read_back_by_number(tmp_path: Path) -> None:
    out = io.StringIO()
    writer = RecordedWaitWriter(out)
    writer.BATCH = 2  # one hand-over midway, the rest at close
    for job in (_job(3, 0), _job(1, 95), _job(7, -1), _job(2, 4000)):
        writer.on_submit(job)
    writer.close()
    rows = [line for line in out.getvalue().splitlines() if not line.startswith(";")]
    assert rows == ["3 0", "1 95", "2 4000"]  # a job without a recorded wait is left out
    path = tmp_path / "t.recorded-waits"
    path.write_text(out.getvalue())
    assert read_recorded_waits(path) == {3: 0, 1: 95, 2: 4000}


@pytest.mark.parametrize(("line", "where"), [
    ("1 2 3", "t.recorded-waits:3: expected 2 fields"),
    ("x 2", "t.recorded-waits:3: field 1 (job): 'x' is not a non-negative whole number"),
    ("1 -2", "t.recorded-waits:3: field 2 (wait): '-2' is not a non-negative whole number"),
    ("1 2.5", "t.recorded-waits:3: field 2 (wait)"),
    ("5 1", "t.recorded-waits:3: field 1 (job): job 5 appears twice"),
    ("1 99999999999999999999", "t.recorded-waits:3: field 2 (wait): 99999999999999999999 is above"),
    ("1 " + "9" * 5000, "t.recorded-waits:3: field 2 (wait): 99999999999999999999... is above"),
])
def test_a_malformed_line_names_its_line_and_field(tmp_path: Path, line: str, where: str) -> None:
    path = tmp_path / "t.recorded-waits"
    path.write_text(f"; comment\n5 0\n{line}\n")
    with pytest.raises(InputError) as err:
        read_recorded_waits(path)
    assert str(err.value).startswith(str(tmp_path / where))


def test_a_cut_short_gzip_file_is_an_input_error_not_a_traceback(tmp_path: Path) -> None:
    import gzip

    path = tmp_path / "t.recorded-waits"
    whole = gzip.compress("".join(f"{i} {i}\n" for i in range(1, 5000)).encode())
    path.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(InputError, match="cannot read recorded waits") as err:
        read_recorded_waits(path)
    assert err.value.path == str(path) and err.value.line is not None


def _trace(tmp_path: Path) -> Path:
    trace = tmp_path / "t.swf"
    trace.write_text("".join(LINE.format(i, 10 * i) + "\n" for i in range(1, 4)))
    return trace


def test_a_replay_reads_the_waits_beside_its_trace_and_hold_gives_them_back(tmp_path: Path) -> None:
    trace = _trace(tmp_path)
    recorded_waits_path(trace).write_text("1 50\n3 7\n")
    result = run_replay(ReplayConfig(trace=str(trace), scheduler="hold"), out=tmp_path / "out")
    assert result.report["recorded_waits"] == "t.recorded-waits"
    rows = [line.split() for line in (tmp_path / "out" / "schedule.swf").read_text().splitlines()
            if not line.startswith(";")]
    # field 3 of the trace (0) is not read; job 2, not listed, has no recorded wait: none held
    assert [(r[0], r[2]) for r in rows] == [("1", "50"), ("2", "0"), ("3", "7")]


def test_a_malformed_file_stops_the_replay_with_exit_2_and_nothing_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = _trace(tmp_path)
    recorded_waits_path(trace).write_text("1 50\n1 7\n")
    assert main(["-c", str(trace), "-s", "hold", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "t.recorded-waits:2: field 1 (job): job 1 appears twice" in err
    assert "Traceback" not in err and not (tmp_path / "out").exists()
