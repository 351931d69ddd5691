#!/usr/bin/env python3
"""Prediction inaccuracy (paper Tables 3-4 and Figure 13).

    python scripts/exp_prediction.py [--users 10] [--seeds 10] [--jobs N]

For each seed: site-level EASY and FCFS runs of the same users; the EASY trace replayed
under FCFS (underestimation of FCFS) and the FCFS trace replayed under EASY
(overestimation of EASY). Writes docs/figures/fig13_prediction.png and .json and
prints the two tables in the paper's layout (means over seeds, 95% CI). The seeds run
in parallel (``--jobs``, default every CPU).

scripts/fidelity.py runs the same experiment (the paper site, 10 users, seeds 0-9) and
writes Figure 13 with :func:`write_figure13`, so the full reproduction
(scripts/reproduce.py) does not run this script; it is the way to vary users and seeds.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from sitesim.experiments.prediction import METRICS, Prediction, prediction_experiment  # noqa: E402
from sitesim.sweep.aggregate import mean_ci  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
LABELS = {
    "mean_response": "Response [s]",
    "mean_wait": "Wait [s]",
    "mean_slowdown": "Slowdown",
    "mean_bounded_slowdown": "Bounded slowdown",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=10)
    parser.add_argument("--seeds", type=int, default=10, help="replications (seeds 0..N-1)")
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "figures" / "fig13_prediction")
    parser.add_argument("--jobs", type=int, default=None, help="worker processes (default: every CPU)")
    args = parser.parse_args()

    results = prediction_experiment(users=args.users, seeds=range(args.seeds), jobs=args.jobs)
    write_figure13(results, args.users, args.seeds, args.out)


def write_figure13(results: list[Prediction], users: int, seeds: int, out: Path) -> None:
    """Print Tables 3-4 and write Figure 13 (.png) and its data (.json) from the runs."""
    data: dict[str, dict[str, dict[str, list[float | None]]]] = {}
    for direction, (source, evaluated) in (("under", ("easy", "fcfs")), ("over", ("fcfs", "easy"))):
        runs = [p for p in results if (p.trace_scheduler, p.evaluated) == (source, evaluated)]
        table: dict[str, dict[str, list[float | None]]] = {}
        for metric in METRICS:
            table[metric] = {
                f"{source} site-level": list(mean_ci([p.source[metric] for p in runs])),
                f"{evaluated} conventional": list(mean_ci([p.conventional[metric] for p in runs])),
                f"{evaluated} site-level": list(mean_ci([p.site_level[metric] for p in runs])),
                "inaccuracy %": list(mean_ci([100 * p.inaccuracy(metric) for p in runs])),
            }
        data[direction] = table
        print(f"\n{direction}estimated performance of {evaluated} ({len(runs)} seeds, mean ± 95% CI)")
        columns = list(next(iter(table.values())))
        print("| Metric (average) | " + " | ".join(columns) + " |")
        print("|---" * (len(columns) + 1) + "|")
        for metric, cells in table.items():
            shown = [f"{m:.1f} ± {h:.1f}" if h is not None else f"{m:.1f}" for m, h in cells.values()]
            print(f"| {LABELS[metric]} | " + " | ".join(shown) + " |")

    fig, ax = plt.subplots(figsize=(7, 4))
    width = 0.38
    xs = range(len(METRICS))
    for k, (direction, label) in enumerate(
        (("under", "FCFS underestimated (EASY trace)"), ("over", "EASY overestimated (FCFS trace)"))
    ):
        means = [data[direction][m]["inaccuracy %"][0] for m in METRICS]
        cis = [data[direction][m]["inaccuracy %"][1] or 0.0 for m in METRICS]
        ax.bar([x + (k - 0.5) * width for x in xs], means, width, yerr=cis, capsize=3, label=label)
    ax.set_xticks(list(xs), [LABELS[m] for m in METRICS])
    ax.set_yscale("log")
    ax.set_ylabel("prediction inaccuracy [%]")
    ax.set_title(f"Conventional vs site-level, {users} users, {seeds} seeds")
    ax.legend()
    ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out.with_suffix(".png"), dpi=110)
    plt.close(fig)
    out.with_suffix(".json").write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"\nwrote {out.with_suffix('.png')} and .json")


if __name__ == "__main__":
    main()
