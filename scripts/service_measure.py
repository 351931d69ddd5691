#!/usr/bin/env python3
"""What made a log's service slower than EASY on its nominal machine: the figures of
docs/service.md, "Measured first".

    python scripts/service_measure.py --traces "$SITESIM_TRACES" [LOG ...]

For each log (default: the development logs with waits), from its own submit, wait,
runtime, size, user and queue fields (jobs the fit keeps: known wait, runtime and
size), every job on its logged start:

- mean wait; utilisation of the nominal machine; share of time with more nodes in use
  than the machine has;
- of the time with jobs waiting: the share in which some waiting job fit in the idle
  nodes, and the idle nodes then; the share in which the *oldest* waiting job fit (a
  work-conserving first-come policy would have started it);
- the stretches longer than an hour in which the oldest fit: their share with no start
  at all (whole-machine outages, dedicated time), and the starts per hour in the rest;
- per-user limits: of the time some waiting job fit, the share in which one of the
  fitting jobs belonged to a user with no job running (a limit on running jobs per user
  cannot have held it);
- per queue (field 15): jobs, share of the work, mean wait;
- the mean fit-wait (:func:`sitesim.analysis.service.fit_waits`).
"""

from __future__ import annotations

import argparse
import heapq
import sys
from bisect import insort
from collections import Counter
from pathlib import Path

import numpy as np

from sitesim.analysis.cleaning import clean_records
from sitesim.analysis.service import fit_waits
from sitesim.workload.swf import SwfReader

DEVELOPMENT = ("CTC-SP2", "KTH-SP2", "SDSC-SP2")
HOUR = 3600


def measure(trace: Path) -> list[str]:
    with SwfReader(trace) as reader:
        jobs, _ = clean_records(reader)
        nodes = reader.header.machine_size() or max(j.size for j in jobs)
    submit = np.array([j.submit for j in jobs])
    wait = np.array([j.wait for j in jobs])
    run = np.array([j.run for j in jobs])
    size = np.array([j.size for j in jobs], dtype=np.int64)
    user = [j.user for j in jobs]
    start = submit + wait
    events = sorted(
        [(float(start[i] + run[i]), 0, i) for i in range(len(jobs))]
        + [(float(start[i]), 1, i) for i in range(len(jobs))]
        + [(float(submit[i]), -1, i) for i in range(len(jobs))]
    )
    busy = 0
    waiting: list[tuple[int, int]] = []  # (size, job), sorted
    oldest: list[tuple[float, int]] = []  # heap of (submit, job), lazily cleaned
    queued: set[int] = set()
    running: Counter[int] = Counter()
    t0 = prev = events[0][0]
    over = busy_area = waiting_time = fit_time = free_area = head_time = user_free = 0.0
    stretches: list[tuple[float, float]] = []
    open_from: float | None = None
    for t, kind, i in events:
        span = t - prev
        if span > 0:
            busy_area += busy * span
            over += span if busy > nodes else 0.0
            head_fits = False
            if waiting:
                free = nodes - busy
                waiting_time += span
                while oldest[0][1] not in queued:
                    heapq.heappop(oldest)
                if waiting[0][0] <= free:
                    fit_time += span
                    free_area += free * span
                    if any(running[user[j]] == 0 for z, j in waiting if z <= free):
                        user_free += span
                    head_fits = size[oldest[0][1]] <= free
            if head_fits:
                head_time += span
                open_from = prev if open_from is None else open_from
            elif open_from is not None:
                stretches.append((open_from, prev))
                open_from = None
        prev = t
        if kind == -1:
            insort(waiting, (int(size[i]), i))
            heapq.heappush(oldest, (float(submit[i]), i))
            queued.add(i)
        elif kind == 1:
            waiting.remove((int(size[i]), i))
            queued.discard(i)
            busy += int(size[i])
            running[user[i]] += 1
        else:
            busy -= int(size[i])
            running[user[i]] -= 1
    long = [(a, b) for a, b in stretches if b - a > HOUR]
    starts = np.sort(start)
    inside = np.array([np.searchsorted(starts, b) - np.searchsorted(starts, a, side="right") for a, b in long])
    length = np.array([b - a for a, b in long])
    quiet = float(length[inside == 0].sum() / length.sum()) if len(long) else 0.0
    rate = float(inside[inside > 0].sum() / (length[inside > 0].sum() / HOUR)) if (inside > 0).any() else 0.0
    fits = fit_waits(submit, wait, run, size, nodes)
    lines = [
        f"{trace.name}: {len(jobs):,} jobs on {nodes} nodes; mean wait {wait.mean():,.0f} s;"
        f" utilisation {busy_area / (nodes * (prev - t0)):.3f}; more in use than the machine {over / (prev - t0):.1%} of the time",
        f"  of the waiting time: some waiting job fit {fit_time / waiting_time:.0%} (idle nodes then"
        f" {free_area / max(fit_time, 1):.0f}); the oldest fit {head_time / waiting_time:.0%}",
        f"  stretches over 1 h with the oldest fitting: {len(long)}, {quiet:.0%} of their time with no start;"
        f" {rate:.1f} starts per hour in the others",
        f"  per-user limits: a fitting job's user had no job running {user_free / max(fit_time, 1):.0%} of the time some fit",
        f"  mean fit-wait {fits.mean():,.0f} s ({fits.sum() / wait.sum():.0%} of all waiting)",
    ]
    queue = np.array([j.queue for j in jobs])
    work = size * run
    for q in np.unique(queue):
        mine = queue == q
        lines.append(f"  queue {q}: {mine.sum():,} jobs, {work[mine].sum() / work.sum():.1%} of the work,"
                     f" mean wait {wait[mine].mean():,.0f} s")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--traces", type=Path, required=True)
    parser.add_argument("logs", nargs="*", default=list(DEVELOPMENT))
    args = parser.parse_args(argv)
    for name in args.logs:
        (trace,) = sorted(args.traces.glob(f"{name}-*.swf*"))
        print("\n".join(measure(trace)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
