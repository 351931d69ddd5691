"""``sitesim study`` end to end: its outputs, a second call that runs nothing, a rerun
from study.toml, a resumed study, and bad input refused before anything is written."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

from sitesim.cli import main
from tests.helpers import one_line_error
from tests.study.conftest import STUDY

OUTPUTS = {"results.csv", "cross.csv", "report.html", "study.toml"}


def rows(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def test_study_writes_every_output(study_dir: Path) -> None:
    assert OUTPUTS <= {p.name for p in study_dir.iterdir()}
    site = rows(study_dir / "results.csv")
    assert len(site) == 6
    assert {(r["scheduler"], r["seed"]) for r in site} == {(p, s) for p in ("fcfs", "easy") for s in "012"}
    assert all(r["duration"] == str(30 * 86_400) and int(r["completed"]) > 0 for r in site)
    assert all(r["jobs_per_active_day"] != "" for r in site)  # productivity, where the site has it
    cross = rows(study_dir / "cross.csv")
    pairs = {(r["trace_policy"], r["evaluated_policy"]) for r in cross}
    assert pairs == {(a, b) for a in ("fcfs", "easy") for b in ("fcfs", "easy")}
    assert {r["n"] for r in cross} == {"3"}
    # Only the first seed's runs stay (the report's figures); the rest were replayed.
    names = sorted(p.name for p in (study_dir / "runs").iterdir())
    assert len(names) == 2 and names[0].startswith("easy-u10-s0-") and names[1].startswith("fcfs-u10-s0-")


def test_second_call_runs_nothing_and_says_so(study_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = (study_dir / "results.csv").read_bytes()
    assert main([*STUDY, "-o", str(study_dir), "--serial", "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "nothing new to run" in err
    assert (study_dir / "results.csv").read_bytes() == before


def test_from_study_toml_reproduces_results(study_dir: Path, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    text = (study_dir / "study.toml").read_text(encoding="utf-8")
    assert 'site = "paper"' in text and "seeds = [0, 1, 2]" in text and "sitesim_version" in text
    again = tmp_path / "again"
    assert main(["study", "--from", str(study_dir / "study.toml"), "-o", str(again), "--serial",
                 "--no-progress"]) == 0
    assert (again / "results.csv").read_bytes() == (study_dir / "results.csv").read_bytes()
    assert (again / "cross.csv").read_bytes() == (study_dir / "cross.csv").read_bytes()
    assert (again / "study.toml").read_text(encoding="utf-8") == text


def test_interrupted_study_finishes_only_what_is_missing(study_dir: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """A study stopped part-way (rows missing from both CSVs, its report not written)
    runs the missing runs only, says so, and ends with the same files."""
    copy = tmp_path / "copy"
    shutil.copytree(study_dir, copy)
    for name, keep in (("results.csv", 4), ("replays.csv", 7)):
        lines = (copy / name).read_text(encoding="utf-8").splitlines(keepends=True)
        (copy / name).write_text("".join(lines[:keep]), encoding="utf-8")
    (copy / "report.html").unlink()
    (copy / "cross.csv").unlink()
    capsys.readouterr()
    assert main(["study", "--from", str(copy / "study.toml"), "--serial", "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "3 of 6 site-level runs and 6 of 12 replays run now (resumed" in err
    for name in ("results.csv", "replays.csv", "cross.csv"):
        assert (copy / name).read_bytes() == (study_dir / name).read_bytes(), name
    assert (copy / "report.html").is_file()


def test_policy_specs_with_options_and_folders(tmp_path: Path) -> None:
    """Policy specs keep their key=value options (split_specs) and get safe folder names."""
    out = tmp_path / "s"
    assert main(["study", "--site", "paper", "-s", "easy,multifactor:age=1,size=0", "--seeds", "1",
                 "--duration", "3", "--users", "4", "-o", str(out), "--serial", "--no-progress"]) == 0
    site = rows(out / "results.csv")
    assert sorted(r["scheduler"] for r in site) == ["easy", "multifactor:age=1,size=0"]
    names = sorted(p.name for p in (out / "runs").iterdir())
    assert names[0].startswith("easy-u4-s0-") and names[1].startswith("multifactor_age_1_size_0-")


def test_another_duration_in_the_same_folder_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Another study in a folder holding one would share its results.csv (issue 34):
    refused in one line, the folder left as it was."""
    out = tmp_path / "s"
    base = ["study", "--site", "paper", "-s", "fcfs", "--seeds", "1", "--users", "2",
            "-o", str(out), "--serial", "--no-progress"]
    assert main([*base, "--duration", "1"]) == 0
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    capsys.readouterr()
    line = one_line_error([*base, "--duration", "3"], capsys)
    assert "holds another study" in line
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_a_changed_site_replays_its_own_traces(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The same study on a changed site (another model): its site-level runs get folders
    of their own, so every replay runs again, and cross.csv compares the new runs with
    replays of the new traces only."""
    site = tmp_path / "site.toml"
    site.write_text("users = 10\nduration = 3\n", encoding="utf-8")
    out = tmp_path / "s"
    base = ["study", "--site", str(site), "-s", "fcfs,easy", "--seeds", "1", "-o", str(out), "--serial", "--no-progress"]
    assert main(base) == 0
    first = {p.name for p in (out / "runs").iterdir()}
    site.write_text("users = 10\nduration = 3\nruntime_scale = 0.5\n", encoding="utf-8")
    capsys.readouterr()
    assert main(base) == 0
    assert "2 of 2 site-level runs and 4 of 4 replays run now" in capsys.readouterr().err
    second = {p.name for p in (out / "runs").iterdir()} - first
    assert len(second) == 2
    replays = rows(out / "replays.csv")
    assert len(replays) == 8 and {r["trace"].split("/")[1] for r in replays} == first | second
    site_rows = {r["scheduler"]: float(r["mean_wait"]) for r in rows(out / "results.csv")}
    new = {r["scheduler"]: float(r["mean_wait"]) for r in replays if r["trace"].split("/")[1] in second
           and r["trace"].split("/")[1].startswith(r["scheduler"] + "-")}
    for r in rows(out / "cross.csv"):
        if r["metric"] == "mean_wait" and r["trace_policy"] == r["evaluated_policy"]:
            assert float(r["site_mean"]) == pytest.approx(site_rows[r["trace_policy"]])
            assert float(r["conventional_mean"]) == pytest.approx(new[r["trace_policy"]])


BAD = [
    (["-s", "fcfs,nosuch"], "nosuch"),
    (["--site", "nosuch"], "unknown site"),
    (["--site", "missing/site.toml"], "site.toml"),
    (["--seeds", "0"], "--seeds"),
]


@pytest.mark.parametrize(("change", "expected"), BAD)
def test_bad_input_is_one_line_and_leaves_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  change: list[str], expected: str) -> None:
    argv = [*STUDY, "--serial"]
    for flag, value in zip(change[::2], change[1::2], strict=True):
        argv[argv.index(flag) + 1] = value
    out = tmp_path / "out"
    line = one_line_error([*argv, "-o", str(out)], capsys)
    assert expected in line and line.startswith("sitesim study: error:")
    assert not out.exists()
    out.mkdir()  # an existing, empty folder stays empty
    one_line_error([*argv, "-o", str(out)], capsys)
    assert list(out.iterdir()) == []


def test_output_path_that_is_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "taken"
    out.write_text("mine\n", encoding="utf-8")
    line = one_line_error([*STUDY, "--serial", "-o", str(out)], capsys)
    assert "not a folder" in line
    assert out.read_text(encoding="utf-8") == "mine\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]


def test_from_with_configuration_flags_is_refused(study_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = one_line_error(["study", "--from", str(study_dir / "study.toml"), "--seeds", "2"], capsys)
    assert "--seeds" in line


def test_missing_study_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = one_line_error(["study", "--from", str(tmp_path / "none.toml")], capsys)
    assert "no such file" in line
    assert list(tmp_path.iterdir()) == []


def test_partitioned_site_runs_each_policy_on_every_partition(tmp_path: Path) -> None:
    """On a partitioned site a policy replaces every partition's own; the site-level
    traces and the replays keep the partitions."""
    out = tmp_path / "p"
    assert main(["study", "--site", "partitions", "-s", "fcfs,easy", "--seeds", "1", "--duration", "3",
                 "-o", str(out), "--serial", "--no-progress"]) == 0
    [folder] = (out / "runs").glob("fcfs-u10-s0-*")
    trace = (folder / "trace.swf").read_text(encoding="utf-8")
    assert "; Note: partitions short:32:fcfs(est<=3600)+batch:96:fcfs\n" in trace
    assert {r["scheduler"] for r in rows(out / "results.csv")} == {"fcfs", "easy"}
    assert len(rows(out / "cross.csv")) == 4 * 4


def test_paper_site_rows_are_the_sweeps_own(study_dir: Path, tmp_path: Path) -> None:
    """A study of the paper site names and computes its runs as `sitesim sweep` does:
    the same grid swept gives results.csv byte for byte (same model fingerprint)."""
    from sitesim.sweep import Grid, run_sweep

    path = tmp_path / "sweep.csv"
    grid = Grid(users=10, scheduler=("fcfs", "easy"), duration=30, replications=3)
    assert run_sweep(grid, path, "serial", progress=False).ok
    assert path.read_bytes() == (study_dir / "results.csv").read_bytes()


def test_study_refused_while_another_runs_in_the_folder(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """A second study in a folder whose study is running is refused before it writes
    anything: the running study's study.toml stays as it was."""
    from sitesim.study.lock import StudyLock

    out = tmp_path / "s"
    out.mkdir()
    (out / "study.toml").write_text("running\n", encoding="utf-8")
    with StudyLock(out):
        line = one_line_error([*STUDY, "--serial", "-o", str(out)], capsys)
        assert "another study is running" in line and "sweep" not in line
        assert (out / "study.toml").read_text(encoding="utf-8") == "running\n"
        assert sorted(p.name for p in out.iterdir()) == [".study.toml.lock", "study.toml"]
    assert sorted(p.name for p in out.iterdir()) == ["study.toml"]


def _quiet_site(folder: Path) -> Path:
    """A site fitted to a tiny hand-made log whose users submit only in the afternoon:
    its first 2.4 simulated hours see no job at all."""
    lines = ["; MaxNodes: 16", "; MaxProcs: 16"]
    for day in range(10):
        for user in (1, 2, 3, 4):
            for k in range(3):
                submit = day * 86_400 + 14 * 3600 + user * 1800 + k * 600
                lines.append(f"{len(lines) - 1} {submit} 10 300 4 -1 -1 4 600 -1 1 {user} 1 1 1 -1 -1 -1")
    log = folder / "quiet.swf"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["fit", str(log), "-o", str(folder / "fit")]) == 0
    return folder / "fit" / "site.toml"


