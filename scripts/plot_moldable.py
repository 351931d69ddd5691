#!/usr/bin/env python3
"""Figures and tables of docs/moldable.md from the moldable experiments' CSVs.

    python scripts/plot_moldable.py --one-apples docs/data/moldable-one-apples.csv \\
        --bushel docs/data/moldable-bushel.csv [--adaptive docs/data/moldable-adaptive.csv] \\
        --figures docs/figures --doc docs/moldable.md

Writes moldable_improvement.png (the improvement factor of Gas over static per replaced
job, the paper's Figure 5.2), moldable_bushel.png (mean turn-around against the share
replaced, Tables 5.9-5.11) and, with --adaptive, moldable_adaptive.png; the tables go
between the markers of --doc (or to stdout). Deterministic: no timings, no paths.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from sitesim.sweep.aggregate import mean_ci  # noqa: E402

LOGS = ("SDSC-SP2", "CTC-SP2", "KTH-SP2")
#: The paper's Table 5.1 (one AppLeS, all logs) and Tables 5.2-5.4 (per log): mean, median.
PAPER_ONE = {
    "all": (2739.90, 136, 15174.25, 935),
    "SDSC-SP2": (4808.39, 431, 39722.34, 15793),
    "CTC-SP2": (869.48, 44, 5164.76, 255),
    "KTH-SP2": (3668.02, 252, 13935.20, 3059),
}
#: Tables 5.8-5.11: share -> (load ratio, Gas mean, static mean).
PAPER_BUSHEL = {
    "SDSC-SP2": {0.05: (0.9456, 5586.05, 16828.81), 0.1: (0.9063, 6420.48, 14662.31),
                 0.2: (0.8217, 6197.55, 17724.67), 0.3: (0.7568, 6952.22, 17282.07),
                 0.4: (0.7130, 7558.03, 15810.28), 0.5: (0.6649, 7182.95, 13403.38)},
    "CTC-SP2": {0.05: (0.9592, 1386.92, 2405.83), 0.1: (0.9164, 1489.86, 2426.74),
                0.2: (0.8306, 1766.67, 2660.16), 0.3: (0.7465, 1847.66, 2583.77),
                0.4: (0.7130, 2009.95, 2597.10), 0.5: (0.6883, 2052.23, 2579.12)},
    "KTH-SP2": {0.05: (0.9801, 4457.15, 8078.23), 0.1: (0.9537, 4388.35, 8030.74),
                0.2: (0.9075, 4576.61, 8689.26), 0.3: (0.8785, 4642.08, 8250.78),
                0.4: (0.8425, 4540.10, 7864.41), 0.5: (0.8201, 4307.59, 7482.15)},
}


def read(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def num(cell: str) -> float:
    """A CSV cell as a number; empty (not measured) as NaN."""
    return float(cell) if cell not in ("", "nan") else math.nan


def improvement(gas: float, static: float) -> float:
    """The paper's improvement factor: static/gas when Gas wins, -(gas/static) when it loses."""
    gas, static = max(gas, 1.0), max(static, 1.0)
    return static / gas if gas <= static else -(gas / static)


