"""``sitesim fit`` writes only what a run accepts: any log it fits gives a site that loads and runs.

Random small logs, written as SWF here, carry the extremes real logs hold (a job asking
for 2^32 s that ran 1 s, waits of years, a job of more nodes than any machine) and
headers with and without a clock or a zone; each is fitted, then its site loaded and run
for two days. Every log of ``$SITESIM_TRACES`` is fitted and run the same way
(tests/conftest.py shares the fits with tests/experiments/test_population_validation.py).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitesim.cli import main
from sitesim.limits import MAX_ESTIMATE_RATIO, MAX_NODES, MAX_SECONDS, MAX_TABLE_SECONDS
from sitesim.runs.fit import fit_log
from sitesim.workload.swf import SwfRecord, write_swf

#: Zone names a header may give: two with daylight saving, one with half-hour changes,
#: one without, and one the tz database does not know.
ZONES = (None, "Europe/Stockholm", "US/Pacific", "Australia/Lord_Howe", "Asia/Kolkata", "Nowhere/Atlantis")

job = st.tuples(
    st.integers(0, 20_000),  # seconds after the user's previous submission
    st.one_of(st.integers(0, 5_000), st.just(3 * 2**32)),  # wait, or beyond any table
    st.one_of(st.integers(0, 60), st.integers(0, 50_000)),  # runtime, short ones often
    st.one_of(st.integers(1, 32), st.just(4 * MAX_NODES)),  # size, or beyond any machine
    st.one_of(st.just(-1), st.integers(1, 100_000), st.just(MAX_SECONDS)),  # requested time
)
user_jobs = st.lists(job, min_size=1, max_size=8)


@st.composite
def logs(draw: st.DrawFn) -> tuple[list[str], list[SwfRecord]]:
    """A header and the jobs of 3-5 users, each user's jobs spaced from a start."""
    header = ["; MaxNodes: 32"]
    if draw(st.booleans()):
        header.append(f"; UnixStartTime: {draw(st.integers(0, 2**31))}")
        if draw(st.booleans()):
            header.append(f"; TimeZone: {draw(st.integers(-12, 14)) * 3600}")
        zone = draw(st.sampled_from(ZONES))
        if zone is not None:
            header.append(f"; TimeZoneString: {zone}")
    rows = []
    for user in range(1, draw(st.integers(3, 5)) + 1):
        t = draw(st.integers(0, 86_400))
        for gap, wait, run, size, requested in draw(user_jobs):
            t += gap
            rows.append((t, wait, run, size, requested, user))
    rows.sort()
    if rows[0][0] == rows[-1][0]:  # a log needs a duration
        t, *rest = rows[-1]
        rows[-1] = (t + 60, *rest)
    records = [
        SwfRecord(n, t, wait, run, size, -1, -1, size, requested, -1, 1, user, 1, -1, 1, -1, -1, -1)
        for n, (t, wait, run, size, requested, user) in enumerate(rows, start=1)
    ]
    return header, records


def _run(site: Path, out: Path, days: int = 2) -> dict:
    """Load the fitted site and run it for ``days`` days under EASY (exit status 0)."""
    assert main(["--site", str(site / "site.toml"), "-s", "easy", "--duration", str(days), "--out", str(out)]) == 0
    return json.loads((out / "summary.json").read_text())


