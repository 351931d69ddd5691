"""docs/validation.md written from the results of scripts/validate_population.py.

Every figure and every verdict in the document comes from the results; the prose
around them says what each table measures. What cannot be derived (why a rule is
missed) is kept in :data:`SHORTFALLS`, rewritten whenever the model changes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from attrs import frozen

from sitesim.experiments.validation import CHECKS, WAIT_CHECKS, format_value, mean_ci, passes, rules
from sitesim.users.population_table import FIT_GAPS, GAPS

#: The kinds of gaps inside a batch ``--other-gaps`` compares with the fit's default.
OTHER_GAPS = tuple(g for g in GAPS if g != FIT_GAPS)

RULES = {"rel": "±{:.0%} of the log", "abs": "±{:g}", "min": "≥ {:g}", "neg": "< 0", "factor": "×/÷ {:g} of the log"}
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
    "mean_wait": "mean wait (s)",
    "ks_size": "KS distance, sizes",
    "ks_runtime": "KS distance, runtimes",
    "ks_think": "KS distance, think times",
}
SESSION_KEYS = ("jobs_per_session", "session_hours", "night_share_in_session", "batches_per_session", "continuation")
#: The control for session signatures: the log's own jobs at their own submit times,
#: replayed under EASY with exact estimates (as the fitted sites are simulated). Its
#: sessions are the log's users' exactly; only the waits, hence the ends, are EASY's.
EXACT_REPLAY = "conventional replay, exact estimates"
#: The log whose wait times are blanked (scripts/validate_population.py, step 5).
NO_WAIT_LOG = "SDSC-SP2"
NO_WAIT_KEYS = ("jobs", "utilization", "daytime_share", "weekend_share", "users_per_week", "figure1_correlation")
FIT_KEYS = {
    "batches_per_session": "batches per session",
    "jobs_per_session": "jobs per session",
    "continuation": "P(continue after a batch)",
    "median_session_gap_hours": "median absence between sessions (h)",
}


@frozen
class Variant:
    """One way of serving a fitted site's users: a policy, behind the fitted service on
    its machine or alone on the nominal machine."""

    label: str
    #: None: the site's own policy (behind the service, the base policy the fit chose).
    scheduler: str | None
    service: bool


#: The runs made of every fitted site, by key; the first is the headline.
VARIANTS = {
    "service": Variant("fitted service", None, True),
    "easy": Variant("EASY, nominal machine", "easy", False),
    "fcfs": Variant("FCFS behind the fitted service", "fcfs", True),
    "hold": Variant("the log's waits (hold)", "hold", False),
}
#: Why rules are missed, written from the tables of the last run (rewrite it when the
#: model changes: it is the one part of the document not derived from the results).
SHORTFALLS: list[str] = [
    "By signature, the rules the fitted service misses (✗ above): none, on the development",
    "logs or on the held-out pair. Where the margins are thin, and what was missed before:",
    "",
    "- **NASA-iPSC's jobs per session** (missed before: 4.61 against 5.30, below the rule's",
    "  4.51 on one seed of five) is met since a fitted user deals its weekend's batches",
    "  apart from its weekdays' (docs/population.md, \"The weekend apart\"): 4.70, 4.55 to",
    "  4.78 over the seeds. What is left is EASY's waits (317 s a job, where the log's",
    "  starts simulated under EASY wait 4 s): the log records starts, so its signatures,",
    "  and a simulated trace of its site measured as that accounting would have recorded",
    "  it, are of starts (above), and a wait splits a session measured on starts. What its",
    "  users really waited the log cannot say: it is inside the gaps their think times",
    "  were fitted from.",
    "- **Held out: LANL-CM5's mean wait**, beyond ×2 in the previous rounds' validations",
    "  (3,800 s in the previous round's, over the bound of 3,692 s on three seeds of five),",
    "  is 3,491 s here, 3,305 to 3,626 s over the seeds: within the bound on every seed, by",
    "  2 to 10 %; but not on every seed beyond these five: over 15 seeds (`--seeds 15",
    "  --no-blanked`, seeds 0-14) it is over the bound on three (seeds 5, 7 and 11:",
    "  3,756, 4,270 and 3,990 s), while the development logs meet 43 of 43 on all 15 and",
    "  every other rule of the pair holds on all 15. The two runs of the weekend apart",
    "  that split the absences too gave",
    "  3,669 and 3,681 s, over on two and three seeds. EASY alone on the nominal machine",
    "  waits longer in the closed loop (3,639 s, over on three seeds), while the log's own",
    "  jobs on its own timeline wait less than the log under either (1,563 s under EASY,",
    "  1,611 s under its fitted service: docs/service.md, \"Replayed under the",
    "  service\"): the resampled users' work lands otherwise than the log's, and the log's",
    "  small jobs shared nodes (its header says so), which the simulated ones cannot.",
    "- **Met since the levels became the jobs' recorded ones** (`sitesim fit --levels",
    "  recorded`, the default; docs/service.md, \"Levels from the recorded",
    "  waits\"), and missed under the per-user Gaussian copula before: SDSC-SP2's session",
    "  length (15.6 h, 14.7 to 16.5 over the seeds, against 14.6, the bound 16.8; the",
    "  copula 16.9 h, over on two seeds), held-out SDSC-BLUE's jobs (224,393 against",
    "  232,540; the copula 187,103), jobs per session (4.91 against 5.26; the copula",
    "  4.13) and session length (16.4 h, 15.8 to 16.9, against 15.1, the bound 17.35;",
    "  the copula 18.7 h), and LANL-CM5's jobs per session (3.58 against 4.03, the bound",
    "  3.43; the copula 3.43). Jobs per session are still short at CTC-SP2 and SDSC-SP2,",
    "  by 5.5 and 7.3 % (3.79 and 3.57 against 4.01 and 3.85; KTH-SP2 3.93 against",
    "  3.88): what a job's level keeps of the log is which jobs waited long for their",
    "  size, not the gaps its user took while they waited (docs/service.md, \"Sessions",
    "  under the service\").",
]


def cell(runs: list[dict[str, float]], key: str) -> str:
    mean, half = mean_ci([r[key] for r in runs])
    if np.isnan(half):
        return format_value(mean)
    return f"{format_value(mean)} ± {format_value(half)}"


def held(r: dict[str, Any], variant: str, key: str) -> bool:
    """Whether every seed of ``variant`` meets the rule ``key`` against the log."""
    return all(passes(key, r["log"][key], run[key]) for run in r[variant])


def rule_keys(r: dict[str, Any]) -> list[str]:
    return list(rules(r["has_waits"]))


def count(results: dict[str, Any], variant: str) -> tuple[int, int]:
    """(rules every seed of ``variant`` meets, rules) over the logs of ``results``."""
    verdicts = [held(r, variant, key) for r in results.values() for key in rule_keys(r)]
    return sum(verdicts), len(verdicts)


def rule_text(key: str) -> str:
    kind, bound = CHECKS[key] if key in CHECKS else WAIT_CHECKS[key]
    return RULES[kind].format(bound)


def rules_table(results: dict[str, Any], variants: tuple[str, ...]) -> list[str]:
    """Signatures and rules down, per log the log's value and each variant's (✗: some
    seed misses the rule; – : the rule does not apply to that log)."""
    names = list(results)
    head = (
        "| signature | rule | " + " | ".join(f"{n} log | " + " | ".join(f"{n} {VARIANTS[v].label}" for v in variants) for n in names) + " |"
    )
    lines = [head, "|---|---|" + ("---:|" * (1 + len(variants))) * len(names)]
    for key in [*CHECKS, *WAIT_CHECKS]:
        row = f"| {LABELS[key]} | {rule_text(key)} |"
        for n in names:
            r = results[n]
            applies = key in rule_keys(r)
            row += f" {format_value(r['log'][key]) if applies or key in CHECKS else '–'} |"
            for v in variants:
                mark = "" if not applies or held(r, v, key) else " ✗"
                row += f" {cell(r[v], key)}{mark} |"
        lines.append(row)
    return lines


def verdict_line(results: dict[str, Any], variant: str, label: str) -> str:
    met, total = count(results, variant)
    return f"{label}: **{met} of {total}** rules met on every seed{' (all)' if met == total else ''}."


def figure(results: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(results), figsize=(3.6 * len(results), 3.2), sharey=True)
    hours = np.arange(24)
    for ax, (name, r) in zip(np.atleast_1d(axes), results.items(), strict=True):
        ax.plot(hours, r["log_hourly"], "k-o", ms=3, label="log")
        for colour, variant in (("C0", "service"), ("C1", "easy")):
            sim = np.array([[run[f"hour_{h}"] for h in hours] for run in r[variant]])
            ax.plot(hours, sim.mean(0), f"{colour}-", label=f"{VARIANTS[variant].label} ({len(sim)} seeds)")
            ax.fill_between(hours, sim.min(0), sim.max(0), color=colour, alpha=0.2, lw=0)
        ax.set_title(name + (" (held out)" if r["held_out"] else ""))
        ax.set_xlabel("local hour of submission")
        ax.set_xticks(range(0, 24, 4))
    np.atleast_1d(axes)[0].set_ylabel("share of submissions")
    np.atleast_1d(axes)[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def render(results: dict[str, Any]) -> str:
    """The whole document."""
    dev = {n: r for n, r in results.items() if not r["held_out"]}
    out = {n: r for n, r in results.items() if r["held_out"]}
    seeds = len(next(iter(results.values()))["service"])
    lines = [
        "# Validation: fitted sites against their logs",
        "",
        "Generated by `python scripts/validate_population.py` (do not edit by hand). Each log",
        "is fitted with `sitesim fit` (its users: [population.md](population.md); its machine",
        "and service: [service.md](service.md)), the fitted site is simulated for the log's",
        f"duration with its users, {seeds} seeds (0–{seeds - 1}), exact runtime estimates, and",
        "every simulated trace is measured with the same analysis as the log (a log without",
        "waits on the starts its fit simulated, and a simulated trace of its site as that",
        "log's accounting recorded jobs: each submitted at its start). Simulated values are",
        "means ± the half-width of the 95% Student-t confidence interval over the seeds; ✗",
        "marks a rule some seed misses. Utilisation is node-seconds run within the log's",
        "duration over machine size × duration, for log and simulation alike.",
        "",
        "**Fitted** (taken from the log): per-user arrival, active span, batches (each whole:",
        "its jobs, their waits and the gaps between them), think times, absences between",
        "sessions, continuation offsets; the site's continuation curve against response time,",
        "its weekly cycles of session starts and of submissions inside batches; the machine",
        "and the service's eligibility delays per size class, each job's read at its level:",
        "where the wait it had in the log falls among its size class's (a resampled job",
        "carries it). **Checked without being targeted**: everything in the tables below.",
        "Job counts and utilisation emerge from",
        "sessions, continuation and feedback; sessions are cut out of the simulated trace on",
        "the ends the simulated machine gave; the mean wait is the service's, on a machine",
        "the simulated users load.",
        "",
        "**Out of sample.** Before the fitted service was developed (issue 33), two of the",
        "five shared logs with waits were drawn with `numpy.random.default_rng(33).choice`",
        "and held out: **LANL-CM5 and SDSC-BLUE**. The model was developed on CTC-SP2,",
        "KTH-SP2, SDSC-SP2 and NASA-iPSC (a log without waits), and the held-out pair is",
        "reported apart below (docs/service.md says what was seen of it, and when).",
        "",
        "Four ways of serving the same fitted users, same seeds:",
        "",
        "- **fitted service** (the headline): the site as `sitesim --site DIR/site.toml`",
        "  runs it, the service's base policy (EASY, or `easy++` where the fit found it",
        '  closer to the log\'s waits: docs/service.md, "Which base policy") behind the',
        "  fitted eligibility delays on the fitted, bounded machine;",
        "- **EASY, nominal machine**: EASY alone on the header's machine, no delays;",
        "- **FCFS behind the fitted service**: another policy on the same machine and delays",
        '  ("Feedback" below);',
        "- **the log's waits (`hold`)**: every job of a fitted user starts the wait it had in",
        "  the log, whatever the nodes. A *consistency check* of the fit, not a validation:",
        "  it hands the users their own inputs back (below).",
        "",
        "Rules: the signatures below, and the mean wait within ×/÷ 2 of the log's where the",
        "log records waits (not NASA-iPSC, whose waits its fit simulated).",
        "",
    ]
    for title, logs in (
        ("Headline: the closed loop under the fitted service, development logs", dev),
        ("Held out: " + " and ".join(out), out),
    ):
        if logs:
            lines += [
                f"## {title}",
                "",
                *rules_table(logs, ("service", "easy")),
                "",
                verdict_line(logs, "service", "Fitted service"),
                verdict_line(logs, "easy", "EASY on the nominal machine"),
                "",
            ]
    if SHORTFALLS:
        lines += ["## Where the fit falls short", "", *SHORTFALLS, ""]
    lines += [
        "![hourly profile](figures/validation_hourly.png)",
        "",
        "Hourly profile of submissions in local time: the log (black), the fitted service",
        "(blue) and EASY on the nominal machine (orange); lines are means over the seeds,",
        "bands min–max.",
        "",
        *sessions_section(results),
        *feedback_section(results),
        *hold_section(results),
        *unruled_section(results),
        *replay_section(results),
    ]
    if "blanked" in results.get(NO_WAIT_LOG, {}):
        lines += blanked_section(results[NO_WAIT_LOG])
    others = list(OTHER_GAPS)
    if all(all(g in r for g in others) for r in results.values()):
        lines += gaps_section(results, others)
    else:
        lines += [
            "## Not re-run here: the other kinds of gaps inside a batch",
            "",
            f"The comparison of the fit's default gaps (`{FIT_GAPS}`) with the others",
            f"(`sitesim fit --gaps {' / '.join(others)}`) runs with `--other-gaps`; this page's",
            "history keeps its last results.",
            "",
        ]
    return "\n".join(lines)


def sessions_section(results: dict[str, Any]) -> list[str]:
    lines = [
        "## Sessions: the logs, the logs replayed under EASY, the fitted sites",
        "",
        "Sessions are cut out of a trace by the 20-minute rule on think times measured from",
        "job *ends*, so they hold the scheduler's waits as well as the users' behaviour.",
        "*Log replayed under EASY*: the log's own jobs at their own submit times under EASY",
        "with exact estimates on the nominal machine (the log's users exactly, EASY's",
        "waits). *Users' own account*: the sessions the simulated users held under the",
        "fitted service, as they report them (summary.json → `productivity`), before the",
        "analysis cuts their trace again.",
        "",
        "| log | signature | rule | log | log replayed under EASY | fitted service | EASY, nominal machine"
        " | the log's waits | users' own account |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for n, r in results.items():
        control = r["replays"][EXACT_REPLAY]
        for key in SESSION_KEYS:
            rule = rule_text(key) if key in CHECKS else "–"
            mark = (" ✓" if passes(key, r["log"][key], control[key]) else " ✗") if key in CHECKS else ""
            own = "–"
            if f"own_{key}" in r["service"][0]:
                own = cell(r["service"], f"own_{key}")
                if key in CHECKS and not all(passes(key, r["log"][key], run[f"own_{key}"]) for run in r["service"]):
                    own += " ✗"
            row = f"| {n} | {LABELS[key]} | {rule} | {format_value(r['log'][key])} | {format_value(control[key])}{mark} |"
            for v in ("service", "easy", "hold"):
                row += f" {cell(r[v], key)}{' ✗' if key in CHECKS and not held(r, v, key) else ''} |"
            lines.append(row + f" {own} |")
    return [*lines, "", "✓/✗ in the replay column: whether the log replayed under EASY meets the rule.", ""]


def feedback_section(results: dict[str, Any]) -> list[str]:
    lines = [
        "## Feedback: FCFS against the base policy behind the same fitted service",
        "",
        "Same fitted site, machine, delays and seeds (so the same users drawing the same",
        "numbers); only the policy differs.",
        "",
        "| site | policy | jobs completed | mean wait (s) | batches per session | jobs per session | session length (h) | P(continue) |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for n, r in results.items():
        for v, label in (("service", "base policy"), ("fcfs", "FCFS")):
            runs = r[v]
            lines.append(
                f"| {n} | {label} | {cell(runs, 'completed')} | {cell(runs, 'mean_wait')} |"
                f" {cell(runs, 'batches_per_session')} | {cell(runs, 'jobs_per_session')} |"
                f" {cell(runs, 'session_hours')} | {cell(runs, 'continuation')} |"
            )
    fewer = [
        n for n, r in results.items() if np.mean([x["completed"] for x in r["fcfs"]]) < np.mean([x["completed"] for x in r["service"]])
    ]
    return [
        *lines,
        "",
        f"FCFS completes fewer jobs than the base policy on {len(fewer)} of {len(results)} sites"
        f"{' (' + ', '.join(n for n in results if n not in fewer) + ' not)' if len(fewer) < len(results) else ''}.",
        "",
    ]


def hold_section(results: dict[str, Any]) -> list[str]:
    lines = [
        "## Consistency check: the users given their log's waits (`hold`)",
        "",
        "Under `hold` every job of a fitted user starts the wait it had in the log after its",
        "submission, whatever the nodes. The users resample their own batches, gaps and",
        "waits, so this checks the fit's resampling (do the fitted users, served as in their",
        "log, submit the log's work, sessions and cycle?), not a machine: no other policy",
        "can run there, and the nodes in use pass the machine's size.",
        "",
        *rules_table(results, ("hold",)),
        "",
        verdict_line(results, "hold", "The log's waits"),
        "",
        "How far from a machine (share of the time the nodes in use exceed the machine,",
        "share of the node-seconds run above it, peak over the machine's size):",
        "",
        "| log | time above the machine | node-seconds above it | peak / machine size |",
        "|---|---:|---:|---:|",
    ]
    for n, r in results.items():
        lines.append(f"| {n} | {cell(r['hold'], 'over_time')} | {cell(r['hold'], 'over_work')} | {cell(r['hold'], 'over_peak')} |")
    return [*lines, ""]


def unruled_section(results: dict[str, Any]) -> list[str]:
    names = list(results)
    lines = [
        "## Signatures without a rule (fitted service)",
        "",
        "| signature | " + " | ".join(f"{n} log | {n} simulated" for n in names) + " |",
        "|---|" + "---:|---:|" * len(names),
    ]
    for key in ("weekly_jobs_cv", "batches_per_session", "continuation", "night_share_of_session_starts"):
        lines.append(
            f"| {LABELS[key]} |" + "".join(f" {format_value(results[n]['log'][key])} | {cell(results[n]['service'], key)} |" for n in names)
        )
    for key in ("ks_size", "ks_runtime", "ks_think"):
        lines.append(f"| {LABELS[key]} |" + "".join(f" 0 | {cell(results[n]['service'], key)} |" for n in names))
    return [
        *lines,
        "",
        "KS distances compare all jobs' sizes and runtimes and all in-session think times of",
        "the simulated trace with the log's (two-sample statistic, largest CDF difference).",
        "",
    ]


def replay_section(results: dict[str, Any]) -> list[str]:
    lines = [
        "## Replay with feedback against the conventional replay (EASY, the logs' estimates)",
        "",
        "The log itself on the nominal machine under EASY with its recorded estimates: once",
        "conventionally (every job at its recorded time), once with feedback",
        "([feedback-replay.md](feedback-replay.md)). One deterministic run each.",
        "",
        "| log | replay | jobs completed | utilisation | mean wait (s) | mean bounded slowdown | daytime share | makespan (days) |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for n, r in results.items():
        for label, row in r["replays"].items():
            if label != EXACT_REPLAY:
                lines.append(
                    f"| {n} | {label} | {row['completed']:,.0f} | {row['utilization']:.3f} | {row['mean_wait']:,.0f} |"
                    f" {row['mean_bounded_slowdown']:.2f} | {row['daytime_share']:.3f} | {row['makespan_days']:.1f} |"
                )
    return [*lines, ""]


def blanked_section(r: dict[str, Any]) -> list[str]:
    starts = r["blanked_starts"]
    lines = [
        f"## A log without wait times: {NO_WAIT_LOG} with field 3 blanked",
        "",
        f"Field 3 (wait) of {NO_WAIT_LOG} set to -1 on every job, then fitted with `sitesim fit`:",
        f"its starts are simulated by replaying the log under {starts.policy.upper()} ({starts.policy_from};",
        f"{starts.replayed:,} jobs replayed on {starts.nodes} nodes). Both fits are simulated under",
        "EASY on the nominal machine, same seeds, and measured against the log; the last",
        "column applies the same rule to the two fits' means.",
        "",
        "| signature | rule | log | fitted to the log | fitted without waits"
        " | every seed within the rule of the log | within the rule of the original fit |",
        "|---|---|---:|---:|---:|:---:|:---:|",
    ]
    for key in NO_WAIT_KEYS:
        ok_log = held(r, "blanked", key)
        ok_fit = passes(key, float(np.mean([x[key] for x in r["easy"]])), float(np.mean([x[key] for x in r["blanked"]])))
        lines.append(
            f"| {LABELS[key]} | {rule_text(key)} | {format_value(r['log'][key])} | {cell(r['easy'], key)} |"
            f" {cell(r['blanked'], key)} | {'yes' if ok_log else 'no'} | {'yes' if ok_fit else 'no'} |"
        )
    lines += [
        "",
        "What the fit measures from starts (`population.json` → `measured`):",
        "",
        "| measured | with the log's waits | with simulated starts |",
        "|---|---:|---:|",
    ]
    for key, label in FIT_KEYS.items():
        lines.append(f"| {label} | {format_value(float(r['measured'][key]))} | {format_value(float(r['blanked_measured'][key]))} |")
    return [*lines, ""]


def gaps_section(results: dict[str, Any], others: list[str]) -> list[str]:
    lines = [
        "## Gaps inside a batch: the fit's default against the other kinds",
        "",
        "Same logs and seeds, behind the fitted service: users who take up a batch whose",
        f"jobs so far ended when they are there to see it (`{FIT_GAPS}`, the fit's default),",
        "who keep the log's gaps whatever their jobs did (`fixed`), and who always take it",
        "up a think time after the end (`reacting`): docs/population.md, \"Reacting inside",
        "a batch\".",
        "",
        f"| log | signature | rule | log | {FIT_GAPS} (default) | {' | '.join(others)} |",
        f"|---|---|---|---:|---:|{'---:|' * len(others)}",
    ]
    for n, r in results.items():
        for key in CHECKS:
            row = f"| {n} | {LABELS[key]} | {rule_text(key)} | {format_value(r['log'][key])} |"
            for v in ("service", *others):
                row += f" {cell(r[v], key)}{'' if held(r, v, key) else ' ✗'} |"
            lines.append(row)
    return [*lines, ""]
