"""docs/study.md's worked example, regenerated: seven policies studied on a site fitted to KTH-SP2.

The example's numbers must be those of the study as the code now runs it, so they are
not pasted by hand: this script fits the log, runs ``sitesim study`` as the doc shows it
(a child process, so that its CPU time, workers included, can be measured when it
exits), and writes the part of the page that holds measured numbers from the study's
own rows, with the study package's own table and paragraph functions. The doc and the
study's report.html then print the same numbers the same way.

    SITESIM_TRACES=DIR nice -n 5 python scripts/study_example.py --doc docs/study.md

Writes the report's figures as docs/figures/study_*.png and replaces what lies between
``<!-- example: begin -->`` and ``<!-- example: end -->`` in the doc: the counts and
times of the run, the metric table, the generated paragraph and the figure links. The
hand-written reading of the results stays after the end marker; it is not regenerated,
so read it again when the numbers move. ``--work DIR`` keeps the fitted site and the
study (results.csv, cross.csv, report.html); a second run into it resumes the study.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Sequence
from pathlib import Path

from estimates_table import write_doc

from sitesim.runs.fit import FitSummary, fit_log
from sitesim.study import StudyConfig, prepare
from sitesim.study.build import REPORT, Study
from sitesim.study.cross import Cell, matrix, predictions
from sitesim.study.narrative import paragraph
from sitesim.study.report import estimate_text
from sitesim.study.runs import REPLAYS, RESULTS, selected
from sitesim.study.tables import LABELS, metric_entries
from sitesim.sweep.run import Row
from sitesim.sweep.store import read_rows

KTH_LOG = "KTH-SP2-1996-2.1-cln.swf.gz"
POLICIES = ("fcfs", "easy", "cons", "sjbf", "easy++", "los", "multifactor")
SEEDS = 5
JOBS = 2
#: The metric table's columns: one or two per group of the report, the ones the
#: example's reading relies on.
COLUMNS = ("mean_wait", "mean_bounded_slowdown", "throughput_per_day", "utilization", "jobs_per_active_day")
START, END = "<!-- example: begin -->", "<!-- example: end -->"
#: Figure name (study_NAME.png) and its caption in the doc; {seeds} is filled in.
FIGURES = (
    ("wait", "Mean wait per policy, mean and 95% CI over {seeds} seeds"),
    ("cdf", "Wait-time distribution per policy, seed 0"),
    ("load", "Utilisation and queue length over time, seed 0"),
    ("cross_{users}", "The open model's error of the mean wait, every trace under every policy"),
)


def duration(seconds: float) -> str:
    """``5 min 39 s``: how long a person waited, to the second."""
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes} min {secs} s" if minutes else f"{secs} s"


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def study_rows(study: Study, out: Path) -> tuple[list[Row], list[Cell]]:
    """The study's site-level rows and its cross-matrix cells, as write_outputs builds them."""
    site_rows = selected(read_rows(out / RESULTS)[1], study.plan.site_points)
    replay_rows = selected(read_rows(out / REPLAYS)[1], study.plan.replay_points)
    cells = matrix(predictions(site_rows, replay_rows, study.plan.sources), list(study.config.policies))
    return site_rows, cells


def metric_table(rows: Sequence[Row], users: int, policies: Sequence[str]) -> list[str]:
    """The report's metric cells in Markdown: bold for the best, ``\\*`` where the report stars."""
    entries = {m: metric_entries(rows, users, policies, m) for m in COLUMNS}
    lines = ["| policy | " + " | ".join(LABELS[m] for m in COLUMNS) + " |", "|---" * (len(COLUMNS) + 1) + "|"]
    for p in policies:
        cells = []
        for m in COLUMNS:
            e = entries[m].get(p)
            if e is None:
                cells.append("–")
                continue
            text = estimate_text(e.mean, e.ci)
            cells.append((f"**{text}**" if e.best else text) + (" \\*" if e.significant else ""))
        lines.append(f"| {p} | " + " | ".join(cells) + " |")
    return lines


def done(study: Study, out: Path) -> tuple[int, int]:
    """How many of the study's site-level runs and replays have rows in ``out``."""
    counts = []
    for name, points in ((RESULTS, study.plan.site_points), (REPLAYS, study.plan.replay_points)):
        counts.append(len(selected(read_rows(out / name)[1], points)) if (out / name).exists() else 0)
    return counts[0], counts[1]


