"""Hostile SWF inputs (issue cases 1, 10, 13, 14, 15): one line and exit 2, or a documented run."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from sitesim.cli import main
from sitesim.errors import InputError
from sitesim.runs.replay import ReplayConfig, run_replay
from sitesim.workload.swf import SwfHeader, SwfReader
from tests.helpers import one_line_error

LINE = "1 5 0 100 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1"


def _lines(n: int) -> str:
    return "".join(f"{i} {10 * i} 0 100 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1\n" for i in range(1, n + 1))


def _gz(path: Path, text: str) -> Path:
    path.write_bytes(gzip.compress(text.encode(), mtime=0))
    return path


def test_corrupt_gzip_body_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _gz(tmp_path / "t.swf.gz", "; MaxNodes: 8\n" + _lines(2000))
    data = bytearray(path.read_bytes())
    data[30] ^= 0xFF
    data[40] ^= 0xFF
    path.write_bytes(bytes(data))
    for extra in ([], ["--skip-malformed"]):
        line = one_line_error(["-c", str(path), *extra], capsys)
        assert str(path) in line and ("gzip" in line or "cannot read" in line)


def test_gzip_found_by_magic_bytes_not_name(tmp_path: Path) -> None:
    upper = _gz(tmp_path / "T.SWF.GZ", "; MaxNodes: 8\n" + LINE + "\n")
    assert run_replay(ReplayConfig(trace=str(upper))).counts["submitted"] == 1
    plain = tmp_path / "plain.swf.gz"  # a text file with a .gz name is text
    plain.write_text("; MaxNodes: 8\n" + LINE + "\n")
    assert run_replay(ReplayConfig(trace=str(plain))).nodes == 8


def test_a_bom_is_not_a_truncated_line(tmp_path: Path) -> None:
    path = tmp_path / "bom.swf"
    path.write_bytes(b"\xef\xbb\xbf" + (LINE + "\n").encode())
    assert run_replay(ReplayConfig(trace=str(path))).counts["submitted"] == 1
    path.write_bytes(b"\xef\xbb\xbf; MaxNodes: 16\n" + (LINE + "\n").encode())
    assert run_replay(ReplayConfig(trace=str(path))).nodes == 16


def test_maxprocs_minus_one_means_unknown(tmp_path: Path) -> None:
    path = tmp_path / "t.swf"
    path.write_text("; MaxProcs: -1\n; MaxNodes: 64\n" + LINE + "\n")
    assert run_replay(ReplayConfig(trace=str(path))).nodes == 64
    path.write_text("; MaxProcs: -1\n" + LINE + "\n")
    assert run_replay(ReplayConfig(trace=str(path))).nodes == 128  # documented default


@pytest.mark.parametrize("value", ["0", "lots", "16.5", "1e3", "-7", "99999999999999999999"])
def test_bad_maxnodes_names_file_line_and_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    path = tmp_path / "t.swf"
    path.write_text(f"; Version: 2\n\n; MaxNodes: {value}\n{LINE}\n")
    line = one_line_error(["-c", str(path)], capsys)
    assert f"{path}:3: MaxNodes:" in line and "--nodes" not in line


def test_header_size_is_only_checked_when_used(tmp_path: Path) -> None:
    """--nodes makes the header's size irrelevant, so a bad one is not an error then."""
    path = tmp_path / "t.swf"
    path.write_text(f"; MaxNodes: lots\n{LINE}\n")
    assert run_replay(ReplayConfig(trace=str(path), nodes=8)).nodes == 8
    assert SwfHeader(["; MaxNodes: lots"]).get_int("MaxNodes") is None


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "no job lines"),
        ("; MaxNodes: 8\n; Note: header only\n", "no job lines"),
        (LINE.replace(" 100 4 ", " -1 4 ", 1) + "\n", "1 unknown size/runtime"),
        (LINE.replace(" 4 -1 -1 4 ", " 400 -1 -1 400 ") + "\n", "1 larger than the machine"),
    ],
)
def test_nothing_to_replay_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, reason: str
) -> None:
    path = tmp_path / "t.swf"
    path.write_text(text)
    out = tmp_path / "out"
    line = one_line_error(["-c", str(path), "--out", str(out)], capsys)
    assert "nothing to replay" in line and reason in line
    assert not out.exists()


def test_duplicate_job_numbers_name_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "t.swf"
    path.write_text(_lines(3) + _lines(1))
    line = one_line_error(["-c", str(path)], capsys)
    assert f"{path}:4: field 1 (job_number)" in line and "twice" in line
    result = run_replay(ReplayConfig(trace=str(path), skip_malformed=True))
    assert result.counts["submitted"] == 3 and result.counts["malformed"] == 1


@pytest.mark.parametrize(("field", "label"), [(2, "submit_time"), (4, "run_time"), (9, "requested_time")])
def test_absurd_times_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], field: int, label: str) -> None:
    tokens = LINE.split()
    tokens[field - 1] = "1e30"
    path = tmp_path / "t.swf"
    path.write_text(" ".join(tokens) + "\n")
    line = one_line_error(["-c", str(path)], capsys)
    assert f"field {field} ({label})" in line and "limit" in line


def test_swf_reader_keeps_header_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "t.swf"
    path.write_text("; A: 1\n\n; MaxNodes: x\n" + LINE + "\n")
    with SwfReader(path) as reader, pytest.raises(InputError, match=":3: MaxNodes"):
        reader.header.machine_size()


def test_broken_pipe_ends_quietly(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    class Closed:
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self) -> None:
            raise BrokenPipeError(32, "Broken pipe")

        def fileno(self) -> int:
            raise ValueError("no file")

    monkeypatch.setattr("sys.stdout", Closed())
    assert main(["-u", "2", "--duration", "1"]) == 141
    assert capsys.readouterr().err == ""
