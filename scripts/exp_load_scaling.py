#!/usr/bin/env python3
"""Load scaling, site-level vs conventional (paper Figures 15-18).

    python scripts/exp_load_scaling.py [--replications 5] [--jobs 2]

1. Site-level: a sweep over the number of users (sessions) under FCFS and EASY, one
   simulated year, R replications -> docs/figures/sweep_sessions.csv. Figures 15
   (response, wait, bounded slowdown vs users) and 18 (throughput and utilisation vs
   users, the same plot scripts/plot_throughput.py draws).
2. Conventional: the site-level EASY trace of 10 users (seed 0) replayed under FCFS
   and EASY at scaled offered loads -> docs/figures/sweep_conventional.csv. Figures 16
   (the same metrics vs offered load) and 17 (accepted load vs offered load).

Both sweeps are resumable: re-running skips the rows already in the CSVs. The trace of
step 2 is written to out/experiments/ (not in git) on every run, one site-level run of a
few seconds, so that it always comes from the current site model: a trace left by an
older model would have another fingerprint (docs/sweeps.md) and its rows are redone.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from sitesim.experiments.plots import plot_metric, throughput_figure  # noqa: E402
from sitesim.runs.replay import ReplayConfig, run_replay  # noqa: E402
from sitesim.runs.site import SiteConfig, run_site  # noqa: E402
from sitesim.sweep import Grid, run_sweep  # noqa: E402
from sitesim.sweep.store import read_rows  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
FIGURES = REPO / "docs" / "figures"
USERS = (1, 2, 4, 6, 8, 10, 15, 20, 30, 40, 60, 80)
LOADS = tuple(round(0.2 + 0.05 * i, 2) for i in range(16))
METRICS = (
    ("mean_response", "mean response [s]"),
    ("mean_wait", "mean wait [s]"),
    ("mean_bounded_slowdown", "mean bounded slowdown"),
)


def metrics_figure(rows: list[dict[str, str]], x: str, xlabel: str, title: str) -> plt.Figure:
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    for ax, (metric, label) in zip(axes, METRICS, strict=True):
        plot_metric(ax, rows, x, metric)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(label)
        ax.set_yscale("log")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replications", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=None, help="worker processes")
    args = parser.parse_args()
    FIGURES.mkdir(parents=True, exist_ok=True)

    site_csv = FIGURES / "sweep_sessions.csv"
    grid = Grid(mode="site", users=USERS, scheduler=("fcfs", "easy"), replications=args.replications)
    run_sweep(grid, site_csv, jobs=args.jobs)
    _, site_rows = read_rows(site_csv)
    metrics_figure(
        site_rows, "users", "number of sessions (users)",
        "Site-level load scaling (mean, 95% CI over seeds)",
    ).savefig(FIGURES / "fig15_site_load_scaling.png", dpi=110)
    throughput_figure(site_rows).savefig(FIGURES / "fig18_throughput.png", dpi=110)

    trace = REPO / "out" / "experiments" / "easy-10users-seed0" / "trace.swf"
    run_site(SiteConfig(users=10, scheduler="easy", seed=0), out=trace.parent)
    base = run_replay(ReplayConfig(trace=str(trace), scheduler="easy")).summary["offered_load"]
    conv_csv = FIGURES / "sweep_conventional.csv"
    relative = str(trace.relative_to(REPO))
    grid = Grid(
        mode="replay", trace=(relative,), scheduler=("fcfs", "easy"),
        load_factor=tuple(round(load / base, 6) for load in LOADS),
    )
    run_sweep(grid, conv_csv, jobs=args.jobs)
    _, conv_rows = read_rows(conv_csv)
    metrics_figure(
        conv_rows, "offered_load", "offered load",
        f"Conventional load scaling of the EASY site-level trace (original load {base:.2f})",
    ).savefig(FIGURES / "fig16_conventional_load_scaling.png", dpi=110)

    fig, ax = plt.subplots(figsize=(6, 4.5))
    plot_metric(ax, conv_rows, "offered_load", "accepted_load", label="{group} accepted load")
    plot_metric(ax, conv_rows, "offered_load", "utilization", label="{group} utilisation", style="s--")
    ax.plot([0, 1], [0, 1], color="gray", lw=0.8, ls=":", label="accepted = offered")
    ax.set_xlabel("offered load")
    ax.set_ylabel("accepted load / utilisation")
    ax.set_title("Conventional simulation: utilisation follows the offered load")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(FIGURES / "fig17_conventional_utilisation.png", dpi=110)
    print(f"wrote figures 15-18 and the two sweep CSVs into {FIGURES.relative_to(REPO)}")


if __name__ == "__main__":
    main()
