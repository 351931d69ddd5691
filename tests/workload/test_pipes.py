"""Inputs that can be read only once (pipes, ``/dev/stdin``) and inputs without lines.

A pipe must give exactly what the same bytes in a file give: the bytes read to
recognise gzip are not lost, and a command that reads its log twice (``fit``) copies
the pipe once. A "line" of a mebibyte or more (``/dev/zero``) is an input error, not a
memory exhausted.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitesim.cli import main
from sitesim.errors import InputError
from sitesim.limits import MAX_LINE_BYTES
from sitesim.workload.files import open_text_read, rereadable
from sitesim.workload.swf import read_swf
from tests.test_fuzz import swf_logs


def _log(jobs: int = 300) -> bytes:
    """A log of several 4 KB blocks: a header, then jobs of four users, all with waits."""
    lines = ["; Version: 2.2", "; MaxNodes: 16", "; MaxProcs: 16", "; Note: made in code"]
    for n in range(1, jobs + 1):
        size = 1 << (n % 5)
        lines.append(f"{n} {n * 37} {n % 11} {60 + n % 97 * 13} {size} -1 -1 {size} 2000 -1 1 {n % 4 + 1} 1 -1 -1 -1 -1 -1")
    return ("\n".join(lines) + "\n").encode()


@contextmanager
def _pipe(data: bytes) -> Iterator[str]:
    """A path to the read end of a real pipe, fed ``data`` by a thread."""
    read_fd, write_fd = os.pipe()

    def feed() -> None:
        with os.fdopen(write_fd, "wb") as w:
            try:
                w.write(data)
            except BrokenPipeError:  # the reader gave up early (an input error)
                pass

    thread = threading.Thread(target=feed)
    thread.start()
    try:
        yield f"/dev/fd/{read_fd}"
    finally:
        os.close(read_fd)
        thread.join()


@pytest.mark.parametrize("compress", [False, True])
def test_a_pipe_reads_as_the_file(tmp_path: Path, compress: bool) -> None:
    data = _log()
    assert len(data) > 3 * 4096
    if compress:
        data = gzip.compress(data, mtime=0)
    path = tmp_path / "log.swf"
    path.write_bytes(data)
    header, records = read_swf(path)
    with _pipe(data) as piped:
        piped_header, piped_records = read_swf(piped)
    assert piped_header.lines == header.lines
    assert piped_records == records and len(records) == 300


def test_a_pipe_that_delivers_one_byte_first(tmp_path: Path) -> None:
    """The gzip check needs two bytes; a pipe may hand over one at a time."""
    data = gzip.compress(_log(20), mtime=0)
    read_fd, write_fd = os.pipe()

    def feed() -> None:
        with os.fdopen(write_fd, "wb", buffering=0) as w:
            w.write(data[:1])
            w.write(data[1:])

    thread = threading.Thread(target=feed)
    thread.start()
    try:
        with open_text_read(f"/dev/fd/{read_fd}") as text:
            assert text.read() == _log(20).decode()
    finally:
        os.close(read_fd)
        thread.join()


def test_replay_from_stdin_is_byte_identical(tmp_path: Path) -> None:
    """``cat LOG | sitesim -c /dev/stdin``, in a real process: the same schedule and
    statistics as the file."""
    data = _log()
    path = tmp_path / "log.swf"
    path.write_bytes(data)
    command = [sys.executable, "-m", "sitesim", "-s", "easy"]
    subprocess.run([*command, "-c", str(path), "--out", str(tmp_path / "file")], check=True, capture_output=True)
    subprocess.run([*command, "-c", "/dev/stdin", "--out", str(tmp_path / "pipe")], input=data, check=True,
                   capture_output=True)
    for name in ("schedule.swf", "stats.txt"):
        assert (tmp_path / "pipe" / name).read_bytes() == (tmp_path / "file" / name).read_bytes()


def test_fit_from_a_pipe_fits_the_same_site(tmp_path: Path) -> None:
    data = _log()
    path = tmp_path / "log.swf"
    path.write_bytes(data)
    assert main(["fit", str(path), "-o", str(tmp_path / "file"), "--name", "x"]) == 0
    with _pipe(data) as piped:
        assert main(["fit", piped, "-o", str(tmp_path / "pipe"), "--name", "x"]) == 0
    for name in ("empirical.json", "population.json"):
        # Only the file name the log was given by differs; the content's hash does not.
        fitted = [_without_names(json.loads((tmp_path / d / name).read_text())) for d in ("file", "pipe")]
        assert fitted[0] == fitted[1]
        assert "sha256_uncompressed" in json.dumps(fitted[0])
    site = [(tmp_path / d / "site.toml").read_text().splitlines()[1:] for d in ("file", "pipe")]
    assert site[0] == site[1]


def _without_names(document: object) -> object:
    """The fitted document without the entries that name the log's file."""
    if isinstance(document, dict):
        return {k: _without_names(v) for k, v in document.items() if k not in ("file", "generator")}
    if isinstance(document, list):
        return [_without_names(v) for v in document]
    return document


