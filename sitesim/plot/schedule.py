"""A schedule read from SWF, as arrays, and processors assigned to its jobs.

An SWF record says when a job started (submit + wait) and for how long it ran, on how
many processors, but not on which. A Gantt chart needs an assignment, so
:func:`assign_processors` replays the schedule's starts and ends in time order and
gives each job the lowest-numbered free processors (ends before starts at equal
times, as the simulator orders them). A job whose processors are not contiguous is
drawn as several rectangles. Jobs that never ran (wait or runtime -1) are left out, and
zero-length jobs get no processors.
"""

from __future__ import annotations

import os

import numpy as np
from attrs import define

from sitesim.errors import InputError
from sitesim.workload.swf import SwfReader
from sitesim.workload.trace_rules import replay_rules


@define(slots=True)
class Schedule:
    """Per-job columns of the jobs that ran, in file order."""

    machine: int
    job: np.ndarray
    user: np.ndarray
    submit: np.ndarray
    start: np.ndarray
    end: np.ndarray
    size: np.ndarray
    #: Jobs that never started, with their submit times (queue length counts them).
    waiting_submits: np.ndarray


def read_schedule(path: str | os.PathLike[str]) -> Schedule:
    """The jobs of an SWF file that have a start and a runtime."""
    cols: dict[str, list[int]] = {k: [] for k in ("job", "user", "submit", "start", "end", "size")}
    never: list[int] = []
    with SwfReader(path) as reader:
        for r in replay_rules(reader, ordered=False):  # times a replay accepts, or an error
            size = r.allocated_processors if r.allocated_processors > 0 else r.requested_processors
            if r.wait_time < 0 or r.run_time < 0 or size <= 0:
                if r.submit_time >= 0:
                    never.append(int(r.submit_time))
                continue
            start = int(r.submit_time + r.wait_time)
            cols["job"].append(r.job_number)
            cols["user"].append(r.user_id)
            cols["submit"].append(int(r.submit_time))
            cols["start"].append(start)
            cols["end"].append(start + int(r.run_time))
            cols["size"].append(size)
        declared = reader.header.machine_size()
    if not cols["job"]:
        raise InputError("no job with a start and a runtime to draw", path=os.fspath(path))
    arrays = {k: np.asarray(v, dtype=np.int64) for k, v in cols.items()}
    machine = declared or int(arrays["size"].max())
    return Schedule(machine=machine, waiting_submits=np.asarray(never, dtype=np.int64), **arrays)


def assign_processors(s: Schedule) -> list[list[tuple[int, int]]]:
    """For each job, its processors as (first, count) runs, lowest-numbered free first."""
    free = np.ones(max(s.machine, int(s.size.max())), dtype=bool)
    n = len(s.job)
    # Events: (time, 0 = end / 1 = start, job index); ends first at equal times.
    # Zero-length jobs hold no processor time: they get no processors (and, ending
    # before they start in this order, would otherwise never give theirs back).
    ran = np.flatnonzero(s.end > s.start)
    times = np.concatenate([s.end[ran], s.start[ran]])
    kinds = np.concatenate([np.zeros(len(ran), dtype=np.int64), np.ones(len(ran), dtype=np.int64)])
    index = np.concatenate([ran, ran])
    order = np.lexsort((index, kinds, times))
    runs: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    held: list[np.ndarray] = [np.empty(0, dtype=np.int64)] * n
    for k in order:
        i = int(index[k])
        if kinds[k] == 0:
            free[held[i]] = True
            continue
        cpus = np.flatnonzero(free)[: int(s.size[i])]
        if len(cpus) < s.size[i]:  # an over-full log: draw it above the machine
            extra = np.arange(len(free), len(free) + int(s.size[i]) - len(cpus))
            free = np.concatenate([free, np.zeros(len(extra), dtype=bool)])
            cpus = np.concatenate([cpus, extra])
        free[cpus] = False
        held[i] = cpus
        breaks = np.flatnonzero(np.diff(cpus) != 1) + 1
        for block in np.split(cpus, breaks):
            runs[i].append((int(block[0]), len(block)))
    return runs


def load_curves(s: Schedule) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Step curves over time: (times, busy processors, queued jobs) after each event."""
    n = len(s.job)
    w = len(s.waiting_submits)
    times = np.concatenate([s.submit, s.start, s.end, s.waiting_submits])
    busy = np.concatenate([np.zeros(n), s.size, -s.size, np.zeros(w)])
    queue = np.concatenate([np.ones(n), -np.ones(n), np.zeros(n), np.ones(w)])
    order = np.argsort(times, kind="stable")
    t = times[order]
    b = np.cumsum(busy[order])
    q = np.cumsum(queue[order])
    last = np.r_[t[1:] != t[:-1], True]  # one point per instant: its final state
    return t[last], b[last], q[last]
