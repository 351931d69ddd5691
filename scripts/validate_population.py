"""Regenerate docs/validation.md: fitted sites simulated and compared with their logs.

For SDSC-SP2, CTC-SP2, KTH-SP2, LANL-CM5 and SDSC-BLUE (in ``$SITESIM_TRACES`` or ``--traces``):

1. ``sitesim fit`` the log;
2. simulate the fitted site under EASY and under FCFS, 5 seeds each, for the log's
   duration, on its machine, with its users (exact estimates, the simulator's default);
3. measure each simulated trace with the same analysis as the log and compare
   (means with 95% Student-t confidence intervals over the seeds);
4. replay the log under EASY, conventionally and with feedback, and compare;
5. blank field 3 (wait) of SDSC-SP2, fit that log (its starts simulated under EASY),
   simulate it the same way and compare with the log and with the original fit;
6. fit each log again with users reacting inside a batch (``--gaps reacting``),
   simulate it under EASY with the same seeds and compare (``--skip-reacting``: not).

Usage: ``python scripts/validate_population.py [--traces DIR] [--seeds 5]``. Takes
18 to 22 minutes on a shared 2-core machine (LANL-CM5 and SDSC-BLUE, the larger logs,
two thirds of it; the fits with users reacting about a fifth). Writes docs/validation.md and docs/figures/validation_hourly.png;
``--save FILE`` also keeps the measured results, and ``--load FILE`` writes the
document again from them without simulating.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
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
    simulate_fitted,
    trace_signatures,
)
from sitesim.runs.fit import fit_log  # noqa: E402

LOGS = {
    "SDSC-SP2": "SDSC-SP2-1998-4.2-cln.swf.gz",
    "CTC-SP2": "CTC-SP2-1996-3.1-cln.swf.gz",
    "KTH-SP2": "KTH-SP2-1996-2.1-cln.swf.gz",
    "LANL-CM5": "LANL-CM5-1994-4.1-cln.swf.gz",
    "SDSC-BLUE": "SDSC-BLUE-2000-4.2-cln.swf.gz",
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
    "night_share_in_session": "night share of in-session jobs",
    "night_share_of_session_starts": "night share of session starts",
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
        values["completed"] = float(summary["completed"])
        # the users' own account of their sessions (docs/metrics.md, "User productivity")
        own = json.loads((out / "summary.json").read_text())["productivity"]
        for key, name in OWN_KEYS.items():
            values[f"own_{key}"] = float(own[name])
        values["mean_wait"] = float(summary["mean_wait"])
        runs.append(values)
        shutil.rmtree(out)
        print(f"  {site.name} {scheduler} seed {seed}: {values['jobs']:.0f} jobs, util {values['utilization']:.3f}", flush=True)
    return runs


def replays(path: Path, work: Path, duration: float) -> dict[str, dict[str, float]]:
    from sitesim.runs.replay import ReplayConfig, run_replay

    rows = {}
    for label, feedback, estimates in (
        ("conventional replay", None, "trace"),
        ("replay with feedback", "absolute", "trace"),
        (EXACT_REPLAY, None, "exact"),
    ):
        out = work / label.replace(" ", "-").replace(",", "")
        config = ReplayConfig(trace=str(path), scheduler="easy", feedback=feedback, estimates=estimates)
        result = run_replay(config, out=out)
        sig = trace_signatures(out / "schedule.swf", nodes=result.nodes, duration=duration)
        s = result.summary
        rows[label] = {
            "completed": float(s["completed"]),
            "utilization": float(s["utilization"]),
            "mean_wait": float(s["mean_wait"]),
            "mean_bounded_slowdown": float(s["mean_bounded_slowdown"]),
            "daytime_share": sig.values["daytime_share"],
            "makespan_days": float(s["makespan"]) / 86400,
            **{k: sig.values[k] for k in SESSION_KEYS},
        }
        shutil.rmtree(out)
    return rows


#: The control for session signatures: the log's own jobs at their own submit times,
#: replayed under EASY with exact estimates (as the fitted sites are simulated). Its
#: sessions are the log's users' exactly; only the waits, hence the ends, are EASY's.
EXACT_REPLAY = "conventional replay, exact estimates"
SESSION_KEYS = ("jobs_per_session", "session_hours", "night_share_in_session", "batches_per_session", "continuation")
#: Session signatures as the simulated users report their own sessions (summary.json,
#: productivity), beside the same signatures measured on their trace.
OWN_KEYS = {"jobs_per_session": "jobs_per_session", "session_hours": "mean_session_hours", "batches_per_session": "batches_per_session"}
CHANGED_KEYS = tuple(CHECKS)
#: The must-show signatures before a fitted user resampled its own batches and absences
#: however few, dealt without replacement (the pool below 5 observations, independent
#: draws), measured with this script's analysis on the simulated traces of the model at
#: commit 3456ea9, same seeds (0-4), EASY: means over the seeds.
BEFORE: dict[str, dict[str, float]] = {
    "SDSC-SP2": dict(zip(CHANGED_KEYS, (
        51336.8, 0.851298, 0.615186, 0.192384, 6.23652, 41.7111, -0.793975, 3.30935, 14.6208, 0.38203), strict=True)),
    "CTC-SP2": dict(zip(CHANGED_KEYS, (
        79557.2, 0.896295, 0.678616, 0.207251, 9.7225, 124.912, -0.720604, 3.46394, 12.6618, 0.318961), strict=True)),
    "KTH-SP2": dict(zip(CHANGED_KEYS, (
        29263.4, 0.724804, 0.750516, 0.16128, 25.6846, 40.4667, -0.714453, 3.31551, 9.41038, 0.246165), strict=True)),
    "LANL-CM5": dict(zip(CHANGED_KEYS, (
        108349, 0.65172, 0.670424, 0.17276, 10.9522, 50.3392, -0.633825, 3.21303, 3.83683, 0.324379), strict=True)),
    "SDSC-BLUE": dict(zip(CHANGED_KEYS, (
        223917, 0.801488, 0.616525, 0.17069, 5.08721, 85.7871, -0.545879, 3.91842, 8.86512, 0.378141), strict=True)),
}
#: The rules some seed missed at that commit (its validation.md): ✗ in the "before"
#: column means what it means in the "after" one.
BEFORE_MISSED = {
    ("SDSC-SP2", "jobs_per_session"), ("CTC-SP2", "jobs_per_session"), ("CTC-SP2", "session_hours"),
    ("CTC-SP2", "night_share_in_session"), ("KTH-SP2", "jobs_per_session"), ("KTH-SP2", "session_hours"),
    ("LANL-CM5", "utilization"), ("LANL-CM5", "jobs_per_session"), ("SDSC-BLUE", "jobs_per_session"),
    ("SDSC-BLUE", "session_hours"),
}

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
        "**Fitted** (taken from the log): per-user arrival, active span, batches (each whole:",
        "its jobs and the gaps between them), think times, absences between sessions,",
        "continuation offsets;",
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
        *sessions_document(results),
        "## Signatures not in the must-show list",
        "",
        *table_head(names, ["signature"]),
    ]
    for key in ("weekly_jobs_cv", "batches_per_session", "continuation", "night_share_of_session_starts"):
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
        "Where the fit falls short (the ✗ above):",
        "",
        "- **Jobs per session** at KTH-SP2, LANL-CM5 and SDSC-BLUE, and **session length** at",
        "  CTC-SP2, KTH-SP2 and SDSC-BLUE, measured on the simulated traces. By their own",
        "  account the simulated users hold as many jobs per session as the log's users on",
        "  every log, and sessions as long in hours at CTC-SP2, KTH-SP2 and SDSC-BLUE",
        "  (\"Sessions\" above: 15.3 h against 15.3 h, 13.3 h against 14.5 h, 13.4 h against",
        "  15.1 h), longer at SDSC-SP2 and LANL-CM5. The analysis then cuts their sessions",
        "  again wherever every job of a batch ended more than 20 minutes before the user's",
        "  next submission, and whether that happens depends on the waits: EASY's here, the",
        "  log's scheduler's in the log. The log's own jobs replayed under EASY miss the",
        "  session-length rule on every log too (shorter on four, longer at LANL-CM5). The",
        "  pieces add session starts at night: the night share of measured session starts is",
        "  0.03–0.11 above the log's on every log (signatures below).",
        "- **Utilisation at LANL-CM5** (0.638 against 0.744; 0.652 before this round). Under",
        "  EASY the log's own jobs wait four times as long as they did in the log (7,567 s",
        "  on average against 1,846 s), so the fitted users, whose continuation falls with",
        "  the response time, go on after fewer batches (P(continue) 0.561 against 0.617) and",
        "  submit fewer jobs (101,474 against 122,057, within its rule). At CTC-SP2 it goes",
        "  the other way, within the rule (0.892 against 0.842): the log's scheduler kept some",
        "  users waiting for days, EASY serves them sooner, and they come back sooner",
        "  (population.md, \"Fallback\").",
        "- **The night share of in-session jobs at CTC-SP2** (0.320 against 0.368; 0.319",
        "  before): the CTC-SP2 site's submissions lean to the day (daytime share 0.678",
        "  against 0.641, within its rule); neither resampling batches whole nor dealing them",
        "  moved it.",
        "",
        "The weekly job-count variation is below the log's on every log, most at LANL-CM5",
        "(0.187 against 0.301) and SDSC-SP2: nothing in the model makes quiet weeks (downtime,",
        "holidays), which SDSC-SP2's log has. Dealing absences lowered it at LANL-CM5, SDSC-BLUE",
        "and KTH-SP2 (from 0.218, 0.291 and 0.309): a user's sessions now spread over its",
        "visit as its absences did, without the clusters independent draws make. The",
        "Figure 1 correlation is negative, as in the logs, but weaker at SDSC-BLUE and KTH-SP2.",
        "At KTH-SP2 the morning rise of submissions comes about an hour early (session",
        "starts follow the log; the jobs of a session follow them faster).",
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
            if label == EXACT_REPLAY:
                continue
            lines.append(
                f"| {n} | {label} | {row['completed']:,.0f} | {row['utilization']:.3f} | {row['mean_wait']:,.0f} |"
                f" {row['mean_bounded_slowdown']:.2f} | {row['daytime_share']:.3f} | {row['makespan_days']:.1f} |"
            )
    if "no_waits" in results.get(NO_WAIT_LOG, {}):
        lines += no_wait_document(results[NO_WAIT_LOG], seeds)
    lines += [
        "",
        "The script takes 18 to 22 minutes on the project's shared 2-core machine, by its load",
        "(the two larger logs, LANL-CM5 and SDSC-BLUE, two thirds of it; the fits with users",
        "reacting about a fifth); the same seeds give",
        "the same document byte for byte.",
        "",
    ]
    return "\n".join(lines)


def sessions_document(results: dict[str, Any]) -> list[str]:
    """Sessions of the fitted sites against the log's and the log replayed under EASY,
    and the session rules before and after batches were resampled whole."""
    lines = [
        "## Sessions: the logs, the logs replayed under EASY, the fitted sites",
        "",
        "Sessions are cut out of a trace by the 20-minute rule on think times measured from",
        "job *ends*, so what the analysis finds holds the scheduler's waits as well as the",
        "users' behaviour. Two controls separate them. *Log replayed under EASY*: the log's",
        "own jobs at their own submit times under EASY with exact estimates, as the fitted",
        "sites are simulated: the log's users exactly, with EASY's waits; a rule it misses",
        "is one no model of the users can be sure to meet under EASY. *Users' own account*:",
        "the sessions the simulated users held, as they report them (summary.json →",
        "`productivity`: a session from its first submission to the end of the job its last",
        "batch waited for), before the analysis cuts their trace again.",
        "",
        "| log | signature | rule | log | log replayed under EASY | fitted site under EASY | users' own account |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for n, r in results.items():
        control = r["replays"][EXACT_REPLAY]
        for key in SESSION_KEYS:
            rule = RULES[CHECKS[key][0]].format(CHECKS[key][1]) if key in CHECKS else "–"
            mark = own = ""
            if key in CHECKS:
                mark = " ✓" if passes(key, r["log"][key], control[key]) else " ✗"
            if key in OWN_KEYS:
                own = cell(r["easy"], f"own_{key}")
                if key in CHECKS:
                    own += "" if all(passes(key, r["log"][key], run[f"own_{key}"]) for run in r["easy"]) else " ✗"
            lines.append(
                f"| {n} | {LABELS[key]} | {rule} | {format_value(r['log'][key])} |"
                f" {format_value(control[key])}{mark} | {cell(r['easy'], key)} | {own or '–'} |"
            )
    lines += [
        "",
        "✓/✗ in the replay column: whether the log replayed under EASY meets the rule; ✗ in",
        "the last column: some seed's own account misses it.",
        "",
    ]
    if BEFORE:
        lines += [
            "### What changed: each user's own batches and absences, dealt",
            "",
            "A fitted user resamples its batches of the log whole (jobs and gaps), a session",
            "opening with one of its session-opening batches (population.md, \"Batches",
            "resampled whole\"). Before this round a user with fewer than 5 batches or",
            "absences drew from everyone's, mostly frequent users' (hours-long absences, heavy",
            "opening batches), and every draw was independent, which fits more sessions into a",
            "visit than a heavy-tailed set of absences held. Now a user resamples its own",
            "however few, dealt without replacement (population.md, \"Fallback\" and \"Dealt,",
            "not drawn\"). Every seed meets %d of the %d rules, against 40 before (the"
            % (met_every_seed(results, "easy"), len(results) * len(CHECKS)),
            "validation of commit 3456ea9). Means over the same seeds, before → after (✗: some",
            "seed misses the rule):",
            "",
            "| log | signature | rule | log | before | after |",
            "|---|---|---|---:|---:|---:|",
        ]
        for n, r in results.items():
            for key in CHANGED_KEYS:
                if key not in BEFORE.get(n, {}):
                    continue
                kind, bound = CHECKS[key]
                after = float(np.mean([run[key] for run in r["easy"]]))
                ok = all(passes(key, r["log"][key], run[key]) for run in r["easy"])
                lines.append(
                    f"| {n} | {LABELS[key]} | {RULES[kind].format(bound)} | {format_value(r['log'][key])} |"
                    f" {format_value(BEFORE[n][key])}{' ✗' if (n, key) in BEFORE_MISSED else ''} |"
                    f" {format_value(after)}{'' if ok else ' ✗'} |"
                )
        lines.append("")
    if all("reacting" in r for r in results.values()):
        lines += reacting_document(results)
    return lines


def met_every_seed(results: dict[str, Any], variant: str) -> int:
    """How many (log, rule) pairs every seed of ``variant`` meets."""
    return sum(
        all(passes(key, r["log"][key], run[key]) for run in r[variant]) for r in results.values() for key in CHECKS
    )


def reacting_document(results: dict[str, Any]) -> list[str]:
    """The must-show rules with the gaps inside a batch kept (the default) and with
    users reacting to their jobs' ends (``sitesim fit --gaps reacting``)."""
    lines = [
        "### Tried: users reacting inside a batch (`sitesim fit --gaps reacting`)",
        "",
        "The pieces come from gaps inside a batch: each was laid down in the log while an",
        "earlier job of the batch still waited or ran, and when EASY ends that job sooner the",
        "simulated user idles past its end. A fit with `--gaps reacting` makes the users take",
        "up their batch a think time (one of their own, laid down in operational time) after",
        "every earlier job of it ended, when that comes before the gap (docs/population.md).",
        "Same logs, same seeds, EASY; ✗: some seed misses the rule.",
        "",
        "| log | signature | rule | log | gaps kept (default) | reacting |",
        "|---|---|---|---:|---:|---:|",
    ]
    for n, r in results.items():
        for key, (kind, bound) in CHECKS.items():
            row = f"| {n} | {LABELS[key]} | {RULES[kind].format(bound)} | {format_value(r['log'][key])} |"
            for variant in ("easy", "reacting"):
                ok = all(passes(key, r["log"][key], run[key]) for run in r[variant])
                row += f" {cell(r[variant], key)}{'' if ok else ' ✗'} |"
            lines.append(row)
    lines += [
        "",
        f"Rules every seed meets, of {len(results) * len(CHECKS)}: {met_every_seed(results, 'easy')} with the"
        f" gaps kept, {met_every_seed(results, 'reacting')} with users reacting.",
        "",
        *REACTING_VERDICT,
        "",
    ]
    return lines


