"""Degenerate logs: ``sitesim fit`` either writes a site that runs (exit 0) or says in
one line why it cannot (exit 2), and never ends in a traceback (docs/population.md,
"Small and degenerate logs"). The logs are made in code: a handful of jobs, one user
with many jobs, every job at one instant, zero runtimes, every job failed or
cancelled, no wait times; and a hypothesis test over small random logs."""

from __future__ import annotations

import contextlib
import io
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitesim.cli import main
from sitesim.workload.swf import SwfRecord, write_swf


def job(number: int, submit: int, user: int, *, wait: int = 0, run: int = 60, size: int = 1, status: int = 1) -> SwfRecord:
    return SwfRecord(number, submit, wait, run, size, -1, -1, size, max(run, 1) * 2, -1, status, user)


def fit_and_run(records: list[SwfRecord], root: Path) -> tuple[int, int | None, str]:
    """(fit's exit status, the fitted site's exit status or None, stderr of both)."""
    log = root / "log.swf"
    write_swf(log, records, ["; MaxNodes: 8"])
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        fitted = main(["fit", str(log), "-o", str(root / "site")])
        ran = None
        if fitted == 0:
            ran = main(["--site", str(root / "site" / "site.toml"), "-s", "easy", "--out", str(root / "run")])
    return fitted, ran, err.getvalue()


def check_outcome(fitted: int, ran: int | None, err: str, root: Path) -> None:
    assert "Traceback" not in err
    if fitted == 0:
        assert ran == 0, err
        assert (root / "run" / "trace.swf").is_file()
    else:
        assert fitted == 2
        assert err.count("\n") == 1 and "log.swf" in err, err
        assert not (root / "site").exists()


DEGENERATE = {
    # the log: 4 jobs from 3 users, one session each, no absence anywhere
    "4 jobs, 3 users": [job(1, 0, 1), job(2, 100, 2), job(3, 200, 3), job(4, 300, 3)],
    "1 job": [job(1, 0, 1)],
    "3 jobs, 3 users, one instant": [job(i, 500, i) for i in (1, 2, 3)],
    "5 jobs, 3 users, zero runtimes": [job(i, 400 * i, 1 + i % 3, run=0) for i in range(1, 6)],
    "all failed": [job(i, 3000 * i, 1 + i % 3, status=0) for i in range(1, 10)],
    "all cancelled before start": [job(i, 60 * i, 1 + i % 3, run=0, status=5) for i in range(1, 10)],
    "one user, many jobs": [job(i, 2000 * i, 1) for i in range(1, 60)],
    "no wait times, 3 users": [job(i, 900 * i, 1 + i % 3, wait=-1) for i in range(1, 12)],
    "3 users, one batch each": [job(i, 7, 1 + i % 3) for i in range(1, 7)],
}
#: Expected exit status of fit, and what its one line says when it refuses.
REFUSED = {
    "1 job": "too few",
    "3 jobs, 3 users, one instant": "one instant",
    "all cancelled before start": "9 cancelled before they started",
    "one user, many jobs": "only 1 user",
    "3 users, one batch each": "one instant",
}


@pytest.mark.parametrize("name", sorted(DEGENERATE))
def test_degenerate_log_fits_and_runs_or_is_refused(name: str, tmp_path: Path) -> None:
    fitted, ran, err = fit_and_run(DEGENERATE[name], tmp_path)
    check_outcome(fitted, ran, err, tmp_path)
    if name in REFUSED:
        assert fitted == 2 and REFUSED[name] in err, err
    else:
        assert fitted == 0, err


#: The shapes of degenerate log the random logs take: anything (mixed), and the issue's
#: cases forced on every job.
SHAPES = ("mixed", "tiny", "one user, many jobs", "one instant", "zero runtimes", "all failed")


@st.composite
def small_logs(draw: st.DrawFn) -> list[SwfRecord]:
    """Small random logs of one of :data:`SHAPES`. Mixed: 1-15 jobs of 2-5 users, gaps
    from none to a day, waits and runtimes from 0 (or unknown) to hours, sizes up to
    and beyond the 8-node machine, any status. The others: 1-5 jobs (one user: 5-40)
    with one property forced on every job."""
    shape = draw(st.sampled_from(SHAPES))
    n = draw(st.integers(1, 15) if shape == "mixed" else st.integers(5, 40) if shape == "one user, many jobs" else st.integers(1, 5))
    users = 1 if shape == "one user, many jobs" else draw(st.integers(2, 5))
    no_waits = draw(st.booleans())
    records, t = [], 0
    for number in range(1, n + 1):
        t += 0 if shape == "one instant" else draw(st.sampled_from([0, 0, 1, 30, 1200, 1201, 5000, 86_400]))
        wait = -1 if no_waits else draw(st.sampled_from([0, 5, 3000, 40_000]))
        run = 0 if shape == "zero runtimes" else draw(st.sampled_from([-1, 0, 1, 60, 60, 3000, 30_000]))
        size = draw(st.sampled_from([-1, 1, 1, 2, 8, 9]))
        status = 0 if shape == "all failed" else draw(st.sampled_from([0, 1, 1, 1, 5]))
        user = 1 + (number - 1) % users if draw(st.booleans()) else draw(st.integers(1, users))
        records.append(job(number, t, user, wait=wait, run=run, size=size, status=status))
    return records


@settings(max_examples=60, deadline=None, derandomize=True)
@given(small_logs())
def test_small_random_logs_never_end_in_a_traceback(records: list[SwfRecord]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        fitted, ran, err = fit_and_run(records, root)
        check_outcome(fitted, ran, err, root)
