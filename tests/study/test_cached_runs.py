"""A study's cached runs are checked before reuse (issue 34, group 4), a folder holding
another study is refused and study.toml is written only for an accepted study, never
replaced by a failed one (group 9); a bad table is refused up front (group 12)."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from sitesim.cli import main
from sitesim.study.traces import CHECKSUMS
from tests.helpers import one_line_error

SMALL = ["study", "--site", "paper", "-s", "fcfs", "--seeds", "1", "--users", "2", "--duration", "2",
         "--serial", "--no-progress"]


def rows(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def done(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cached") / "s"
    assert main([*SMALL, "-o", str(out)]) == 0
    return out


@pytest.fixture
def study(done: Path, tmp_path: Path) -> Path:
    """A finished study of its own, to damage."""
    out = tmp_path / "s"
    shutil.copytree(done, out)
    return out


def traces(out: Path) -> list[Path]:
    return sorted(out.glob("runs/*/trace.swf"))


def test_the_checksums_of_the_traces_are_recorded(study: Path) -> None:
    sums = json.loads((study / CHECKSUMS).read_text(encoding="utf-8"))
    assert sorted(sums) == sorted(str(t.relative_to(study)) for t in traces(study))


def test_a_trace_cut_at_a_line_boundary_is_made_again(study: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's case: the cut trace was replayed silently (891 jobs of 1,793)."""
    trace = traces(study)[0]
    whole = trace.read_bytes()
    lines = whole.splitlines(keepends=True)
    trace.write_bytes(b"".join(lines[: len(lines) // 2]))
    (study / "replays.csv").unlink()  # so the replays are run again, from the traces
    assert main([*SMALL, "-o", str(study)]) == 0
    assert "1 traces not matching their runs' rows were redone" in capsys.readouterr().err
    assert trace.read_bytes() == whole
    site = {r["scheduler"]: r["submitted"] for r in rows(study / "results.csv")}
    for replay in rows(study / "replays.csv"):
        assert replay["submitted"] == site[Path(replay["trace"]).parent.name.split("-")[0]]


def test_a_trace_edited_with_its_job_count_kept_fails_its_checksum(study: Path) -> None:
    trace = traces(study)[0]
    whole = trace.read_bytes()
    lines = whole.splitlines(keepends=True)
    job = next(i for i, line in enumerate(lines) if not line.startswith(b";"))
    lines[job] = lines[job].replace(b"-1", b"-2", 1)  # one field changed, as many jobs
    trace.write_bytes(b"".join(lines))
    assert trace.read_bytes() != whole
    assert main([*SMALL, "-o", str(study)]) == 0
    assert trace.read_bytes() == whole


def test_a_nan_row_is_not_a_finished_run(study: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = study / "results.csv"
    good = path.read_bytes()
    table = rows(path)
    table[0]["mean_wait"] = "nan"
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, list(table[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(table)
    assert main([*SMALL, "-o", str(study)]) == 0
    err = capsys.readouterr().err
    assert "1 of 1 site-level runs" in err and "1 damaged rows" in err
    assert path.read_bytes() == good  # the run made again gives the row it had
    assert "nan ±" not in (study / "report.html").read_text(encoding="utf-8")


def test_a_different_study_into_the_folder_is_refused(study: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = snapshot(study)
    argv = [*SMALL, "-o", str(study)]
    argv[argv.index("--seeds") + 1] = "2"
    line = one_line_error(argv, capsys)
    assert "holds another study" in line and "--from" in line
    assert snapshot(study) == before


def test_the_same_study_from_its_file_resumes(study: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = (study / "study.toml").read_bytes()
    assert main(["study", "--from", str(study / "study.toml"), "--serial", "--no-progress"]) == 0
    assert "nothing new to run" in capsys.readouterr().err
    assert (study / "study.toml").read_bytes() == before


def test_a_failed_study_does_not_replace_its_file(study: Path, monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    """The same study rerun on a changed site (its model, recorded in study.toml,
    differs) whose runs fail keeps the record of the study that finished."""
    from sitesim.study import build
    from sitesim.study.runs import StudyRuns
    from sitesim.sweep.runner import SweepReport

    site = tmp_path / "site.toml"
    site.write_text("users = 2\nduration = 2\n", encoding="utf-8")
    out = tmp_path / "mine"
    argv = ["study", "--site", str(site), "-s", "fcfs", "--seeds", "1", "--serial", "--no-progress", "-o", str(out)]
    assert main(argv) == 0
    recorded = (out / "study.toml").read_bytes()
    site.write_text("users = 2\nduration = 2\nruntime_scale = 0.5\n", encoding="utf-8")
    monkeypatch.setattr(build, "run_all", lambda *a, **k: StudyRuns(SweepReport(total=1, failed=[(("k",), "x")]),
                                                                       SweepReport(total=1)))
    assert main(argv) == 1
    assert (out / "study.toml").read_bytes() == recorded


def test_a_bad_table_is_an_input_error_up_front(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Not a failed run at every point ("run again to retry" would fail the same way)."""
    (tmp_path / "bad.json").write_text('{"format": 1}\n', encoding="utf-8")
    (tmp_path / "pop.json").write_text('{"format": "sitesim-population"}\n', encoding="utf-8")
    for flag, name in (("--empirical", "bad.json"), ("--population", "pop.json")):
        line = one_line_error([*SMALL, flag, str(tmp_path / name), "-o", str(tmp_path / "out")], capsys)
        assert name in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json", "pop.json"]


def test_a_site_that_is_a_device_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = one_line_error([*SMALL[:2], "/dev/null", *SMALL[3:], "-o", str(tmp_path / "o")], capsys)
    assert "a pipe or device" in line and "not found" not in line


def test_parallel_replays_of_a_removed_trace_make_it_once(tmp_path: Path) -> None:
    """Every policy replays each trace: with several workers, the replays of a trace that
    is gone wait for one of them to make it again (study/traces.py, ``trace_lock``),
    instead of each remaking it while another reads it."""
    argv = ["study", "--site", "paper", "-s", "fcfs,easy,sjbf", "--seeds", "1", "--users", "2",
            "--duration", "2", "-j", "2", "--no-progress", "-o", str(tmp_path / "s")]
    assert main(argv) == 0
    replays = sorted((tmp_path / "s" / "replays.csv").read_text().splitlines())  # in any order of ending
    for trace in traces(tmp_path / "s"):
        shutil.rmtree(trace.parent)
    (tmp_path / "s" / "replays.csv").unlink()
    assert main(argv) == 0
    assert sorted((tmp_path / "s" / "replays.csv").read_text().splitlines()) == replays
    assert not (tmp_path / "s" / ".trace-locks").exists()
