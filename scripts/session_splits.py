#!/usr/bin/env python3
"""Where the sessions come apart under the fitted service (docs/service.md, "Sessions
under the service"): the development logs' batches, given the waits of the log replayed
under its fitted service.

    python scripts/session_splits.py --traces "$SITESIM_TRACES" [--seeds 2] [--only KTH-SP2]

For each development log: ``sitesim fit`` into a temporary directory; the log replayed
under its fitted service (``sitesim -c LOG --site DIR/site.toml``, seeds 0..SEEDS-1);
the session analysis (:mod:`sitesim.analysis.sessions`) of the log and of each replay;
then each of the log's batches laid down again at the log's gaps with the replay's
waits (:func:`sitesim.analysis.batch_splits.batch_splits`): the gaps at which every
earlier job of the batch had ended, and of them those idle past 20 minutes, where the
analysis cuts the session; the same with each gap measured from the previous job's
start where it had started in the log (``anchor="start"``); and the log's own sessions
with the replay's waits, their members kept, only their ends moved. A control for both:
the log's own waits dealt again among each user's jobs of one size class (seeded),
the best a service could do that knew each user's waits by size but not what the user
does next. In the closed loop the
users wait for a batch's end before the next, so batches can only come apart: the
jobs per session the cuts leave is what the analysis of a closed loop loses against
the users' own sessions. Development logs only: the held-out pair is not measured.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

from sitesim.analysis.batch_splits import batch_splits, session_hours as hours_with, shuffled_waits
from sitesim.analysis.cleaning import TraceJob, clean_records
from sitesim.analysis.sessions import analyze_submission
from sitesim.experiments.validation import session_hours
from sitesim.runs.fit import fit_log
from sitesim.runs.replay import ReplayConfig, run_replay
from sitesim.runs.sitefile import load_site_file, replay_on_site
from sitesim.workload.swf import SwfReader

#: The development logs (the held-out pair is never measured here).
DEVELOPMENT = ("CTC-SP2", "KTH-SP2", "SDSC-SP2")


def kept_jobs(path: Path) -> list[TraceJob]:
    with SwfReader(path) as reader:
        jobs, _ = clean_records(reader)
    return jobs


def sessions(jobs: list[TraceJob], path: Path) -> dict[str, float]:
    """Jobs and batches per session, session length (h) and mean wait of one trace."""
    s = analyze_submission(jobs)
    return {
        "jobs_per_session": float(s.session_jobs.mean()),
        "batches_per_session": float(s.session_batches.mean()),
        "session_hours": session_hours(path),
        "mean_wait": float(np.mean([j.wait for j in jobs])),
    }


def measure(name: str, trace: Path, seeds: int, work: Path) -> list[str]:
    site = work / name / "site"
    fit_log(trace, site)
    on_site = replay_on_site(load_site_file(site / "site.toml"), {})
    log = kept_jobs(trace)
    mine = sessions(log, trace)
    control = shuffled_waits(log, np.random.default_rng(0))
    dealt = batch_splits(log, control)
    lines = [f"{name}: log: jobs/session {mine['jobs_per_session']:.2f}, batches/session "
             f"{mine['batches_per_session']:.2f}, session length {mine['session_hours']:.2f} h, "
             f"mean wait {mine['mean_wait']:,.0f} s",
             f"  control, the log's waits dealt among each user's jobs of a size class: {dealt.new_sessions:,} gaps past "
             f"20 min (+{dealt.new_sessions / dealt.sessions:.1%} sessions): jobs/session {dealt.jobs_per_session[1]:.2f}; "
             f"the log's sessions {hours_with(log, control):.2f} h"]
    for seed in range(seeds):
        out = work / name / f"service-{seed}"
        run_replay(ReplayConfig(str(trace), seed=seed, **on_site), out=out, progress=False)
        replayed = kept_jobs(out / "schedule.swf")
        r = sessions(replayed, out / "schedule.swf")
        waits = {j.job: j.wait for j in replayed}
        kept = batch_splits(log, waits)
        anchored = batch_splits(log, waits, anchor="start")
        lines.append(
            f"  seed {seed}: replay under the service: jobs/session {r['jobs_per_session']:.2f}, batches/session "
            f"{r['batches_per_session']:.2f}, session length {r['session_hours']:.2f} h, mean wait {r['mean_wait']:,.0f} s"
        )
        lines.append(
            f"    the log's batches with its waits: {kept.gaps:,} gaps ({kept.after_start / kept.gaps:.0%} after the "
            f"previous job started), {kept.new_batches:,} come apart, {kept.new_sessions:,} past 20 min "
            f"(+{kept.new_sessions / kept.sessions:.1%} sessions): jobs/session {kept.jobs_per_session[0]:.2f} -> "
            f"{kept.jobs_per_session[1]:.2f}; gaps from the previous start: {anchored.new_batches:,} and "
            f"{anchored.new_sessions:,} -> {anchored.jobs_per_session[1]:.2f}; the log's sessions with these "
            f"waits {hours_with(log, waits):.2f} h"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--traces", type=Path, required=True, help="directory of the shared logs")
    parser.add_argument("--seeds", type=int, default=2, help="seeds of the service's replays (default 2)")
    parser.add_argument("--only", nargs="*", choices=DEVELOPMENT, default=list(DEVELOPMENT), help="development logs")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.only:
            (trace,) = sorted(args.traces.glob(f"{name}-*.swf*"))
            print("\n".join(measure(name, trace, args.seeds, Path(tmp))), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
