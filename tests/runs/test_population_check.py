"""A fitted population with values no run can draw from is one line, before the run.

The population is fitted in the test to a small log made in code, then damaged.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sitesim.cli import main


def _log() -> str:
    lines = ["; MaxNodes: 16"]
    for n in range(1, 241):
        size = 1 << (n % 4)
        lines.append(f"{n} {n * 300 + (n % 7) * 40} {n % 5} {120 + n % 13 * 30} {size} -1 -1 {size} 900 -1 1"
                     f" {n % 4 + 1} 1 -1 -1 -1 -1 -1")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def fitted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("fit")
    log = folder / "log.swf"
    log.write_text(_log())
    assert main(["fit", str(log), "-o", str(folder / "site")]) == 0
    return folder / "site"


def _set(key: str, position: tuple[int, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def change(document: dict[str, Any]) -> None:
        target = document["users"][0][key]
        for i in position[:-1]:
            target = target[i]
        target[position[-1]] = value
    return change


DAMAGE = {
    "NaN offset": (lambda d: d["users"][0].__setitem__("continue_offset", float("nan")), "continue_offset: nan"),
    "infinite think time": (_set("thinks", (2,), float("inf")), "users[0].thinks[2]: inf is not a finite number"),
    "negative size": (_set("runs", (0, 0), -4), "size -4"),
    "huge size": (_set("runs", (0, 0), 10**12), "size 1000000000000"),
    "huge runtime": (_set("runs", (0, 1), 1e300), "runtime 1e+300"),
    "negative think time": (_set("thinks", (0,), -5.0), "thinks[0]: -5.0"),
    "hour beyond the week": (_set("batch_hours", (0,), 168), "batch_hours[0]: 168 is not an hour of the week"),
    "fractional hour": (_set("absence_hours", (0,), 2.5), "absence_hours[0]: 2.5 is not an hour of the week"),
    "a day of 23 hours": (lambda d: d["users"][0].__setitem__("start_day_counts", [1] * 23),
                          "start_day_counts: must be a list of 24"),
    "negative start count": (_set("start_day_counts", (3,), -1), "start_day_counts[3]: -1 is not a count"),
    "astronomical start count": (_set("start_day_counts", (3,), 10**400), "start_day_counts[3]: 1000"),
    "own cycle without a user's counts": (lambda d: d["users"][0].pop("start_day_counts"),
                                          "users[0].start_day_counts: is needed with absence_cycle"),
}
#: Damage to the population's own keys: the message names the key alone.
TOP_DAMAGE = {
    "own cycle without its strength": (lambda d: d.pop("day_cycle_strength"),
                                       "population.json: day_cycle_strength: is needed with absence_cycle"),
    "unknown absence cycle": (lambda d: d.__setitem__("absence_cycle", "bogus"),
                              "population.json: absence_cycle: must be one of"),
}


def _damaged_copy(fitted: Path, tmp_path: Path, change: Callable[[dict[str, Any]], None]) -> Path:
    """The fitted site copied into ``tmp_path/site`` with its population.json changed."""
    site = tmp_path / "site"
    site.mkdir()
    for name in ("site.toml", "empirical.json"):
        (site / name).write_bytes((fitted / name).read_bytes())
    document = json.loads((fitted / "population.json").read_text())
    change(document)
    (site / "population.json").write_text(json.dumps(document))
    return site


@pytest.mark.parametrize("case", sorted(DAMAGE))
def test_damaged_populations_are_refused(fitted: Path, tmp_path: Path, case: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    change, message = DAMAGE[case]

    def damage(document: dict[str, Any]) -> None:
        if not document["users"][0].get("thinks"):
            document["users"][0]["thinks"] = [60.0]
        change(document)

    site = _damaged_copy(fitted, tmp_path, damage)
    assert main(["--site", str(site / "site.toml"), "--duration", "0.5"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "population.json: users[0]." in err and message in err, err


@pytest.mark.parametrize(("field", "message"), [
    ("[" * 2000 + "]" * 2000, "population.json: nested too deeply to read"),
    ("9" * 5000, "population.json: unreadable JSON: Exceeds the limit"),
], ids=["nested 2,000 deep", "a number of 5,000 digits"])
def test_populations_json_cannot_read_are_refused(fitted: Path, tmp_path: Path, field: str, message: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Nesting deeper than json's recursion follows, a number of more digits than Python
    converts: one line naming the file, exit 2, no traceback."""
    site = _damaged_copy(fitted, tmp_path, lambda document: None)
    text = (site / "population.json").read_text()
    (site / "population.json").write_text('{"extra": ' + field + ", " + text.lstrip()[1:])
    assert main(["--site", str(site / "site.toml"), "--duration", "0.5"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "Traceback" not in err, err


@pytest.mark.parametrize("case", sorted(TOP_DAMAGE))
def test_damaged_population_keys_are_refused(fitted: Path, tmp_path: Path, case: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    change, message = TOP_DAMAGE[case]
    site = _damaged_copy(fitted, tmp_path, change)
    assert main(["--site", str(site / "site.toml"), "--duration", "0.5"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "Traceback" not in err, err


@pytest.mark.parametrize("minimum", [0, -3, 1.5, True, "2"])
def test_min_observations_below_one_is_refused(fitted: Path, tmp_path: Path, minimum: Any,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    site = _damaged_copy(fitted, tmp_path, lambda document: document.__setitem__("min_observations", minimum))
    assert main(["--site", str(site / "site.toml"), "--duration", "0.5"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "population.json: min_observations:" in err and "Traceback" not in err, err


@pytest.mark.parametrize(("key", "value"), [
    ("day_parts", 0), ("day_parts", 25), ("day_parts", 2.0), ("day_parts", True),
    ("weekends", "sometimes"), ("weekends", True),
])
def test_parts_of_the_week_out_of_range_are_refused(fitted: Path, tmp_path: Path, key: str, value: Any,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    site = _damaged_copy(fitted, tmp_path, lambda document: document.__setitem__(key, value))
    assert main(["--site", str(site / "site.toml"), "--duration", "0.5"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"population.json: {key}:" in err and "Traceback" not in err, err


@pytest.mark.parametrize(("offsets", "message"), [
    (0.5, "continuation_by_part: must be a list"),
    ([0.0, 9.0, 0.0, 0.0], "continuation_by_part[1]: 9.0 is not a log-odds offset"),
    ([0.0, 0.0], "continuation_by_part has 2 offsets for 4 day_parts"),
])
def test_part_offsets_out_of_range_are_refused(fitted: Path, tmp_path: Path, offsets: Any, message: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    site = _damaged_copy(fitted, tmp_path, lambda document: document.__setitem__("continuation_by_part", offsets))
    assert main(["--site", str(site / "site.toml"), "--duration", "0.5"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "population.json" in err and message in err and "Traceback" not in err, err


@pytest.mark.parametrize("strength", [0, -1, 1e9, True, "30"])
def test_day_cycle_strength_out_of_range_is_refused(fitted: Path, tmp_path: Path, strength: Any,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    site = _damaged_copy(fitted, tmp_path, lambda document: document.__setitem__("day_cycle_strength", strength))
    assert main(["--site", str(site / "site.toml"), "--duration", "0.5"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "population.json: day_cycle_strength:" in err and "Traceback" not in err, err


def test_the_fitted_population_runs(fitted: Path) -> None:
    assert main(["--site", str(fitted / "site.toml"), "--duration", "0.5"]) == 0


def test_a_log_at_the_time_limit_fits_and_runs(tmp_path: Path) -> None:
    """The tables round times to significant digits, which may lift a time at the limit
    just above it (4294967000 s written as 4.2951e9): what fit writes must still run."""
    lines = ["; MaxNodes: 8"]
    for n in range(1, 40):
        submit = 0 if n < 20 else 4_294_967_000 + n
        lines.append(f"{n} {submit} 5 60 2 -1 -1 2 100 -1 1 {n % 4 + 1} 1 -1 -1 -1 -1 -1")
    log = tmp_path / "span.swf"
    log.write_text("\n".join(lines) + "\n")
    assert main(["fit", str(log), "-o", str(tmp_path / "site")]) == 0
    assert main(["--site", str(tmp_path / "site" / "site.toml"), "--duration", "0.5"]) == 0


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("gap_weights", [1] * 167, "gap_weights: must be a list of 168"),
        ("gap_weights", [1] * 167 + [-2], "gap_weights[167]: -2 is not a non-negative weight"),
        ("gap_weights", [0] * 168, "gap_weights: every hour has weight 0"),
        ("session_start_weights", "daily", "session_start_weights: must be a list of 168"),
    ],
)
def test_damaged_weekly_cycles_are_refused(fitted: Path, tmp_path: Path, key: str, value: Any, message: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    def damage(document: dict[str, Any]) -> None:
        assert key in document
        document[key] = value

    site = _damaged_copy(fitted, tmp_path, damage)
    assert main(["--site", str(site / "site.toml"), "--duration", "0.5"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
