#!/usr/bin/env python3
"""Utilisation and throughput vs number of sessions (paper Figure 18), from a sweep CSV.

    sitesim sweep --users 1,2,5,10,20,40,80 --scheduler fcfs,easy --replications 5 -o sweep.csv
    python scripts/plot_throughput.py sweep.csv -o throughput.png

Reads the site-mode rows of the CSV (any schedulers, submittal and workpool models in
it; one line per scheduler, or per ``--by`` column), averages replications (seeds) with
95% confidence intervals, and draws throughput (jobs per 24 h) and utilisation against
the number of users.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
from sitesim.experiments.plots import throughput_figure  # noqa: E402
from sitesim.sweep.store import read_rows  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("csv", type=Path, help="a sitesim sweep CSV")
    parser.add_argument("-o", "--out", type=Path, default=Path("throughput.png"))
    parser.add_argument("--by", default="scheduler", help="CSV column(s), comma-separated, whose values make the lines (default scheduler)")
    args = parser.parse_args()

    _, rows = read_rows(args.csv)
    rows = [r for r in rows if r["mode"] == "site"]
    if not rows:
        raise SystemExit(f"{args.csv}: no site-mode rows to plot")
    fig = throughput_figure(rows, by=args.by)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