def test_site_runs_without_jobs_give_replays_without_metrics(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Site-level runs that submit no job: their replays are rows without metrics, the
    study finishes (exit 0, report written) and says "no jobs" for those pairs."""
    site = _quiet_site(tmp_path)
    out = tmp_path / "s"
    argv = ["study", "--site", str(site), "-s", "fcfs,easy", "--seeds", "1", "--duration", "0.1",
            "-o", str(out), "--serial", "--no-progress"]
    assert main(argv) == 0
    assert {r["submitted"] for r in rows(out / "results.csv")} == {"0"}
    replays = rows(out / "replays.csv")
    assert len(replays) == 4 and all(r["submitted"] == "0" and r["mean_wait"] == "" for r in replays)
    cross = rows(out / "cross.csv")
    assert len(cross) == 4 * 4 and {r["n"] for r in cross} == {"0"}
    assert all(r["error_pct_mean"] == "" for r in cross)
    assert "no jobs" in (out / "report.html").read_text(encoding="utf-8")
    capsys.readouterr()
    assert main(argv) == 0
    assert "nothing new to run" in capsys.readouterr().err


def test_study_larger_than_a_sweep_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Counted before any point is built: 10,000 seeds x 2 policies x 5 user counts is
    100,000 site-level runs and 200,000 replays, above the sweep's limit."""
    out = tmp_path / "big"
    line = one_line_error(["study", "--site", "paper", "-s", "fcfs,easy", "--seeds", "10000",
                           "--users", "1,2,3,4,5", "-o", str(out)], capsys)
    assert "100,000 site-level runs and 200,000 replays" in line and "limit of 100,000" in line
    assert not out.exists()


def test_from_reports_another_model_or_version(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A study.toml made with another model and version: one warning line naming both,
    the runs proceed, and the rewritten study.toml and rows carry the current model."""
    from sitesim.version import __version__

    toml = tmp_path / "study.toml"
    toml.write_text('sitesim_version = "0.0.0"\nsite = "paper"\npolicies = ["fcfs"]\nseeds = [0]\n'
                    'users = [2]\nduration = 3600\nmodel = "000000000000"\n', encoding="utf-8")
    argv = ["study", "--from", str(toml), "--serial", "--no-progress"]
    assert main(argv) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(warnings) == 1
    assert "model 000000000000, now " in warnings[0] and f"sitesim 0.0.0, now {__version__}" in warnings[0]
    model = rows(tmp_path / "results.csv")[0]["model"]
    assert model != "000000000000" and f'model = "{model}"' in toml.read_text(encoding="utf-8")
    assert main(argv) == 0  # the file now matches: no warning
    assert "warning" not in capsys.readouterr().err


@pytest.mark.parametrize(("days", "expected"), [("1e300", "got 1e+300"), ("0", "got 0"), ("nan", "got nan"),
                                               ("inf", "got inf")])
def test_out_of_range_duration_is_short(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        days: str, expected: str) -> None:
    argv = [*STUDY, "--serial", "-o", str(tmp_path / "out")]
    argv[argv.index("--duration") + 1] = days
    line = one_line_error(argv, capsys)
    assert "--duration" in line and expected in line and len(line) < 200
    assert not (tmp_path / "out").exists()


def test_output_under_a_file_cannot_be_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    taken = tmp_path / "taken"
    taken.write_text("mine\n", encoding="utf-8")
    line = one_line_error([*STUDY, "--serial", "-o", str(taken / "sub")], capsys)
    assert "cannot write" in line and "Errno" not in line
    assert taken.read_text(encoding="utf-8") == "mine\n"


def test_missing_settings_are_named_once(capsys) -> None:
    assert main(["study", "-s", "easy"]) == 2
    line = capsys.readouterr().err
    assert line.count("sitesim study") == 1 and "missing --site" in line


def test_a_bad_figures_folder_is_refused_before_any_run(tmp_path, capsys) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("x")
    out = tmp_path / "study"
    code = main(["study", "--site", "paper", "-s", "easy", "--seeds", "1", "-o", str(out),
                 "--figures", str(blocked / "figs"), "--serial", "--no-progress"])
    assert code == 2 and "--figures" in capsys.readouterr().err and not out.exists()


def test_a_whole_node_sites_traces_are_replayed_in_their_nodes(tmp_path: Path) -> None:
    """A whole-node site's traces are in nodes already (MaxNodes = MaxProcs): its
    replays run them undivided, so FCFS waits on its own FCFS trace much as it did."""
    site = tmp_path / "st.toml"
    site.write_text('users = 8\nnodes = 32\nduration = 5\nscheduler = "fcfs"\nprocessors_per_node = 4\n')
    out = tmp_path / "st"
    assert main(["study", "--site", str(site), "-s", "fcfs,easy", "--seeds", "1", "--serial", "-o", str(out),
                 "--no-progress"]) == 0
    ran = {r["scheduler"]: float(r["mean_wait"]) for r in rows(out / "results.csv")}
    replays = rows(out / "replays.csv")
    own = [float(r["mean_wait"]) for r in replays if r["scheduler"] == "fcfs" and "fcfs-" in r["trace"]]
    assert ran["fcfs"] > 0 and len(own) == 1
    assert own[0] == pytest.approx(ran["fcfs"], rel=0.1)
    assert all(r["nodes_used"] == "32" for r in replays)
