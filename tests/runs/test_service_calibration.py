"""The fitted service's delays calibrated against a replay of the log under the service:
on a log built in code whose true service is known (EASY on 16 nodes behind holds of
known distribution), the calibrated service waits as the log did where the delays
drawn from the fit-waits alone do not; the correction's pieces by hand."""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np
import pytest

from sitesim.analysis.cleaning import TraceJob
from sitesim.analysis.nodes import node_allocation
from sitesim.analysis.service import LEVELS, ServiceFit, fit_service
from sitesim.runs.service_calibration import ROUNDS, STEP, _shifted, calibrate, delay_model, replay_waits
from sitesim.schedulers.service import DelayModel
from sitesim.workload.swf_header import SwfHeader


def measured_service(jobs: list[TraceJob], nodes: int, header: SwfHeader, **given: Any) -> ServiceFit:
    """The service fitted as ``sitesim fit`` fits it: on the allocation measured first."""
    return fit_service(jobs, nodes, header, allocation=node_allocation(header, jobs), **given)

NODES = 16
HEADER = SwfHeader([f"; MaxNodes: {NODES}"])
#: The true holds: 70 % of the jobs none, the others uniform over 0..4 h.
HOLDS = (0.0,) * 70 + tuple(float(v) for v in np.linspace(0, 14_400, LEVELS - 70))
TRUE_MEAN = DelayModel((NODES,), (HOLDS,)).mean[0]


def _log(jobs: int = 600) -> list[TraceJob]:
    """A log whose waits are those of its jobs replayed under EASY on 16 nodes behind
    :data:`HOLDS` (seed 0): a service the fit is to find again from the waits alone."""
    rng = np.random.default_rng(5)
    submit = np.cumsum(rng.exponential(1200, jobs)).astype(int)
    size = rng.choice([1, 2, 4, 8, 16], jobs, p=[0.35, 0.2, 0.2, 0.15, 0.1])
    run = rng.integers(60, 3600, jobs)
    request = run + rng.integers(0, 3600, jobs)
    drawn = [TraceJob(i + 1, float(s), 0.0, float(r), int(z), float(q), 1, 1 + i % 7, -1)
             for i, (s, z, r, q) in enumerate(zip(submit, size, run, request, strict=True))]
    truth = ServiceFit(NODES, "easy", (NODES,), (HOLDS,))
    waits = replay_waits(drawn, truth, DelayModel(truth.size_classes, truth.delays))
    return [TraceJob(j.job, j.submit, float(w), j.run, j.size, j.requested_time, 1, j.user, -1)
            for j, w in zip(drawn, waits, strict=True)]


def _figures(jobs: list[TraceJob], fit: ServiceFit) -> np.ndarray:
    """Mean, 90 % and 99 % quantile of the waits replayed under ``fit``, over seeds 0-2."""
    out = []
    for seed in range(3):
        w = replay_waits(jobs, fit, delay_model(fit), seed)
        out.append([w.mean(), np.quantile(w, 0.9), np.quantile(w, 0.99)])
    return np.mean(out, axis=0)


def test_the_calibrated_service_waits_as_the_log_did_where_the_fit_waits_alone_fall_short() -> None:
    jobs = _log()
    log = np.array([j.wait for j in jobs])
    want = np.array([log.mean(), np.quantile(log, 0.9), np.quantile(log, 0.99)])
    # the truth draws its holds per job: so does the fit here (the calibration is on trial)
    fit = attrs.evolve(measured_service(jobs, NODES, HEADER, level_model="gaussian"), levels="per-job",
                       level_gaps=(), level_rho=(), level_repeat=())
    calibrated = calibrate(jobs, fit)
    # the fit-waits miss the holds' time the policy also kept jobs waiting: 20-26 % short
    assert np.all(_figures(jobs, fit) < 0.85 * want)
    # calibrated, within 10 % (the seeds' mean; the calibration replayed seed 0 only)
    assert np.all(np.abs(_figures(jobs, calibrated) / want - 1) < 0.10)
    # and each class's mean delay is the true holds' mean again (within 15 %), where
    # the fit-waits of the largest jobs had less than half of it
    assert DelayModel(fit.size_classes, fit.delays).mean[-1] < 0.5 * TRUE_MEAN
    assert all(abs(m / TRUE_MEAN - 1) < 0.15 for m in DelayModel(calibrated.size_classes, calibrated.delays).mean)
    calibration = calibrated.findings["service"]["calibration"]
    assert calibration["rounds"] == ROUNDS == len(calibration["replays"]) and calibration["step"] == STEP
    first = calibration["replays"][0]
    assert first["mean_wait"]["log"] == pytest.approx(log.mean(), abs=0.1)
    assert [c["size_class"] for c in first["per_class"]] == list(fit.size_classes)


