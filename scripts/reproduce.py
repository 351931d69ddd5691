#!/usr/bin/env python3
"""Regenerate every figure and table of docs/reproducing.md and docs/fidelity.md, timing each step.

    python scripts/reproduce.py            # all steps; trace-based ones need $SITESIM_TRACES
    python scripts/reproduce.py --fresh    # also drop the sweep CSVs first (no resume)

Each step is one script run as its own process; the table printed at the end (and
written to docs/figures/reproduce_times.md) gives its wall time and its CPU time (user
plus system, of the step's processes): on a shared machine the wall time depends on
the other load, the CPU time much less. Steps run two at a time (the four
single-process ones four at a time), so that the pauses of one step (start-up, reading
a log, drawing figures, its last long run) are filled by the other's runs and no core
idles; a step's wall time is then shared with the steps it ran beside.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIGURES = REPO / "docs" / "figures"

Step = tuple[list[str], bool]  # script and arguments, needs the real traces?

#: Stages, in order; the steps of a stage run at the same time. Most steps spread
#: their independent runs over every CPU; two of them together keep both cores busy
#: through each other's serial phases. scripts/exp_prediction.py is not a step:
#: scripts/fidelity.py runs the same experiment and writes its Figure 13.
#: exp_schedulers.py comes after exp_load_scaling.py, whose sweep it reuses; every step
#: after extract_empirical.py reads the tables it writes.
STAGES: list[list[Step]] = [
    [(["extract_empirical.py", "--out", "empirical"], True)],
    [(["plot_models.py"], False), (["plot_validation.py"], False), (["replay_table.py"], True),
     (["trial_runs_table.py", "--out", "docs/trial-runs.md"], True)],
    [(["fidelity.py"], False), (["exp_violations.py"], False)],
    [(["exp_load_scaling.py"], False), (["estimates_table.py", "--doc", "docs/backfilling-results.md"], True)],
    [(["exp_schedulers.py"], False),
     (["variants_table.py", "--doc", "docs/backfilling-results.md"], True)],
    [(["variants_site.py", "--doc", "docs/site-level.md", "--figure", "docs/figures/variants_site.png"], False),
     (["variants_table.py", "--lines-doc", "docs/schedulers.md"], False)],
    [(["study_example.py", "--doc", "docs/study.md"], True)],
]


def run_stage(steps: list[Step]) -> list[tuple[str, float, float, int]]:
    """Start the stage's steps together; (name, wall s, CPU s, exit status) of each.

    Each child is reaped with ``wait4``, whose resource usage is that child's own CPU
    time plus that of the worker processes it waited for."""
    started = time.perf_counter()
    children = {}
    for command, _traces in steps:
        child = subprocess.Popen([sys.executable, str(REPO / "scripts" / command[0]), *command[1:]], cwd=REPO)
        children[child.pid] = " ".join(command)
    done = {}
    while children:
        pid, status, usage = os.wait4(-1, 0)
        if pid in children:
            name = children.pop(pid)
            done[name] = (name, time.perf_counter() - started, usage.ru_utime + usage.ru_stime,
                          os.waitstatus_to_exitcode(status))
    return [done[" ".join(command)] for command, _traces in steps]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fresh", action="store_true", help="delete sweep CSVs before running")
    args = parser.parse_args()
    if args.fresh:
        for csv in FIGURES.glob("sweep_*.csv"):
            csv.unlink()
    have_traces = bool(os.environ.get("SITESIM_TRACES"))
    rows = []
    total_cpu = 0.0
    started = time.perf_counter()
    for stage in STAGES:
        rows += [(" ".join(c), "skipped (SITESIM_TRACES unset) | –") for c, t in stage if t and not have_traces]
        results = run_stage([step for step in stage if have_traces or not step[1]])
        for name, wall, cpu, status in results:
            if status != 0:
                print(f"reproduce: {name} failed with status {status}", file=sys.stderr)
                return 1
            total_cpu += cpu
            beside = ", ".join(f"`{n}`" for n, *_ in results if n != name)
            rows.append((name, f"{wall:.0f} s{f' (beside {beside})' if beside else ''} | {cpu:.0f} s"))
    total = time.perf_counter() - started
    lines = ["| step | wall time | CPU time |", "|---|---|---|", *(f"| `{n}` | {t} |" for n, t in rows)]
    lines.append(f"| total | {total:.0f} s ({total / 60:.1f} min) | {total_cpu:.0f} s ({total_cpu / 60:.1f} min) |")
    text = "\n".join(lines) + "\n"
    (FIGURES / "reproduce_times.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
