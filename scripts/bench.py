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

- Start-up: ``sitesim -c SMALL.swf`` on a 100-job trace, as a whole process (``python
  -m sitesim``), so interpreter start and imports are what it measures; beside it, run
  alternately, ``python -c pass`` (the interpreter alone: the floor of any start-up).

Conservative backfilling (``cons``) is timed on the synthetic workload at the
``--cons-scales`` sizes only (default 1x): it costs several times EASY.

``--compare`` adds rows that set sitesim against the project's minimal reference EASY
loop (``scripts/reference_easy.py``: heapq, no SimPy, no output, the same schedule),
both as whole processes on the same synthetic traces, run alternately so both see the
same machine, and prints their ratio. A ratio from one run is far more robust than
times compared across runs on a shared machine. Beside them runs the same loop on
SimPy's event queue (``reference_easy.py --simpy``): the floor of any SimPy-based
replay, which splits the ratio into what SimPy costs and what the rest of sitesim does.

jobs/s counts the job records read from the trace (every one is parsed and, unless
skipped, simulated and written). Each row reports the median of ``--repeat`` runs,
wall and CPU (user + system) seconds; the load averages before and after are printed,
because on a shared machine wall time depends on them.

``--peers`` prints only a table of sitesim beside the peer simulators installed here
(AccaSim, and pyss from a checkout given with ``--pyss PATH``), whole processes on the
same SWF files (``--peer-traces``; default KTH-SP2 from ``--traces``, else the
synthetic 1x trace): scripts/bench_peers.py.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench_peers import run_peers  # scripts/ is on the path of a script run from it

from sitesim.runs.replay import ReplayConfig, run_replay
from sitesim.runs.site import YEAR, SiteConfig, run_site
from sitesim.workload.swf import STATUS_COMPLETED, SwfRecord, write_swf

SDSC = "SDSC-SP2-1998-4.2-cln.swf.gz"
KTH = "KTH-SP2-1996-2.1-cln.swf.gz"
SCRIPTS = Path(__file__).resolve().parent
REFERENCE = SCRIPTS / "reference_easy.py"
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


