#!/usr/bin/env python3
"""Regenerate every figure and table of docs/reproducing.md and docs/fidelity.md, timing each step.

    python scripts/reproduce.py            # all steps; trace-based ones need $SITESIM_TRACES
    python scripts/reproduce.py --fresh    # also drop the sweep CSVs first (no resume)

Each step is one script run as its own process; the table printed at the end (and
written to docs/figures/reproduce_times.md) gives its wall time and its CPU time (user
plus system, of the step's processes): on a shared machine the wall time depends on
the other load, the CPU time much less.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIGURES = REPO / "docs" / "figures"

#: (script and arguments, needs the real traces?). Each step spreads its independent runs
#: over every CPU. scripts/exp_prediction.py is not a step: scripts/fidelity.py runs the
#: same experiment and writes its Figure 13. exp_schedulers.py comes after
#: exp_load_scaling.py, whose sweep it reuses.
STEPS: list[tuple[list[str], bool]] = [
    (["extract_empirical.py", "--out", "empirical"], True),
    (["plot_models.py"], False),
    (["plot_validation.py"], False),
    (["replay_table.py"], True),
    (["fidelity.py"], False),
    (["exp_violations.py"], False),
    (["exp_load_scaling.py"], False),
    (["exp_schedulers.py"], False),
    (["estimates_table.py", "--doc", "docs/backfilling-results.md"], True),
    (["trial_runs_table.py", "--out", "docs/trial-runs.md"], True),
]


def _children_cpu() -> float:
    """User plus system CPU seconds of every finished child process so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fresh", action="store_true", help="delete sweep CSVs before running")
    args = parser.parse_args()
    if args.fresh:
        for csv in FIGURES.glob("sweep_*.csv"):
            csv.unlink()
    have_traces = bool(os.environ.get("SITESIM_TRACES"))
    rows = []
    total = total_cpu = 0.0
    for command, needs_traces in STEPS:
        name = " ".join(command)
        if needs_traces and not have_traces:
            rows.append((name, "skipped (SITESIM_TRACES unset) | –"))
            continue
        started, cpu_before = time.perf_counter(), _children_cpu()
        done = subprocess.run([sys.executable, str(REPO / "scripts" / command[0]), *command[1:]], cwd=REPO)
        elapsed, cpu = time.perf_counter() - started, _children_cpu() - cpu_before
        total += elapsed
        total_cpu += cpu
        if done.returncode != 0:
            print(f"reproduce: {name} failed with status {done.returncode}", file=sys.stderr)
            return 1
        rows.append((name, f"{elapsed:.0f} s | {cpu:.0f} s"))
    lines = ["| step | wall time | CPU time |", "|---|---|---|", *(f"| `{n}` | {t} |" for n, t in rows)]
    lines.append(f"| total | {total:.0f} s ({total / 60:.1f} min) | {total_cpu:.0f} s ({total_cpu / 60:.1f} min) |")
    text = "\n".join(lines) + "\n"
    (FIGURES / "reproduce_times.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
