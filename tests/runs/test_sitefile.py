"""Site files (models/*.toml) and the site-level command line."""

from __future__ import annotations

import json
from pathlib import Path

import attrs
import pytest

from sitesim.cli import main
from sitesim.errors import InputError
from sitesim.runs.site import DAY, YEAR, SiteConfig, run_site
from sitesim.runs.sitefile import load_site_file, site_config, site_path

REPO = Path(__file__).resolve().parents[2]


def test_shipped_paper_site_is_the_papers_setup() -> None:
    config = site_config(load_site_file(REPO / "models" / "paper.toml"), {})
    assert (config.users, config.submittal, config.workpool) == (10, "batch", "plain")
    assert (config.nodes, config.scheduler, config.estimates) == (128, "fcfs", "exact")
    assert config.duration == YEAR


def test_command_line_overrides_the_site_file() -> None:
    base = load_site_file(REPO / "models" / "paper.toml")
    config = site_config(base, {"scheduler": "easy", "users": 20, "seed": None})
    assert (config.scheduler, config.users, config.seed) == ("easy", 20, 0)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("userz = 3\n", "userz: unknown key"),
        ('users = "ten"\n', "users: must be a whole number, got 'ten'"),
        ("users = \n", "invalid TOML"),
        ('size_mapping = "stretch"\n', "size_mapping: unknown size mapping 'stretch'"),
        ("runtime_scale = 0\n", "runtime_scale: must be a finite number in 0.001..1000"),
        ("runtime_scale = nan\n", "runtime_scale: must be a finite number in 0.001..1000"),
    ],
)
def test_bad_site_files_name_file_and_key(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "site.toml"
    path.write_text(text)
    with pytest.raises(InputError) as info:  # names are checked when the configuration is built
        site_config(load_site_file(path), {}, origin=path)
    assert str(path) in str(info.value) and expected in str(info.value)


def test_default_command_runs_the_paper_setup(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--duration", "30"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("#uid load av-util av-resp av-wait av-sld num_jobs complete model wp")
    users = [line for line in out if line[:1].isdigit()]
    assert len(users) == 11  # ten #uid lines and the #sid line
    assert users[-1].endswith(" fcfs 10")


def test_site_run_writes_config_and_seed_with_the_results(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    argv = ["--site", str(REPO / "models" / "paper.toml"), "-s", "easy", "-u", "4",
            "--duration", "20", "--seed", "9", "--out", str(out)]
    assert main(argv) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["config"]["scheduler"] == "easy"
    assert summary["config"]["seed"] == 9
    assert summary["config"]["duration"] == 20 * DAY
    assert (out / "trace.swf").read_text().startswith("; Version: 2.2")
    # Table 2 (two headers, four #uid lines, the #sid line), then the users' productivity
    # (two headers, four #puid lines, the #psid line)
    assert (out / "stats.txt").read_text().count("\n") == (4 + 3) + (4 + 3)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["-m", "nope"], "unknown submittal model 'nope'"),
        (["-w", "nope"], "unknown workpool model 'nope'"),
        (["--empirical", "nope"], "unknown empirical model 'nope'"),
        (["--site", "missing.toml"], "cannot read site file"),
    ],
)
def test_site_level_input_errors_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str], expected: str) -> None:
    assert main([*argv, "--duration", "1"]) == 2
    err = capsys.readouterr().err
    assert expected in err and "Traceback" not in err and err.count("\n") == 1


def test_replay_only_options_are_refused_in_site_level_runs(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--load-factor", "2"])
    assert info.value.code == 2


def test_failed_site_run_leaves_no_output_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A partition that admits only one-minute jobs: the run fails at the first longer one,
    # after the output directory was made.
    toml = tmp_path / "narrow.toml"
    toml.write_text('[[partitions]]\nname = "tiny"\nnodes = 128\nmax_estimate = 60\n')
    out = tmp_path / "never"
    assert main(["--partitions", str(toml), "--duration", "5", "--out", str(out)]) == 2
    assert "fits no partition" in capsys.readouterr().err
    assert not out.exists()
    afile = tmp_path / "afile"
    afile.write_text("x")
    assert main(["--duration", "1", "--out", str(afile)]) == 2
    assert "is not a directory" in capsys.readouterr().err


def test_shipped_sites_by_name() -> None:
    assert site_path("paper") == REPO / "models" / "paper.toml"
    assert site_path("models/measured.toml") == Path("models/measured.toml")
    with pytest.raises(InputError, match="unknown site 'nope'.*measured, paper"):
        site_path("nope")


def test_a_bare_sitesim_is_the_paper_site() -> None:
    # The defaults (what `sitesim`, the sweeps and the experiments run) are the paper
    # site, calibration included; the measured site differs only by the calibration.
    paper = site_config(load_site_file("paper"), {})
    assert paper == SiteConfig()
    assert paper.runtime_scale != 1 and paper.size_mapping == "scale"
    measured = site_config(load_site_file("measured"), {})
    assert measured == attrs.evolve(paper, runtime_scale=1.0)


def test_runtime_scale_one_gives_the_measured_site_exactly(tmp_path: Path) -> None:
    short = {"duration": 20 * DAY, "seed": 5}
    run_site(site_config(load_site_file("measured"), short), out=tmp_path / "measured")
    run_site(site_config(load_site_file("paper"), {**short, "runtime_scale": 1.0}), out=tmp_path / "one")
    run_site(site_config(load_site_file("paper"), short), out=tmp_path / "paper")
    measured = (tmp_path / "measured" / "trace.swf").read_bytes()
    assert (tmp_path / "one" / "trace.swf").read_bytes() == measured
    assert (tmp_path / "paper" / "trace.swf").read_bytes() != measured


def test_site_by_name_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--site", "measured", "--duration", "10", "-u", "2"]) == 0
    assert capsys.readouterr().out.startswith("#uid load av-util")
    assert main(["--site", "nope"]) == 2
    assert "unknown site 'nope'" in capsys.readouterr().err