def wrapped(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width``, never splitting a number from its unit or
    an option from its value (``8,234 s``, ``-j 2``)."""
    glued = re.sub(r"(\d|-j) (s\b|\d)", "\\1\0\\2", text)
    lines = textwrap.wrap(glued, width=width, break_long_words=False, break_on_hyphens=False)
    return [line.replace("\0", " ") for line in lines]


def block(fit: FitSummary, study: Study, out: Path, ran: tuple[int, int], wall: float, cpu: float) -> str:
    """The generated part of the example, from the study's rows and the run's measured times."""
    policies = list(study.config.policies)
    seeds = len(study.config.seeds)
    users = fit.users
    site_rows, cells = study_rows(study, out)
    sites, replays = len(study.plan.site_points), len(study.plan.replay_points)
    resumed = "" if ran == (sites, replays) else (
        f" (resumed: {ran[0]} site-level runs and {ran[1]} replays ran this time, and the times are theirs)")
    intro = (
        f"The fit found {fit.users} users and {fit.jobs:,} jobs over {fit.days:.1f} days on {fit.nodes} nodes."
        f" The site is the fitted population with {study.base.estimates} estimates (the site file sets none);"
        f" its users and duration are the log's. The study made {sites} site-level runs and {replays}"
        f" replays{resumed} in {duration(wall)} of wall time on {JOBS} worker processes (`-j {JOBS}`,"
        f" `nice -n 5`, on a machine shared with other work) and {duration(cpu)} of CPU time, the"
        f" command's and its workers' together. The output folder holds {folder_bytes(out) / 1e6:.0f} MB,"
        " mostly the first seed's traces, one per policy."
    )
    text = paragraph(site_rows, cells, users, policies, seeds)
    parts = [
        *wrapped(intro, 88), "",
        "The report's metric tables, in short: mean ± 95% CI over the seeds; bold is the best,",
        "and \\* marks a significant difference from the best (95%, paired over seeds).", "",
        *metric_table(site_rows, users, policies), "",
        "The report's paragraph, as generated:", "",
        *(f"> {line}" for line in wrapped(text, 86)), "",
    ]
    for name, caption in FIGURES:
        parts += [f"![{caption.format(seeds=seeds)}](figures/study_{name.format(users=users)}.png)", ""]
    return "\n".join(parts[:-1]) + "\n"


def run_cli(config: StudyConfig, out: Path, figures: Path) -> tuple[int, float, float]:
    """``sitesim study`` as the doc gives it, in a child process: (exit status, wall s, CPU s).

    The CPU time is the child's and its workers': ``wait4`` returns the child's own
    usage plus that of every process it reaped, and the sweep's process pool is reaped
    by the time the command exits."""
    command = [sys.executable, "-m", "sitesim", "study", "--site", config.site, "-s", ",".join(config.policies),
               "--seeds", str(len(config.seeds)), "-j", str(JOBS), "--no-progress", "-o", str(out),
               "--figures", str(figures)]
    started = time.perf_counter()
    child = subprocess.Popen(command)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    return child.returncode, time.perf_counter() - started, usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--traces", default=os.environ.get("SITESIM_TRACES"), help="directory of the SWF logs")
    parser.add_argument("--work", type=Path, help="where the fitted site and the study go (default: a temporary folder)")
    parser.add_argument("--doc", type=Path, help="markdown file whose example block to replace")
    parser.add_argument("--figures", type=Path, default=Path("docs/figures"), help="where study_*.png go")
    args = parser.parse_args(argv)
    log = Path(args.traces) / KTH_LOG if args.traces else None
    if log is None or not log.exists():
        print(f"SITESIM_TRACES unset or without {KTH_LOG}: nothing to study", file=sys.stderr)
        return 0
    with tempfile.TemporaryDirectory() as scratch:
        work = args.work or Path(scratch)
        fit = fit_log(log, work / "kth")
        out = work / "kth-study"
        config = StudyConfig(site=str(work / "kth" / "site.toml"), policies=POLICIES, seeds=tuple(range(SEEDS)))
        study = prepare(config, out)
        before = done(study, out) if out.is_dir() else (0, 0)
        status, wall, cpu = run_cli(config, out, args.figures)
        if status != 0:
            print(f"study_example: sitesim study exited with {status}", file=sys.stderr)
            return 1
        after = done(study, out)
        ran = (after[0] - before[0], after[1] - before[1])
        print(f"study_example: {ran[0]} site-level runs and {ran[1]} replays, {wall:.0f} s wall, {cpu:.0f} s CPU",
              file=sys.stderr)
        text = block(fit, study, out, ran, wall, cpu)
        if args.doc:
            write_doc(args.doc, text, START, END)
        else:
            sys.stdout.write(text)
        if args.work:
            print(f"study_example: report in {out / REPORT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