def test_plot_from_a_pipe(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    with _pipe(_log()) as piped:
        assert main(["plot", "load", piped, "-o", str(tmp_path / "l.png")]) == 0
    assert (tmp_path / "l.png").stat().st_size > 0


def test_rereadable_copies_a_pipe_once_and_cleans_up(tmp_path: Path) -> None:
    data = gzip.compress(_log(10), mtime=0)
    with _pipe(data) as piped, rereadable(piped) as copy:
        assert copy != Path(piped)
        assert copy.read_bytes() == _log(10)  # decompressed, read twice
        assert copy.read_bytes() == _log(10)
    assert not copy.exists()
    regular = tmp_path / "x.swf"
    regular.write_bytes(data)
    with rereadable(regular) as same:
        assert same == regular


@pytest.mark.parametrize("argv", [
    ["-c", "/dev/zero"],
    ["fit", "/dev/zero", "-o", "OUT"],
    ["plot", "load", "/dev/zero", "-o", "OUT.png"],
])
def test_a_file_without_lines_is_an_input_error(tmp_path: Path, argv: list[str],
                                               capsys: pytest.CaptureFixture[str]) -> None:
    argv = [a.replace("OUT", str(tmp_path / "out")) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "longer than" in err and "/dev/zero" in err
    assert not any(tmp_path.iterdir())


def test_the_line_cap_holds_inside_gzip(tmp_path: Path) -> None:
    path = tmp_path / "long.swf.gz"
    path.write_bytes(gzip.compress(b"; " + b"x" * (MAX_LINE_BYTES + 10) + b"\n", mtime=0))
    with pytest.raises(InputError, match="long.swf.gz:1: cannot read trace: a line longer than"):
        read_swf(path)
    ok = tmp_path / "ok.swf"
    ok.write_bytes(b"; " + b"x" * (MAX_LINE_BYTES - 10) + b"\n" + _log(2))
    assert len(read_swf(ok)[1]) == 2


@settings(max_examples=30, deadline=None, derandomize=True, database=None)
@given(log=swf_logs(), compress=st.booleans())
def test_any_log_reads_the_same_from_a_pipe(log: bytes, compress: bool) -> None:
    """Whatever a file gives (records and header, or the same input error), a pipe of
    the same bytes gives too."""
    data = gzip.compress(log, mtime=0) if compress else log
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "log.swf"
        path.write_bytes(data)
        expected = _read(str(path))
        with _pipe(data) as piped:
            got = _read(piped)
    if isinstance(expected, InputError):
        assert isinstance(got, InputError) and (got.line, got.field, got.message) == (
            expected.line, expected.field, expected.message)
    else:
        assert got == expected


def _read(path: str) -> tuple[list[str], list[object]] | InputError:
    try:
        header, records = read_swf(path)
    except InputError as exc:
        return exc
    return header.lines, records
