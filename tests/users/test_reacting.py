"""Users who react inside a batch (``"gaps": "reacting"``, docs/population.md).

Exact traces on a small machine: each test spells out when every job is submitted,
starts and ends, with the gaps kept and with the user reacting.
"""

from __future__ import annotations

import json
from collections.abc import Generator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import simpy

from sitesim.engine.machine import Machine
from sitesim.engine.process import UserProcess
from sitesim.engine.site import Site
from sitesim.experiments.validation import simulate_fitted
from sitesim.runs.fit import fit_log
from sitesim.schedulers.easy import EasyScheduler
from sitesim.analysis.continuation import ContinuationCurve
from sitesim.users.population import OperationalReaction, PresentReaction
from sitesim.users.population_table import FIT_GAPS, FittedPopulation
from sitesim.users.user import submit_batch
from sitesim.workload.calendar import Clock, Warp
from sitesim.workload.job import Job

NODES = 4


class After:
    """A reaction of ``think`` seconds in real time, counting its draws."""

    def __init__(self, think: int) -> None:
        self.think = think
        self.draws = 0

    def draw(self) -> float:
        self.draws += 1
        return float(self.think)

    def delay(self, now: int, drawn: float, batch: list[Job]) -> int:
        return int(drawn)


def run_batches(
    batches: list[list[tuple[int, int, int]]], *, think: int | None, blocker: int = 0, limit: int | None = None,
    reaction: Any = None,
) -> tuple[list[tuple[int, int, int]], list[int], int]:
    """One user submits ``batches`` of (gap before the job, runtime, size) under EASY,
    reacting after ``think`` seconds (None: gaps kept), after ``blocker`` seconds of the
    whole machine held by another job; returns each job's (submit, start, end), each
    batch's end and how often the reaction was drawn."""
    env = simpy.Environment()
    site = Site(env, Machine(NODES), EasyScheduler(NODES))
    jobs: list[Job] = []
    ended: list[int] = []
    react = reaction if reaction is not None else None if think is None else After(think)
    if blocker:
        site.submit(Job(id=-1, submit=0, size=NODES, runtime=blocker, estimate=blocker, user=99))

    def user() -> Generator[Any, Any, None]:
        for batch in batches:
            gaps = iter(gap for gap, _, _ in batch[1:])
            shapes = iter((runtime, size) for _, runtime, size in batch)

            def make(now: int, _waited: Job | None) -> Job:
                runtime, size = next(shapes)
                jobs.append(Job(id=-1, submit=now, size=size, runtime=runtime, estimate=runtime, user=1))
                return jobs[-1]

            done = yield from submit_batch(
                site, len(batch), lambda: next(gaps), make, None, limit, None, react
            )
            if not done:
                return
            ended.append(int(env.now))

    UserProcess(site, user())
    env.run()
    return [(j.submit, j.start, j.end) for j in jobs], ended, getattr(react, "draws", 0)


def test_a_user_keeping_its_gaps_idles_past_the_ends() -> None:
    """Gaps of 100 s after jobs of 5 s and 50 s: the user submits at 0, 100, 200."""
    jobs, ended, draws = run_batches([[(0, 5, 1), (100, 50, 1), (100, 1, 1)]], think=None)
    assert jobs == [(0, 0, 5), (100, 100, 150), (200, 200, 201)]
    assert ended == [201]
    assert draws == 0


def test_a_reacting_user_takes_up_a_think_time_after_the_ends() -> None:
    """The same batch, reacting after 10 s: job 1 ends at 5, so job 2 goes at 15 (not
    100); job 2 ends at 65, so job 3 goes at 75 (not 115)."""
    jobs, ended, draws = run_batches([[(0, 5, 1), (100, 50, 1), (100, 1, 1)]], think=10)
    assert jobs == [(0, 0, 5), (15, 15, 65), (75, 75, 76)]
    assert ended == [76]
    assert draws == 2  # one per gap


