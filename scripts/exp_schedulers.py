#!/usr/bin/env python3
"""Throughput vs sessions for every scheduler and estimate model (issue: beyond FCFS/EASY).

    python scripts/exp_schedulers.py [--replications 3] [--jobs 2]

Two resumable sweeps of one-year site-level runs, then the Figure 18 plot of each:

- schedulers: fcfs, easy, cons, timed:fcfs, timed:easy and the partitioned machine of
  models/partitions.toml (run from the repository root), with exact estimates
  -> docs/figures/sweep_schedulers.csv, fig18_throughput_schedulers.png;
- estimates: easy and cons with exact, f:2, mf and empirical estimates
  -> docs/figures/sweep_estimates.csv, fig18_throughput_estimates.png.

Runs another sweep already made are copied, not run again (``run_sweep(reuse=...)``):
fcfs and easy from scripts/exp_load_scaling.py's sweep_sessions.csv (same users, its
first three seeds), and exact-estimate easy and cons from the schedulers sweep.

One trim, where the curves have levelled off: every line stops at
:data:`SATURATED_USERS` (40) users, except fcfs and easy with exact estimates, whose
60-user rows are copied from sweep_sessions.csv and cost nothing. Between 30 and 40
users the throughput of every other line still rises by 0.8-5%; from 40 to 60 users none
rises by more than 1% (means of the 3 seeds in the committed CSVs, jobs/day: cons
211.8 -> 209.0, timed:easy 215.5 -> 209.4, timed:fcfs 174.2 -> 168.1, partitioned
168.7 -> 163.2; easy with f:2 214.5 -> 211.6, mf 209.1 -> 208.6, empirical
204.4 -> 205.7; cons with inexact estimates was already trimmed, its 40-user runs
being the slowest of the reproduction). docs/reproducing.md gives the numbers.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

from sitesim.experiments.plots import throughput_figure  # noqa: E402
from sitesim.sweep import Grid, Point, run_sweep  # noqa: E402
from sitesim.sweep.store import read_rows  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
FIGURES = REPO / "docs" / "figures"
USERS = (1, 2, 4, 8, 10, 15, 20, 30, 40, 60)
#: A two-partition machine (models/partitions.toml), as a policy name; a path relative
#: to the repository keeps the sweep CSV the same wherever the repository is.
PARTITIONS = "partitioned:models/partitions.toml"
#: Most users of every line but the copied ones (see the module doc).
SATURATED_USERS = 40
#: Lines run to the last user count: copied from sweep_sessions.csv, not run here.
COPIED = {("fcfs", "exact"), ("easy", "exact")}


def kept(point: Point) -> bool:
    """Whether a sweep runs ``point``: all but the trimmed points past saturation."""
    past = point.users is not None and point.users > SATURATED_USERS
    return not past or (point.scheduler, point.estimates) in COPIED


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replications", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=None, help="worker processes (default: every CPU)")
    args = parser.parse_args()
    os.chdir(REPO)  # PARTITIONS is relative to the repository
    FIGURES.mkdir(parents=True, exist_ok=True)
    schedulers = Grid(users=USERS, scheduler=("fcfs", "easy", "cons", "timed:fcfs", "timed:easy", PARTITIONS),
                      replications=args.replications)
    estimates = Grid(users=USERS, scheduler=("easy", "cons"), estimates=("exact", "f:2", "mf", "empirical"),
                     replications=args.replications)
    sweeps = (
        ("schedulers", "scheduler", [p for p in schedulers.points() if kept(p)], [FIGURES / "sweep_sessions.csv"]),
        ("estimates", "scheduler,estimates", [p for p in estimates.points() if kept(p)],
         [FIGURES / "sweep_schedulers.csv"]),
    )
    for name, by, points, reuse in sweeps:
        csv = FIGURES / f"sweep_{name}.csv"
        report = run_sweep(points, csv, jobs=args.jobs, reuse=reuse)
        print(f"{name}: {report.total} runs, {report.existing} already in the CSV, "
              f"{report.reused} copied from {', '.join(r.name for r in reuse)}, {report.ran} run")
        _, rows = read_rows(csv)
        fig = throughput_figure(rows, by=by, title=f"Throughput and utilisation vs sessions: {name}")
        fig.savefig(FIGURES / f"fig18_throughput_{name}.png", dpi=110)
        print(f"wrote {csv.relative_to(REPO)} and fig18_throughput_{name}.png")


if __name__ == "__main__":
    main()
