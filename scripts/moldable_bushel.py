#!/usr/bin/env python3
"""The bushel of AppLeS (Cirne & Berman 1999, Tables 5.8-5.11) on the real logs.

    python scripts/moldable_bushel.py --traces "$SITESIM_TRACES" -o docs/data/moldable-bushel.csv

For each log (SDSC-SP2, CTC-SP2, KTH-SP2), replacement share (5%..50%), seed and policy
(gas, static): the log cut into 30-day slices (the paper's one-month workloads, "the
same parameters as before"), each replayed on an empty machine under ``cons`` with
the users' requested times as estimates and that share of its jobs replaced by
moldable programs (``sitesim -c LOG -s cons --moldable F --moldable-policy P
--slice-days 30 --seed S``). One CSV row per
run: the replaced jobs' turn-around (mean, median, max), the load ratio, and the other
jobs' mean wait. The CSV is resumable: rows already present are not recomputed. CPU
seconds per run are recorded (the machine may be shared: wall time is not).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from sitesim.experiments.moldable import PAPER_LOGS, run_moldable
from sitesim.experiments.resumable import ResumableCsv
from sitesim.moldable.model import SIGMA_MEAN, SIGMA_SD
from sitesim.moldable.replace import MoldableSpec
from sitesim.runs.replay import ReplayConfig

FIELDS = [
    "trace", "fraction", "seed", "policy", "sigma_mean", "sigma_sd", "feedback", "jobs", "mean_turnaround", "median_turnaround",
    "max_turnaround", "load_ratio", "late_starts", "rigid_mean_wait", "utilization", "cpu_seconds",
]


def run(
    trace: Path, name: str, fraction: float, seed: int, policy: str, days: float, sigma: tuple[float, float],
    feedback: str | None = None,
) -> dict[str, object]:
    cpu = time.process_time()
    spec = MoldableSpec(policy=policy, fraction=fraction, sigma=sigma)
    config = ReplayConfig(trace=str(trace), scheduler="cons", seed=seed, moldable=spec, feedback=feedback)
    results, document = run_moldable(config, days)
    m = document["moldable"]
    # The others' mean wait: all completed jobs' total wait minus the replaced ones'.
    total_wait = completed = 0.0
    for result in results:
        assert result.replacement is not None
        done = [r.job for r in result.replacement.records if r.job.end >= 0]
        n = result.summary["completed"]
        total_wait += result.summary["mean_wait"] * n - sum(j.wait for j in done)
        completed += n - len(done)
    busy = sum(r.summary["utilization"] * r.metrics.window for r in results)
    window = sum(r.metrics.window for r in results)
    return {
        "trace": name, "fraction": f"{fraction:g}", "seed": seed, "policy": policy,
        "sigma_mean": f"{sigma[0]:g}", "sigma_sd": f"{sigma[1]:g}", "feedback": feedback or "none",
        "jobs": m["jobs"], "mean_turnaround": f"{m['mean_turnaround']:.2f}",
        "median_turnaround": f"{m['median_turnaround']:.1f}", "max_turnaround": m["max_turnaround"],
        "load_ratio": f"{m['load_ratio']:.4f}", "late_starts": m["late_starts"],
        "rigid_mean_wait": f"{total_wait / completed:.2f}" if completed else "nan",
        "utilization": f"{busy / window:.4f}" if window else "nan",
        "cpu_seconds": f"{time.process_time() - cpu:.1f}",
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--traces", type=Path, default=os.environ.get("SITESIM_TRACES"))
    parser.add_argument("--logs", default=",".join(PAPER_LOGS))
    parser.add_argument("--fractions", default="0.05,0.1,0.15,0.2,0.25,0.3,0.35,0.4,0.45,0.5")
    parser.add_argument("--seeds", default="0")
    parser.add_argument("--policies", default="gas,static")
    parser.add_argument("--slice-days", type=float, default=30.0)
    parser.add_argument(
        "--sigma", default=f"{SIGMA_MEAN:g},{SIGMA_SD:g}",
        help="mean,sd of Downey's sigma (default: the model's; sd 0 fixes it), a sensitivity check",
    )
    parser.add_argument(
        "--feedback", default=None,
        help="replay with feedback (session starts absolute|relative): users wait for their jobs",
    )
    parser.add_argument("-o", "--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.traces is None:
        parser.error("give --traces or set SITESIM_TRACES")
    mean, sd = (float(x) for x in args.sigma.split(","))
    key = ["trace", "fraction", "seed", "policy", "sigma_mean", "sigma_sd", "feedback"]
    table = ResumableCsv(args.out, FIELDS, key=key)
    for name in args.logs.split(","):
        for fraction in (float(x) for x in args.fractions.split(",")):
            for seed in (int(x) for x in args.seeds.split(",")):
                for policy in args.policies.split(","):
                    if table.done(name, f"{fraction:g}", seed, policy, f"{mean:g}", f"{sd:g}", args.feedback or "none"):
                        continue
                    trace = args.traces / PAPER_LOGS[name]
                    row = run(trace, name, fraction, seed, policy, args.slice_days, (mean, sd), args.feedback)
                    table.append([row])
                    print(",".join(str(row[k]) for k in FIELDS), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
