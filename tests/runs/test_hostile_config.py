"""Hostile site files and numbers (issue cases 2, 3, 11, 13): one line naming the source."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitesim.runs.replay import ReplayConfig, run_replay
from tests.helpers import one_line_error

PARTITIONS = """
[[partitions]]
name = "short"
nodes = 16
max_estimate = 3600

[[partitions]]
name = "rest"
nodes = 48
"""


def _file(tmp_path: Path, text: str | bytes, name: str = "site.toml") -> str:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return str(path)


@pytest.mark.parametrize("flag", ["--site", "--partitions"])
def test_non_utf8_toml_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str) -> None:
    path = _file(tmp_path, b'users = 3\n# caf\xe9\n')
    line = one_line_error([flag, path, "--duration", "1"], capsys)
    assert path in line and "UTF-8" in line


@pytest.mark.parametrize(
    ("toml", "key"),
    [
        ("users = 99999999999999999999", "users"),
        ("users = 0", "users"),
        ("nodes = 9223372036854775808", "nodes"),
        ("submittal = 'bogus'", "submittal"),
        ("workpool = 'bogus'", "workpool"),
        ("scheduler = 'bogus'", "scheduler"),
        ("estimates = 'trace'", "estimates"),
        ("duration_days = 1e20", "duration_days"),
        ("max_jobs = 99999999999999999999", "max_jobs"),
    ],
)
def test_site_file_errors_name_the_file_and_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], toml: str, key: str
) -> None:
    path = _file(tmp_path, toml + "\n")
    line = one_line_error(["--site", path], capsys)
    assert f"{path}: {key}:" in line
    assert "--" not in line.split(path)[1]  # no command-line flag is blamed


def test_a_flag_overriding_the_file_is_blamed_as_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _file(tmp_path, "users = 3\n")
    assert "--users:" in one_line_error(["--site", path, "-u", "99999999999999999999"], capsys)


@pytest.mark.parametrize(
    "argv",
    [
        ["-u", "99999999999999999999"],
        ["--nodes", "9223372036854775808", "--duration", "1"],
        ["--duration", "1e20"],
        ["--jobs", "99999999999999999999"],
        ["-c", "{trace}", "--nodes", "9223372036854775808"],
    ],
)
def test_huge_numbers_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    trace = _file(tmp_path, "1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n", "t.swf")
    line = one_line_error([a.format(trace=trace) for a in argv], capsys)
    assert "must be" in line


def test_partitioned_policy_and_partitions_flag_are_the_same_machine(tmp_path: Path) -> None:
    """-s partitioned:FILE declares the machine size like --partitions FILE (64 nodes
    here), whatever the log's header says."""
    parts = _file(tmp_path, PARTITIONS, "parts.toml")
    trace = _file(tmp_path, "; MaxNodes: 128\n1 0 0 10 4 -1 -1 4 10 -1 1 1 1 -1 -1 -1 -1 -1\n", "t.swf")
    by_policy = run_replay(ReplayConfig(trace=trace, scheduler=f"partitioned:{parts}"))
    assert by_policy.nodes == 64 and by_policy.counts["submitted"] == 1
    from sitesim.cli import main

    assert main(["-s", f"partitioned:{parts}", "--duration", "1", "-u", "2"]) == 0
