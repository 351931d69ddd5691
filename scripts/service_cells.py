#!/usr/bin/env python3
"""A log's waits by job size and runtime, beside the log replayed under base policies
(issue 33, "Measured first"; docs/service.md, "Levels from the recorded waits" and
"Sessions too long where the service delays much").

    python scripts/service_cells.py "$SITESIM_TRACES/SDSC-SP2-1998-4.2-cln.swf.gz" --policies easy,easy++,cons
    python scripts/service_cells.py "$SITESIM_TRACES/NASA-iPSC-1993-3.1-cln.swf.gz" --daytime --wide 64

Why: the fitted service draws each job's eligibility delay by its size class alone, and
a delay can only add to what the base policy makes a job wait. Where the policy alone
already makes a kind of job wait longer than the log's did, no delay can bring it back;
this table shows where. Rows: size classes (powers of two); columns: runtime classes
(:data:`RUNTIME_EDGES`); each cell the mean wait (thousands of seconds) of the file's
jobs (a log, or a simulated ``trace.swf``), then of the same jobs in each conventional replay (``sitesim -c LOG -s POLICY``
on the header's machine: the log's submit times, its requests as estimates, no
delays). ``--daytime``: the share of each size class's jobs *started* on weekdays
08:00-18:00 local time (the header's clock), from the log's own fields. ``--wide N``:
the same share per user who ran jobs larger than N, for those jobs and for the user's
others: whether the hours of the wide jobs were the users' (who then ran their narrow
jobs at those hours too) or the site's.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

from sitesim.runs.replay import ReplayConfig, run_replay
from sitesim.workload.calendar import DAY_END, DAY_START, Clock
from sitesim.workload.swf import SwfReader

#: Upper edges of the runtime classes (s): 10 min, 1 h, 4 h, 12 h; the last class is longer.
RUNTIME_EDGES = (600, 3600, 4 * 3600, 12 * 3600)
#: Cells with fewer of the log's jobs are shown as "-".
MIN_JOBS = 20


def read(path: Path) -> tuple[dict[int, tuple[int, int, int, int]], Clock]:
    """Job number -> (size, runtime, wait, submit) of every job with a known size and
    runtime (wait -1: not recorded; the submit time is then taken as the start, as a log
    without waits records it); and the file's clock."""
    with SwfReader(path) as reader:
        jobs = {
            int(r.job_number): (int(r.allocated_processors if r.allocated_processors > 0 else r.requested_processors),
                                int(r.run_time), int(r.wait_time), int(r.submit_time))
            for r in reader if r.run_time >= 0 and (r.allocated_processors > 0 or r.requested_processors > 0)
        }
        return jobs, Clock.from_header(reader.header)


def cells(jobs: dict[int, tuple[int, int, int, int]]) -> tuple[list[int], dict[int, tuple[int, int]]]:
    """The size classes (powers of two up to the largest job, in the log's own units:
    processors, or nodes where it records them) and each job's (size class, runtime class)."""
    largest = max(size for size, _, _, _ in jobs.values())
    classes = [2**k for k in range(int(np.ceil(np.log2(largest))) + 1)]
    return classes, {
        j: (int(np.searchsorted(classes, size)), int(np.searchsorted(RUNTIME_EDGES, run, side="right")))
        for j, (size, run, _, _) in jobs.items()
    }


