"""Site-level runs: exact replay of their own trace, feedback, determinism, run control."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitesim.errors import InputError
from sitesim.runs.replay import ReplayConfig, run_replay
from sitesim.runs.site import DAY, SiteConfig, run_site
from sitesim.workload.swf import read_swf


def _site(tmp_path: Path, name: str, **kwargs: object) -> Path:
    out = tmp_path / name
    run_site(SiteConfig(**kwargs), out=out)  # type: ignore[arg-type]
    return out


@pytest.mark.parametrize(
    ("scheduler", "estimates"),
    [
        ("fcfs", "exact"),
        ("easy", "exact"),
        ("easy", "mf"),
        ("cons", "f:2"),
        ("timed:easy", "exact"),
        ("partitioned:models/partitions.toml", "exact"),
    ],
)
def test_replaying_own_trace_reproduces_the_schedule_exactly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scheduler: str, estimates: str
) -> None:
    monkeypatch.chdir(Path(__file__).resolve().parents[2])  # the partitions file path
    out = _site(
        tmp_path, "site", users=20, scheduler=scheduler, estimates=estimates,
        duration=45 * DAY, seed=3,
    )
    replay = run_replay(
        ReplayConfig(trace=str(out / "trace.swf"), scheduler=scheduler, estimates="trace"),
        out=out / "replay",
    )
    _, site_jobs = read_swf(out / "trace.swf")
    _, replayed = read_swf(out / "replay" / "schedule.swf")
    assert [r.job_number for r in site_jobs] == [r.job_number for r in replayed]
    compared = 0
    for a, b in zip(site_jobs, replayed, strict=True):
        assert a.submit_time == b.submit_time
        # A job cut off while running started at the same time -- except under timed
        # runs, where that start may be a trial the replay goes on to kill and restart.
        cut_off_trial = a.status == -1 and scheduler.startswith("timed")
        if a.wait_time >= 0 and not cut_off_trial:
            assert a.wait_time == b.wait_time, f"job {a.job_number} started at another time"
        if a.status != -1:
            assert a.run_time == b.run_time
            compared += 1
    assert compared > 2000
    # At its own pace, a site-level trace has no dependency violation of either kind.
    assert replay.violations["submission"] == 0
    assert replay.violations["execution"] == 0


def test_same_seed_same_bytes_different_seed_differs(tmp_path: Path) -> None:
    runs = [
        _site(tmp_path, f"run{i}", users=5, scheduler="easy", duration=20 * DAY, seed=seed)
        for i, seed in enumerate((7, 7, 8))
    ]
    for name in ("trace.swf", "summary.json", "stats.txt"):
        first, again, other = ((r / name).read_bytes() for r in runs)
        assert first == again, name
        assert first != other, name
    # no fitted users, no recorded waits: nothing beside the trace
    assert sorted(p.name for p in runs[0].iterdir()) == ["stats.txt", "summary.json", "trace.swf"]


def test_easy_serves_at_least_as_many_jobs_as_fcfs_for_the_same_users() -> None:
    for seed in (0, 1):
        fcfs = run_site(SiteConfig(users=10, scheduler="fcfs", duration=120 * DAY, seed=seed))
        easy = run_site(SiteConfig(users=10, scheduler="easy", duration=120 * DAY, seed=seed))
        assert easy.summary["completed"] >= fcfs.summary["completed"]
        assert easy.summary["mean_wait"] < fcfs.summary["mean_wait"]


def test_saturation_raises_response_while_throughput_levels_off() -> None:
    results = {
        users: run_site(SiteConfig(users=users, scheduler="easy", duration=90 * DAY, seed=1)).summary
        for users in (10, 40, 160)
    }
    r10, r40, r160 = results[10], results[40], results[160]
    assert r10["mean_response"] < r40["mean_response"] < r160["mean_response"]
    gain_low = r40["throughput_per_day"] / r10["throughput_per_day"]
    gain_high = r160["throughput_per_day"] / r40["throughput_per_day"]
    # Four times the users: throughput still grows at first, then hardly (saturation).
    assert gain_high < gain_low
    assert gain_high < 1.5
    assert r160["utilization"] <= 1.0


def test_job_limit_runs_until_every_job_ended(tmp_path: Path) -> None:
    result = run_site(SiteConfig(users=4, duration=None, max_jobs=300, scheduler="easy", seed=2))
    assert result.summary["submitted"] == 300
    assert result.summary["completed"] == 300
    assert result.summary["unfinished_running"] == 0


def test_unfinished_jobs_are_counted_and_written(tmp_path: Path) -> None:
    out = _site(tmp_path, "cut", users=30, scheduler="fcfs", duration=10 * DAY, seed=4)
    result = run_site(SiteConfig(users=30, scheduler="fcfs", duration=10 * DAY, seed=4))
    s = result.summary
    unfinished = s["unfinished_queued"] + s["unfinished_running"]
    assert unfinished > 0
    assert s["submitted"] == s["completed"] + unfinished
    _, records = read_swf(out / "trace.swf")
    assert len(records) == s["submitted"]
    assert sum(r.status == -1 for r in records) == unfinished
    assert sum(r.status == -1 and r.wait_time == -1 for r in records) == s["unfinished_queued"]


def test_dependency_fields_name_the_completion_the_user_waited_for(tmp_path: Path) -> None:
    out = _site(tmp_path, "deps", users=3, scheduler="fcfs", duration=20 * DAY, seed=5)
    _, records = read_swf(out / "trace.swf")
    by_id = {r.job_number: r for r in records}
    firsts = set()
    for r in records:
        if r.preceding_job == -1:
            firsts.add(r.user_id)
            assert r.think_time == -1
            continue
        dep = by_id[r.preceding_job]
        assert dep.user_id == r.user_id and dep.job_number < r.job_number
        end = dep.submit_time + dep.wait_time + dep.run_time
        assert r.think_time == r.submit_time - end >= 0
    assert firsts == {1, 2, 3}  # only each user's first batch lacks a dependency


def test_bad_configurations_are_input_errors() -> None:
    with pytest.raises(InputError, match="submittal model"):
        run_site(SiteConfig(submittal="nope", duration=DAY))
    with pytest.raises(InputError, match="needs a trace"):
        run_site(SiteConfig(estimates="trace", duration=DAY))
    with pytest.raises(InputError, match="duration"):
        SiteConfig(duration=None, max_jobs=None)