#: What the comparison above showed, written from its table (same seeds, so the same
#: numbers on every regeneration; rewrite it when the model changes).
REACTING_VERDICT = [
    "Users who react bring jobs per session within its rule on every log and every seed,",
    "and with it session length and the night share of in-session jobs at CTC-SP2 and",
    "the utilisation at LANL-CM5. They cost utilisation at CTC-SP2, KTH-SP2 and SDSC-BLUE",
    "(0.940, 0.786 and 0.860 against the logs' 0.842, 0.687 and 0.766), session length at",
    "SDSC-SP2 (17.8 h against 14.6 h) and the night share of in-session jobs at KTH-SP2",
    "(0.282 against 0.242, some seed outside the rule); session length still falls short",
    "at KTH-SP2 and SDSC-BLUE (11.3 h and 11.0 h against 14.5 h and 15.1 h). A trial with",
    "the reaction laid down in real time (code not kept), before this round's change, met",
    "38 of the 50 rules: it took batches up at night as fast as by day (means of the night",
    "share of in-session jobs 0.297 at KTH-SP2 and 0.377 at LANL-CM5, of the daytime share",
    "0.710 and 0.631, some seed outside the rule in each), so the reaction is laid down in",
    "operational time, as the gaps are. The default stays `fixed`: one rule more (43",
    "against 42) does not make the case for it, and the utilisation reacting users add is",
    "the feedback population.md describes (\"Fallback\"), larger: served sooner inside a",
    "batch as well, they end their sessions and come back sooner still.",
]


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
    parser.add_argument("--only", nargs="*", help="log names (default: all five)")
    parser.add_argument("--doc", type=Path, default=ROOT / "docs" / "validation.md")
    parser.add_argument("--skip-no-waits", action="store_true", help=f"leave out {NO_WAIT_LOG} without wait times")
    parser.add_argument(
        "--skip-reacting", action="store_true", help="leave out the fits whose users react inside a batch"
    )
    parser.add_argument("--save", type=Path, help="also pickle the measured results to this file")
    parser.add_argument("--load", type=Path, help="write the document from results pickled by --save")
    args = parser.parse_args()
    if args.load:
        results = pickle.loads(args.load.read_bytes())
        figure(results, ROOT / "docs" / "figures" / "validation_hourly.png")
        args.doc.write_text(document(results, args.seeds), encoding="utf-8")
        return 0
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
            nodes = info.nodes
            results[name] = {
                "log": log.values,
                "log_hourly": log.hourly,
                "easy": run_site_seeds(site, log, "easy", args.seeds, work, nodes, duration),
                "fcfs": run_site_seeds(site, log, "fcfs", args.seeds, work, nodes, duration),
                "replays": replays(path, work, duration),
                "measured": measured,
            }
            if not args.skip_reacting:
                print(f"{name} with users reacting inside a batch", flush=True)
                reacting = work / f"{name}-reacting"
                fit_log(path, reacting, gaps="reacting")
                results[name]["reacting"] = run_site_seeds(reacting, log, "easy", args.seeds, work, nodes, duration)
            if name == NO_WAIT_LOG and not args.skip_no_waits:
                print(f"{name} without wait times", flush=True)
                results[name]["no_waits"] = no_wait_fit(path, log, work, args.seeds)
    if args.save:
        args.save.write_bytes(pickle.dumps(results))
    figure(results, ROOT / "docs" / "figures" / "validation_hourly.png")
    args.doc.write_text(document(results, args.seeds), encoding="utf-8")
    print(f"wrote {args.doc} in {(time.perf_counter() - started) / 60:.1f} min")
    return 0


if __name__ == "__main__":
    sys.exit(main())
