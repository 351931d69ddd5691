"""Kinds of site-level users by name: the config's split, a researcher's own kind, refusals."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sitesim.engine.process import UserGenerator
from sitesim.errors import InputError
from sitesim.metrics.productivity import ProductivityRecorder
from sitesim.runs.site import DAY, SiteConfig, run_site
from sitesim.runs.user_kinds import USER_KINDS, SiteUser, UserKind, configured_kinds
from sitesim.users.user import submit_batch
from sitesim.workload.job import Job

HOUR = 3600


class Submissions:
    """Observer: every submitted job's (user, size, runtime, submit time)."""

    def __init__(self) -> None:
        self.jobs: list[tuple[int, int, int, int]] = []

    def on_submit(self, job: Job) -> None:
        self.jobs.append((job.user, job.size, job.runtime, job.submit))


class Metronome:
    """A user who submits one job of ``uid`` nodes and 10 minutes, then waits an hour."""

    def __init__(self, uid: int, kind: MetronomeUsers, recorder: ProductivityRecorder) -> None:
        self.uid = uid
        self.kind = kind
        self.sessions = recorder.log(uid)

    def run(self) -> UserGenerator:
        crowd = self.kind.crowd
        waited: Job | None = None
        while True:
            batch = yield from submit_batch(
                crowd.site, 1, lambda: 0, self._job, waited, crowd.max_jobs, self.sessions
            )
            if not batch:
                return
            waited = batch[-1]
            yield HOUR

    def _job(self, now: int, waited: Job | None) -> Job:
        return Job(-1, now, self.uid, 600, 600, self.uid, -1 if waited is None else waited.id, -1, 1)


@USER_KINDS.register
class MetronomeUsers(UserKind):
    name = "metronome"
    summary = "one job an hour after the previous one ended (a test kind)"

    def enlist(self, recorder: ProductivityRecorder) -> list[SiteUser]:
        return [Metronome(uid, self, recorder) for uid in self.uids]

    def report(self, users: Any) -> dict[str, Any]:
        return {"metronome": {"users": len(self.uids), "completed": sum(users[u]["completed"] for u in self.uids)}}


def test_the_config_names_the_split() -> None:
    assert configured_kinds(10, population=None, adaptive=0.0) == {"adaptive": 0, "static": 10}
    assert configured_kinds(10, population=None, adaptive=0.25) == {"adaptive": 2, "static": 8}
    assert configured_kinds(10, population="p.json", adaptive=0.0) == {"fitted": 10}
    assert {"static", "adaptive", "fitted", "metronome"} <= set(USER_KINDS.names())


def test_a_registered_kind_runs_from_python(tmp_path: Path) -> None:
    seen = Submissions()
    config = SiteConfig(users=3, nodes=8, duration=DAY, scheduler="easy")
    result = run_site(config, tmp_path / "out", observers=[seen], user_kinds={"metronome": 3})
    # Alone on 8 nodes, each user's job starts at once: 10 minutes, then an hour's wait.
    per_user = {u: [j for j in seen.jobs if j[0] == u] for u in (1, 2, 3)}
    for uid, jobs in per_user.items():
        assert {(size, runtime) for _, size, runtime, _ in jobs} == {(uid, 600)}
        assert [submit for *_, submit in jobs] == [k * (600 + HOUR) for k in range(len(jobs))]
        assert len(jobs) == -(-DAY // (600 + HOUR))
    assert result.summary["metronome"] == {"users": 3, "completed": result.summary["completed"]}
    assert '"metronome"' in (tmp_path / "out" / "summary.json").read_text()
    assert result.productivity["users"] == 3  # its users' sessions were recorded


def test_kinds_given_as_classes_mix_and_keep_each_users_streams() -> None:
    """User 1 of another kind leaves users 2 and 3 their own draws: the first job each
    submits at time 0 is the one the plain static run drew."""
    config = SiteConfig(users=3, nodes=64, duration=HOUR, scheduler="easy", seed=5)
    plain, mixed = Submissions(), Submissions()
    run_site(config, observers=[plain])
    run_site(config, observers=[mixed], user_kinds={MetronomeUsers: 1, "static": 2})
    assert [j for j in mixed.jobs if j[0] == 1][0][1:3] == (1, 600)
    for uid in (2, 3):
        assert [j for j in mixed.jobs if j[0] == uid][0] == [j for j in plain.jobs if j[0] == uid][0]


def test_the_configs_split_given_explicitly_is_the_same_run(tmp_path: Path) -> None:
    config = SiteConfig(users=6, nodes=64, duration=3 * DAY, scheduler="cons", adaptive=0.5, seed=2)
    run_site(config, tmp_path / "a")
    run_site(config, tmp_path / "b", user_kinds={"adaptive": 3, "static": 3})
    for name in ("trace.swf", "summary.json", "stats.txt"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


@pytest.mark.parametrize(
    ("split", "message"),
    [
        ({"nobody": 3}, "unknown user kind 'nobody' (known: adaptive, fitted, metronome"),
        ({"static": 2}, "add up to 2, not the run's 3 users"),
        ({"static": 4, "metronome": -1}, "must be a non-negative integer, got -1"),
        ({"fitted": 3}, "fitted users need a fitted population"),
        ({"static": 1, "adaptive": 2}, "adaptive users are the first users"),
    ],
)
def test_bad_splits_are_refused_in_one_line(tmp_path: Path, split: dict[str, int], message: str) -> None:
    config = SiteConfig(users=3, nodes=8, duration=DAY, scheduler="cons")
    with pytest.raises(InputError) as err:
        run_site(config, tmp_path / "out", user_kinds=split)
    assert message in str(err.value)
    assert "\n" not in str(err.value)
    assert not (tmp_path / "out").exists()


def test_a_class_that_is_no_user_kind_is_refused() -> None:
    with pytest.raises(InputError, match="is not a user kind"):
        run_site(SiteConfig(users=1, duration=DAY), user_kinds={"sitesim.users.user:User": 1})