def test_the_gap_wins_while_a_job_still_waits_or_runs() -> None:
    """Job 1 runs 500 s: the gap of 100 s comes first. Job 2 runs 20 s, but job 1 still
    runs when it ends: job 3 keeps its gap too (at 130). Then a reaction counts from the
    end, not the submission: with the machine held by another user until 40, job 1 ends
    at 45 and job 2 goes at 55."""
    jobs, _, draws = run_batches([[(0, 500, 1), (100, 20, 1), (30, 1, 1)]], think=10)
    assert jobs == [(0, 0, 500), (100, 100, 120), (130, 130, 131)]
    assert draws == 2
    jobs, _, _ = run_batches([[(0, 5, 1), (100, 50, 1)]], think=10, blocker=40)
    assert jobs == [(0, 40, 45), (55, 55, 105)]


def test_a_reaction_after_the_gap_changes_nothing() -> None:
    """A think time longer than what is left of the gap: the gap wins, as if kept."""
    kept, _, _ = run_batches([[(0, 5, 1), (20, 5, 1)], [(0, 1, 1)]], think=None)
    reacting, _, draws = run_batches([[(0, 5, 1), (20, 5, 1)], [(0, 1, 1)]], think=60)
    assert reacting == kept == [(0, 0, 5), (20, 20, 25), (25, 25, 26)]
    assert draws == 1  # a batch of one job has no gap


def test_a_present_user_reacts_with_the_curves_probability() -> None:
    """``"gaps": "present"``: a user goes on after a response of 5 s (the curve says 1)
    and reacts 10 s after job 1's end; after job 2's 50 s (the curve says 0) it was not
    there and keeps the gap: job 3 goes 100 s after job 2's submission. Both draws
    (think time, uniform) are taken before every gap, used or not."""
    curve = ContinuationCurve((30.0,), (1.0, 0.0), (1, 1))
    when = np.random.default_rng(7)
    present = PresentReaction((10.0,), when, Warp(Clock(), np.ones(168)), lambda _now: curve)
    jobs, ended, _ = run_batches([[(0, 5, 1), (100, 50, 1), (100, 1, 1)]], think=None, reaction=present)
    assert jobs == [(0, 0, 5), (15, 15, 65), (115, 115, 116)]
    assert ended == [116]
    fresh = np.random.default_rng(7)
    fresh.random(4)  # two gaps, two draws each
    assert when.random() == fresh.random()


def test_a_present_user_is_judged_by_the_curve_of_the_hour() -> None:
    """The reaction asks for the curve at the end's time: a curve of 0 then keeps the
    gap, one of 1 reacts after the think time."""
    batch = [Job(id=1, submit=0, size=1, runtime=5, estimate=5, user=1)]
    batch[0].start, batch[0].end = 0, 5
    flat = Warp(Clock(), np.ones(168))
    asked: list[float] = []

    def curve_at(now: float) -> ContinuationCurve:
        asked.append(now)
        return ContinuationCurve((), (1.0 if now < 3600 else 0.0,), (1,))

    present = PresentReaction((10.0,), np.random.default_rng(1), flat, curve_at)
    assert present.delay(5, (10.0, 0.99), batch) == 10
    assert present.delay(7200, (10.0, 0.0), batch) is None
    assert asked == [5.0, 7200.0]


def test_the_job_limit_still_cuts_a_reacting_batch() -> None:
    """With a limit of 2 jobs the third is never submitted; the batch ends with job 2."""
    jobs, ended, _ = run_batches([[(0, 5, 1), (100, 50, 1), (100, 1, 1)]], think=10, limit=2)
    assert jobs == [(0, 0, 5), (15, 15, 65)]
    assert ended == [75]  # the user noticed the limit when it came back at 75


