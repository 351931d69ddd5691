"""The fitted service's base policy chosen by measurement: on a log built in code whose
waits are those of a known policy (no delays), the fit chooses that policy, at distance
0; the distance by hand."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitesim.analysis.cleaning import TraceJob
from sitesim.analysis.service import ServiceFit
from sitesim.runs.service_calibration import replay_waits
from sitesim.runs.service_policy import (
    BASE_POLICIES,
    FLOOR_TOLERANCE,
    choose_policy,
    floor_excess,
    quantile_distance,
)

NODES = 16


def _log(policy: str, jobs: int = 400) -> list[TraceJob]:
    """A busy log whose waits are those of its jobs replayed under ``policy`` on 16 nodes."""
    rng = np.random.default_rng(7)
    submit = np.cumsum(rng.exponential(600, jobs)).astype(int)
    size = rng.choice([1, 2, 4, 8, 16], jobs, p=[0.35, 0.2, 0.2, 0.15, 0.1])
    run = rng.integers(60, 3600, jobs)
    request = run + rng.integers(0, 3600, jobs)
    drawn = [TraceJob(i + 1, float(s), 0.0, float(r), int(z), float(q), 1, 1 + i % 7, -1)
             for i, (s, z, r, q) in enumerate(zip(submit, size, run, request, strict=True))]
    waits = replay_waits(drawn, ServiceFit(NODES, policy, (NODES,), ((0.0, 0.0),)), None)
    return [TraceJob(j.job, j.submit, float(w), j.run, j.size, j.requested_time, 1, j.user, -1)
            for j, w in zip(drawn, waits, strict=True)]


def _fit() -> ServiceFit:
    return ServiceFit(NODES, "easy", (NODES,), ((0.0, 100.0),), {"service": {"why": "test"}})


def test_where_the_first_candidate_puts_a_floor_above_the_log_the_closest_is_chosen() -> None:
    """A log with EASY's waits: FCFS, first, makes jobs wait longer than the log's low
    quantiles (a floor no delay can take away), so EASY is replayed too and chosen, at
    distance 0."""
    chosen = choose_policy(_log("easy"), _fit(), ("fcfs", "easy"))
    found = chosen.findings["service"]["base_policy"]
    assert chosen.policy == "easy" and found["chosen"] == "easy"
    assert found["floor_excess"] > FLOOR_TOLERANCE
    assert found["distance"]["easy"] == 0.0 < found["distance"]["fcfs"]
    assert chosen.delays == _fit().delays  # only the policy is chosen here; the delays come after


@pytest.mark.parametrize("truth", ["fcfs", "easy"])
def test_where_the_first_candidate_puts_no_floor_above_the_log_it_stays_unreplayed_others(truth: str) -> None:
    """A log with FCFS's waits, or EASY's own: EASY, first, waits nowhere longer than the
    log (the delays can lift it), so it is kept and no other candidate is replayed."""
    chosen = choose_policy(_log(truth), _fit(), ("easy", "fcfs"))
    found = chosen.findings["service"]["base_policy"]
    assert chosen.policy == "easy" and list(found["distance"]) == ["easy"]
    assert found["floor_excess"] <= FLOOR_TOLERANCE
    assert (found["distance"]["easy"] == 0.0) == (truth == "easy")


def test_the_floor_by_hand() -> None:
    # the replay's quantiles of log(1 + w) lie log(100) above the log's at every level
    assert floor_excess(np.full(10, 99.0), np.zeros(10)) == pytest.approx(np.log(100.0))
    assert floor_excess(np.zeros(10), np.full(10, 99.0)) == 0.0


def test_the_candidates_are_registered_policies_and_easy_is_first() -> None:
    from sitesim.schedulers.base import make_scheduler

    assert BASE_POLICIES[0] == "easy"  # a tie keeps the policy the fit used before the choice
    for policy in BASE_POLICIES:
        make_scheduler(policy, NODES)


@settings(derandomize=True, max_examples=50)
@given(st.lists(st.integers(0, 10**6), min_size=1, max_size=50), st.lists(st.integers(0, 10**6), min_size=1, max_size=50))
def test_the_distance_is_a_distance_between_quantile_functions(a: list[int], b: list[int]) -> None:
    x, y = np.array(a, float), np.array(b, float)
    assert quantile_distance(x, x) == 0.0
    assert quantile_distance(x, y) == pytest.approx(quantile_distance(y, x))
    assert quantile_distance(x, y) >= 0.0


def test_the_distance_by_hand() -> None:
    # every quantile of log(1 + w) moves by log(1 + 99) - log(1 + 0)
    assert quantile_distance(np.full(10, 99.0), np.zeros(10)) == pytest.approx(np.log(100.0))


def test_with_no_job_that_fits_the_machine_the_first_candidate_stays_and_the_report_says_why() -> None:
    from sitesim.runs.service_fit import base_policy_line

    jobs = [TraceJob(i + 1, float(60 * i), 10.0, 100.0, 2 * NODES, 200.0, 1, 1, -1) for i in range(5)]
    chosen = choose_policy(jobs, _fit(), ("fcfs", "easy"))
    found = chosen.findings["service"]["base_policy"]
    assert chosen.policy == "fcfs" and found["distance"] == {}
    assert "none could be replayed" in base_policy_line(found)
