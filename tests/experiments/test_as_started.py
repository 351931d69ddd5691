"""A simulated trace measured as the accounting of a log without waits records jobs."""

from __future__ import annotations

from pathlib import Path

from sitesim.analysis.cleaning import TraceJob
from sitesim.experiments.validation import as_recorded_starts, trace_signatures


def _trace(path: Path) -> Path:
    """Users 1-3, each: a 600 s job at once, then another submitted 300 s after its end
    (one session by the 20-minute rule) that waits 3,000 s before it starts (two, if
    the submission is taken to be the start), a day apart."""
    lines = ["; UnixStartTime: 1704067200", "; TimeZoneString: UTC", "; MaxNodes: 4", "; MaxProcs: 4"]
    job = 0
    for user in (1, 2, 3):
        t = user * 86_400
        for submit, wait in ((t, 0), (t + 900, 3000)):
            job += 1
            lines.append(" ".join(str(f) for f in (job, submit, wait, 600, 1, -1, -1, 1, 900, -1, 1, user, 1, 1, 1, -1, -1, -1)))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_each_job_is_taken_as_submitted_at_its_start_in_start_order() -> None:
    jobs = [TraceJob(1, 0.0, 50.0, 10.0, 1, 10.0, 1, 1, -1), TraceJob(2, 10.0, 0.0, 10.0, 1, 10.0, 1, 2, -1)]
    started = as_recorded_starts(jobs)
    assert [(j.job, j.submit, j.wait) for j in started] == [(2, 10.0, 0.0), (1, 50.0, 0.0)]


def test_a_wait_inside_a_session_cuts_it_when_measured_on_starts(tmp_path: Path) -> None:
    trace = _trace(tmp_path / "t.swf")
    submitted = trace_signatures(trace, nodes=4, duration=5 * 86_400).values
    started = trace_signatures(trace, nodes=4, duration=5 * 86_400, as_started=True).values
    assert submitted["jobs_per_session"] == 2.0 and started["jobs_per_session"] == 1.0
    assert submitted["mean_wait"] == started["mean_wait"] == 1500.0  # the trace's own waits either way
    assert started["utilization"] == submitted["utilization"]  # the same work in the same window


def test_without_a_duration_both_take_the_waits_up_to_the_last_submission(tmp_path: Path) -> None:
    # the last job is submitted last and starts 3,000 s later, after the window: its wait
    # is left out, however the submissions are taken
    trace = _trace(tmp_path / "t.swf")
    for started in (False, True):
        assert trace_signatures(trace, as_started=started).values["mean_wait"] == (3000 + 3000) / 5