def test_the_table_says_how_users_treat_gaps(tmp_path: Path) -> None:
    """``gaps`` is read from the table: fixed without the key, the kind it names else,
    and any other value is refused naming it; the fit writes its default
    (:data:`FIT_GAPS`) unless told otherwise, and nothing for ``fixed``."""
    log = tmp_path / "log.swf"
    log.write_text(
        "; MaxProcs: 4\n"
        + "".join(
            f"{3 * i + u} {i * 600 + u * 7} 10 {60 + i} 1 -1 -1 1 100 -1 1 {u} 1 -1 -1 -1 -1 -1\n"
            for i in range(1, 40)
            for u in (1, 2, 3)
        ),
        encoding="utf-8",
    )
    fit_log(log, tmp_path / "fixed", gaps="fixed")
    fit_log(log, tmp_path / "reacting", gaps="reacting")
    fit_log(log, tmp_path / "present")
    fixed = json.loads((tmp_path / "fixed" / "population.json").read_text())
    reacting = json.loads((tmp_path / "reacting" / "population.json").read_text())
    assert "gaps" not in fixed  # the default leaves the table's bytes as they were
    assert reacting.pop("gaps") == "reacting"
    assert reacting == fixed
    assert json.loads((tmp_path / "present" / "population.json").read_text())["gaps"] == FIT_GAPS == "present"
    assert FittedPopulation.load(tmp_path / "fixed" / "population.json", NODES).gaps == "fixed"
    assert FittedPopulation.load(tmp_path / "reacting" / "population.json", NODES).gaps == "reacting"
    assert FittedPopulation.load(tmp_path / "present" / "population.json", NODES).gaps == "present"
    # A reacting site runs, and the same seed gives the same trace byte for byte.
    for kind in ("reacting", "present"):
        traces = []
        for k in range(2):
            simulate_fitted(tmp_path / kind, tmp_path / f"{kind}{k}", seed=3)
            traces.append((tmp_path / f"{kind}{k}" / "trace.swf").read_bytes())
        assert traces[0] == traces[1]
        assert sum(not line.startswith(b";") for line in traces[0].splitlines()) > 20
    fixed["gaps"] = "sometimes"
    with pytest.raises(ValueError, match="unknown gaps 'sometimes'"):
        FittedPopulation.from_dict(fixed, NODES)


def test_a_fitted_users_reaction_is_laid_down_in_operational_time() -> None:
    """The same drawn think time is long at night and short by day, as the gaps it
    competes with are; on a flat cycle it is itself."""
    thinks = (60.0, 600.0)
    day = np.array([10.0 if 8 <= h % 24 < 18 else 1.0 for h in range(168)])
    reaction = OperationalReaction(thinks, np.random.default_rng(1), Warp(Clock(), day))
    drawn = [reaction.draw() for _ in range(20)]
    assert set(drawn) == set(thinks)
    hour = 3600
    assert reaction.delay(3 * hour, 600.0, []) > 600 > reaction.delay(12 * hour, 600.0, [])
    flat = OperationalReaction(thinks, np.random.default_rng(1), Warp(Clock(), np.ones(168)))
    assert flat.delay(3 * hour, 600.0, []) == flat.delay(12 * hour, 600.0, []) == 600


def test_a_gap_that_wins_keeps_its_place_among_same_second_events() -> None:
    """Users A and B both submit a job at 0 and the next at 100, A first. A reacting
    user whose reaction never comes first resumes at 100 where a user keeping its gaps
    would: before B, so A's second job is job 3 either way."""

    def second_jobs(reacting: bool) -> list[tuple[int, int, int]]:
        env = simpy.Environment()
        site = Site(env, Machine(NODES), EasyScheduler(NODES))
        jobs: list[Job] = []

        def user(uid: int, react: After | None) -> Generator[Any, Any, None]:
            def make(now: int, _waited: Job | None) -> Job:
                jobs.append(Job(id=-1, submit=now, size=1, runtime=5, estimate=5, user=uid))
                return jobs[-1]

            gaps = iter([100])
            yield from submit_batch(site, 2, lambda: next(gaps), make, None, None, None, react)

        UserProcess(site, user(1, After(10**9) if reacting else None))
        UserProcess(site, user(2, None))
        env.run()
        return [(j.id, j.user, j.submit) for j in jobs if j.submit == 100]

    assert second_jobs(reacting=True) == second_jobs(reacting=False) == [(3, 1, 100), (4, 2, 100)]


def test_every_kind_of_gaps_a_table_may_hold_has_its_reaction() -> None:
    from sitesim.users.population import REACTIONS
    from sitesim.users.population_table import GAPS

    assert tuple(REACTIONS) == GAPS and FIT_GAPS in GAPS
    assert REACTIONS[GAPS[0]] is None  # a table without the key keeps its gaps
