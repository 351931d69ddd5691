#!/usr/bin/env python3
"""Model validation, the analogue of the paper's Figure 11.

    python scripts/plot_validation.py [--users 10] [--scheduler fcfs] [--seed 0]

Runs a one-year site-level simulation on the shipped tables, analyses its SWF trace
with the same code that measured the tables (sitesim.analysis), and draws, for batch
widths, inter-submission times within batches and think times between batches, the
input model ("data") next to what the simulation produced ("simulation"), with the
Kolmogorov-Smirnov distance of each pair. Writes docs/figures/fig11_validation.png.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from sitesim.analysis import analyze_trace  # noqa: E402
from sitesim.distributions import load_empirical  # noqa: E402
from sitesim.runs.site import DAY, SiteConfig, run_site  # noqa: E402

REPO = Path(__file__).resolve().parent.parent


def ecdf(sample: np.ndarray, x: np.ndarray) -> np.ndarray:
    s = np.sort(sample)
    return np.searchsorted(s, x, side="right") / s.size


def ks(sample: np.ndarray, cdf) -> float:  # type: ignore[no-untyped-def]
    x = np.sort(sample.astype(float))
    n = x.size
    f = np.asarray(cdf(x), dtype=float)
    return float(max(np.max(np.arange(1, n + 1) / n - f), np.max(f - np.arange(n) / n)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=10)
    parser.add_argument("--scheduler", default="fcfs")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "figures" / "fig11_validation.png")
    args = parser.parse_args()

    tables = load_empirical()
    config = SiteConfig(users=args.users, scheduler=args.scheduler, seed=args.seed, duration=365 * DAY)
    with tempfile.TemporaryDirectory() as tmp:
        run_site(config, out=Path(tmp))
        sim = analyze_trace(Path(tmp) / "trace.swf").submission

    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    widths = np.arange(1, 21)
    data_p = np.diff(np.concatenate(([0.0], tables.batch_width.cdf(widths))))
    sim_p = np.array([np.mean(sim.batch_widths == w) for w in widths])
    width_ks = float(np.max(np.abs(np.cumsum(data_p) - np.cumsum(sim_p))))
    axes[0].bar(widths - 0.2, data_p, width=0.4, label="data (combined tables)")
    axes[0].bar(widths + 0.2, sim_p, width=0.4, label=f"simulation (KS {width_ks:.3f})")
    axes[0].set_yscale("log")
    axes[0].set_xlabel("batch width [jobs]")
    axes[0].set_ylabel("fraction of batches")
    axes[0].set_title("(a) batch widths")

    for ax, sample, dist, title, xlabel in (
        (axes[1], sim.inter_submission, tables.inter_submission, "(b) inter-submission within batches", "time [s]"),
        (axes[2], sim.inter_batch_think, tables.think_time, "(c) think times between batches", "time [s]"),
    ):
        top = max(float(dist.quantile(1.0)), float(sample.max()), 2.0)
        x = np.concatenate(([0.0], np.geomspace(1, top, 400)))
        ax.plot(x, dist.cdf(x), label="data (combined tables)")
        ax.plot(x, ecdf(sample, x), "--", label=f"simulation (KS {ks(sample, dist.cdf):.3f})")
        ax.set_xscale("symlog", linthresh=1)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("CDF")
        ax.set_title(title)
    for ax in axes:
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
    fig.suptitle(
        f"Model validation: {args.users} users, {args.scheduler}, one simulated year, seed {args.seed}"
    )
    fig.tight_layout()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
