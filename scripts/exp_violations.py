#!/usr/bin/env python3
"""Submission-dependency and execution-ordering violations vs offered load (Figure 14).

    python scripts/exp_violations.py [--users 10] [--seed 0] [--jobs N]

Site-level FCFS and EASY runs (one simulated year) give two traces with dependency
information; each is replayed under FCFS and EASY at offered loads 0.2-0.95 by load
scaling, in parallel (``--jobs``, default every CPU). Writes
docs/figures/fig14_violations.png and .csv.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import attrs
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from sitesim.experiments.violations import violations_vs_load  # noqa: E402

REPO = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "figures" / "fig14_violations")
    parser.add_argument("--jobs", type=int, default=None, help="worker processes (default: every CPU)")
    args = parser.parse_args()

    points = violations_vs_load(users=args.users, seed=args.seed, jobs=args.jobs)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out.with_suffix(".csv"), "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=[f.name for f in attrs.fields(type(points[0]))])
        writer.writeheader()
        for p in points:
            writer.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in attrs.asdict(p).items()})

    fig, axes = plt.subplots(2, 2, figsize=(10, 7), sharey=True)
    for row, source in enumerate(("fcfs", "easy")):
        for col, scheduler in enumerate(("fcfs", "easy")):
            ax = axes[row][col]
            sel = sorted(
                (p for p in points if p.trace_scheduler == source and p.scheduler == scheduler),
                key=lambda p: p.offered_load,
            )
            loads = [p.offered_load for p in sel]
            ax.plot(loads, [100 * p.submission_fraction for p in sel], "o-", ms=3, label="submission dependency")
            ax.plot(loads, [100 * p.execution_fraction for p in sel], "s--", ms=3, label="execution ordering")
            ax.axvline(sel[0].original_load, color="gray", ls=":", label="original load")
            ax.set_title(f"({'abcd'[2 * row + col]}) {source.upper()} trace, {scheduler.upper()} scheduler")
            ax.set_xlabel("offered load")
            ax.set_ylabel("jobs with violations [%]")
            ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.out.with_suffix(".png"), dpi=110)
    for source in ("fcfs", "easy"):
        base = next(p.original_load for p in points if p.trace_scheduler == source)
        print(f"{source} trace: original offered load {base:.3f}")
    print(f"wrote {args.out.with_suffix('.png')} and .csv")


if __name__ == "__main__":
    main()