def one_apples_table(rows: list[dict[str, str]]) -> list[str]:
    out = [
        "| log | runs | Gas mean (s) | Gas std | Gas median | Gas min / max | static mean (s) | static std"
        " | static median | static min / max | Gas not worse | Gas strictly better | paper: Gas / static mean |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for log in (*LOGS, "all"):
        sel = [r for r in rows if log == "all" or r["trace"] == log]
        if not sel:
            continue
        g = np.array([float(r["gas"]) for r in sel])
        s = np.array([float(r["static"]) for r in sel])
        p = PAPER_ONE[log]
        out.append(
            f"| {log} | {len(sel)} | {g.mean():,.0f} | {g.std(ddof=1):,.0f} | {np.median(g):,.0f} |"
            f" {g.min():,.0f} / {g.max():,.0f} | {s.mean():,.0f} | {s.std(ddof=1):,.0f} | {np.median(s):,.0f} |"
            f" {s.min():,.0f} / {s.max():,.0f} | {np.mean(g <= s):.1%} | {np.mean(g < s):.1%} |"
            f" {p[0]:,.0f} / {p[2]:,.0f} |"
        )
    return out


def with_ci(mean: float, half: float | None) -> str:
    return f"{mean:,.0f}" + (f" ± {half:,.0f}" if half is not None and math.isfinite(half) else "")


def is_default(r: dict[str, str]) -> bool:
    """A run of the model as documented: default sigma, open-model replay."""
    return (r.get("sigma_mean", "1.209"), r.get("sigma_sd", "1.132"), r.get("feedback", "none")) == (
        "1.209", "1.132", "none",
    )


def by_key(rows: list[dict[str, str]], *columns: str) -> dict[tuple[str, ...], list[dict[str, str]]]:
    groups: dict[tuple[str, ...], list[dict[str, str]]] = defaultdict(list)
    for r in rows:
        groups[tuple(r[c] for c in columns)].append(r)
    return groups


def paired(gas: list[dict[str, str]], static: list[dict[str, str]]) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """The runs of the seeds run under both policies (a ratio compares the same seeds)."""
    both = {r["seed"] for r in gas} & {r["seed"] for r in static}
    return [r for r in gas if r["seed"] in both], [r for r in static if r["seed"] in both]


def load_ratio_table(rows: list[dict[str, str]]) -> list[str]:
    """The paper's Table 5.8: load ratio per log and share replaced, ours (Gas / static) beside its."""
    groups = by_key([r for r in rows if is_default(r)], "trace", "fraction", "policy")
    head = "| replaced |" + "".join(f" {log}: Gas / static (paper) |" for log in LOGS)
    out = [head, "|---:|" + "---:|" * len(LOGS)]
    for fraction in sorted(PAPER_BUSHEL["KTH-SP2"]):  # the shares the paper reports
        cells = []
        for log in LOGS:
            g, s = (groups.get((log, f"{fraction:g}", p), []) for p in ("gas", "static"))
            paper = PAPER_BUSHEL[log].get(round(fraction, 2))
            mine = (
                f"{np.mean([float(r['load_ratio']) for r in g]):.3f} / {np.mean([float(r['load_ratio']) for r in s]):.3f}"
                if g and s else "–"
            )
            cells.append(f" {mine} ({paper[0]:.4f}) |" if paper else f" {mine} |")
        out.append(f"| {fraction:.0%} |" + "".join(cells))
    return out


def variant_table(rows: list[dict[str, str]], baseline: list[dict[str, str]]) -> list[str]:
    """Gas vs static on the same log and share under variants (another sigma, or
    feedback), beside the documented model on the same seeds."""
    seeds = {r["seed"] for r in rows}
    chosen = {(r["trace"], r["fraction"]) for r in rows if r["fraction"] != "0"}
    every = rows + [r for r in baseline if is_default(r) and r["seed"] in seeds and (r["trace"], r["fraction"]) in chosen]
    groups = by_key(every, "trace", "fraction", "sigma_mean", "sigma_sd", "feedback")
    out = [
        "| log | replaced | sigma (mean, sd) | replay | seeds | load ratio Gas / static | Gas mean (s)"
        " | static mean (s) | Gas / static | others' mean wait, Gas / static (s) |",
        "|---|---:|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for (log, fraction, mean, sd, feedback), sel in sorted(groups.items()):
        g, s = paired([r for r in sel if r["policy"] == "gas"], [r for r in sel if r["policy"] == "static"])
        if not g or not s:
            continue
        gm, gci = mean_ci([float(r["mean_turnaround"]) for r in g])
        sm, sci = mean_ci([float(r["mean_turnaround"]) for r in s])
        out.append(
            f"| {log} | {float(fraction):.0%} | {mean}, {sd} | {'open' if feedback == 'none' else 'feedback'} |"
            f" {len(g)} | {np.mean([float(r['load_ratio']) for r in g]):.3f} /"
            f" {np.mean([float(r['load_ratio']) for r in s]):.3f} | {with_ci(gm, gci)} | {with_ci(sm, sci)} |"
            f" {gm / sm:.2f} | {np.mean([float(r['rigid_mean_wait']) for r in g]):,.0f} /"
            f" {np.mean([float(r['rigid_mean_wait']) for r in s]):,.0f} |"
        )
    return out


def bushel_table(rows: list[dict[str, str]]) -> list[str]:
    groups: dict[tuple[str, float, str], list[dict[str, str]]] = defaultdict(list)
    for r in rows:
        if is_default(r):
            groups[(r["trace"], float(r["fraction"]), r["policy"])].append(r)
    out = [
        "| log | replaced | seeds | load ratio Gas / static | Gas mean turn-around (s) | static mean (s)"
        " | Gas / static | others' mean wait, Gas / static (s) | paper: load ratio, Gas / static |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for log in LOGS:
        for fraction in sorted(PAPER_BUSHEL[log]):  # the shares the paper reports
            g, s = groups.get((log, fraction, "gas"), []), groups.get((log, fraction, "static"), [])
            g, s = paired(g, s)
            if not g or not s:
                continue
            gm, gci = mean_ci([float(r["mean_turnaround"]) for r in g])
            sm, sci = mean_ci([float(r["mean_turnaround"]) for r in s])
            lg = np.mean([float(r["load_ratio"]) for r in g])
            ls = np.mean([float(r["load_ratio"]) for r in s])
            wg = np.mean([float(r["rigid_mean_wait"]) for r in g])
            ws = np.mean([float(r["rigid_mean_wait"]) for r in s])
            paper = PAPER_BUSHEL[log].get(round(fraction, 2))
            ptext = f"{paper[0]:.4f}, {paper[1]:,.0f} / {paper[2]:,.0f}" if paper else ""
            out.append(
                f"| {log} | {fraction:.0%} | {len(g)} | {lg:.3f} / {ls:.3f} | {with_ci(gm, gci)} | {with_ci(sm, sci)} |"
                f" {gm / sm:.2f} | {wg:,.0f} / {ws:,.0f} | {ptext} |"
            )
    return out


def plot_improvement(rows: list[dict[str, str]], path: Path) -> None:
    fig, ax = plt.subplots(figsize=(7, 4))
    bins = [-np.inf, -10, -2, -1.0001, 1.0001, 2, 10, 100, 1000, np.inf]
    labels = ["< -10", "-10..-2", "-2..-1", "tie", "1..2", "2..10", "10..100", "100..1000", "> 1000"]
    width = 0.25
    for k, log in enumerate(LOGS):
        f = [improvement(float(r["gas"]), float(r["static"])) for r in rows if r["trace"] == log]
        if not f:
            continue
        counts, _ = np.histogram(f, bins=bins)
        ax.bar(np.arange(len(labels)) + (k - 1) * width, counts / len(f), width, label=f"{log} ({len(f)} runs)")
    ax.set_xticks(range(len(labels)), labels, rotation=30)
    ax.set_xlabel("improvement factor of Gas over static (negative: Gas slower)")
    ax.set_ylabel("share of runs")
    ax.set_title("One AppLeS in the system: Gas vs static, per replaced job")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120, metadata={"Software": None})
    plt.close(fig)


def plot_bushel(rows: list[dict[str, str]], path: Path) -> None:
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.8))
    for ax, log in zip(axes, LOGS):
        for policy, style in (("gas", "o-"), ("static", "s--")):
            pts = defaultdict(list)
            for r in rows:
                if r["trace"] == log and r["policy"] == policy and is_default(r):
                    pts[float(r["fraction"])].append(float(r["mean_turnaround"]))
            if pts:
                x = sorted(pts)
                ax.plot([100 * v for v in x], [np.mean(pts[v]) / 3600 for v in x], style, label=f"{policy} (sitesim)")
        paper = PAPER_BUSHEL[log]
        x = sorted(paper)
        ax.plot([100 * v for v in x], [paper[v][1] / 3600 for v in x], "o:", color="grey", label="Gas (paper)")
        ax.plot([100 * v for v in x], [paper[v][2] / 3600 for v in x], "s:", color="silver", label="static (paper)")
        ax.set_yscale("log")
        ax.set_title(log)
        ax.set_xlabel("jobs replaced (%)")
    axes[0].set_ylabel("mean turn-around of replaced jobs (h)")
    axes[-1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120, metadata={"Software": None})
    plt.close(fig)


