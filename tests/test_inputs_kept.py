"""No command writes over one of its own inputs, and a failed or refused run of any
command leaves its inputs and an earlier good output byte for byte as they were
(issue 34, group 3; the ``[Errno 21]`` of ``convert sacct -o DIR``, group 12).

Each case lays out a folder of inputs and earlier outputs, runs one command in-process
(``sitesim.cli.main``), and compares every file of the folder before and after: the
command must exit 2 with one error line, and change, add or remove nothing.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import one_line_error

SACCT = ("JobID|User|Group|Partition|Submit|Start|End|Timelimit|AllocCPUS|ReqCPUS|NNodes|State\n"
         "10|ann|g1|batch|2024-05-06T09:00:00|2024-05-06T09:00:30|2024-05-06T10:00:30|02:00:00|8|8|1|COMPLETED\n")


def swf(jobs: int = 6) -> str:
    return "; MaxNodes: 16\n" + "".join(f"{i} {i * 60} {i} 300 4 -1 -1 4 600 -1 1 {1 + i % 2} 1 -1 -1 -1 -1 -1\n"
                                        for i in range(1, jobs + 1))


def snapshot(root: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(root)): (None if p.is_dir() else p.read_bytes()) for p in sorted(root.rglob("*"))}


#: name → (lay out the files, the command line, a word the error line holds).
Layout = Callable[[Path], None]
#: A partition file (the shipped site's) that a policy of a study reads.
PARTITIONS = (Path(__file__).resolve().parents[1] / "models" / "partitions.toml").read_text()

CASES: dict[str, tuple[Layout, list[str], str]] = {
    "run --site DIR/site.toml --out DIR": (
        lambda d: ((d / "D").mkdir(), (d / "D/site.toml").write_text("users = 2\nduration = 1\n"),
                   (d / "D/summary.json").write_text("{}\n")),
        ["--site", "D/site.toml", "--out", "D"], "input"),
    "-c DIR/schedule.swf --out DIR": (
        lambda d: ((d / "D").mkdir(), (d / "D/schedule.swf").write_text(swf()), (d / "D/stats.txt").write_text("x\n")),
        ["-c", "D/schedule.swf", "--out", "D"], "input"),
    "-c T --site DIR/site.toml --out DIR": (
        lambda d: ((d / "D").mkdir(), (d / "t.swf").write_text(swf()),
                   (d / "D/site.toml").write_text('scheduler = "easy"\nnodes = 8\n')),
        ["-c", "t.swf", "--site", "D/site.toml", "--out", "D"], "input"),
    "a replay that fails keeps the earlier outputs": (
        lambda d: ((d / "D").mkdir(), (d / "bad.swf").write_text("1 2 3\n"), (d / "D/stats.txt").write_text("x\n")),
        ["-c", "bad.swf", "--out", "D"], "bad.swf"),
    "fit DIR/log -o DIR": (
        lambda d: ((d / "D").mkdir(), (d / "D/trace.swf").write_text(swf())),
        ["fit", "D/trace.swf", "-o", "D"], "input"),
    "a fit that fails keeps the earlier outputs": (
        lambda d: ((d / "D").mkdir(), (d / "bad.swf").write_text("x\n"), (d / "D/site.toml").write_text("users = 1\n")),
        ["fit", "bad.swf", "-o", "D"], "bad.swf"),
    "sweep --summarize X --output X": (
        lambda d: (d / "x.csv").write_text("mode,seed\nsite,0\n"),
        ["sweep", "--summarize", "x.csv", "--output", "./x.csv"], "input"),
    "sweep --summarize X --output a hard link of X": (
        lambda d: ((d / "x.csv").write_text("mode,seed\nsite,0\n"), os.link(d / "x.csv", d / "y.csv")),
        ["sweep", "--summarize", "x.csv", "--output", "y.csv"], "input"),
    "a summary that fails keeps the earlier summary": (
        lambda d: ((d / "x.csv").write_bytes(b"\x00"), (d / "s.csv").write_text("good\n")),
        ["sweep", "--summarize", "x.csv", "--output", "s.csv"], "x.csv"),
    "sweep --trace T -o T": (
        lambda d: (d / "t.swf").write_text(swf()),
        ["sweep", "--mode", "replay", "--trace", "t.swf", "-o", "t.swf"], "input"),
    "sweep --grid G -o a symbolic link to G": (
        lambda d: ((d / "g.toml").write_text("users = [2]\nduration = [1]\n"), (d / "l.csv").symlink_to("g.toml")),
        ["sweep", "--grid", "g.toml", "-o", "l.csv"], "input"),
    "a sweep refused keeps its CSV": (
        lambda d: (d / "r.csv").write_text("mode,seed\nsite,0\n"),
        ["sweep", "--users", "2", "--duration", "1", "-o", "r.csv"], "columns"),
    "convert sacct F -o F": (
        lambda d: (d / "f.sacct").write_text(SACCT),
        ["convert", "sacct", "f.sacct", "-o", "f.sacct"], "input"),
    "convert sacct F -o DIR": (
        lambda d: ((d / "f.sacct").write_text(SACCT), (d / "D").mkdir()),
        ["convert", "sacct", "f.sacct", "-o", "D"], "folder"),
    "convert sacct F --mapping, the mapping being F": (
        lambda d: (d / "o.swf.mapping.csv").write_text(SACCT),
        ["convert", "sacct", "o.swf.mapping.csv", "-o", "o.swf", "--mapping"], "input"),
    "a conversion that fails keeps the earlier SWF": (
        lambda d: ((d / "f.sacct").write_text("nonsense\n"), (d / "o.swf").write_text(swf())),
        ["convert", "sacct", "f.sacct", "-o", "o.swf"], "f.sacct"),
    "plot S -o S": (
        lambda d: (d / "s.swf").write_text(swf()),
        ["plot", "gantt", "s.swf", "-o", "s.swf"], "input"),
    "study -s easy,partitioned:DIR/results.csv -o DIR (a policy after the first)": (
        lambda d: ((d / "D").mkdir(), (d / "D/results.csv").write_text(PARTITIONS)),
        ["study", "--site", "paper", "-s", "easy,partitioned:D/results.csv", "--seeds", "1", "-o", "D"], "input"),
    "study --site DIR/report.html -o DIR": (
        lambda d: ((d / "D").mkdir(), (d / "D/report.html").write_text("users = 2\n")),
        ["study", "--site", "D/report.html", "-s", "fcfs", "--seeds", "1", "-o", "D"], "input"),
    "a study refused keeps the earlier study": (
        lambda d: ((d / "D").mkdir(), (d / "D/study.toml").write_text('site = "paper"\n'),
                   (d / "D/results.csv").write_text("mode\n")),
        ["study", "--site", "paper", "-s", "fcfs,nosuch", "--seeds", "1", "-o", "D"], "nosuch"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_refused_or_failed_run_changes_no_file(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    layout, argv, word = CASES[name]
    monkeypatch.chdir(tmp_path)
    layout(tmp_path)
    before = snapshot(tmp_path)
    line = one_line_error(argv, capsys)
    assert word in line and "Errno" not in line
    assert snapshot(tmp_path) == before