def _cpu() -> float:
    """CPU seconds (user + system) of this process and its finished children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _median(values: list[float]) -> float:
    return statistics.median(values)


def time_replay(trace: Path, scheduler: str, repeat: int, workdir: Path) -> tuple[int, float, float]:
    """(records read, median wall seconds, median CPU seconds) of a replay with outputs.

    CPU time is reported too because on a shared machine it is far less disturbed by
    other processes than wall time (the replay is single-threaded, so they agree on an
    idle machine).
    """
    walls, cpus = [], []
    read = 0
    for k in range(repeat):
        out = workdir / f"out-{scheduler}-{k}"
        config = ReplayConfig(trace=str(trace), scheduler=scheduler, estimates="trace")
        started, cpu = time.perf_counter(), _cpu()
        result = run_replay(config, out=out)
        walls.append(time.perf_counter() - started)
        cpus.append(_cpu() - cpu)
        read = result.counts["read"]
    return read, _median(walls), _median(cpus)


def time_site(users: int, scheduler: str, repeat: int, workdir: Path) -> tuple[int, float, float]:
    """(jobs submitted, median wall s, median CPU s) of a one-year site-level run with outputs."""
    walls, cpus = [], []
    submitted = 0
    for k in range(repeat):
        out = workdir / f"site-{users}-{scheduler}-{k}"
        config = SiteConfig(users=users, scheduler=scheduler, duration=YEAR, seed=0)
        started, cpu = time.perf_counter(), _cpu()
        result = run_site(config, out=out)
        walls.append(time.perf_counter() - started)
        cpus.append(_cpu() - cpu)
        submitted = result.summary["submitted"]
    return submitted, _median(walls), _median(cpus)


def time_process(argv: list[str], tree: Path | None = None) -> tuple[float, float]:
    """(wall s, CPU s) of one whole process, interpreter start included; with ``tree``,
    run in that checkout of sitesim with its code first on the path (scripts/fit_speed.py)."""
    where = {} if tree is None else {"cwd": tree, "env": {**os.environ, "PYTHONPATH": str(tree)}}
    started, cpu = time.perf_counter(), _cpu()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, **where)  # type: ignore[call-overload]
    return time.perf_counter() - started, _cpu() - cpu


def time_processes(commands: list[list[str]], repeat: int) -> list[tuple[float, float]]:
    """Median (wall, CPU) of each command, the commands run alternately ``repeat`` times."""
    walls: list[list[float]] = [[] for _ in commands]
    cpus: list[list[float]] = [[] for _ in commands]
    for _ in range(repeat):
        for i, argv in enumerate(commands):
            wall, cpu = time_process(argv)
            walls[i].append(wall)
            cpus[i].append(cpu)
    return [(_median(w), _median(c)) for w, c in zip(walls, cpus)]


def sitesim_command(trace: Path, scheduler: str, out: Path | None = None) -> list[str]:
    argv = [sys.executable, "-m", "sitesim", "-c", str(trace), "-s", scheduler]
    return argv + (["--out", str(out)] if out is not None else [])


def implementations() -> str:
    """Which implementation the timed runs use: the compiled twin where built (docs/performance.md)."""
    from sitesim.schedulers.reservations import RESERVATIONS, Reservations

    cons = "python" if RESERVATIONS is Reservations else "compiled"
    return f"conservative reservations {cons}"


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


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
    parser.add_argument(
        "--cons-scales", default="1",
        help="synthetic sizes (multiples of --jobs) also run under cons ('' for none; default 1)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per row, median kept (default 3)")
    parser.add_argument(
        "--compare", default="", metavar="SCALES",
        help="also time the reference EASY loop against sitesim -s easy, whole processes,"
        " on these synthetic sizes (e.g. 1,4)",
    )
    parser.add_argument("--no-startup", action="store_true", help="skip the start-up row")
    parser.add_argument("--seed", type=int, default=1, help="synthetic workload seed (default 1)")
    parser.add_argument(
        "--users", default="10,50,200",
        help="site-level rows: one simulated year with these user counts ('' for none)",
    )
    parser.add_argument(
        "--peers", action="store_true",
        help="only time sitesim against the peer simulators found here (scripts/bench_peers.py)",
    )
    parser.add_argument(
        "--peer-traces", default="", metavar="FILES",
        help="SWF files for --peers, comma-separated (default KTH-SP2 from --traces, else synthetic 1x)",
    )
    parser.add_argument("--accasim-python", metavar="PYTHON", help="an interpreter that can import accasim")
    parser.add_argument("--pyss", metavar="PATH", help="a pyss checkout (holding run_simulator.py)")
    parser.add_argument("--pyss-python", metavar="PYTHON", help="the interpreter for pyss (default python2, pypy)")
    args = parser.parse_args(argv)
    if args.peers:
        return peers(args)
    schedulers = args.schedulers.split(",")
    scales = [int(s) for s in args.scales.split(",") if s]
    cons_scales = [int(s) for s in args.cons_scales.split(",") if s]
    compare = [int(s) for s in args.compare.split(",") if s]
    print(f"# load averages before: {load()}")
    print(f"# compiled twin: {implementations()}")

    rows: list[tuple[str, str, int, float, float]] = []
    ratios: list[tuple[str, int, float, float, float, float, float, float]] = []
    with tempfile.TemporaryDirectory(prefix="sitesim-bench-") as tmp:
        workdir = Path(tmp)
        if args.traces is not None and (Path(args.traces) / SDSC).exists():
            for scheduler in schedulers:
                read, wall, cpu = time_replay(Path(args.traces) / SDSC, scheduler, args.repeat, workdir)
                rows.append(("SDSC-SP2", scheduler, read, wall, cpu))
        else:
            print(f"# SDSC-SP2 rows skipped: {SDSC} not found (set SITESIM_TRACES)", file=sys.stderr)
        traces: dict[int, Path] = {}
        for scale in sorted({*scales, *cons_scales, *compare}):
            n = args.jobs * scale
            traces[scale] = workdir / f"synthetic-{n}.swf"
            write_swf(
                traces[scale],
                synthetic_records(n, args.seed),
                header=[f"; MaxNodes: {NODES}", f"; MaxProcs: {NODES}"],
            )
        for scale in scales:
            for scheduler in schedulers:
                read, wall, cpu = time_replay(traces[scale], scheduler, args.repeat, workdir)
                rows.append((f"synthetic {scale}x", scheduler, read, wall, cpu))
        for scale in cons_scales:
            read, wall, cpu = time_replay(traces[scale], "cons", args.repeat, workdir)
            rows.append((f"synthetic {scale}x", "cons", read, wall, cpu))
        for users in (int(u) for u in args.users.split(",") if u):
            for scheduler in schedulers:
                jobs, wall, cpu = time_site(users, scheduler, args.repeat, workdir)
                rows.append((f"site-level {users} users, 1 year", scheduler, jobs, wall, cpu))
        if not args.no_startup:
            small = workdir / "small.swf"
            write_swf(small, synthetic_records(100, args.seed), header=[f"; MaxProcs: {NODES}"])
            # The bare interpreter alternately with it: what start-up cannot go below.
            (wall, cpu), (bare_wall, bare_cpu) = time_processes(
                [sitesim_command(small, "fcfs"), [sys.executable, "-c", "pass"]], args.repeat
            )
            rows.append(("start-up: sitesim -c (100 jobs), whole process", "fcfs", 100, wall, cpu))
            rows.append(("interpreter alone: python -c pass, whole process", "-", 0, bare_wall, bare_cpu))
        for scale in compare:
            trace = traces[scale]
            (ref_wall, ref_cpu), (_, simpy_cpu), (wall, cpu), (_, quiet_cpu) = time_processes(
                [[sys.executable, str(REFERENCE), str(trace)],
                 [sys.executable, str(REFERENCE), "--simpy", str(trace)],
                 sitesim_command(trace, "easy", workdir / f"compare-{scale}"),
                 sitesim_command(trace, "easy")],
                args.repeat,
            )
            ratios.append(
                (f"synthetic {scale}x", args.jobs * scale, ref_wall, ref_cpu, simpy_cpu, wall, cpu, quiet_cpu)
            )

    print("| workload | scheduler | jobs | wall s | jobs/s (wall) | CPU s | jobs/s (CPU) |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for workload, scheduler, jobs, wall, cpu in rows:
        per_wall, per_cpu = (f"{jobs / wall:,.0f}", f"{jobs / cpu:,.0f}") if jobs else ("-", "-")
        print(f"| {workload} | {scheduler} | {jobs} | {wall:.2f} | {per_wall} | {cpu:.2f} | {per_cpu} |")
    if ratios:
        print()
        # The ratios are the target's (output written); the SimPy floor and sitesim with no
        # output directory are for information: what SimPy and writing the schedule cost.
        print("| workload (EASY, whole process) | jobs | reference wall s | reference CPU s"
              " | sitesim wall s | sitesim CPU s | ratio (wall) | ratio (CPU)"
              " | reference on SimPy CPU s (ratio) | sitesim CPU s, no output |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for workload, jobs, ref_wall, ref_cpu, simpy_cpu, wall, cpu, quiet_cpu in ratios:
            print(
                f"| {workload} | {jobs} | {ref_wall:.2f} | {ref_cpu:.2f} | {wall:.2f} | {cpu:.2f}"
                f" | {wall / ref_wall:.2f} | {cpu / ref_cpu:.2f} | {simpy_cpu:.2f} ({simpy_cpu / ref_cpu:.2f})"
                f" | {quiet_cpu:.2f} |"
            )
    print(f"# load averages after: {load()}; median of {args.repeat} runs per row")
    return 0


def peers(args: argparse.Namespace) -> int:
    """The ``--peers`` table on the chosen SWF files."""
    with tempfile.TemporaryDirectory(prefix="sitesim-bench-") as tmp:
        traces = [Path(t) for t in args.peer_traces.split(",") if t]
        if not traces and args.traces is not None and (Path(args.traces) / KTH).exists():
            traces = [Path(args.traces) / KTH]
        if not traces:
            traces = [Path(tmp) / f"synthetic-{args.jobs}.swf"]
            write_swf(traces[0], synthetic_records(args.jobs, args.seed),
                      header=[f"; MaxNodes: {NODES}", f"; MaxProcs: {NODES}"])
        print(f"# load averages before: {load()}")
        return run_peers(traces, args.repeat, accasim_python=args.accasim_python, pyss=args.pyss,
                         pyss_python=args.pyss_python)


if __name__ == "__main__":
    sys.exit(main())