ADAPTIVE_POLICIES = (("gas", "o-"), ("static", "s--"))


def adaptive_rows(rows: list[dict[str, str]], policy: str) -> list[dict[str, str]]:
    return sorted((r for r in rows if r["moldable_policy"] == policy), key=lambda r: float(r["adaptive"]))


def adaptive_table(rows: list[dict[str, str]]) -> list[str]:
    """Adaptive-user sweep: the CI summary CSV of ``sitesim sweep --summarize`` (metrics
    adaptive_mean_turnaround, rigid_mean_turnaround, rigid_mean_wait, throughput_per_day,
    utilization), one row per policy and share of adaptive users."""
    table = [
        "| policy | adaptive users | adaptive mean turn-around (h) | rigid users' mean turn-around (h)"
        " | rigid users' mean wait (h) | throughput (jobs/day) | utilisation |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]

    def cell(r: dict[str, str], m: str, scale: float = 1) -> str:
        v, c = num(r[f"{m}_mean"]), num(r[f"{m}_ci"])
        return "–" if math.isnan(v) else f"{v / scale:.2f} ± {0.0 if math.isnan(c) else c / scale:.2f}"

    for policy, _style in ADAPTIVE_POLICIES:
        for r in adaptive_rows(rows, policy):
            table.append(
                f"| {policy} | {float(r['adaptive']):.0%} | {cell(r, 'adaptive_mean_turnaround', 3600)} |"
                f" {cell(r, 'rigid_mean_turnaround', 3600)} |"
                f" {cell(r, 'rigid_mean_wait', 3600)} | {cell(r, 'throughput_per_day')} | {cell(r, 'utilization')} |"
            )
    return table


def plot_adaptive(rows: list[dict[str, str]], path: Path) -> None:
    """The adaptive-user sweep of :func:`adaptive_table`, drawn: three panels against the
    share of adaptive users."""
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.8))
    for policy, style in ADAPTIVE_POLICIES:
        sel = adaptive_rows(rows, policy)
        if not sel:
            continue
        x = [100 * float(r["adaptive"]) for r in sel]
        for ax, metric, scale in (
            (axes[0], "adaptive_mean_turnaround", 3600), (axes[1], "rigid_mean_wait", 3600),
            (axes[2], "throughput_per_day", 1),
        ):
            y = [num(r[f"{metric}_mean"]) / scale for r in sel]
            e = [0.0 if math.isnan(num(r[f"{metric}_ci"])) else num(r[f"{metric}_ci"]) / scale for r in sel]
            ax.errorbar(x, y, yerr=e, fmt=style, capsize=3, label=policy)
    axes[0].set_ylabel("adaptive users' mean turn-around (h)")
    axes[1].set_ylabel("rigid users' mean wait (h)")
    axes[2].set_ylabel("throughput (jobs/day)")
    for ax in axes:
        ax.set_xlabel("adaptive users (%)")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120, metadata={"Software": None})
    plt.close(fig)