@settings(derandomize=True, max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(logs())
def test_any_fitted_log_gives_a_site_that_runs(tmp_path_factory: pytest.TempPathFactory,
                                               log: tuple[list[str], list[SwfRecord]]) -> None:
    header, records = log
    root = tmp_path_factory.mktemp("fit")
    write_swf(root / "log.swf", records, header)
    info = fit_log(root / "log.swf", root / "site")
    # the estimate ratios beyond the loader's limit are capped and counted, none other
    beyond = sum(r.requested_time > 0 and r.run_time > 0 and r.requested_time / r.run_time > MAX_ESTIMATE_RATIO
                 for r in records)
    assert info.capped.counts.get("empirical.estimate_ratio", 0) == beyond
    # so are the waits (each job's, in the population) and the sizes beyond any table
    assert info.capped.counts.get("population.waits_in_order", 0) == sum(r.wait_time > MAX_TABLE_SECONDS for r in records)
    huge = any(r.allocated_processors > MAX_NODES for r in records)
    assert ("empirical.size" in info.capped.counts) == ("population.size" in info.capped.counts) == huge
    empirical = json.loads((root / "site" / "empirical.json").read_text())
    ratios = empirical["distributions"]["estimate_ratio"]
    assert ratios is None or max(ratios["x"]) <= MAX_ESTIMATE_RATIO
    population = json.loads((root / "site" / "population.json").read_text())
    assert all(0 <= w <= MAX_TABLE_SECONDS for u in population["users"] for w in u["waits_in_order"])
    assert all(1 <= s <= MAX_NODES for u in population["users"] for s, _ in u["jobs_in_order"])
    # local time: the zone when the header names one the tz database knows
    zone = next((line.split(": ")[1] for line in header if "TimeZoneString" in line), None)
    clocked = any("UnixStartTime" in line for line in header)
    expected = "zone" if clocked and zone is not None and zone != "Nowhere/Atlantis" else "offset"
    assert population["clock"]["local_time"] == info.clock.local_time == expected
    assert population["provenance"]["clock_from"] == info.clock.describe()
    _run(root / "site", root / "run")


def test_a_log_of_extremes_is_capped_and_said_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """LLNL-Atlas's case: a job asking for 738,738,720 s that ran 16 s."""
    records = [
        SwfRecord(n, n * 600, 10, 16 if n == 5 else 300, 4, -1, -1, 4, 738_738_720 if n == 5 else 900, -1, 1,
                  1 + n % 3, 1, -1, 1, -1, -1, -1)
        for n in range(1, 31)
    ]
    write_swf(tmp_path / "atlas.swf", records, ["; MaxNodes: 16"])
    assert main(["fit", str(tmp_path / "atlas.swf"), "-o", str(tmp_path / "site")]) == 0
    assert "# capped at the limits a run accepts (docs/population.md): empirical.estimate_ratio 1" in capsys.readouterr().out
    table = json.loads((tmp_path / "site" / "empirical.json").read_text())
    assert table["provenance"]["capped"] == {"estimate_ratio": {"count": 1, "bounds": [0, MAX_ESTIMATE_RATIO]}}
    assert max(table["distributions"]["estimate_ratio"]["x"]) == MAX_ESTIMATE_RATIO
    _run(tmp_path / "site", tmp_path / "run")


def _shared_logs() -> list[object]:
    """One parameter per log of ``$SITESIM_TRACES``, the larger ones marked ``slow``: a
    fit reads every job, and LANL-CM5 (122,057 jobs) and SDSC-BLUE (232,540) take about
    20 s and 40 s on an idle core, which only ``pytest -m slow`` (or ``-m "slow or not
    slow"``) spends. The three logs the population validation fits are shared with it."""
    raw = os.environ.get("SITESIM_TRACES")
    if not raw or not Path(raw).is_dir():
        return [pytest.param(None, id="no-SITESIM_TRACES")]
    directory = Path(raw)
    logs = sorted(p for p in directory.iterdir() if p.name.endswith((".swf", ".swf.gz")))
    return [pytest.param(p.name, id=p.name.split(".swf")[0],
                         marks=[pytest.mark.slow] if p.stat().st_size > SLOW_BYTES else [])
            for p in logs]


#: Logs larger than this (compressed or not) are marked ``slow`` (LANL-CM5: 2.0 MB gzipped).
SLOW_BYTES = 1_500_000


@pytest.mark.traces
@pytest.mark.xdist_group("shared-fits")  # the fits are made once, on one worker
@pytest.mark.parametrize("name", _shared_logs())
def test_every_shared_log_fits_to_a_site_that_runs(name: str | None, shared_fit, tmp_path: Path) -> None:
    """A log of ``$SITESIM_TRACES``: refused in one line with nothing written (no user
    field), or fitted, loaded and run for ten days (the logs' first kept jobs come up to
    a week after their start). The clock the fit chose is printed (``pytest -s``)."""
    if name is None:
        pytest.skip("real traces not available: set SITESIM_TRACES to the traces directory")
    site, info = shared_fit.get(name)
    if info is None:
        assert not site.exists()
        return
    assert _run(site, tmp_path / "run", days=10)["system"]["submitted"] > 0
    print(f"{name}: local time {info.clock.describe()}; capped {info.capped.describe()}")
