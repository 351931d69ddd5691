"""Fitted sites against their logs (docs/validation.md), in CI.

For each shipped log: fit it, simulate the fitted site for the log's duration (seed 0)
as fitted (the headline: EASY behind the fitted service on its bounded machine), under
the log's own waits (``hold``, a consistency check) and under EASY on the nominal
machine, and check the rules against the log: every rule under the log's waits; under
the fitted service every rule, the mean wait within ×/÷ 2 of the log's among them,
except the session rules some seed misses (docs/validation.md); the rules EASY's waits
leave standing under EASY. The full comparison (5 seeds, CIs,
FCFS, replays) is scripts/validate_population.py, with the same rules; one seed keeps
this test to about a minute of CPU for the three logs. LANL-CM5 and SDSC-BLUE (larger:
about 4 CPU minutes together) are left to the script.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from sitesim.experiments.validation import CHECKS, compare_run, passes, rules, simulate_fitted, trace_signatures

LOGS = ["KTH-SP2-1996-2.1-cln.swf.gz", "SDSC-SP2-1998-4.2-cln.swf.gz", "CTC-SP2-1996-3.1-cln.swf.gz"]
#: Session rules the fitted sites do not always meet under EASY (docs/validation.md,
#: "Sessions"): sessions are cut out of a trace on job ends, so the analysis cuts the
#: simulated users' sessions where EASY's waits let every job of a batch end before the
#: next submission (the logs' own jobs replayed under EASY lose session hours too).
#: Checked under EASY to stay within half of the log's to 15% above it; under the log's
#: service they meet their rules.
SHORT = ("jobs_per_session", "session_hours")

#: One worker makes every log's fit once (tests/conftest.py, ``shared_fit``).
pytestmark = [pytest.mark.traces, pytest.mark.xdist_group("shared-fits")]


@pytest.mark.parametrize("name", LOGS)
def test_fitted_site_matches_its_log(name: str, tmp_path: Path, shared_fit) -> None:
    site, info = shared_fit.get(name)  # ``sitesim fit`` of the log, made once per session
    path = Path(os.environ["SITESIM_TRACES"]) / name
    duration = info.days * 86400
    log = trace_signatures(path)
    # Served as the log served its users, the fitted site meets every rule.
    simulate_fitted(site, tmp_path / "served", seed=0, scheduler="hold")
    served = compare_run(log, tmp_path / "served" / "trace.swf", nodes=info.nodes, duration=duration)
    failed = {
        key: (round(log.values[key], 3), round(served[key], 3))
        for key in CHECKS
        if not passes(key, log.values[key], served[key])
    }
    assert not failed, f"{name}, the log's service: (log, simulated) outside the rules: {failed}"
    # As fitted: the users behind the fitted service on the fitted machine.
    simulate_fitted(site, tmp_path / "service", seed=0, scheduler=None, service=True)
    fitted = compare_run(log, tmp_path / "service" / "trace.swf", nodes=info.nodes, duration=duration)
    failed = {
        key: (round(log.values[key], 3), round(fitted[key], 3))
        for key in rules(has_waits=True)
        if key not in SHORT and not passes(key, log.values[key], fitted[key])
    }
    assert not failed, f"{name}, the fitted service: (log, simulated) outside the rules: {failed}"
    for key in SHORT:
        assert 0.75 * log.values[key] < fitted[key] <= 1.25 * log.values[key], (key, log.values[key], fitted[key])
    # Under EASY, with EASY's waits.
    simulate_fitted(site, tmp_path / "run", seed=0, scheduler="easy")
    sim = compare_run(log, tmp_path / "run" / "trace.swf", nodes=info.nodes, duration=duration)
    failed = {
        key: (round(log.values[key], 3), round(sim[key], 3))
        for key in CHECKS
        if key not in SHORT and not passes(key, log.values[key], sim[key])
    }
    assert not failed, f"{name}, EASY: (log, simulated) outside the rules: {failed}"
    for key in SHORT:
        assert 0.5 * log.values[key] < sim[key] <= 1.15 * log.values[key], (key, log.values[key], sim[key])
    # by the users' own account their sessions hold as many jobs as the log's
    own = json.loads((tmp_path / "run" / "summary.json").read_text())["productivity"]
    assert passes("jobs_per_session", log.values["jobs_per_session"], own["jobs_per_session"]), own
    # distributions the fit resamples per user stay close to the log's
    assert sim["ks_size"] < 0.1 and sim["ks_runtime"] < 0.1 and sim["ks_think"] < 0.1