def replace_between(text: str, name: str, lines: list[str]) -> str:
    begin, end = f"<!-- {name}: begin -->", f"<!-- {name}: end -->"
    head, rest = text.split(begin, 1)
    _old, tail = rest.split(end, 1)
    return head + begin + "\n" + "\n".join(lines) + "\n" + end + tail


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--one-apples", type=Path, required=True)
    parser.add_argument("--bushel", type=Path, required=True)
    parser.add_argument("--adaptive", type=Path)
    parser.add_argument("--sigma", type=Path, help="bushel CSV of runs with other sigma (--sigma of the bushel script)")
    parser.add_argument("--feedback", type=Path, help="bushel CSV of runs with feedback (--feedback of the bushel script)")
    parser.add_argument("--figures", type=Path, default=Path("docs/figures"))
    parser.add_argument("--doc", type=Path)
    args = parser.parse_args(argv)
    one, bushel = read(args.one_apples), read(args.bushel)
    plot_improvement(one, args.figures / "moldable_improvement.png")
    plot_bushel(bushel, args.figures / "moldable_bushel.png")
    tables = {
        "one-apples table": one_apples_table(one),
        "bushel table": bushel_table(bushel),
        "load-ratio table": load_ratio_table(bushel),
    }
    if args.sigma is not None:
        tables["sigma table"] = variant_table(read(args.sigma), bushel)
    if args.feedback is not None:
        tables["feedback table"] = variant_table(read(args.feedback), bushel)
    if args.adaptive is not None:
        adaptive = read(args.adaptive)
        plot_adaptive(adaptive, args.figures / "moldable_adaptive.png")
        tables["adaptive table"] = adaptive_table(adaptive)
    if args.doc is None:
        for lines in tables.values():
            print("\n".join(lines) + "\n")
        return 0
    text = args.doc.read_text(encoding="utf-8")
    for name, lines in tables.items():
        text = replace_between(text, name, lines)
    args.doc.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
