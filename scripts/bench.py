#!/usr/bin/env python3
"""Simulation throughput, end to end: parse + simulate + write, in jobs per second.

    python scripts/bench.py --traces "$SITESIM_TRACES"

Rows:

- SDSC-SP2 full-trace replay under FCFS and EASY (``--estimates trace``), through
  :func:`sitesim.runs.replay.run_replay` with an output directory, so the SWF parse,
  the simulation, the metrics and writing ``schedule.swf``/``summary.json`` are all
  timed. Skipped when no traces directory is given.
- A synthetic workload at 1x, 2x and 4x the base size (default 20,000 jobs) on 128
  nodes: sizes powers of two (1..128, uniform over the exponent), lognormal runtimes
  (median 10 min, sigma 1.5), Poisson arrivals at offered load 0.7, requested time =
  runtime x U(1, 3). It is written once per size to a temporary SWF, and the replay of
  that file is timed the same way. Equal jobs/s across 1x/2x/4x shows linear cost.
- Site-level runs: one simulated year of 10, 50 and 200 users (batch submittal, plain
  workpool, exact estimates, seed 0) through :func:`sitesim.runs.site.run_site` with
  an output directory (the trace, stats and summary are written). Jobs/s counts the
  jobs the users submitted; more users submit more jobs until the site saturates.

jobs/s counts the job records read from the trace (every one is parsed and, unless
skipped, simulated and written). The best of ``--repeat`` runs is reported, because
the minimum is the least disturbed by whatever else the machine is doing.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from sitesim.runs.replay import ReplayConfig, run_replay
from sitesim.runs.site import YEAR, SiteConfig, run_site
from sitesim.workload.swf import STATUS_COMPLETED, SwfRecord, write_swf

SDSC = "SDSC-SP2-1998-4.2-cln.swf.gz"
NODES = 128
MEDIAN_RUNTIME = 600.0
SIGMA = 1.5
LOAD = 0.7


def synthetic_records(n: int, seed: int, nodes: int = NODES, load: float = LOAD) -> list[SwfRecord]:
    """``n`` jobs of the benchmark's synthetic workload (see the module docstring).

    The arrival rate is set from the drawn jobs' own work, so the offered load of the
    sample is ``load`` up to the randomness of the Poisson arrivals.
    """
    rng = np.random.default_rng(seed)
    max_exp = int(np.log2(nodes))
    sizes = 2 ** rng.integers(0, max_exp + 1, size=n)
    runtimes = np.maximum(1, np.rint(rng.lognormal(np.log(MEDIAN_RUNTIME), SIGMA, size=n))).astype(np.int64)
    requested = np.ceil(runtimes * rng.uniform(1.0, 3.0, size=n)).astype(np.int64)
    mean_gap = float(np.sum(sizes * runtimes)) / (load * nodes * n)
    submits = np.floor(np.cumsum(rng.exponential(mean_gap, size=n))).astype(np.int64)
    submits -= submits[0]
    return [
        SwfRecord(
            job_number=i + 1,
            submit_time=int(submits[i]),
            run_time=int(runtimes[i]),
            allocated_processors=int(sizes[i]),
            requested_processors=int(sizes[i]),
            requested_time=int(requested[i]),
            status=STATUS_COMPLETED,
            user_id=1,
        )
        for i in range(n)
    ]


def time_replay(trace: Path, scheduler: str, repeat: int, workdir: Path) -> tuple[int, float, float]:
    """(records read, best wall seconds, best CPU seconds) of a replay with outputs.

    CPU time is reported too because on a shared machine it is far less disturbed by
    other processes than wall time (the replay is single-threaded, so they agree on an
    idle machine).
    """
    best = best_cpu = float("inf")
    read = 0
    for k in range(repeat):
        out = workdir / f"out-{scheduler}-{k}"
        config = ReplayConfig(trace=str(trace), scheduler=scheduler, estimates="trace")
        started, cpu = time.perf_counter(), time.process_time()
        result = run_replay(config, out=out)
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        best, best_cpu = min(best, elapsed), min(best_cpu, cpu)
        read = result.counts["read"]
    return read, best, best_cpu


def time_site(users: int, scheduler: str, repeat: int, workdir: Path) -> tuple[int, float, float]:
    """(jobs submitted, best wall s, best CPU s) of a one-year site-level run with outputs."""
    best = best_cpu = float("inf")
    submitted = 0
    for k in range(repeat):
        out = workdir / f"site-{users}-{scheduler}-{k}"
        config = SiteConfig(users=users, scheduler=scheduler, duration=YEAR, seed=0)
        started, cpu = time.perf_counter(), time.process_time()
        result = run_site(config, out=out)
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        best, best_cpu = min(best, elapsed), min(best_cpu, cpu)
        submitted = result.summary["submitted"]
    return submitted, best, best_cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--traces", type=Path, default=os.environ.get("SITESIM_TRACES"),
        help="directory holding the archive's SWF logs (default $SITESIM_TRACES)",
    )
    parser.add_argument("--jobs", type=int, default=20_000, help="synthetic base size (default 20000)")
    parser.add_argument(
        "--scales", default="1,2,4", help="synthetic sizes as multiples of --jobs (default 1,2,4)"
    )
    parser.add_argument("--schedulers", default="fcfs,easy", help="default fcfs,easy")
    parser.add_argument("--repeat", type=int, default=3, help="runs per row, best kept (default 3)")
    parser.add_argument("--seed", type=int, default=1, help="synthetic workload seed (default 1)")
    parser.add_argument(
        "--users", default="10,50,200",
        help="site-level rows: one simulated year with these user counts ('' for none)",
    )
    args = parser.parse_args(argv)
    schedulers = args.schedulers.split(",")
    scales = [int(s) for s in args.scales.split(",")]

    rows: list[tuple[str, str, int, float, float]] = []
    with tempfile.TemporaryDirectory(prefix="sitesim-bench-") as tmp:
        workdir = Path(tmp)
        if args.traces is not None and (Path(args.traces) / SDSC).exists():
            for scheduler in schedulers:
                read, wall, cpu = time_replay(Path(args.traces) / SDSC, scheduler, args.repeat, workdir)
                rows.append(("SDSC-SP2", scheduler, read, wall, cpu))
        else:
            print(f"# SDSC-SP2 rows skipped: {SDSC} not found (set SITESIM_TRACES)", file=sys.stderr)
        for scale in scales:
            n = args.jobs * scale
            trace = workdir / f"synthetic-{n}.swf"
            write_swf(
                trace,
                synthetic_records(n, args.seed),
                header=[f"; MaxNodes: {NODES}", f"; MaxProcs: {NODES}"],
            )
            for scheduler in schedulers:
                read, wall, cpu = time_replay(trace, scheduler, args.repeat, workdir)
                rows.append((f"synthetic {scale}x", scheduler, read, wall, cpu))
        for users in (int(u) for u in args.users.split(",") if u):
            for scheduler in schedulers:
                jobs, wall, cpu = time_site(users, scheduler, args.repeat, workdir)
                rows.append((f"site-level {users} users, 1 year", scheduler, jobs, wall, cpu))

    print("| workload | scheduler | jobs | wall s | jobs/s (wall) | CPU s | jobs/s (CPU) |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for workload, scheduler, jobs, wall, cpu in rows:
        print(
            f"| {workload} | {scheduler} | {jobs} | {wall:.2f} | {jobs / wall:,.0f}"
            f" | {cpu:.2f} | {jobs / cpu:,.0f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