def _easy_log() -> list[TraceJob]:
    """The jobs of :func:`_log` with the waits EASY alone gives them on the machine."""
    truth = ServiceFit(NODES, "easy", (NODES,), ((0.0, 0.0),))
    jobs = _log()
    waits = replay_waits(jobs, truth, DelayModel(truth.size_classes, truth.delays))
    return [TraceJob(j.job, j.submit, float(w), j.run, j.size, j.requested_time, 1, j.user, -1)
            for j, w in zip(jobs, waits, strict=True)]


def test_where_the_policy_alone_explains_the_waits_the_delays_all_but_vanish() -> None:
    # The same jobs with the waits EASY alone gives them: the fit-waits (jobs a
    # reservation kept from backfilling while their size fit) would count them twice.
    easy = _easy_log()
    waits = [j.wait for j in easy]
    fit = measured_service(easy, NODES, HEADER, level_model="gaussian")
    calibrated = calibrate(easy, fit)
    before = DelayModel(fit.size_classes, fit.delays).mean
    after = DelayModel(calibrated.size_classes, calibrated.delays).mean
    assert sum(after) < 0.5 * sum(before)
    assert max(after) < 0.1 * float(np.mean(waits))


def test_a_shift_keeps_the_shape_and_sets_the_mean_as_a_draw_reads_it() -> None:
    quantiles = np.array([-50.0, 0.0, 100.0, 300.0])
    shifted = _shifted(quantiles, 50.0)
    assert np.all(shifted >= 0) and np.all(np.diff(shifted) >= 0)
    assert DelayModel((1,), (tuple(shifted),)).mean[0] == pytest.approx(50.0, rel=1e-9)
    assert np.all(_shifted(quantiles, 0.0) == 0) and np.all(_shifted(quantiles, -5.0) == 0)
    # a mean above the quantiles' own lifts them all
    assert _shifted(np.zeros(3), 10.0) == pytest.approx([10.0, 10.0, 10.0])


def test_a_log_of_jobs_none_of_which_fits_the_machine_keeps_its_measured_delays() -> None:
    from sitesim.runs.service_fit import calibration_line

    jobs = [TraceJob(i + 1, float(i * 100), 30.0, 50.0, 8, 60.0, 1, 1, -1) for i in range(150)]
    fit = measured_service(jobs, 4, SwfHeader(["; MaxNodes: 4"]))
    calibrated = calibrate(jobs, fit)
    assert calibrated.delays == fit.delays
    calibration = calibrated.findings["service"]["calibration"]
    assert calibration["rounds"] == 0 and calibration_line(calibration).startswith("none")


def _pairs(users: int = 40) -> tuple[list[TraceJob], np.ndarray, np.ndarray]:
    """Per user a job that opens a session, then one submitted 600 s after its end (in
    the log and in the replay alike, the replay's end being the log's); in the log the
    second waited nothing and the first 1,000 s, in the replay both 1,000 s."""
    jobs, log, replayed = [], [], []
    for u in range(users):
        t = 100_000.0 * u
        jobs.append(TraceJob(2 * u + 1, t, 1000.0, 100.0, 1, 200.0, 1, u, -1))
        jobs.append(TraceJob(2 * u + 2, t + 1700.0, 0.0, 100.0, 1, 200.0, 1, u, -1))
        log += [1000.0, 0.0]
        replayed += [1000.0, 0.0 + 1000.0]
    return jobs, np.array(log), np.array(replayed)


