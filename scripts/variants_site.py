"""The EASY family at the site level: each policy's throughput and mean wait as users grow.

The replay tables (scripts/variants_table.py) judge the policies on fixed traces; here
the simulated users react to them. Two sites: the paper's (``paper``, 128 nodes, exact
estimates) at 10, 20 and 40 users, and a site fitted to KTH-SP2 (``sitesim fit``, 100
nodes, its log's 340 days) at 0.5, 1 and 1.5 times its 214 users; both plan with exact
estimates, the site-level default. Every policy runs once per seed (seeds 1..N, the
same seeds for every policy, so the users draw the same numbers), and each cell gives
the mean over seeds with its 95% confidence interval (Student t).

    SITESIM_TRACES=DIR python scripts/variants_site.py --seeds 5 --jobs 2 \\
        --doc docs/site-level.md --figure docs/figures/variants_site.png

With ``--doc FILE`` the tables replace what lies between ``<!-- variants-site:start -->``
and ``<!-- variants-site:end -->`` in FILE. Without SITESIM_TRACES only the paper's
site runs.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from estimates_table import write_doc  # noqa: E402

import sitesim  # noqa: E402
from sitesim.runs.fit import main as fit_main  # noqa: E402
from sitesim.sweep.aggregate import mean_ci  # noqa: E402
from sitesim.sweep.executors import map_in_order  # noqa: E402

POLICIES = ("fcfs", "easy", "cons", "sjbf", "easy++", "los", "multifactor")
KTH_LOG = "KTH-SP2-1996-2.1-cln.swf.gz"
KTH_USERS = 214
START, END = "<!-- variants-site:start -->", "<!-- variants-site:end -->"
METRICS = ("throughput", "wait", "max_wait", "util")


def one_run(cell: tuple[str, str, int, str, int]) -> dict:
    """One run: (site label, site, users, policy, seed) -> its figures."""
    label, site, users, policy, seed = cell
    s = sitesim.simulate(users, site=site, scheduler=policy, seed=seed).summary["system"]
    return {"site": label, "users": users, "policy": policy, "seed": seed,
            "throughput": s["throughput_per_day"], "wait": s["mean_wait"], "max_wait": s["max_wait"] / 86_400,
            "util": s["utilization"]}


def cells(kth_site: str | None, seeds: int) -> list[tuple[str, str, int, str, int]]:
    grid = [("paper", "paper", users) for users in (10, 20, 40)]
    if kth_site is not None:
        grid += [("KTH-SP2 (fitted)", kth_site, round(KTH_USERS * scale)) for scale in (0.5, 1.0, 1.5)]
    return [(label, site, users, policy, seed)
            for label, site, users in grid for policy in POLICIES for seed in range(1, seeds + 1)]


def summarise(rows: list[dict]) -> dict[tuple[str, int, str], dict[str, tuple[float, float | None]]]:
    """Mean and CI half-width of each figure per (site, users, policy)."""
    groups: dict[tuple[str, int, str], list[dict]] = {}
    for row in rows:
        groups.setdefault((row["site"], row["users"], row["policy"]), []).append(row)
    return {key: {m: mean_ci([r[m] for r in runs]) for m in METRICS} for key, runs in groups.items()}


def _cell(mean: float, ci: float | None, fmt: str) -> str:
    return f"{mean:{fmt}} ± {ci:{fmt}}" if ci is not None else f"{mean:{fmt}}"


def markdown(stats: dict, seeds: int) -> str:
    lines = [f"Mean ± 95% CI half-width over {seeds} seeds (the paper's site: a year; KTH-SP2: 340 days)."
             " Throughput in completed jobs per 24 h; mean wait in seconds; max wait (the longest"
             " wait of the run) in days.", ""]
    for site in dict.fromkeys(k[0] for k in stats):
        lines += [f"### {site}", "", "| users | policy | throughput | mean wait | max wait | utilisation |",
                  "|---:|---|---:|---:|---:|---:|"]
        for users in sorted({k[1] for k in stats if k[0] == site}):
            for policy in POLICIES:
                s = stats[(site, users, policy)]
                lines.append(f"| {users} | {policy} | {_cell(*s['throughput'], ',.0f')} | {_cell(*s['wait'], ',.0f')}"
                             f" | {_cell(*s['max_wait'], ',.1f')} | {_cell(*s['util'], '.3f')} |")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def figure(stats: dict, out: Path) -> None:
    sites = list(dict.fromkeys(k[0] for k in stats))
    fig, axes = plt.subplots(2, len(sites), figsize=(5.5 * len(sites), 7), squeeze=False)
    for col, site in enumerate(sites):
        for policy in POLICIES:
            keys = sorted((k for k in stats if k[0] == site and k[2] == policy), key=lambda k: k[1])
            xs = [k[1] for k in keys]
            for row, metric in enumerate(("throughput", "wait")):
                means = [stats[k][metric][0] for k in keys]
                cis = [stats[k][metric][1] or 0.0 for k in keys]
                axes[row][col].errorbar(xs, means, yerr=cis, fmt="o-", ms=3, capsize=2, label=policy)
        axes[0][col].set_title(site)
        axes[0][col].set_ylabel("throughput [jobs / 24 h]")
        axes[1][col].set_ylabel("mean wait [s]")
        axes[1][col].set_yscale("log")
        axes[1][col].set_xlabel("users")
        for ax in axes[:, col]:
            ax.grid(alpha=0.3)
    axes[0][-1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    fig.suptitle("The EASY family at the site level (mean, 95% CI over seeds)")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=100)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--traces", default=os.environ.get("SITESIM_TRACES"), help="directory of the SWF logs")
    parser.add_argument("--seeds", type=int, default=5, help="seeds 1..N per cell (default 5)")
    parser.add_argument("--jobs", type=int, default=None, help="runs in parallel (default: every CPU)")
    parser.add_argument("--doc", type=Path, help="markdown file whose table section to replace")
    parser.add_argument("--figure", type=Path, help="where to write the figure (PNG)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        kth_site = None
        log = Path(args.traces) / KTH_LOG if args.traces else None
        if log is not None and log.exists():
            fit_main([str(log), "-o", scratch])
            kth_site = str(Path(scratch) / "site.toml")
        else:
            print("SITESIM_TRACES unset or without KTH-SP2: the paper's site only", file=sys.stderr)
        rows = map_in_order(one_run, cells(kth_site, args.seeds), jobs=args.jobs)
    stats = summarise(rows)
    table = markdown(stats, args.seeds)
    if args.doc:
        write_doc(args.doc, table, START, END)
    else:
        sys.stdout.write(table)
    if args.figure:
        figure(stats, args.figure)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
