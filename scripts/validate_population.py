"""Regenerate docs/validation.md: fitted sites simulated and compared with their logs.

For SDSC-SP2, CTC-SP2 and KTH-SP2 (in ``$SITESIM_TRACES`` or ``--traces``):

1. ``sitesim fit`` the log;
2. simulate the fitted site under EASY and under FCFS, 5 seeds each, for the log's
   duration, on its machine, with its users (exact estimates, the simulator's default);
3. measure each simulated trace with the same analysis as the log and compare
   (means with 95% Student-t confidence intervals over the seeds);
4. replay the log under EASY, conventionally and with feedback, and compare;
5. blank field 3 (wait) of SDSC-SP2, fit that log (its starts simulated under EASY),
   simulate it the same way and compare with the log and with the original fit.

Usage: ``python scripts/validate_population.py [--traces DIR] [--seeds 5]``. Takes
about 2 minutes (85 CPU seconds) on a shared 2-core machine. Writes docs/validation.md and
docs/figures/validation_hourly.png.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sitesim.experiments.validation import (  # noqa: E402
    CHECKS,
    compare_run,
    format_value,
    mean_ci,
    passes,
    session_hours,
    simulate_fitted,
    trace_signatures,
)
from sitesim.runs.fit import fit_log  # noqa: E402

LOGS = {
    "SDSC-SP2": "SDSC-SP2-1998-4.2-cln.swf.gz",
    "CTC-SP2": "CTC-SP2-1996-3.1-cln.swf.gz",
    "KTH-SP2": "KTH-SP2-1996-2.1-cln.swf.gz",
}
LABELS = {
    "jobs": "jobs",
    "utilization": "utilisation",
    "daytime_share": "share of submissions 08:00–18:00",
    "weekend_share": "share of submissions on weekends",
    "peak_ratio": "busiest / quietest hour",
    "users_per_week": "distinct users per week",
    "figure1_correlation": "Figure 1 correlation (Spearman)",
    "weekly_jobs_cv": "weekly job count CV",
    "batches_per_session": "batches per session",
    "jobs_per_session": "jobs per session",
    "continuation": "P(continue after a batch)",
    "session_hours": "session length (h)",
    "ks_size": "KS distance, sizes",
    "ks_runtime": "KS distance, runtimes",
    "ks_think": "KS distance, think times",
}
RULES = {"rel": "±{:.0%} of the log", "abs": "±{:g}", "min": "≥ {:g}", "neg": "< 0"}


def run_site_seeds(site: Path, log: Any, scheduler: str, seeds: int, work: Path, nodes: int, duration: float) -> list[dict[str, float]]:
    runs = []
    for seed in range(seeds):
        out = work / f"{scheduler}-{seed}"
        summary = simulate_fitted(site, out, seed=seed, scheduler=scheduler)
        values = compare_run(log, out / "trace.swf", nodes=nodes, duration=duration)
        values["session_hours"] = session_hours(out / "trace.swf")
        values["completed"] = float(summary["completed"])
        values["mean_wait"] = float(summary["mean_wait"])
        runs.append(values)
        shutil.rmtree(out)
        print(f"  {scheduler} seed {seed}: {values['jobs']:.0f} jobs, util {values['utilization']:.3f}", flush=True)
    return runs


def replays(path: Path, work: Path, duration: float) -> dict[str, dict[str, float]]:
    from sitesim.runs.replay import ReplayConfig, run_replay

    rows = {}
    for label, feedback in (("conventional replay", None), ("replay with feedback", "absolute")):
        out = work / label.replace(" ", "-")
        result = run_replay(ReplayConfig(trace=str(path), scheduler="easy", feedback=feedback), out=out)
        sig = trace_signatures(out / "schedule.swf", nodes=result.nodes, duration=duration)
        s = result.summary
        rows[label] = {
            "completed": float(s["completed"]),
            "utilization": float(s["utilization"]),
            "mean_wait": float(s["mean_wait"]),
            "mean_bounded_slowdown": float(s["mean_bounded_slowdown"]),
            "daytime_share": sig.values["daytime_share"],
            "makespan_days": float(s["makespan"]) / 86400,
        }
        shutil.rmtree(out)
    return rows


#: The log whose wait times are blanked, and the signatures compared for it.
NO_WAIT_LOG = "SDSC-SP2"
NO_WAIT_KEYS = ("jobs", "utilization", "daytime_share", "weekend_share", "users_per_week", "figure1_correlation")
#: What the fit measures from starts (sessions, think times, continuation), compared.
FIT_KEYS = {
    "batches_per_session": "batches per session",
    "jobs_per_session": "jobs per session",
    "continuation": "P(continue after a batch)",
    "median_session_gap_hours": "median absence between sessions (h)",
}


def blank_waits(src: Path, dst: Path) -> None:
    """Copy the SWF log ``src`` to ``dst`` with field 3 (wait) set to -1 on every job."""
    import gzip

    with gzip.open(src, "rt") as fin, dst.open("w") as fout:
        for line in fin:
            if not line.startswith(";") and line.strip():
                fields = line.split()
                fields[2] = "-1"
                line = " ".join(fields) + "\n"
            fout.write(line)


def no_wait_fit(path: Path, log: Any, work: Path, seeds: int) -> dict[str, Any]:
    """Fit the log with its waits blanked, and simulate it under EASY like the others."""
    import json

    blank = work / "no-waits.swf"
    blank_waits(path, blank)
    site = work / "no-waits"
    info = fit_log(blank, site)
    assert info.starts is not None
    measured = json.loads((site / "population.json").read_text())["measured"]
    runs = run_site_seeds(site, log, "easy", seeds, work, info.nodes, info.days * 86400)
    return {"starts": info.starts, "measured": measured, "easy": runs}


def cell(runs: list[dict[str, float]], key: str) -> str:
    mean, half = mean_ci([r[key] for r in runs])
    if np.isnan(half):
        return format_value(mean)
    return f"{format_value(mean)} ± {format_value(half)}"


def figure(results: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(results), figsize=(4.2 * len(results), 3.2), sharey=True)
    hours = np.arange(24)
    for ax, (name, r) in zip(np.atleast_1d(axes), results.items(), strict=True):
        ax.plot(hours, r["log_hourly"], "k-o", ms=3, label="log")
        sim = np.array([[run[f"hour_{h}"] for h in hours] for run in r["easy"]])
        mean, lo, hi = sim.mean(0), sim.min(0), sim.max(0)
        ax.plot(hours, mean, "C0-", label=f"fitted, EASY ({len(sim)} seeds)")
        ax.fill_between(hours, lo, hi, color="C0", alpha=0.25, lw=0)
        ax.set_title(name)
        ax.set_xlabel("local hour of submission")
        ax.set_xticks(range(0, 24, 4))
    np.atleast_1d(axes)[0].set_ylabel("share of submissions")
    np.atleast_1d(axes)[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def table_head(names: list[str], first: list[str]) -> list[str]:
    """Header and rule of a table with a log and a simulated column per site."""
    return [
        "| " + " | ".join(first) + " | " + " | ".join(f"{n} log | {n} simulated" for n in names) + " |",
        "|" + "---|" * len(first) + "---:|---:|" * len(names),
    ]


def document(results: dict[str, Any], seeds: int) -> str:
    names = list(results)
    lines = [
        "# Validation: fitted sites against their logs",
        "",
        "Generated by `python scripts/validate_population.py` (do not edit by hand). Each log",
        "is fitted with `sitesim fit` ([population.md](population.md)), the fitted site is",
        f"simulated for the log's duration, on its machine, with its users, {seeds} seeds",
        "(0–%d), exact runtime estimates, and every simulated trace is measured with the same" % (seeds - 1),
        "analysis as the log. Simulated values are means ± the half-width of the 95%",
        "Student-t confidence interval over the seeds. Utilisation is node-seconds run",
        "within the log's duration over machine size × duration, for log and simulation alike.",
        "",
        "**Fitted** (taken from the log): per-user arrival, active span, batch widths, gaps,",
        "think times, absences between sessions, jobs and repetitions, continuation offsets;",
        "the site's continuation curve against response time and its weekly cycle of session",
        "*starts*. **Checked without being targeted**: everything in the tables below — job",
        "counts and utilisation emerge from sessions, continuation and feedback; the",
        "submission cycle from session starts, within-session behaviour and waits.",
        "",
        "## Must-show 1: fitted, then simulated under EASY",
        "",
        *table_head(names, ["signature", "rule"]),
    ]
    verdicts = []
    for key, (kind, bound) in CHECKS.items():
        row = f"| {LABELS[key]} | {RULES[kind].format(bound)} |"
        for n in names:
            r = results[n]
            log_value = r["log"][key]
            ok = all(passes(key, log_value, run[key]) for run in r["easy"])
            verdicts.append(ok)
            row += f" {format_value(log_value)} | {cell(r['easy'], key)}{'' if ok else ' ✗'} |"
        lines.append(row)
    lines += [
        "",
        f"Every seed of every site meets every rule: **{'yes' if all(verdicts) else 'no'}**"
        " (a ✗ marks a signature where some seed does not).",
        "",
        "![hourly profile](figures/validation_hourly.png)",
        "",
        "Hourly profile of submissions in local time: the log (black) and the fitted site",
        "under EASY (blue: mean over the seeds, band: min–max).",
        "",
        "## Signatures not in the must-show list",
        "",
        *table_head(names, ["signature"]),
    ]
    for key in ("weekly_jobs_cv", "batches_per_session", "jobs_per_session", "session_hours", "continuation"):
        row = f"| {LABELS[key]} |"
        for n in names:
            row += f" {format_value(results[n]['log'][key])} | {cell(results[n]['easy'], key)} |"
        lines.append(row)
    for key in ("ks_size", "ks_runtime", "ks_think"):
        row = f"| {LABELS[key]} |"
        for n in names:
            row += f" 0 | {cell(results[n]['easy'], key)} |"
        lines.append(row)
    lines += [
        "",
        "KS distances compare all jobs' sizes and runtimes and all in-session think times of",
        "the simulated trace with the log's (two-sample statistic, largest CDF difference).",
        "",
        "Where the fit falls short: sessions hold about as many batches as the log's, but",
        "fewer jobs and fewer hours, because each batch's width is drawn independently",
        "while real users' long sessions come with wide batches; the simulated users make up",
        "the jobs with more sessions. At KTH the morning rise of submissions comes about an",
        "hour early (session starts follow the log; the jobs of a session follow them",
        "faster). The weekly job-count variation is below SDSC's: the log has quiet weeks",
        "(downtime, holidays) that nothing in the model produces. The Figure 1 correlation",
        "is negative, as in the logs, but weaker.",
        "",
        "## Must-show 2: feedback still works (FCFS against EASY on the fitted sites)",
        "",
        "Same fitted site, same seeds (so the same users drawing the same numbers), only the",
        "scheduler differs.",
        "",
        "| site | scheduler | jobs completed | mean wait (s) | batches per session | jobs per session | session length (h) | P(continue) |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for n in names:
        for sched in ("easy", "fcfs"):
            runs = results[n][sched]
            lines.append(
                f"| {n} | {sched.upper()} | {cell(runs, 'completed')} | {cell(runs, 'mean_wait')} |"
                f" {cell(runs, 'batches_per_session')} | {cell(runs, 'jobs_per_session')} |"
                f" {cell(runs, 'session_hours')} | {cell(runs, 'continuation')} |"
            )
    fewer = all(
        np.mean([r["completed"] for r in results[n]["fcfs"]]) < np.mean([r["completed"] for r in results[n]["easy"]])
        for n in names
    )
    shorter = all(
        np.mean([r["batches_per_session"] for r in results[n]["fcfs"]])
        < np.mean([r["batches_per_session"] for r in results[n]["easy"]])
        for n in names
    )
    lines += [
        "",
        f"FCFS completes fewer jobs than EASY on every site: **{'yes' if fewer else 'no'}**;"
        f" users hold fewer batches per session under FCFS: **{'yes' if shorter else 'no'}**.",
        "",
        "## Replay with feedback against the conventional replay (EASY, the logs' estimates)",
        "",
        "The log itself, replayed under EASY with its recorded runtime estimates: once",
        "conventionally (every job at its recorded time), once with feedback",
        "([feedback-replay.md](feedback-replay.md)). One deterministic run each.",
        "",
        "| log | replay | jobs completed | utilisation | mean wait (s) | mean bounded slowdown | daytime share | makespan (days) |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for n in names:
        for label, row in results[n]["replays"].items():
            lines.append(
                f"| {n} | {label} | {row['completed']:,.0f} | {row['utilization']:.3f} | {row['mean_wait']:,.0f} |"
                f" {row['mean_bounded_slowdown']:.2f} | {row['daytime_share']:.3f} | {row['makespan_days']:.1f} |"
            )
    if "no_waits" in results.get(NO_WAIT_LOG, {}):
        lines += no_wait_document(results[NO_WAIT_LOG], seeds)
    lines += [
        "",
        "The script takes about 2 minutes (85 CPU seconds) on the project's shared 2-core",
        "machine; the same seeds give the same document byte for byte.",
        "",
    ]
    return "\n".join(lines)


def no_wait_document(r: dict[str, Any], seeds: int) -> list[str]:
    """The section on a log without wait times (population.md, "Logs without wait times")."""
    nw = r["no_waits"]
    starts = nw["starts"]
    lines = [
        "",
        f"## A log without wait times: {NO_WAIT_LOG} with field 3 blanked",
        "",
        f"Field 3 (wait) of {NO_WAIT_LOG} set to -1 on every job, then fitted with `sitesim fit`:",
        f"its starts are simulated by replaying the log under {starts.policy.upper()} ({starts.policy_from};",
        f"{starts.replayed:,} jobs replayed on {starts.nodes} nodes,"
        f" {sum(starts.left_out.values()):,} left out as the cleaning would:"
        f" {', '.join(f'{n:,} {k}' for k, n in sorted(starts.left_out.items())) or 'none'}).",
        f"The fitted site is simulated under EASY over the same {seeds} seeds as the original fit's,",
        "and both are measured against the log with the must-show rules. The last column applies",
        "the same rule to the two fits' means: the fit without waits against the fit with them.",
        "",
        "| signature | rule | log | fitted to the log | fitted without waits"
        " | every seed within the rule of the log | within the rule of the original fit |",
        "|---|---|---:|---:|---:|:---:|:---:|",
    ]
    verdicts = []
    for key in NO_WAIT_KEYS:
        kind, bound = CHECKS[key]
        log_value = r["log"][key]
        ok_log = all(passes(key, log_value, run[key]) for run in nw["easy"])
        original = float(np.mean([run[key] for run in r["easy"]]))
        blanked = float(np.mean([run[key] for run in nw["easy"]]))
        ok_fit = passes(key, original, blanked)
        verdicts += [ok_log, ok_fit]
        lines.append(
            f"| {LABELS[key]} | {RULES[kind].format(bound)} | {format_value(log_value)} | {cell(r['easy'], key)} |"
            f" {cell(nw['easy'], key)} | {'yes' if ok_log else 'no'} | {'yes' if ok_fit else 'no'} |"
        )
    lines += [
        "",
        f"Every rule holds: **{'yes' if all(verdicts) else 'no'}**.",
        "",
        "What the fit measures from starts, on the log and on the log with simulated starts",
        "(`population.json` → `measured`; submissions, users and jobs are the log's either way):",
        "",
        "| measured | with the log's waits | with simulated starts |",
        "|---|---:|---:|",
    ]
    original_measured = r["measured"]
    for key, label in FIT_KEYS.items():
        lines.append(
            f"| {label} | {format_value(float(original_measured[key]))} | {format_value(float(nw['measured'][key]))} |"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", default=os.environ.get("SITESIM_TRACES"))
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--only", nargs="*", help="log names (default: all three)")
    parser.add_argument("--doc", type=Path, default=ROOT / "docs" / "validation.md")
    parser.add_argument("--skip-no-waits", action="store_true", help=f"leave out {NO_WAIT_LOG} without wait times")
    args = parser.parse_args()
    if not args.traces:
        parser.error("set SITESIM_TRACES or pass --traces")
    started = time.perf_counter()
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for name, file in LOGS.items():
            if args.only and name not in args.only:
                continue
            path = Path(args.traces) / file
            print(name, flush=True)
            site = work / name
            info = fit_log(path, site)
            measured = json.loads((site / "population.json").read_text())["measured"]
            log = trace_signatures(path)
            duration = info.days * 86400
            log.values["session_hours"] = session_hours(path)
            nodes = info.nodes
            results[name] = {
                "log": log.values,
                "log_hourly": log.hourly,
                "easy": run_site_seeds(site, log, "easy", args.seeds, work, nodes, duration),
                "fcfs": run_site_seeds(site, log, "fcfs", args.seeds, work, nodes, duration),
                "replays": replays(path, work, duration),
                "measured": measured,
            }
            if name == NO_WAIT_LOG and not args.skip_no_waits:
                print(f"{name} without wait times", flush=True)
                results[name]["no_waits"] = no_wait_fit(path, log, work, args.seeds)
    figure(results, ROOT / "docs" / "figures" / "validation_hourly.png")
    args.doc.write_text(document(results, args.seeds), encoding="utf-8")
    print(f"wrote {args.doc} in {(time.perf_counter() - started) / 60:.1f} min")
    return 0


if __name__ == "__main__":
    sys.exit(main())
