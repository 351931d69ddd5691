"""Edge cases of trace input: every one is a one-line input error or a counted skip."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitesim.cli import main
from sitesim.errors import InputError
from sitesim.runs.replay import ReplayConfig, run_replay
from sitesim.workload.swf import parse_line

LINE = "1 5 0 100 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1"


def exit_code(argv: list[str]) -> int:
    """What the command exits with, whether argparse or the run refused the input."""
    try:
        return main(argv)
    except SystemExit as exc:
        return int(exc.code or 0)


def _with(field: int, token: str, line: str = LINE) -> str:
    tokens = line.split()
    tokens[field - 1] = token
    return " ".join(tokens)


@pytest.mark.parametrize("token", ["nan", "inf", "-inf", "1e400"])  # 1e400 overflows to inf
def test_non_finite_values_are_not_numbers(token: str) -> None:
    with pytest.raises(InputError, match="field 4 \\(run_time\\).*not a finite number"):
        parse_line(_with(4, token), path="t.swf", lineno=3)


@pytest.mark.parametrize("field", [1, 5, 8, 11, 12, 17])
def test_whole_number_fields_refuse_fractions(field: int) -> None:
    with pytest.raises(InputError, match=f"field {field} .*not a whole number"):
        parse_line(_with(field, "4.5"))


def test_fractional_times_are_values() -> None:
    record = parse_line(_with(6, "12.75"))
    assert record.average_cpu_time == 12.75


def _trace(tmp_path: Path, *lines: str) -> str:
    path = tmp_path / "t.swf"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_negative_submit_time_is_an_input_error(tmp_path: Path) -> None:
    trace = _trace(tmp_path, _with(2, "-5"))
    with pytest.raises(InputError, match="field 2 .*negative"):
        run_replay(ReplayConfig(trace=trace))


def test_negative_fractional_runtime_is_unknown(tmp_path: Path) -> None:
    trace = _trace(tmp_path, _with(4, "-0.5"), _with(1, "2"))
    result = run_replay(ReplayConfig(trace=trace))
    assert result.counts["unknown"] == 1 and result.counts["submitted"] == 1


def test_status_0_at_the_requested_time_is_a_kill_not_a_failure(tmp_path: Path) -> None:
    killed = _with(11, "0", _with(4, "100"))  # ran exactly its request of 100 s
    failed = _with(11, "0", _with(4, "30", _with(1, "2")))  # stopped early: a failure
    result = run_replay(ReplayConfig(trace=_trace(tmp_path, killed, failed)))
    assert result.summary["failed"] == 1


@pytest.mark.parametrize("factor", ["1e-320", "inf", "nan"])
def test_load_factor_must_be_finite(tmp_path: Path, capsys: pytest.CaptureFixture[str], factor: str) -> None:
    assert exit_code(["-c", _trace(tmp_path, LINE), "--load-factor", factor]) == 2
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [["--seed", "-1", "--duration", "1"], ["--estimates", "f:1e308", "--duration", "1"]],
)
def test_bad_numbers_are_one_line_errors(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    assert exit_code(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "error" in err


def test_unwritable_output_is_an_input_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["-c", _trace(tmp_path, LINE), "--out", str(blocker / "sub")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("sitesim: error:") and err.count("\n") == 1
