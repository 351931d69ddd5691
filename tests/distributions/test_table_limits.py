"""Empirical tables are checked when loaded: values within limits, UTF-8, pooled copies.

A table with a negative size, a runtime of 1e30 s or a NaN knot used to fail deep inside
a run (RuntimeError, OverflowError) or to run silently; now it is one line naming the
file and the field.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitesim.cli import main
from sitesim.distributions.model import load_empirical
from sitesim.errors import InputError
from sitesim.resources import data_directory, describe


def _table(**distributions: dict[str, Any]) -> dict[str, Any]:
    """A small valid table (built in code), with some distributions replaced."""
    discrete = {"kind": "discrete", "values": [1, 2, 4], "counts": [5, 3, 2]}
    times = {"kind": "continuous", "q": [0.0, 0.5, 1.0], "x": [0, 60, 3600]}
    dists = {
        "batch_width": discrete, "repetitions": discrete, "size": discrete, "run_size": discrete,
        "inter_submission": times, "think_time": times, "think_time_all": times, "runtime": times,
        "run_runtime": times, "failed_runtime": None,
        "estimate_ratio": {"kind": "continuous", "q": [0.0, 1.0], "x": [1, 5]},
    }
    dists.update(distributions)
    return {"format": "sitesim-empirical", "name": "t", "source_machine_size": 8,
            "status_fractions": {"completed": 1.0}, "distributions": dists}


def _write(tmp_path: Path, table: dict[str, Any]) -> Path:
    path = tmp_path / "t.json"
    path.write_text(json.dumps(table))
    return path


def test_a_valid_table_loads(tmp_path: Path) -> None:
    assert load_empirical(str(_write(tmp_path, _table()))).size.n == 10


BAD = {
    "negative size": ({"size": {"kind": "discrete", "values": [-4, 2], "counts": [1, 1]}}, "size: value -4 is outside"),
    "huge size": ({"size": {"kind": "discrete", "values": [1, 10**12], "counts": [1, 1]}}, "size: value 1000000000000 is outside"),
    "fractional size": ({"size": {"kind": "discrete", "values": [1, 2.5], "counts": [1, 1]}}, "whole numbers"),
    "huge runtime": ({"runtime": {"kind": "continuous", "q": [0, 1], "x": [0, 1e30]}}, "runtime: value 1e+30"),
    "negative think time": ({"think_time": {"kind": "continuous", "q": [0, 1], "x": [-5, 10]}}, "think_time: value -5"),
    "huge batch": ({"batch_width": {"kind": "discrete", "values": [10**12], "counts": [1]}}, "batch_width: value"),
    "NaN knot": ({"inter_submission": {"kind": "continuous", "q": [0, 1], "x": [0, float("nan")]}}, "inter_submission"),
    # counts and values beyond 64 bits used to be an OverflowError traceback
    "count of 1e300": ({"size": {"kind": "discrete", "values": [1, 2], "counts": [1e300, 1]}},
                       "size.counts: 1e+300 is not a whole number of observations"),
    "count of 10^30": ({"repetitions": {"kind": "discrete", "values": [1, 2], "counts": [10**30, 1]}},
                       "repetitions.counts: 1000000000000000000000000000000 is not"),
    "counts summing past 64 bits": ({"size": {"kind": "discrete", "values": [1, 2], "counts": [2**62, 2**62]}},
                                    "size.counts: 4611686018427387904 is not"),
    "fractional count": ({"size": {"kind": "discrete", "values": [1, 2], "counts": [2.5, 1]}}, "size.counts: 2.5"),
    "value of 10^30": ({"size": {"kind": "discrete", "values": [1, 10**30], "counts": [1, 1]}},
                       "size: value 1e+30 is outside"),
    "n of 10^30": ({"runtime": {"kind": "continuous", "q": [0, 1], "x": [0, 1], "n": 10**30}}, "runtime.n: "),
    "knot probability of 10^400": ({"runtime": {"kind": "continuous", "q": [0, 10**400], "x": [0, 1]}},
                                   "runtime: malformed distribution"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_values_beyond_limits_are_refused_at_load(tmp_path: Path, case: str) -> None:
    change, message = BAD[case]
    path = _write(tmp_path, _table(**change))
    with pytest.raises(InputError, match=message.replace("+", r"\+")) as caught:
        load_empirical(str(path))
    assert caught.value.path == str(path)


@pytest.mark.parametrize("fractions", [{"failed": float("nan")}, {"failed": 7}, {"failed": "x"}, [1]])
def test_bad_status_fractions(tmp_path: Path, fractions: object) -> None:
    table = _table()
    table["status_fractions"] = fractions
    with pytest.raises(InputError):
        load_empirical(str(_write(tmp_path, table)))


def test_the_command_line_refuses_a_huge_runtime(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, _table(runtime={"kind": "continuous", "q": [0, 1], "x": [0, 1e300]}))
    assert main(["--empirical", str(path), "--duration", "1", "--site", "measured"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_a_table_that_is_not_utf8(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes('{"name": "caf\xe9"}'.encode("latin-1"))
    with pytest.raises(InputError, match="not UTF-8 text"):
        load_empirical(str(path))
    site = tmp_path / "site.toml"
    site.write_text(f'population = "{path.name}"\n')
    assert main(["--site", str(site), "--duration", "1"]) == 2
    assert "latin1.json: not UTF-8 text" in capsys.readouterr().err


def test_a_copy_of_the_pooled_table_finds_its_sources(tmp_path: Path) -> None:
    """``--empirical my/combined.json`` with the default size mapping (scale)."""
    copy = tmp_path / "combined.json"
    copy.write_bytes((Path(str(data_directory("empirical"))) / "combined.json").read_bytes())
    model = load_empirical(str(copy))
    assert [s.name for s in model.sources] == [s.name for s in load_empirical("combined").sources]
    assert model.for_site(64, "scale").size.to_dict() == load_empirical("combined").for_site(64, "scale").size.to_dict()


def test_unknown_model_names_the_folder_not_an_object() -> None:
    with pytest.raises(InputError) as caught:
        load_empirical("nosuch")
    assert "MultiplexedPath" not in str(caught.value) and "unknown empirical model" in str(caught.value)
    try:
        from importlib.resources.readers import MultiplexedPath
    except ImportError:  # pragma: no cover
        return
    folder = Path(str(data_directory("empirical")))
    assert describe(MultiplexedPath(folder)) == str(folder)


HUGE = st.sampled_from([10**30, -(10**30), 10**400, 1e300, -1e300, 2**63, 2**64 - 1, 2.5, True, "x", None, []])


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(name=st.sampled_from(["size", "batch_width", "runtime", "estimate_ratio"]),
       key=st.sampled_from(["values", "counts", "q", "x", "n"]), index=st.integers(0, 2), value=HUGE)
def test_any_huge_number_in_a_table_is_an_input_error_naming_the_key(
    tmp_path_factory: pytest.TempPathFactory, name: str, key: str, index: int, value: object
) -> None:
    table = _table()
    dist = dict(table["distributions"][name])
    if key in dist and isinstance(dist[key], list):
        dist[key] = [value if i == index else v for i, v in enumerate(dist[key])]
    else:
        dist[key] = value
    table["distributions"][name] = dist
    path = tmp_path_factory.mktemp("t") / "t.json"
    path.write_text(json.dumps(table))
    try:
        load_empirical(str(path))
    except InputError as exc:
        assert exc.path == str(path) and str(exc.field).startswith(name), str(exc)
        assert "\n" not in str(exc)
