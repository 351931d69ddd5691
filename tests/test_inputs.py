"""The one bounded reader (sitesim/inputs.py): every file sitesim reads is held to the
SWF bounds, and ``/dev/zero`` given as any of them is one line, exit 2, in bounded
memory (issue 34, group 5)."""

from __future__ import annotations

import ast
import gzip
import subprocess
import sys
from pathlib import Path

import pytest

import sitesim
from sitesim.errors import InputError
from sitesim.inputs import read_document
from sitesim.limits import MAX_LINE_BYTES

PACKAGE = Path(sitesim.__file__).parent
ROOT = PACKAGE.parent


def test_a_nul_byte_is_refused_at_once(tmp_path: Path) -> None:
    path = tmp_path / "site.toml"
    path.write_bytes(b"users = 5\n\x00\x00")
    with pytest.raises(InputError, match=r"site\.toml: not a site file: binary data \(a NUL byte at byte 10\)"):
        read_document(path, "site file")


def test_a_line_beyond_the_swf_bound_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "grid.toml"
    path.write_bytes(b"# " + b"x" * MAX_LINE_BYTES + b"\n")
    with pytest.raises(InputError, match="cannot read grid file: a line longer than"):
        read_document(path, "grid file")


def test_json_tables_may_have_long_lines(tmp_path: Path) -> None:
    """A fitted population keeps each user's list on one line: bounded as a whole only."""
    path = tmp_path / "population.json"
    text = "[" + ", ".join(["1"] * (MAX_LINE_BYTES // 2)) + "]\n"
    path.write_text(text, encoding="utf-8")
    assert read_document(path, "population", long_lines=True) == text


def test_a_file_beyond_the_size_bound_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sitesim.inputs.MAX_DOCUMENT_BYTES", 1000)
    path = tmp_path / "results.csv"
    path.write_text("a,b\n" * 300, encoding="utf-8")
    with pytest.raises(InputError, match="larger than 1,000 bytes: not a sweep CSV"):
        read_document(path, "sweep CSV")
    # Decompressed bytes count: a small gzip of a large document is refused too.
    packed = tmp_path / "results.csv.gz"
    packed.write_bytes(gzip.compress(b"a,b\n" * 300))
    with pytest.raises(InputError, match="larger than 1,000 bytes"):
        read_document(packed, "sweep CSV")


@pytest.mark.parametrize(("make", "expected"), [
    (lambda p: p, "No such file or directory"),
    (lambda p: p.mkdir() or p, "Is a directory"),
    (lambda p: p.write_bytes(b"\xff\xfe bad") and p, "not UTF-8 text"),
])
def test_unreadable_files_are_one_line_naming_them(tmp_path: Path, make: object, expected: str) -> None:
    path = make(tmp_path / "x.toml")  # type: ignore[operator]
    with pytest.raises(InputError, match=expected) as info:
        read_document(path, "site file")
    assert str(info.value).startswith(str(tmp_path / "x.toml"))


def _writes(mode: ast.expr | None) -> bool:
    return isinstance(mode, ast.Constant) and isinstance(mode.value, str) and bool(set(mode.value) & set("wax+"))


def _reads_a_file(node: ast.Call) -> str | None:
    """What a call reads a file with, unless it is a write (``open(P, "w")``)."""
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if name in ("read_text", "read_bytes", "loadtxt", "genfromtxt"):
        return name
    if isinstance(func, ast.Attribute) and name == "load" and isinstance(func.value, ast.Name) \
            and func.value.id in ("json", "tomllib", "np", "numpy", "pickle"):
        return f"{func.value.id}.load"
    if name == "open" and isinstance(func, ast.Name):  # the built-in: open(PATH[, MODE])
        mode = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "mode"), None)
        return None if _writes(mode) else "open"
    if name == "open" and isinstance(func, ast.Attribute):
        if isinstance(func.value, ast.Name) and func.value.id in ("gzip", "io", "bz2", "lzma", "codecs"):
            mode = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "mode"),
                                                                   None)
            return None if _writes(mode) else f"{func.value.id}.open"
        first = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "mode"), None)
        if isinstance(first, ast.Constant) and isinstance(first.value, str) and not _writes(first):
            return "PATH.open"  # pathlib's (a method of the package's own takes no mode)
    return None


#: Modules setup.py loads by path while it builds, before the package can be imported:
#: they read their own small files, each with a bound of its own.
BUILD_TIME = {"twin_manifest.py"}


def test_every_file_is_read_through_the_one_reader() -> None:
    """No module but sitesim/inputs.py opens a file to read it, so no file escapes the
    bounds (a reader added later that opened files itself would be found here)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "inputs.py" and path.parent == PACKAGE:
            continue
        if path.relative_to(PACKAGE).as_posix() in BUILD_TIME:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and (how := _reads_a_file(node)):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {how}")
    assert found == []


#: Every file a command reads, given as /dev/zero (the issue's cases and the rest).
DEV_ZERO_CASES = [
    ["--site", "/dev/zero"],
    ["--partitions", "/dev/zero", "--duration", "1"],
    ["-s", "partitioned:/dev/zero", "--duration", "1"],
    ["-u", "2", "--duration", "1", "--population", "/dev/zero"],
    ["-c", "{trace}", "-s", "cons", "--moldable", "0.5", "--moldable-table", "/dev/zero"],
    ["-c", "/dev/zero"],
    ["sweep", "--grid", "/dev/zero", "-o", "{tmp}/out.csv"],
    ["sweep", "--summarize", "/dev/zero"],
    ["study", "--from", "/dev/zero"],
    ["study", "--site", "/dev/zero", "-s", "fcfs", "--seeds", "1", "-o", "{tmp}/study"],
    ["study", "--site", "/dev/stdin", "-s", "fcfs", "--seeds", "1", "-o", "{tmp}/study"],
    ["fit", "/dev/zero", "-o", "{tmp}/fit"],
    ["plot", "gantt", "/dev/zero", "-o", "{tmp}/g.png"],
    ["convert", "sacct", "/dev/zero", "-o", "{tmp}/c.swf"],
]

ADDRESS_SPACE = 3 * 1024**3


def _limited() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /dev/zero as Linux has them")
def test_dev_zero_as_any_input_is_one_line_in_bounded_memory(tmp_path: Path) -> None:
    """Each case exits 2 with one error line naming the file, under a 3 GB address-space
    limit (an unbounded read grew to 24 GB, or ended in a MemoryError traceback). The
    commands run side by side; the timeout only stops a hang from stalling the suite."""
    trace = tmp_path / "t.swf"
    trace.write_text("".join(f"{i} {i * 10} 0 100 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1\n" for i in range(1, 6)))
    env = {"PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg", "PATH": "/usr/bin:/bin"}
    started = []
    for case in DEV_ZERO_CASES:
        argv = [a.format(trace=trace, tmp=tmp_path) for a in case]
        process = subprocess.Popen([sys.executable, "-m", "sitesim", *argv], stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp_path,
                                   preexec_fn=_limited, text=True)
        started.append((argv, process))
    for argv, process in started:
        try:
            _out, err = process.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            process.kill()
            pytest.fail(f"hangs: sitesim {' '.join(argv)}")
        lines = err.strip().splitlines()
        assert process.returncode == 2, (argv, err)
        assert len(lines) == 1 and "Traceback" not in err and "/dev/" in lines[0], (argv, err)
        assert "not found" not in lines[0], (argv, err)  # /dev/zero and /dev/stdin exist
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.swf"]  # nothing written