def test_the_states_shifts_move_each_states_replay_to_the_log_and_are_centred() -> None:
    """The log served continuing jobs first where the replay did not: the continuing
    state's shift goes down, the openers' up, centred on the replay's mix (here half
    and half); in a batch, with no job, keeps 0; the report gives both sides' scores."""
    from sitesim.runs.service_calibration import _state_shifts
    from sitesim.workload.session_rule import CONTINUING, IN_BATCH, OPENING

    jobs, log, replayed = _pairs()
    ended = np.array([j.submit + w + j.run for j, w in zip(jobs, replayed, strict=True)])
    shifts, report = _state_shifts(jobs, log, replayed, ended, np.zeros(len(jobs), dtype=np.int64), ())
    assert shifts[CONTINUING] < 0 < shifts[OPENING] and shifts[IN_BATCH] == 0.0
    assert shifts[CONTINUING] == pytest.approx(-shifts[OPENING], abs=1e-3)
    assert report["state_scores"]["replay"][CONTINUING] == pytest.approx(0.0)  # ties: no contrast
    assert report["state_scores"]["log"][CONTINUING] < 0 < report["state_scores"]["log"][OPENING]
    assert report["state_scores"]["log"][IN_BATCH] is None  # no job in a batch: not measured
    # too few jobs in every state: no shifts at all
    few, few_log, few_replayed = _pairs(3)
    few_ended = np.array([j.submit + w + j.run for j, w in zip(few, few_replayed, strict=True)])
    assert _state_shifts(few, few_log, few_replayed, few_ended, np.zeros(6, dtype=np.int64), ())[0] == ()


def test_levels_drawn_per_job_get_no_states_shifts() -> None:
    jobs = _log()
    fit = attrs.evolve(measured_service(jobs, NODES, HEADER, level_model="gaussian"), levels="per-job",
                       level_gaps=(), level_rho=(), level_repeat=())
    assert calibrate(jobs, fit).level_states == ()


def test_recorded_levels_keep_delays_the_policy_alone_would_explain() -> None:
    # Why recorded levels' calibration no longer starts from the fit-waits (docs/service.md): on the log of
    # the test above, whose waits EASY alone gives, delays drawn at each job's own
    # recorded rank reproduce the log's waits as well, so the calibration sees no gap
    # and keeps the fit-waits it should have dropped.
    easy = _easy_log()
    fit = measured_service(easy, NODES, HEADER, level_model="recorded")
    calibrated = calibrate(easy, fit)
    first = calibrated.findings["service"]["calibration"]["replays"][0]
    assert first["mean_wait"]["replay"] == pytest.approx(first["mean_wait"]["log"], rel=0.01)
    # the replay was made and compared, class by class, and found no gap to correct
    assert first["per_class"] and all(c["distance_share_of_mean_wait"] < 0.05 for c in first["per_class"])
    kept = DelayModel(calibrated.size_classes, calibrated.delays).mean
    assert sum(kept) > 0.9 * sum(DelayModel(fit.size_classes, fit.delays).mean) > 0


def test_a_fit_with_recorded_levels_starts_from_the_policy_alone_and_drops_its_queueing() -> None:
    # What the test above shows is why ``sitesim fit --levels recorded`` starts its
    # delays from none, corrected against the replay under the policy alone (the one
    # the base policy was chosen by), not from the fit-waits: on the same log, the
    # delays then all but vanish, as the copula's fit's do.
    from sitesim.analysis.nodes import node_allocation
    from sitesim.runs.service_fit import fit_log_service

    easy = _easy_log()
    fit = fit_log_service(easy, NODES, HEADER, None, node_allocation(HEADER, easy), level_model="recorded")
    assert fit.levels == "recorded" and fit.recorded_waits and fit.level_rho == fit.level_states == ()
    replays = fit.findings["service"]["calibration"]["replays"]
    assert [r["levels"] for r in replays] == ["none: the policy alone", "recorded"]
    measured = measured_service(easy, NODES, HEADER, level_model="gaussian")
    assert sum(delay_model(fit).mean) < 0.5 * sum(DelayModel(measured.size_classes, measured.delays).mean)
    assert max(delay_model(fit).mean) < 0.1 * float(np.mean([j.wait for j in easy]))
