"""Users report their sessions: tiny site-level runs and replays with feedback, whose
productivity section is checked against a computation from their schedules alone."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from sitesim.runs.replay import ReplayConfig, run_replay
from sitesim.runs.site import DAY, SiteConfig, SiteResult, run_site
from sitesim.workload.swf import SwfRecord, read_swf
from tests.users.test_feedback import ARCHIVE, _trace
from tests.users.test_population import table


def ended(r: SwfRecord) -> bool:
    return r.status != -1


def end(r: SwfRecord) -> int:
    return r.submit_time + r.wait_time + r.run_time


def batches_of(records: list[SwfRecord]) -> dict[int, list[list[SwfRecord]]]:
    """Each user's batches, from the trace alone: consecutive jobs of a user naming the
    same job waited for (field 17) form a batch."""
    out: dict[int, list[list[SwfRecord]]] = defaultdict(list)
    for r in records:
        batches = out[r.user_id]
        if batches and batches[-1][0].preceding_job == r.preceding_job:
            batches[-1].append(r)
        else:
            batches.append([r])
    return out


def response(batch: list[SwfRecord]) -> int:
    """The response of the job the user waited for: the last end (ties: later arrival)."""
    last = max(batch, key=lambda r: (end(r), r.job_number))
    return end(last) - last.submit_time


def median(values: list[int]) -> float:
    v = sorted(values)
    n = len(v)
    return float(v[n // 2]) if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def days(spans: list[tuple[int, int]]) -> int:
    touched: set[int] = set()
    for start, stop in spans:
        touched.update(range(start // DAY, max(stop - 1, start) // DAY + 1))
    return len(touched)


def site_run(tmp_path: Path, **fields: Any) -> tuple[SiteResult, list[SwfRecord], dict[str, Any]]:
    out = tmp_path / "out"
    result = run_site(SiteConfig(**fields), out=out)
    _, records = read_swf(out / "trace.swf")
    return result, records, json.loads((out / "summary.json").read_text())


def test_fitted_users_sessions_match_their_trace(tmp_path: Path) -> None:
    """Two fitted users submitting one job per batch, for 25 days: the busy user leaves
    after 20 days and the other after its one session, so every session ends before the
    run does. Then sessions, batches and responses can all be read off the trace: a job
    that waited for nothing (field 17 = -1) opens a session."""
    data = table()
    for user in data["users"]:
        user["widths"] = [1] * len(user["widths"])
    population = tmp_path / "population.json"
    population.write_text(json.dumps(data))
    result, records, document = site_run(
        tmp_path, users=2, scheduler="fcfs", nodes=16, duration=25 * DAY, population=str(population)
    )
    assert all(ended(r) for r in records) and max(end(r) for r in records) < 24 * DAY
    sessions: dict[int, list[list[SwfRecord]]] = defaultdict(list)
    for r in records:
        if r.preceding_job == -1:
            sessions[r.user_id].append([])
        sessions[r.user_id][-1].append(r)
    everyone = [s for user in sessions.values() for s in user]
    med = median([end(r) - r.submit_time for r in records])  # one job per batch

    def figures(chosen: list[list[SwfRecord]], user_days: int) -> dict[str, Any]:
        n = len(chosen)
        return {
            "sessions_started": n,
            "sessions_completed": n,
            "batches_per_session": pytest.approx(sum(len(s) for s in chosen) / n),
            "jobs_per_session": pytest.approx(sum(len(s) for s in chosen) / n),
            "mean_session_hours": pytest.approx(
                sum(end(s[-1]) - s[0].submit_time for s in chosen) / n / 3600
            ),
            "ended_after_long_response": pytest.approx(
                sum(end(s[-1]) - s[-1].submit_time > med for s in chosen) / n
            ),
            "active_days": user_days,
            "jobs_per_active_day": pytest.approx(sum(len(s) for s in chosen) / user_days),
        }

    active = {u: days([(s[0].submit_time, end(s[-1])) for s in mine]) for u, mine in sessions.items()}
    p = result.productivity
    assert len(everyone) > 10 and p["sessions_completed"] > 0
    assert p == {
        "users": 2,
        **figures(everyone, sum(active.values())),  # user-days: each user's days, summed
        "batches_ended": len(records),
        "median_batch_response": med,
    }
    for user, mine in sessions.items():
        expected = figures(mine, active[user])
        assert result.users[user]["productivity"] == expected
        assert document["users"][str(user)]["productivity"] == pytest.approx(expected)
    assert document["productivity"] == pytest.approx(p)


def test_static_users_hold_one_session_for_the_whole_run(tmp_path: Path) -> None:
    """The paper's users never end their sessions: two sessions, none completed, active
    every day of the three."""
    result, records, _ = site_run(tmp_path, users=2, scheduler="easy", duration=3 * DAY)
    p = result.productivity
    done = sum(ended(r) for r in records)
    assert (p["users"], p["sessions_started"], p["sessions_completed"]) == (2, 2, 0)
    assert p["batches_per_session"] is None and p["ended_after_long_response"] is None
    assert (p["active_days"], p["jobs_per_active_day"]) == (6, done / 6)
    for user in (1, 2):
        mine = result.users[user]["productivity"]
        assert (mine["active_days"], mine["jobs_per_active_day"]) == (3, result.users[user]["completed"] / 3)


def test_the_job_limit_stops_sessions_at_their_last_batch(tmp_path: Path) -> None:
    """Without a duration every batch ends, the one the limit cut short too, so the
    batches and their responses can be read off the trace (fields 17 group them; batches
    of several jobs included)."""
    result, records, _ = site_run(tmp_path, users=3, scheduler="fcfs", duration=None, max_jobs=40)
    assert len(records) == 40 and all(ended(r) for r in records)
    p = result.productivity
    assert (p["sessions_started"], p["sessions_completed"]) == (3, 0)
    batches = [b for user in batches_of(records).values() for b in user]
    assert max(len(b) for b in batches) > 1
    assert p["batches_ended"] == len(batches)
    assert p["median_batch_response"] == median([response(b) for b in batches])
    for user in (1, 2, 3):
        mine = [r for r in records if r.user_id == user]
        span = (min(r.submit_time for r in mine), max(end(r) for r in mine))
        assert result.users[user]["productivity"]["active_days"] == days([span])


def test_same_seed_same_summary_bytes(tmp_path: Path) -> None:
    population = tmp_path / "population.json"
    population.write_text(json.dumps(table()))
    texts = []
    for name in ("a", "b"):
        config = SiteConfig(users=3, scheduler="easy", nodes=16, duration=10 * DAY, population=str(population))
        run_site(config, out=tmp_path / name)
        texts.append((tmp_path / name / "summary.json").read_bytes())
    assert texts[0] == texts[1]
    assert b'"productivity"' in texts[0]


@pytest.mark.parametrize("starts", ["absolute", "gap"])
def test_feedback_replays_report_the_recorded_sessions(tmp_path: Path, starts: str) -> None:
    """The hand-made archive log of tests/users/test_feedback.py under FCFS: user 2's job
    1 runs 0-1000; user 1's first session is job 2 (0-1100, waiting behind job 1), then
    jobs 3 and 4 (1150-1250, 1250-1260); its second session is job 5, 10 s long, at its
    recorded time 2000 or, with ``gap`` starts, 1750 s after job 4 (its recorded gap): a
    session either way."""
    out = tmp_path / starts
    result = run_replay(
        ReplayConfig(trace=str(_trace(tmp_path, ARCHIVE)), scheduler="fcfs", feedback=starts), out=out
    )
    # batch responses: 1000 (job 1), 1100 (job 2), 100 (job 4, waited for), 10 (job 5)
    assert result.productivity == {
        "users": 2,
        "sessions_started": 3,
        "sessions_completed": 3,
        "batches_per_session": pytest.approx(4 / 3),
        "jobs_per_session": pytest.approx(5 / 3),
        "mean_session_hours": pytest.approx((1260 + 10 + 1000) / 3 / 3600),
        "ended_after_long_response": pytest.approx(1 / 3),  # user 2's 1000 > 550
        "batches_ended": 4,
        "median_batch_response": 550.0,
        "active_days": 2,
        "jobs_per_active_day": 2.5,
    }
    assert result.users[1]["productivity"]["sessions_started"] == 2
    document = json.loads((out / "summary.json").read_text())
    assert document["productivity"] == pytest.approx(result.productivity)
    assert document["users"]["2"]["productivity"]["jobs_per_session"] == 1.0
    stats = (out / "stats.txt").read_text().splitlines()
    assert stats[2].startswith("#psid sessions completed") and stats[3] == "1 3 3 1.33 1.67 0.21 0.33 2.50 2 2"


def test_plain_replays_have_no_productivity(tmp_path: Path) -> None:
    out = tmp_path / "plain"
    result = run_replay(ReplayConfig(trace=str(_trace(tmp_path, ARCHIVE)), scheduler="fcfs"), out=out)
    assert result.productivity is None
    document = json.loads((out / "summary.json").read_text())
    assert "productivity" not in document
    assert all("productivity" not in user for user in document["users"].values())
    assert "#psid" not in (out / "stats.txt").read_text()


def test_stats_txt_has_the_productivity_lines(tmp_path: Path) -> None:
    result, _, _ = site_run(tmp_path, users=2, scheduler="easy", duration=2 * DAY)
    lines = (tmp_path / "out" / "stats.txt").read_text().splitlines()
    assert lines[: len(result.table())] == result.table()
    rest = lines[len(result.table()):]
    assert rest[0] == "#puid sessions completed av-batches av-jobs av-hours long-end jobs/day active-days"
    assert rest[3] == "#psid sessions completed av-batches av-jobs av-hours long-end jobs/day active-days num_usr"
    jobs = result.productivity["jobs_per_active_day"]
    assert rest[4] == f"1 2 0 - - - - {jobs:.2f} 4 2"
    assert rest[1].startswith("1 1 0 - - - - ")
