"""``sitesim fit`` and fitted sites on a small hand-made log: files, defaults,
determinism, arrivals and departures, scaling, and one-line errors for unusable logs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from sitesim.cli import main
from sitesim.runs.site import DAY, run_site
from sitesim.runs.sitefile import load_site_file, site_config
from sitesim.workload.swf import SwfRecord, read_swf, write_swf

HOUR = 3600
#: Monday 1996-09-23 08:00 UTC; the log's zone is UTC+1.
START = 843465600


def office_log(path: Path, users: int = 6, weeks: int = 4, seed: int = 3) -> Path:
    """Users who come in on weekdays around 09:00-16:00 local and run short batches."""
    rng = np.random.default_rng(seed)
    records, number = [], 0
    for user in range(1, users + 1):
        first_week = int(rng.integers(0, 2))
        for day in range(first_week * 7, weeks * 7):
            if day % 7 >= 5 or rng.random() < 0.3:
                continue
            t = day * DAY + int(rng.integers(0, 6 * HOUR))  # 08:00 UTC = 09:00 local
            for _batch in range(int(rng.integers(1, 4))):
                width = int(rng.integers(1, 3))
                ends = []
                for k in range(width):
                    run = int(rng.integers(60, 3000))
                    wait = int(rng.integers(0, 600))
                    number += 1
                    records.append(
                        SwfRecord(number, t + 30 * k, wait, run, int(rng.choice([1, 2, 4, 8])), -1, -1, -1,
                                  run * 2, -1, 1, user, 1, -1, 1, -1, -1, -1)
                    )
                    ends.append(t + 30 * k + wait + run)
                t = max(ends) + int(rng.integers(0, 900))
    records.sort(key=lambda r: (r.submit_time, r.job_number))
    header = [
        "; UnixStartTime: %d" % START,
        "; TimeZone: 3600",
        "; TimeZoneString: Europe/Stockholm",
        "; MaxNodes: 16",
        "; MaxProcs: 16",
    ]
    write_swf(path, records, header)
    return path


@pytest.fixture(scope="module")
def fitted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fit")
    log = office_log(root / "office.swf")
    assert main(["fit", str(log), "-o", str(root / "site")]) == 0
    return root / "site"


def test_fit_writes_a_site_with_the_logs_defaults(fitted: Path) -> None:
    assert sorted(p.name for p in fitted.iterdir()) == ["empirical.json", "population.json", "site.toml"]
    values = load_site_file(fitted / "site.toml")
    assert values["users"] == 6 and values["nodes"] == 16
    assert values["duration"] < 4 * 7 * DAY
    assert Path(values["population"]).parent == fitted
    pop = json.loads((fitted / "population.json").read_text())
    assert pop["clock"] == {
        "unix_start": START, "offset": 3600, "zone": "Europe/Stockholm", "declared": True, "local_time": "zone"
    }
    assert len(pop["users"]) == 6 and len(pop["session_start_weights"]) == 168
    assert pop["provenance"]["file"] == "office.swf"
    assert len(pop["provenance"]["sha256_uncompressed"]) == 64
    # every measured number that drives the model is in the table
    user = pop["users"][0]
    for key in ("arrival", "span", "widths", "gaps_operational", "thinks", "absences", "runs", "continue_offset"):
        assert key in user
    assert len(pop["continuation"]["probability"]) == len(pop["continuation"]["edges"]) + 1


def simulate(fitted: Path, out: Path | None = None, **overrides: object):
    config = site_config(load_site_file(fitted / "site.toml"), {"scheduler": "easy", **overrides})
    return config, run_site(config, out)


def test_fitted_site_is_reproducible_byte_for_byte(fitted: Path, tmp_path: Path) -> None:
    simulate(fitted, tmp_path / "a")
    simulate(fitted, tmp_path / "b")
    simulate(fitted, tmp_path / "c", seed=1)
    for name in ("trace.swf", "summary.json", "stats.txt"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    assert (tmp_path / "a" / "trace.swf").read_bytes() != (tmp_path / "c" / "trace.swf").read_bytes()
    header, records = read_swf(tmp_path / "a" / "trace.swf")
    assert header.get_int("UnixStartTime") == START and header.get_int("TimeZone") == 3600
    assert records


def test_users_arrive_and_leave_with_their_profiles(fitted: Path, tmp_path: Path) -> None:
    from sitesim.workload.calendar import Clock

    _config, result = simulate(fitted, tmp_path / "run")
    header, records = read_swf(tmp_path / "run" / "trace.swf")
    clock = Clock.from_header(header)
    hours = clock.hour_of_day([r.submit_time for r in records])
    # the log's users only ever started sessions on weekday office hours
    assert np.mean((hours >= 8) & (hours < 20)) > 0.8
    weekdays = clock.hour_of_week([r.submit_time for r in records]) // 24
    assert np.mean(weekdays < 5) > 0.8
    assert set(result.users) <= set(range(1, 7))


def test_population_scales_with_users(fitted: Path) -> None:
    _c, base = simulate(fitted)
    _c, double = simulate(fitted, users=12)
    assert len(double.users) > len(base.users)
    assert double.summary["submitted"] > 1.4 * base.summary["submitted"]


def test_paper_site_trace_carries_the_convention_clock(tmp_path: Path) -> None:
    assert main(["--duration", "2", "--out", str(tmp_path / "p")]) == 0
    header, _ = read_swf(tmp_path / "p" / "trace.swf")
    assert header.get_int("UnixStartTime") == 4 * DAY and header.get_int("TimeZone") == 0


@pytest.mark.parametrize(
    ("records", "message"),
    [
        ([], "no job records"),
        ([SwfRecord(1, 0, 0, 10, 1, -1, -1, 1, 10, -1, 1, -1)], "no user field"),
        ([SwfRecord(i, i, 0, 10, 1, -1, -1, 1, 10, -1, 1, 1 + i % 2) for i in range(1, 9)], "too few"),
    ],
)
def test_unusable_logs_get_one_line_and_leave_nothing(
    records: list[SwfRecord], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "bad.swf"
    write_swf(log, records, ["; MaxNodes: 4"])
    assert main(["fit", str(log), "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and message in err and "bad.swf" in err
    assert not (tmp_path / "out").exists()


def test_fitted_site_rejects_other_user_models(fitted: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--site", str(fitted / "site.toml"), "-m", "closed", "--duration", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--submittal" in err and "\n" not in err


def test_missing_log_and_bad_population_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fit", str(tmp_path / "none.swf"), "-o", str(tmp_path / "o")]) == 2
    assert "none.swf" in capsys.readouterr().err
    (tmp_path / "pop.json").write_text('{"format": "sitesim-population"}')
    site = tmp_path / "site.toml"
    site.write_text('population = "pop.json"\nusers = 2\n')
    assert main(["--site", str(site), "--duration", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert "pop.json" in err and "\n" not in err


def test_a_run_in_which_no_user_arrives_says_why(fitted: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 34, group 12: a short run of a fitted site, whose users arrive as in the
    log, gave a row of zeros and no word."""
    assert main(["--site", str(fitted / "site.toml"), "--duration", "0.01"]) == 0
    out = capsys.readouterr().out
    assert "# 0 jobs submitted" in out
    assert "# note: no job was submitted in 0.01 simulated days" in out and "fitted population" in out


def test_the_fit_freezes_the_log_and_leaves_the_collector_as_it_found_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fit freezes the log's jobs once for its own length (docs/service.md, "Speed")
    and thaws them at the end; a caller that froze objects of its own keeps them frozen,
    and the fit then freezes nothing."""
    import gc

    from sitesim.runs.fit import fit_log

    calls: list[str] = []
    real_freeze = gc.freeze
    monkeypatch.setattr(gc, "freeze", lambda: (calls.append("freeze"), real_freeze())[1])
    log = office_log(tmp_path / "office.swf")
    assert gc.get_freeze_count() == 0
    fit_log(log, tmp_path / "a")
    assert calls == ["freeze"] and gc.get_freeze_count() == 0
    real_freeze()
    try:
        frozen = gc.get_freeze_count()
        fit_log(log, tmp_path / "b")
        assert calls == ["freeze"]  # not again
        # nothing thawed (frozen objects freed meanwhile leave the count)
        assert 0.9 * frozen < gc.get_freeze_count() <= frozen
    finally:
        gc.unfreeze()
