#!/usr/bin/env python3
"""Regenerate the results section of docs/feedback-replay.md: plain replay against
replay with feedback of the real logs, under FCFS and EASY.

    python scripts/feedback_table.py --traces "$SITESIM_TRACES" --out docs/feedback-replay.md

For SDSC-SP2, CTC-SP2 and KTH-SP2 (trace estimates, the header's machine size): the
plain (open-model) replay, and the replay with feedback with session starts at their
recorded times (``absolute``) and after their recorded gap (``gap``). The plain replay
runs on a copy of the log whose fields 17/18 hold the dependencies the feedback replay
derives (sitesim.users.recorded.recorded_dependencies), so the existing violation
accounting says how many jobs the open model submits before the batch their user was
waiting for had ended. Then EASY at load factor 1.25, plain and with feedback.
The section between the markers is replaced; the output is deterministic.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import attrs
import numpy as np

from sitesim.runs.replay import ReplayConfig, ReplayResult, run_replay
from sitesim.analysis.sessions import SESSION_THRESHOLD, job_roles, user_sequences
from sitesim.users.recorded import trace_job, plan_batches, recorded_dependencies
from sitesim.workload.estimates import make_estimates
from sitesim.workload.files import atomic_text_write
from sitesim.workload.job import Job
from sitesim.workload.replay import job_from_record
from sitesim.workload.swf import read_swf, write_swf

TRACES: dict[str, str] = {
    "SDSC-SP2": "SDSC-SP2-1998-4.2-cln.swf.gz",
    "CTC-SP2": "CTC-SP2-1996-3.1-cln.swf.gz",
    "KTH-SP2": "KTH-SP2-1996-2.1-cln.swf.gz",
}
SCHEDULERS = ("fcfs", "easy")
MODES: tuple[str | None, ...] = (None, "absolute", "gap")
LOAD_FACTOR = 1.25
BEGIN = "<!-- BEGIN results: scripts/feedback_table.py -->"
END = "<!-- END results -->"
COMMAND = 'python scripts/feedback_table.py --traces "$SITESIM_TRACES" --out docs/feedback-replay.md'
DAY = 86400.0


def session_evidence(jobs: list[Job]) -> str:
    """A table row on how the log's users return (evidence for the session-start rule).

    Session gaps: think times above the session threshold (hours). Returns: a user's
    submission more than 20 min after their previous one, and whether some earlier job
    of theirs was still unfinished then (a negative think time).
    """
    gaps: list[float] = []
    returns = pending = 0
    for seq in user_sequences([trace_job(j) for j in jobs if j.user >= 0]).values():
        previous = None
        for job, role in zip(seq, job_roles(seq), strict=True):
            if role.new_session and role.think is not None:
                gaps.append(role.think / 3600)
            if previous is not None and job.submit - previous > SESSION_THRESHOLD:
                returns += 1
                pending += role.think is not None and role.think < 0
            previous = job.submit
    g = np.asarray(gaps)
    return (
        f"| {len(g)} | {np.median(g):.1f} | {np.mean(g > 4):.2f} | {np.mean(g < 1):.2f}"
        f" | {returns} | {pending / returns:.2f} |"
    )


def annotated(path: Path, directory: Path) -> tuple[Path, dict[int, int], dict[str, Any], str]:
    """The log with derived dependencies in fields 17/18; recorded submit times; plan
    counts; the session-evidence row."""
    header, records = read_swf(path)
    nodes = header.machine_size()
    estimates = make_estimates("trace")
    jobs = []
    for record in records:  # the replay's acceptance rules (docs/replay.md)
        job = job_from_record(record, estimates, None)
        if job is not None and (nodes is None or job.size <= nodes):
            jobs.append(job)
    batches, counts = plan_batches(jobs)
    plan = {**attrs.asdict(counts), "jobs": len(jobs)}
    deps = recorded_dependencies(batches)
    out = []
    for record in records:
        dep = deps.get(record.job_number)
        if dep is not None:
            record = attrs.evolve(record, preceding_job=dep[0], think_time=dep[1])
        out.append(record)
    target = directory / path.name.replace(".gz", "")
    write_swf(target, out, header.lines)
    return target, {j.id: j.submit for j in jobs}, plan, session_evidence(jobs)


def run(trace: Path, scheduler: str, mode: str | None, recorded: dict[int, int], directory: Path,
        load_factor: float = 1.0) -> tuple[ReplayResult, float]:
    """One replay; also the mean shift of submit times against the log, in hours."""
    out = directory / f"{scheduler}-{mode}-{load_factor:g}"
    config = ReplayConfig(
        trace=str(trace), scheduler=scheduler, estimates="trace", feedback=mode, load_factor=load_factor
    )
    result = run_replay(config, out=out)
    _, schedule = read_swf(out / "schedule.swf")
    shift = sum(int(r.submit_time) - recorded[r.job_number] for r in schedule) / len(schedule)
    print(f"{trace.name} {scheduler} {mode} x{load_factor:g}: {result.system_line()}", file=sys.stderr)
    return result, shift / 3600


def row(name: str, scheduler: str, mode: str | None, result: ReplayResult, shift: float) -> str:
    s, v = result.summary, result.violations
    label = "plain" if mode is None else f"feedback, {mode}"
    judged = v["with_dependency"]
    return (
        f"| {name} | {scheduler} | {label} | {s['completed']} | {s['makespan'] / DAY:.1f} "
        f"| {s['utilization']:.4f} | {s['mean_wait']:.0f} | {s['mean_response']:.0f} "
        f"| {s['mean_bounded_slowdown']:.1f} | {shift:.2f} | {v['submission']} of {judged} "
        f"| {v['execution']} |"
    )


def tables(traces: Path) -> list[str]:
    main = [
        "| log | scheduler | replay | jobs | makespan (days) | utilisation | mean wait (s) "
        "| mean response (s) | mean bounded slowdown | mean submit shift vs log (h) "
        "| submission violations | execution violations |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    plans = [
        "| log | jobs | batches | waiting batches (jobs) | users' first batches "
        "| session starts | session starts overlapping, fcfs / easy |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    sessions = [
        "| log | session starts | median gap (h) | gaps > 4 h | gaps < 1 h "
        "| returns after > 20 min | with earlier work unfinished |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    scaled = [
        "| log | replay | offered load | utilisation | mean wait (s) | mean response (s) "
        "| submission violations |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for name, file in TRACES.items():
            directory = Path(tmp) / name
            directory.mkdir()
            plain, recorded, plan, evidence = annotated(traces / file, directory)
            sessions.append(f"| {name} {evidence}")
            overlapping = []
            for scheduler in SCHEDULERS:
                for mode in MODES:
                    trace = plain if mode is None else traces / file
                    result, shift = run(trace, scheduler, mode, recorded, directory)
                    main.append(row(name, scheduler, mode, result, shift))
                    if mode == "absolute":
                        overlapping.append(str(result.feedback["overlapping_session_starts"]))
            plans.append(
                f"| {name} | {plan['jobs']} | {plan['batches']} | {plan['dependent_batches']}"
                f" ({plan['dependent_jobs']}) | {plan['root_batches'] - plan['session_start_batches']}"
                f" | {plan['session_start_batches']} | {' / '.join(overlapping)} |"
            )
            for mode in (None, "absolute"):
                trace = plain if mode is None else traces / file
                result, _ = run(trace, "easy", mode, recorded, directory, LOAD_FACTOR)
                s, v = result.summary, result.violations
                label = "plain" if mode is None else "feedback, absolute"
                scaled.append(
                    f"| {name} | {label} | {s['offered_load']:.4f} | {s['utilization']:.4f}"
                    f" | {s['mean_wait']:.0f} | {s['mean_response']:.0f}"
                    f" | {v['submission']} of {v['with_dependency']} |"
                )
    return [
        BEGIN,
        "",
        "Generated by:",
        "",
        f"    {COMMAND}",
        "",
        "Trace estimates (field 9), the header's machine size (SDSC-SP2 128, CTC-SP2 338,",
        "KTH-SP2 100 nodes), load factor 1. Every job completes in every run, so `jobs` is",
        "the same throughout; makespan runs from the first submission to the last completion.",
        "The submit shift is the mean of (simulated - recorded) submit time over all jobs.",
        "Violations are counted against the dependencies the feedback replay derives",
        "(written into fields 17/18 for the plain replay): `N of M` means N of the M jobs",
        "that waited for an earlier batch in the log were submitted before it had ended.",
        "",
        *main,
        "",
        "How the logs' users return: the gaps between sessions (think times above",
        "1200 s), and every submission more than 20 min after the user's previous one,",
        "with the share made while some earlier job of theirs was still unfinished:",
        "",
        *sessions,
        "",
        "How the logs group into batches (session rules, sitesim/analysis/sessions.py), and",
        "how many absolute session starts came while the user's previous batch was",
        "unfinished in the simulation (under FCFS and EASY):",
        "",
        *plans,
        "",
        f"EASY at load factor {LOAD_FACTOR:g} (plain: every inter-arrival time / {LOAD_FACTOR:g};",
        "feedback: the recorded times of root batches only):",
        "",
        *scaled,
        "",
        END,
    ]


def splice(text: str, section: list[str]) -> str:
    """Replace the marked section of ``text`` (or append it)."""
    block = "\n".join(section)
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        return head + block + rest.split(END, 1)[1]
    return text.rstrip("\n") + "\n\n" + block + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--traces", type=Path, default=os.environ.get("SITESIM_TRACES"),
        help="directory holding the archive's SWF logs (default $SITESIM_TRACES)",
    )
    parser.add_argument("--out", type=Path, default=Path("docs/feedback-replay.md"))
    args = parser.parse_args(argv)
    if args.traces is None:
        parser.error("no traces directory: pass --traces or set SITESIM_TRACES")
    section = tables(args.traces)
    text = args.out.read_text() if args.out.exists() else ""
    with atomic_text_write(args.out) as out:
        out.write(splice(text, section))
    return 0


if __name__ == "__main__":
    sys.exit(main())
