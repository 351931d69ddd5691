"""Parity: every declared run option is settable, by the same name and in the same unit,
from the command line, a site file, the Python API, a sweep axis and a study.

The surfaces are all derived from sitesim/runs/options.py; this test enumerates the
declaration, so an option added there and missed by a surface fails here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sitesim import api, cli
from sitesim.runs import options
from sitesim.runs.sitefile import load_site_file
from sitesim.study import cli as study_cli
from sitesim.study.config import SETTINGS, settings_of
from sitesim.sweep import cli as sweep_cli
from sitesim.sweep.grid import Grid, grid_from_mapping

#: A value of each option as a person gives it (text for the command line), and the
#: value the configuration then stores.
SAMPLES: dict[str, tuple[Any, str, Any]] = {
    "scheduler": ("easy", "easy", "easy"),
    "estimates": ("f:2", "f:2", "f:2"),
    "nodes": (64, "64", 64),
    "seed": (7, "7", 7),
    "processors_per_node": (4, "4", 4),
    "users": (3, "3", 3),
    "submittal": ("closed", "closed", "closed"),
    "workpool": ("failing", "failing", "failing"),
    "duration": (2, "2", 2 * 86_400),
    "max_jobs": (50, "50", 50),
    "empirical": ("KTH-SP2", "KTH-SP2", "KTH-SP2"),
    "size_mapping": ("clip", "clip", "clip"),
    "runtime_scale": (0.5, "0.5", 0.5),
    "population": ("pop.json", "pop.json", "pop.json"),
    "adaptive": (0.5, "0.5", 0.5),
    "moldable_policy": ("static", "static", "static"),
    "trace": ("t.swf", "t.swf", "t.swf"),
    "load_factor": (2.0, "2", 2.0),
    "failures": ("none", "none", "none"),
    "feedback": ("gap", "gap", "gap"),
    "skip_malformed": (True, "", True),
}


def test_every_declared_option_has_a_sample() -> None:
    assert set(SAMPLES) == set(options.names())


@pytest.mark.parametrize("o", options.OPTIONS, ids=lambda o: o.name)
def test_the_command_line_sets_it_by_its_flag(o: options.Option) -> None:
    value, text, stored = SAMPLES[o.name]
    argv = [o.flag] if isinstance(o.kind, options.Switch) else [o.flag, text]
    mode = o.modes[0]
    if mode == options.REPLAY and o.name != "trace":
        argv += ["-c", "t.swf"]
    args = cli.build_parser().parse_args(argv)
    assert cli._stored(cli._given(args, mode), mode)[o.name] == stored


@pytest.mark.parametrize("o", options.options(options.SITE), ids=lambda o: o.name)
def test_a_site_file_sets_it_by_its_name(tmp_path: Path, o: options.Option) -> None:
    value, _text, stored = SAMPLES[o.name]
    path = tmp_path / "site.toml"
    literal = f'"{value}"' if isinstance(value, str) else str(value).lower()
    path.write_text(f"{o.name} = {literal}\n")
    expected = str(tmp_path / stored) if o.name == "population" else stored
    assert load_site_file(path)[o.name] == expected


@pytest.mark.parametrize("o", options.OPTIONS, ids=lambda o: o.name)
def test_the_python_api_takes_it_as_a_keyword(o: options.Option) -> None:
    value, _text, stored = SAMPLES[o.name]
    for mode in o.modes:
        assert api._options({o.name: value}, mode)[o.name] == stored


@pytest.mark.parametrize("o", [o for o in options.OPTIONS if o.sweep], ids=lambda o: o.name)
def test_a_sweep_varies_it_as_an_axis(o: options.Option) -> None:
    value, text, stored = SAMPLES[o.name]
    flag = [o.flag, text] if o.name != "scheduler" else ["--scheduler", text]
    args = sweep_cli.build_parser().parse_args(flag)
    spec = sweep_cli.grid_spec(args)
    assert spec[o.name] == [value]
    mode = o.modes[0]
    if o.name == "moldable_policy":  # varied with shares of adaptive users only
        spec["adaptive"] = [0.5]
    grid = grid_from_mapping({**spec, "mode": mode}) if mode == options.SITE else Grid(mode=mode, **spec)
    assert grid.axes[o.name] == (value,)
    assert options.option(o.name).convert(grid.axes[o.name][0]) == stored


@pytest.mark.parametrize("o", options.options(options.SITE), ids=lambda o: o.name)
def test_a_study_sets_it_on_its_site(o: options.Option) -> None:
    value, text, stored = SAMPLES[o.name]
    if o.name == "scheduler":
        args = study_cli.build_parser().parse_args(["-s", text])
        assert args.policies == [stored]
    elif o.name == "seed":  # a study runs seeds 0..N-1 (--seeds N), each run from its seed
        args = study_cli.build_parser().parse_args(["--seeds", "3"])
        assert args.seeds == 3
    elif o.name == "users":  # a list of user counts, one study cell each
        args = study_cli.build_parser().parse_args(["--users", text])
        assert args.users == [stored]
    else:
        assert o.name in SETTINGS
        args = study_cli.build_parser().parse_args([o.flag, text])
        assert dict(settings_of({o.name: getattr(args, o.name)}))[o.name] == stored


def test_durations_are_days_wherever_a_person_types_them() -> None:
    o = options.option("duration")
    assert o.unit() == "days" and o.flag == "--duration"
    assert options.option("duration_days") is o  # older site files still read
    assert o.convert(0.5) == 43_200


def test_an_option_of_the_other_kind_of_run_is_refused_by_name() -> None:
    with pytest.raises(Exception, match="applies to replay runs"):
        api._options({"load_factor": 2}, options.SITE)


def test_the_configuration_records_are_the_declared_options() -> None:
    """summary.json's config is the record, whose fields are the declared options (and
    their defaults the declared ones): nothing is declared a second time there."""
    import attrs

    from sitesim.runs.replay import ReplayConfig
    from sitesim.runs.site import SiteConfig

    assert {f.name for f in attrs.fields(SiteConfig)} == set(options.names(options.SITE))
    assert {f.name for f in attrs.fields(ReplayConfig)} == {*options.names(options.REPLAY), "moldable"}
    for record, mode in ((SiteConfig, options.SITE), (ReplayConfig, options.REPLAY)):
        for f in attrs.fields(record):
            if f.name in options.names(mode) and f.default is not attrs.NOTHING:
                assert f.default == options.default(f.name, mode), f.name
