"""docs/fidelity.md, the sections on Table 3-4 and the traces' offered load (for scripts/fidelity.py).

Two measurements of why Table 3's errors cannot be pinned to a factor of 2 of the
paper's one run: how the errors grow with the replayed trace's offered load, and what a
second calibration aimed at the paper's EASY-trace load would do to the Table 2 fit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sitesim.experiments.fidelity import (
    FIT_TARGETS,
    PAPER_INACCURACY,
    PAPER_TABLE2,
    Estimate,
    LoadFit,
    SiteComparison,
    crossing,
    estimate,
    fit_error,
)
from sitesim.experiments.prediction import Prediction

#: Offered loads the kept traces are replayed at (Figure 16's load scaling).
LOADS: tuple[float, ...] = (0.40, 0.45, 0.50, 0.55, 0.60)
#: Offered load of the paper's EASY trace (its Figure 14's dashed line) and FCFS trace.
PAPER_EASY_TRACE_LOAD = 0.55
PAPER_FCFS_TRACE_LOAD = 0.5
#: The paper: under EASY its users complete "less than 10%" more jobs than under FCFS.
PAPER_JOB_MARGIN = 0.10
METRICS = {"mean_response": "response", "mean_wait": "wait", "mean_slowdown": "slowdown"}
DIRECTIONS = {"under": "Table 3 (EASY traces under FCFS)", "over": "Table 4 (FCFS traces under EASY)"}

Show = Callable[[Estimate], str]


def inaccuracy(predictions: Sequence[Prediction], metric: str) -> Estimate:
    return Estimate.of([100 * p.inaccuracy(metric) for p in predictions])


def load_curve_section(site: SiteComparison, curves: dict[str, dict[float, list[Prediction]]],
                       show: Show, fmt: Callable[[float], str]) -> list[str]:
    """(a) Tables 3-4's errors with the same traces replayed at several offered loads."""
    lines = [
        "## Tables 3–4 against the replayed trace's offered load",
        "",
        "A conventional replay's error depends on how close the trace's offered load comes to "
        "what the replaying scheduler sustains without feedback. Each seed's EASY trace "
        "(Table 3) and FCFS trace (Table 4) is replayed with its submission times scaled to "
        "each offered load below (Figure 16's load scaling), against the same site-level runs; "
        "mean ± 95% CI over the seeds, in %. The first row is Tables 3–4 as they are (each "
        f"trace at its own load: EASY {show(site.replayed_load('easy'))}, FCFS "
        f"{show(site.replayed_load('fcfs'))}); the paper's traces offered about "
        f"{PAPER_EASY_TRACE_LOAD} and {PAPER_FCFS_TRACE_LOAD} (its Figure 14).",
        "",
        "| offered load | " + " | ".join(f"T3 {m}" for m in METRICS.values()) + " | "
        + " | ".join(f"T4 {m}" for m in METRICS.values()) + " |",
        "|---" * (1 + 2 * len(METRICS)) + "|",
    ]
    own = {"under": [p for p in site.predictions if p.trace_scheduler == "easy"],
           "over": [p for p in site.predictions if p.trace_scheduler == "fcfs"]}
    rows: list[tuple[str, dict[str, Sequence[Prediction]]]] = [("the trace's own", own)]
    rows += [(f"{load:.2f}", {d: curves[d][load] for d in DIRECTIONS}) for load in LOADS]
    for label, by_direction in rows:
        cells = [show(inaccuracy(by_direction[d], m)) for d in DIRECTIONS for m in METRICS]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    paper = [fmt(PAPER_INACCURACY[d][m]) for d in DIRECTIONS for m in METRICS]
    lines += ["| the paper (one run) | " + " | ".join(paper) + " |", ""]
    reached = []
    for metric, name in METRICS.items():
        means = [inaccuracy(curves["under"][load], metric).mean for load in LOADS]
        at = crossing(LOADS, means, PAPER_INACCURACY["under"][metric])
        half = crossing(LOADS, means, PAPER_INACCURACY["under"][metric] / 2)
        reached.append(
            f"{name} {fmt(PAPER_INACCURACY['under'][metric])}% "
            + (f"at {at:.2f}" if at is not None else f"not by {LOADS[-1]:.2f}")
            + ", half of it " + (f"at {half:.2f}" if half is not None else f"not by {LOADS[-1]:.2f}")
        )
    lines += [
        "Where our mean Table 3 error reaches the paper's (linear between the loads above): "
        + "; ".join(reached) + ".",
        "",
    ]
    return lines


