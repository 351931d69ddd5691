"""Replay with feedback: exact submit times on hand-made traces, exact replay of a
site-level run's own trace, and a real log (skipped without ``SITESIM_TRACES``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from sitesim.errors import InputError
from sitesim.runs.replay import ReplayConfig, ReplayResult, run_replay
from sitesim.runs.site import DAY, SiteConfig, run_site
from sitesim.workload.swf import SwfRecord, read_swf

Line = tuple[int, ...]


def _trace(tmp_path: Path, jobs: list[Line], nodes: int = 4) -> Path:
    """(number, submit, wait, run, size, user, preceding, think) -> an SWF file.

    Requested time = runtime, so ``--estimates trace`` is exact.
    """
    lines = [f"; MaxProcs: {nodes}"]
    for number, submit, wait, run, size, user, preceding, think in jobs:
        lines.append(
            f"{number} {submit} {wait} {run} {size} -1 -1 {size} {run} -1 1 {user} 1 -1 -1 -1"
            f" {preceding} {think}"
        )
    path = tmp_path / "t.swf"
    path.write_text("\n".join(lines) + "\n")
    return path


def _replay(trace: Path, out: Path, **kwargs: object) -> tuple[ReplayResult, dict[int, SwfRecord]]:
    config = ReplayConfig(trace=str(trace), estimates="trace", **kwargs)  # type: ignore[arg-type]
    result = run_replay(config, out=out)
    _, records = read_swf(out / "schedule.swf")
    return result, {r.job_number: r for r in records}


# An archive-style log (no fields 17/18). User 2's long job 1 holds the 4-node machine
# for 1000 s in the simulation, so user 1's first batch (job 2) ends at 1100, not at
# its recorded 100. Recorded: job 3 thinks 50 s after job 2's end (new batch); job 4,
# submitted while job 3 ran (think -90), joins that batch 60 s after job 2's end; job 5
# comes 1750 s after the batch's last end (> 1200 s: a new session).
ARCHIVE = [
    (1, 0, 0, 1000, 4, 2, -1, -1),
    (2, 0, 0, 100, 4, 1, -1, -1),
    (3, 150, 0, 100, 4, 1, -1, -1),
    (4, 160, 0, 10, 4, 1, -1, -1),
    (5, 2000, 0, 10, 1, 1, -1, -1),
]


def test_derived_batches_wait_for_the_previous_batch(tmp_path: Path) -> None:
    result, jobs = _replay(_trace(tmp_path, ARCHIVE), tmp_path / "abs", scheduler="fcfs", feedback="absolute")
    submits = {n: r.submit_time for n, r in jobs.items()}
    # Job 2 ends at 1100: jobs 3 and 4 follow 50 and 60 s later; job 5 is a session
    # start and keeps its recorded time.
    assert submits == {1: 0, 2: 0, 3: 1150, 4: 1160, 5: 2000}
    assert [(jobs[n].preceding_job, jobs[n].think_time) for n in (3, 4, 5)] == [(2, 50), (2, 60), (-1, -1)]
    assert result.violations["submission"] == 0
    assert result.violations["with_dependency"] == 2
    f = result.feedback
    assert (f["batches"], f["root_batches"], f["session_start_batches"]) == (4, 3, 1)
    assert (f["dependent_batches"], f["dependent_jobs"], f["source"]) == (1, 2, "derived (session rules)")
    # Job 3 runs 1150-1250 and job 4 1250-1260, so job 5 (at 2000) found them ended.
    assert f["overlapping_session_starts"] == 0


def test_gap_session_starts_keep_their_gap_after_the_previous_batch(tmp_path: Path) -> None:
    result, jobs = _replay(_trace(tmp_path, ARCHIVE), tmp_path / "gap", scheduler="fcfs", feedback="gap")
    # The batch of jobs 3 and 4 ends at 1260 (job 4 last), plus the recorded 1750 s.
    assert jobs[5].submit_time == 3010
    assert (jobs[5].preceding_job, jobs[5].think_time) == (4, 1750)
    assert result.feedback["root_batches"] == 2 and result.feedback["dependent_batches"] == 2


def test_plain_replay_of_the_same_log_keeps_recorded_times(tmp_path: Path) -> None:
    _, jobs = _replay(_trace(tmp_path, ARCHIVE), tmp_path / "plain", scheduler="fcfs")
    assert {n: r.submit_time for n, r in jobs.items()} == {1: 0, 2: 0, 3: 150, 4: 160, 5: 2000}


def test_load_factor_scales_root_batches_only(tmp_path: Path) -> None:
    result, jobs = _replay(
        _trace(tmp_path, ARCHIVE), tmp_path / "x2", scheduler="fcfs", feedback="absolute", load_factor=2.0
    )
    assert {n: r.submit_time for n, r in jobs.items()} == {1: 0, 2: 0, 3: 1150, 4: 1160, 5: 1000}
    # Job 5's session now starts before the user's previous batch was even submitted.
    assert result.feedback["overlapping_session_starts"] == 1


# A trace with dependencies (fields 17/18), as site-level runs write them. Jobs 2 and 3
# waited for job 1 (30 and 40 s); job 4 waited for job 3, the last of that batch to end
# in the recording. Job 6 names another user's job: unusable, so submitted at its time.
WITH_FIELDS = [
    (1, 0, 0, 100, 4, 1, -1, -1),
    (5, 0, 100, 500, 4, 2, -1, -1),
    (2, 130, 0, 50, 1, 1, 1, 30),
    (3, 140, 0, 20, 1, 1, 1, 40),
    (4, 200, 0, 10, 1, 1, 3, 0),
    (6, 300, 0, 10, 1, 2, 1, 5),
]


def test_trace_dependencies_wait_for_the_whole_awaited_batch(tmp_path: Path) -> None:
    result, jobs = _replay(_trace(tmp_path, WITH_FIELDS), tmp_path / "f", scheduler="fcfs", feedback="absolute")
    submits = {n: r.submit_time for n, r in jobs.items()}
    # Job 1 runs 0-100, job 5 100-600; jobs 2 and 3 come 30 and 40 s after 100, run
    # from 600 and end at 650 and 620. Job 4 waits for the whole batch: 650 + 0, and
    # names job 2, the one that ended last here.
    assert submits == {1: 0, 5: 0, 2: 130, 3: 140, 4: 650, 6: 300}
    assert (jobs[4].preceding_job, jobs[4].think_time) == (2, 0)
    assert (jobs[6].preceding_job, jobs[6].think_time) == (-1, -1)
    assert result.feedback["source"] == "trace fields 17/18"
    assert result.feedback["unresolved"] == 1
    assert result.violations["submission"] == 0


def test_same_instant_submissions_go_in_job_number_order(tmp_path: Path) -> None:
    # Jobs 2 and 3 of two users are both due at 100 (1's end + 0, and recorded 100).
    trace = _trace(tmp_path, [
        (1, 0, 0, 100, 4, 1, -1, -1),
        (2, 100, 0, 10, 4, 1, 1, 0),
        (3, 100, 0, 10, 4, 2, -1, -1),
    ])
    _, jobs = _replay(trace, tmp_path / "o", scheduler="fcfs", feedback="absolute")
    assert (jobs[2].wait_time, jobs[3].wait_time) == (0, 10)  # FCFS: job 2 arrived first


def test_unknown_feedback_mode_is_an_input_error() -> None:
    with pytest.raises(InputError, match="feedback"):
        ReplayConfig(trace="x.swf", feedback="sometimes")


def _same_schedule(trace: Path, schedule: Path, scheduler: str) -> tuple[list[SwfRecord], int]:
    """Assert that ``schedule`` reproduces the site-level ``trace``; the jobs compared."""
    _, site_jobs = read_swf(trace)
    _, replayed = read_swf(schedule)
    assert [r.job_number for r in site_jobs] == [r.job_number for r in replayed]
    compared = 0
    for a, b in zip(site_jobs, replayed, strict=True):
        assert (a.submit_time, a.preceding_job, a.think_time) == (b.submit_time, b.preceding_job, b.think_time)
        # Under timed runs a job cut off while running may be in a trial run that the
        # replay, going on past the end, kills and restarts (docs/site-level.md).
        if a.wait_time >= 0 and not (a.status == -1 and scheduler.startswith("timed")):
            assert a.wait_time == b.wait_time, f"job {a.job_number} started at another time"
        if a.status != -1:
            assert a.run_time == b.run_time
            compared += 1
    return site_jobs, compared


@pytest.mark.parametrize(
    ("scheduler", "estimates"),
    [
        ("fcfs", "exact"),
        ("easy", "mf"),
        ("cons", "f:2"),
        ("timed:easy", "exact"),
        ("partitioned:models/partitions.toml", "exact"),
    ],
)
def test_feedback_replay_of_own_trace_reproduces_the_schedule_exactly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scheduler: str, estimates: str
) -> None:
    monkeypatch.chdir(Path(__file__).resolve().parents[2])  # the partitions file path
    out = tmp_path / "site"
    run_site(
        SiteConfig(users=12, scheduler=scheduler, estimates=estimates, duration=30 * DAY, seed=4),
        out=out,
    )
    result = run_replay(
        ReplayConfig(trace=str(out / "trace.swf"), scheduler=scheduler, estimates="trace", feedback="absolute"),
        out=out / "fb",
    )
    site_jobs, compared = _same_schedule(out / "trace.swf", out / "fb" / "schedule.swf", scheduler)
    assert compared > 800
    assert result.feedback["source"] == "trace fields 17/18"
    assert result.feedback["root_batches"] == 12  # each user's first batch
    assert result.violations["submission"] == result.violations["execution"] == 0
    assert result.violations["with_dependency"] == len(site_jobs) - result.violations["no_dependency"]


@pytest.mark.parametrize(
    ("scheduler", "levels"), [("fcfs", "gaussian"), ("easy", "gaussian"), ("easy", "recorded"), ("hold", "recorded")]
)
def test_feedback_replay_of_a_fitted_sites_trace_is_exact(tmp_path: Path, scheduler: str, levels: str) -> None:
    """Fitted sites (docs/population.md) have sessions that end: session starts name no
    dependency and come at their recorded times, batches inside sessions wait. With
    recorded levels, each job's level is ranked by the wait it had in the log, which
    the trace's field 3 is not: the run keeps those beside its trace, and the replay
    reads them."""
    from sitesim.cli import main
    from sitesim.runs.sitefile import load_site_file, site_config
    from tests.runs.test_fit import office_log

    fitted = ["fit", str(office_log(tmp_path / "office.swf")), "-o", str(tmp_path / "site"), "--levels", levels]
    assert main(fitted) == 0
    config = site_config(load_site_file(tmp_path / "site" / "site.toml"), {"scheduler": scheduler, "users": 40})
    out = tmp_path / "run"
    run_site(config, out=out)
    result = run_replay(
        # the site's policy, behind its fitted service (docs/service.md), drawing the same delays
        ReplayConfig(trace=str(out / "trace.swf"), scheduler=config.scheduler, estimates="trace", feedback="absolute"),
        out=out / "fb",
    )
    _, compared = _same_schedule(out / "trace.swf", out / "fb" / "schedule.swf", scheduler)
    assert compared > 300
    assert result.report["recorded_waits"] == "trace.recorded-waits"
    f = result.feedback
    assert f["session_start_batches"] > 20 and f["dependent_batches"] > 20
    assert result.violations["submission"] == result.violations["execution"] == 0


def test_feedback_replay_of_a_real_log(trace_path: Callable[[str], Path], tmp_path: Path) -> None:
    path = trace_path("KTH-SP2")
    result, jobs = _replay(path, tmp_path / "kth", scheduler="easy", feedback="absolute")
    assert result.counts["submitted"] == len(jobs) == 28475
    f = result.feedback
    assert f["source"] == "derived (session rules)" and f["unknown_user"] == 0
    assert f["root_batches"] + f["dependent_batches"] == f["batches"]
    # Every dependent job came at its recorded offset after the end of the job it names.
    for r in jobs.values():
        if r.preceding_job > 0:
            p = jobs[r.preceding_job]
            assert p.user_id == r.user_id
            assert r.think_time == r.submit_time - (p.submit_time + p.wait_time + p.run_time) >= 0
    assert result.violations["with_dependency"] == f["dependent_jobs"]
    assert result.violations["submission"] == result.violations["execution"] == 0


def test_feedback_table_script_smoke(tmp_path: Path) -> None:
    """scripts/feedback_table.py runs end to end on small logs and splices its section."""
    import gzip
    import subprocess
    import sys

    from tests.runs.test_fit import office_log

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
    try:
        import feedback_table
    finally:
        sys.path.pop(0)
    traces = tmp_path / "traces"
    traces.mkdir()
    for seed, name in enumerate(feedback_table.TRACES.values()):
        plain = office_log(tmp_path / f"{seed}.swf", users=4, weeks=2, seed=seed)
        (traces / name).write_bytes(gzip.compress(plain.read_bytes()))
    doc = tmp_path / "doc.md"
    doc.write_text(f"# Title\n\nkept\n\n{feedback_table.BEGIN}\nold\n{feedback_table.END}\n\nafter\n")
    script = Path(__file__).resolve().parents[2] / "scripts" / "feedback_table.py"
    done = subprocess.run(
        [sys.executable, str(script), "--traces", str(traces), "--out", str(doc)],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    text = doc.read_text()
    assert text.startswith("# Title\n\nkept\n\n") and text.endswith("\n\nafter\n") and "\nold\n" not in text
    rows = [line for line in text.splitlines() if line.startswith("| KTH-SP2 |")]
    assert len(rows) == 6 + 1 + 1 + 2  # runs, sessions, batches, load factor