def table(classes: list[int], where: dict[int, tuple[int, int]], columns: dict[str, dict[int, float]]) -> list[str]:
    """Markdown: per size class and runtime class, the mean wait of each column's jobs
    (thousands of seconds; the log's jobs in the cell, whichever each column has)."""
    names = [f"up to {_span(RUNTIME_EDGES[0])}",
             *(f"{_span(a)}-{_span(b)}" for a, b in zip(RUNTIME_EDGES, RUNTIME_EDGES[1:], strict=False)),
             f"over {_span(RUNTIME_EDGES[-1])}"]
    out = ["| size | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    label = " / ".join(columns)
    by_cell: dict[tuple[int, int], list[int]] = {}
    for j, c in where.items():
        by_cell.setdefault(c, []).append(j)
    for k, bound in enumerate(classes):
        row = []
        for r in range(len(names)):
            mine = by_cell.get((k, r), [])
            if len(mine) < MIN_JOBS:
                row.append("-")
                continue
            means = [[col[j] for j in mine if j in col] for col in columns.values()]
            row.append(" / ".join(f"{np.mean(m) / 1000:.1f}" if m else "-" for m in means) + f" ({len(mine)})")
        if any(cell != "-" for cell in row):
            low = classes[k - 1] + 1 if k else 1
            out.append(f"| {low}-{bound} | " + " | ".join(row) + " |")
    return [f"Mean wait (1,000 s): {label}; (jobs in the cell)", "", *out]


def explained(jobs: dict[int, tuple[int, int, int, int]], where: dict[int, tuple[int, int]]) -> str:
    """How much of the variance of log(1 + wait) the size classes explain, and the size
    and runtime classes together (one minus the within-class share)."""
    known = [j for j, (_, _, w, _) in jobs.items() if w >= 0]
    if not known:
        return "no waits recorded: nothing to explain"
    lw = np.log1p(np.array([jobs[j][2] for j in known], dtype=np.float64))
    total = float(((lw - lw.mean()) ** 2).sum()) or 1.0

    def share(keys: np.ndarray) -> float:
        inside = sum(float(((lw[keys == k] - lw[keys == k].mean()) ** 2).sum()) for k in np.unique(keys))
        return 1.0 - inside / total

    size = np.array([where[j][0] for j in known])
    both = size * 100 + np.array([where[j][1] for j in known])
    return (f"Share of the variance of log(1 + wait) explained by the size class: {share(size):.3f};"
            f" by the size and runtime classes: {share(both):.3f}")


def _span(seconds: int) -> str:
    """A runtime edge for a column's name: minutes under an hour, else hours."""
    return f"{seconds // 60} min" if seconds < 3600 else f"{seconds // 3600} h"


def _in_daytime(jobs: dict[int, tuple[int, int, int, int]], clock: Clock) -> np.ndarray:
    """Per job (in ``jobs``' order), whether it started on a weekday 08:00-18:00 local time."""
    starts = np.array([sub + max(wait, 0) for _, _, wait, sub in jobs.values()], dtype=np.float64)
    hour = clock.hour_of_week(starts)  # from Monday 00:00: Saturday begins at hour 120
    return (hour < 5 * 24) & (hour % 24 >= DAY_START) & (hour % 24 < DAY_END)


def daytime(jobs: dict[int, tuple[int, int, int, int]], classes: list[int], clock: Clock) -> list[str]:
    """Markdown: per size class, its jobs and the share started on weekdays 08:00-18:00 local time."""
    sizes = np.array([s for s, _, _, _ in jobs.values()])
    day = _in_daytime(jobs, clock)
    klass = np.searchsorted(classes, sizes)
    out = [f"| size | jobs | started on weekdays {DAY_START:02d}:00-{DAY_END:02d}:00 |", "|---|---:|---:|"]
    for k, bound in enumerate(classes):
        mine = klass == k
        if mine.any():
            low = classes[k - 1] + 1 if k else 1
            out.append(f"| {low}-{bound} | {int(mine.sum()):,} | {day[mine].mean():.2f} |")
    return out


def users_of(path: Path) -> dict[int, int]:
    """Job number -> user (field 12) of every record."""
    with SwfReader(path) as reader:
        return {int(r.job_number): int(r.user_id) for r in reader}


def wide_users(jobs: dict[int, tuple[int, int, int, int]], users: dict[int, int], clock: Clock, wide: int) -> list[str]:
    """Markdown: per user who ran jobs larger than ``wide``, most such jobs first, their
    share started in weekday hours against the user's other jobs'."""
    day = _in_daytime(jobs, clock)
    per_user: dict[int, list[list[bool]]] = {}
    for (job, (size, _, _, _)), started_in_day in zip(jobs.items(), day, strict=True):
        per_user.setdefault(users.get(job, -1), [[], []])[size <= wide].append(bool(started_in_day))
    out = [f"| user | jobs > {wide} | started on weekdays {DAY_START:02d}:00-{DAY_END:02d}:00 | other jobs | started then |",
           "|---|---:|---:|---:|---:|"]
    ranked = sorted(((u, w, n) for u, (w, n) in per_user.items() if w), key=lambda x: (-len(x[1]), x[0]))
    for user, w, n in ranked:
        other = f"{np.mean(n):.2f}" if n else "-"
        out.append(f"| {user} | {len(w):,} | {np.mean(w):.2f} | {len(n):,} | {other} |")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("log", type=Path, help="an SWF log")
    parser.add_argument("--policies", default="easy",
                        help="base policies to replay the log under (comma-separated; empty: none)")
    parser.add_argument("--daytime", action="store_true", help="also the share of each size's starts in weekday hours")
    parser.add_argument("--wide", type=int, default=None, metavar="N",
                        help="with --daytime, also that share per user who ran jobs larger than N (theirs, and the rest)")
    args = parser.parse_args(argv)
    jobs, clock = read(args.log)
    classes, where = cells(jobs)
    # the file's own waits first (a log's, or a simulated trace's), then each replay's
    columns = {args.log.name: {j: float(w) for j, (_, _, w, _) in jobs.items() if w >= 0}}
    with tempfile.TemporaryDirectory() as tmp:
        for policy in filter(None, args.policies.split(",")):
            out = Path(tmp) / policy
            run_replay(ReplayConfig(str(args.log), scheduler=policy), out=out, progress=False)
            with SwfReader(out / "schedule.swf") as reader:
                columns[policy] = {int(r.job_number): float(r.wait_time) for r in reader if r.wait_time >= 0}
    print("\n".join(table(classes, where, columns)))
    print()
    print(explained(jobs, where))
    if args.daytime:
        print()
        print("\n".join(daytime(jobs, classes, clock)))
        if args.wide is not None:
            print()
            print("\n".join(wide_users(jobs, users_of(args.log), clock, args.wide)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