def consistency_section(site: SiteComparison, fit: LoadFit, at_fit: SiteComparison | None,
                        show: Show, fmt: Callable[[float], str]) -> list[str]:
    """(b) The paper's EASY-trace load against its own Table 2, and a second calibration."""
    ratio = Estimate.of([e["completed"] / f["completed"] for e, f in zip(site.easy, site.fcfs, strict=True)])
    load_ratio = Estimate.of([e["offered_load"] / f["offered_load"] for e, f in zip(site.easy, site.fcfs, strict=True)])
    ceiling = PAPER_TABLE2["load"] * (1 + PAPER_JOB_MARGIN)
    lines = [
        "## The paper's EASY-trace load and its Table 2",
        "",
        f"The paper's FCFS site offers load {PAPER_TABLE2['load']} (Table 2), and under EASY the "
        f"same users complete \"less than 10%\" more jobs. Drawn from the same job mix, the EASY "
        f"trace then offers at most {PAPER_TABLE2['load']} × {1 + PAPER_JOB_MARGIN:.2f} ≈ {ceiling:.2f}, "
        f"below its Figure 14 marker ({PAPER_EASY_TRACE_LOAD}); the two markers' ratio, "
        f"{PAPER_EASY_TRACE_LOAD} / {PAPER_FCFS_TRACE_LOAD} = "
        f"{PAPER_EASY_TRACE_LOAD / PAPER_FCFS_TRACE_LOAD:.2f}, is the 10% margin itself. Ours: EASY "
        f"completes {show(ratio)} times FCFS's jobs, and its trace offers {show(load_ratio)} times "
        "the FCFS trace's load. If Table 2's load and Figure 14's markers are the same measure (the "
        "offered load of the trace), a model fitted to Table 2 cannot also offer 0.55 under EASY; "
        "the paper's FCFS marker (0.5) is itself above its Table 2 load, so the two may differ, and "
        "from the markers alone 0.5 × 1.10 = 0.55 is consistent. A second, separate calibration "
        "reaches 0.55; it is measured here, not shipped.",
        "",
        f"`runtime_scale` fitted instead to the EASY trace's offered load {fit.target} (EASY runs "
        "over the same seeds; the fitted value is linear between the grid points around it):",
        "",
        "| runtime_scale | EASY trace offered load | EASY completed jobs |",
        "|---|---|---|",
    ]
    for scale, runs in fit.grid.items():
        lines.append(f"| {scale:.2f} | {show(estimate(runs, 'offered_load'))} | {show(estimate(runs, 'completed'))} |")
    if fit.value is None or at_fit is None:
        return [*lines, "", f"No grid point brackets {fit.target}: widen the grid.", ""]
    lines += [
        "",
        f"Fitted: runtime_scale = **{fit.value:.2f}** (shipped: {site.config.runtime_scale:.2f}). "
        "What it does to Table 2 (FCFS; the shipped value was fitted to its first three rows) "
        "and to Tables 3–4:",
        "",
        f"| | paper | shipped ({site.config.runtime_scale:.2f}) | EASY-load calibration ({fit.value:.2f}) |",
        "|---|---|---|---|",
    ]
    rows = [("completed jobs (a Table 2 target)", "completed"), ("load (a Table 2 target)", "load"),
            ("mean runtime [s] (a Table 2 target)", "mean_runtime"), ("mean wait [s]", "mean_wait"),
            ("mean response [s]", "mean_response")]
    for label, key in rows:
        paper = FIT_TARGETS.get(key, PAPER_TABLE2.get(key))
        lines.append(f"| {label} | {fmt(paper) if paper is not None else '–'} | "
                     f"{show(estimate(site.fcfs, key))} | {show(estimate(at_fit.fcfs, key))} |")
    lines.append(f"| Table 2 fit error (sum of squared relative errors) | 0 | {fit_error(site.fcfs):.4f} | "
                 f"{fit_error(at_fit.fcfs):.4f} |")
    shifted = Estimate.of([e["completed"] / f["completed"] for e, f in zip(at_fit.easy, at_fit.fcfs, strict=True)])
    lines.append(f"| EASY jobs / FCFS jobs | < {1 + PAPER_JOB_MARGIN:.2f} | {show(ratio)} | {show(shifted)} |")
    lines.append(f"| EASY trace offered load | ≈ {PAPER_EASY_TRACE_LOAD} | {show(site.replayed_load('easy'))} | "
                 f"{show(at_fit.replayed_load('easy'))} |")
    for direction, table in (("under", "Table 3"), ("over", "Table 4")):
        for metric, name in METRICS.items():
            lines.append(f"| {table} {name} inaccuracy [%] | {fmt(PAPER_INACCURACY[direction][metric])} | "
                         f"{show(site.inaccuracy(direction, metric))} | {show(at_fit.inaccuracy(direction, metric))} |")
    return [*lines, ""]
