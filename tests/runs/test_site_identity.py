"""Site-level runs stay byte-identical: short runs against hashes recorded before the
engine's user-side speed-ups (docs/performance.md, "Round 5").

The replays of ``test_schedule_identity.py`` never run a user. These runs do: batch and
closed users, a job limit that cuts batches short, a preempting scheduler, failing jobs,
adaptive (moldable) users and a fitted population, random estimate models, each for a
few simulated weeks. The
SHA-256 covers every job record of ``trace.swf`` (submit, wait, runtime, size, the
dependency fields 17 and 18): a refactor that moves one user's reaction changes it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sitesim.runs.site import SiteConfig, run_site
from tests.schedulers.test_schedule_identity import schedule_hash
from tests.users.test_population import table

DAY = 86_400
#: ``population`` stands for the hand-made two-profile population of
#: tests/users/test_population.py, on its 16-node machine, for 60 days.
RUNS: dict[str, dict[str, Any]] = {
    "default, 60 days": {"duration": 60 * DAY},
    "40 users, easy": {"users": 40, "scheduler": "easy", "duration": 30 * DAY},
    "30 users, timed:easy, f:4": {"users": 30, "scheduler": "timed:easy", "estimates": "f:4", "duration": 30 * DAY},
    "20 users, cons, mf": {"users": 20, "scheduler": "cons", "estimates": "mf", "duration": 30 * DAY},
    "30 users, easy, 1500 jobs": {"users": 30, "scheduler": "easy", "max_jobs": 1500},
    "15 users, cons, adaptive": {"users": 15, "scheduler": "cons", "adaptive": 0.3, "duration": 30 * DAY},
    "20 users, failing, timed:fcfs": {"users": 20, "workpool": "failing", "scheduler": "timed:fcfs", "duration": 30 * DAY},
    "10 users, closed, seed 3": {"users": 10, "submittal": "closed", "scheduler": "easy", "seed": 3, "duration": 30 * DAY},
    "population of 12, easy": {"users": 12, "scheduler": "easy", "population": True},
    "population of 12, cons, 300 jobs": {"users": 12, "scheduler": "cons", "max_jobs": 300, "population": True},
    # Random estimates, drawn in blocks by each user since round 6 (recorded at d1433a5).
    "15 users, cons, adaptive, mf": {"users": 15, "scheduler": "cons", "adaptive": 0.3, "estimates": "mf", "duration": 30 * DAY},
    "20 users, timed:easy, empirical": {"users": 20, "scheduler": "timed:easy", "estimates": "empirical", "duration": 30 * DAY},
    "population of 12, easy, f:3": {"users": 12, "scheduler": "easy", "estimates": "f:3", "population": True},
}
#: SHA-256 of each run's trace.swf without its comment lines, recorded at de2c786 (the
#: last three at d1433a5).
RECORDED = {
    "default, 60 days":
        "3ad404d296c0ba72187757028b3b1e603f8edce57382df96ce5321d79014009f",
    "40 users, easy":
        "0453be08b172c145c30563f2f3f50e67287827932bc39e0069e63d74e2dc264c",
    "30 users, timed:easy, f:4":
        "cf878494559114530842f420ce0a27954c43dae60d5b9f46da8531074e9d8c02",
    "20 users, cons, mf":
        "ad4cf25fe8a2b4ccdde2f34bf5963d9418601af23bef51a3b333b7901636a098",
    "30 users, easy, 1500 jobs":
        "9c33f7b0141f701d2ff65d528ea3dec6b656fdeb15c440e8d5762453885a948d",
    "15 users, cons, adaptive":
        "898500c02ff1db167a9c625507f106b39392a88ffc12576450aee1954853bb5b",
    "20 users, failing, timed:fcfs":
        "88d2c5ce66c86373302787df037377d6c84f33a9c65461d8299c07a58a286c70",
    "10 users, closed, seed 3":
        "c16cabc987687ee82260d8606556dbf8a7a1bbcb2626284752d6b7b8c4dc8a15",
    "population of 12, easy":
        "73335bf620b8d362cb536b2d2a36c0afb5e43503f8580e0aacfe9bee4c98fbb1",
    "population of 12, cons, 300 jobs":
        "64f4f48fcaca69eeca03d60df31eb726720f679ebbe10c1dcfee4e6cc1a69d95",
    "15 users, cons, adaptive, mf":
        "9511efdd8dab810451b1a7bee7e624b76ab4291f9d16c17d072cba4254e62188",
    "20 users, timed:easy, empirical":
        "4bdd1bd30a8a486786dba5c5d4b5e12459828cd715e1c9e296cbda634f523b01",
    "population of 12, easy, f:3":
        "b95264242ca1aaf70efc969315725ca887b95993e9f45afb7f41e607cc0f0cdd",
}


@pytest.mark.parametrize("name", sorted(RUNS))
def test_site_level_trace_is_the_recorded_one(name: str, tmp_path: Path) -> None:
    fields = dict(RUNS[name])
    if fields.pop("population", False):
        population = tmp_path / "population.json"
        population.write_text(json.dumps(table()))
        fields.update(population=str(population), nodes=16, duration=60 * DAY)
    run_site(SiteConfig(**fields), out=tmp_path / "out")
    assert schedule_hash(tmp_path / "out" / "trace.swf") == RECORDED[name]
