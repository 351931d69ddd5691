"""The paper's feedback experiments on short runs: the qualitative results hold."""

from __future__ import annotations

from sitesim.experiments.prediction import prediction_experiment
from sitesim.experiments.violations import violations_vs_load
from sitesim.runs.site import DAY


def test_conventional_replay_underestimates_fcfs_far_more_than_it_overestimates_easy() -> None:
    under, over = prediction_experiment(users=10, duration=120 * DAY, seeds=(0,))
    assert (under.trace_scheduler, under.evaluated) == ("easy", "fcfs")
    assert (over.trace_scheduler, over.evaluated) == ("fcfs", "easy")
    # Replaying EASY's high-load signature floods FCFS: hundreds of percent off on wait.
    assert under.conventional["mean_wait"] > under.site_level["mean_wait"]
    assert under.inaccuracy("mean_wait") > 2.0
    # FCFS's low-load signature flatters EASY, but by much less.
    assert over.conventional["mean_wait"] < over.site_level["mean_wait"]
    for metric in ("mean_response", "mean_wait", "mean_bounded_slowdown"):
        assert over.inaccuracy(metric) < under.inaccuracy(metric)
    # Response is the least sensitive metric, wait the most (paper, section 6.1).
    assert under.inaccuracy("mean_response") < under.inaccuracy("mean_wait")


def test_violations_appear_only_away_from_the_traces_own_load_and_scheduler() -> None:
    points = violations_vs_load(loads=(0.3, 0.9), users=10, duration=60 * DAY)
    own = [p for p in points if p.load_factor == 1.0 and p.trace_scheduler == p.scheduler]
    assert len(own) == 2
    assert all(p.submission_fraction == 0 and p.execution_fraction == 0 for p in own)
    for p in points:
        if p.scheduler == "fcfs":
            assert p.execution_fraction == 0  # FCFS never overtakes a queued job
        assert p.execution_fraction <= p.submission_fraction
    high = [p for p in points if p.offered_load > 0.85]
    assert all(p.submission_fraction > 0.3 for p in high)


def test_results_do_not_depend_on_the_number_of_processes() -> None:
    small = {"users": 4, "duration": 20 * DAY}
    assert prediction_experiment(seeds=(0, 1), jobs=2, **small) == prediction_experiment(seeds=(0, 1), **small)
    assert violations_vs_load(loads=(0.5,), jobs=2, **small) == violations_vs_load(loads=(0.5,), **small)
