#!/usr/bin/env python3
"""The project's minimal reference EASY replay: a bare heapq loop, no output.

    python scripts/reference_easy.py [--simpy] TRACE.swf[.gz]

What it is for: ``scripts/bench.py --compare`` times this loop and ``sitesim -c TRACE -s
easy`` on the same trace in the same run, so the ratio measures what the simulator's
structure (SimPy events, observers, metrics, writing the schedule) costs over the least
a Python EASY replay must do: read the trace, keep a sorted list of running jobs, and
scan the queue once per scheduling instant. It is deliberately small and independent
of the package (the bare loop uses only the standard library), and
``tests/schedulers/test_reference_easy.py`` checks that it starts every job at the same
time as ``sitesim -s easy``.

With ``--simpy`` the same loop takes its instants from SimPy's event queue
(:func:`simulate_on_simpy`): the least a replay pays that, as sitesim does, puts each
arrival and each completion on SimPy's queue as an event, so that the benchmark can
tell what SimPy itself costs over the bare loop from what the rest of sitesim costs
over SimPy.

The rules it shares with sitesim (docs/replay.md, docs/schedulers.md): size is SWF
field 5, else field 8; jobs of unknown size or runtime, or larger than the machine
(``MaxProcs``, else ``MaxNodes``, else 128), are skipped; the estimate is the requested
time (field 9), else the runtime, and a job runs for the smaller of its runtime and its
estimate. At one instant, completions come first, then arrivals, then one scheduling
pass; a job of zero length ends at the same instant and a new pass follows.
"""

from __future__ import annotations

import gzip
import sys
from bisect import bisect_left, insort
from heapq import heappop, heappush

DEFAULT_NODES = 128
#: (submit, size, runtime, estimate) of one replayed job.
TraceJob = tuple[int, int, int, int]


def _int(token: str) -> int:
    try:
        return int(token)
    except ValueError:
        return int(float(token))


def read_trace(path: str) -> tuple[int, list[TraceJob]]:
    """(machine size, jobs in trace order) with sitesim's replay rules."""
    opener = gzip.open if path.endswith(".gz") else open
    header: dict[str, int] = {}
    rows: list[list[int]] = []
    with opener(path, "rt") as f:
        for line in f:
            if line.startswith(";"):
                key, _, value = line[1:].partition(":")
                if key.strip() in ("MaxProcs", "MaxNodes") and value.strip().lstrip("-").isdigit():
                    header[key.strip()] = int(value)
                continue
            fields = line.split()
            if fields:
                rows.append([_int(fields[i]) for i in (1, 3, 4, 7, 8)])
    nodes = header.get("MaxProcs") or header.get("MaxNodes") or DEFAULT_NODES
    jobs: list[TraceJob] = []
    for submit, run, allocated, requested_procs, requested_time in rows:
        size = allocated if allocated > 0 else requested_procs
        if size <= 0 or run < 0 or size > nodes:
            continue
        jobs.append((submit, size, run, requested_time if requested_time > 0 else run))
    return nodes, jobs


def simulate(nodes: int, jobs: list[TraceJob]) -> list[int]:
    """Start time of every job under EASY backfilling (Mu'alem & Feitelson 2001)."""
    starts = [-1] * len(jobs)
    ends: list[tuple[int, int]] = []  # (real end, job index): the event heap
    running: list[tuple[int, int, int]] = []  # (start + estimate, index, size), sorted
    queue: list[int] = []  # waiting job indices in arrival order
    free = nodes
    arrived = 0
    n = len(jobs)
    while arrived < n or ends:
        now = jobs[arrived][0] if arrived < n else ends[0][0]
        if ends and ends[0][0] < now:
            now = ends[0][0]
        while ends and ends[0][0] == now:
            _end, i = heappop(ends)
            size = jobs[i][1]
            free += size
            del running[bisect_left(running, (starts[i] + jobs[i][3], i, size))]
        while arrived < n and jobs[arrived][0] == now:
            queue.append(arrived)
            arrived += 1
        # The pass: start from the head while it fits, then backfill behind it.
        k = 0
        for i in queue:
            size = jobs[i][1]
            if size > free:
                break
            free -= size
            _start(i, now, jobs, starts, running, ends)
            k += 1
        del queue[:k]
        if len(queue) < 2 or free == 0:
            continue
        # Shadow time: when enough running jobs (by estimate) have ended for the head;
        # extra nodes: what is left over then, counting every job ending at that instant.
        need = jobs[queue[0]][1]
        avail = free
        j = 0
        while avail < need:
            shadow, _i, size = running[j]
            avail += size
            j += 1
        while j < len(running) and running[j][0] == shadow:
            avail += running[j][2]
            j += 1
        extra = avail - need
        picked: list[int] = []
        for pos in range(1, len(queue)):
            i = queue[pos]
            _submit, size, _run, estimate = jobs[i]
            if size > free:
                continue
            if now + estimate > shadow:
                if size > extra:
                    continue
                extra -= size
            free -= size
            _start(i, now, jobs, starts, running, ends)
            picked.append(pos)
            if free == 0:
                break
        for pos in reversed(picked):
            del queue[pos]
    return starts


def simulate_on_simpy(nodes: int, jobs: list[TraceJob]) -> list[int]:
    """:func:`simulate` with its instants on SimPy's event queue instead of a heap.

    What a replay on SimPy pays at least when each arrival and each completion is an
    event: one per arrival (the next one scheduled as each is processed, as a streaming
    replay does), one per completion, and one scheduling pass per instant, ordered as
    sitesim orders them (completions, then arrivals, then the pass) and run at once,
    without an event, when nothing else is due at the instant, as sitesim's site runs
    it; nothing else (no observers, no output). The pass is
    :func:`simulate`'s, repeated rather than shared on purpose: calling it as a
    function from the bare loop, once per instant, made that loop 11 % slower, and the
    bare loop is the yardstick.
    """
    import simpy  # only this variant needs it

    env = simpy.Environment()
    starts = [-1] * len(jobs)
    running: list[tuple[int, int, int]] = []
    queue: list[int] = []
    free = nodes
    n = len(jobs)
    pending = False  # this instant's pass is queued

    def at(delay: int, priority: int, callback, value: int) -> None:
        event = simpy.Event(env)
        event._ok, event._value = True, value
        event.callbacks.append(callback)
        env.schedule(event, priority, delay)

    def request_pass() -> None:
        # As sitesim's site does: the pass runs at once when nothing else is due at
        # this instant (it would be the very next event), else it is queued last.
        nonlocal pending
        if not pending:
            if env.peek() > env.now:
                run_pass(None)
            else:
                pending = True
                at(0, 2, run_pass, -1)

    def ended(event) -> None:
        nonlocal free
        i = event._value
        size = jobs[i][1]
        free += size
        del running[bisect_left(running, (starts[i] + jobs[i][3], i, size))]
        request_pass()

    def arrive(event) -> None:
        i = event._value
        queue.append(i)
        if i + 1 < n:
            at(jobs[i + 1][0] - jobs[i][0], 1, arrive, i + 1)
        request_pass()

    def run_pass(_event) -> None:
        nonlocal free, pending
        pending = False
        now = int(env.now)
        ends: list[tuple[int, int]] = []  # this pass's completions, queued below
        k = 0
        for i in queue:
            size = jobs[i][1]
            if size > free:
                break
            free -= size
            _start(i, now, jobs, starts, running, ends)
            k += 1
        del queue[:k]
        if len(queue) >= 2 and free:
            need = jobs[queue[0]][1]
            avail = free
            j = 0
            while avail < need:
                shadow, _i, size = running[j]
                avail += size
                j += 1
            while j < len(running) and running[j][0] == shadow:
                avail += running[j][2]
                j += 1
            extra = avail - need
            picked: list[int] = []
            for pos in range(1, len(queue)):
                i = queue[pos]
                _submit, size, _run, estimate = jobs[i]
                if size > free:
                    continue
                if now + estimate > shadow:
                    if size > extra:
                        continue
                    extra -= size
                free -= size
                _start(i, now, jobs, starts, running, ends)
                picked.append(pos)
                if free == 0:
                    break
            for pos in reversed(picked):
                del queue[pos]
        for end, i in ends:
            at(end - now, 0, ended, i)

    if n:
        at(jobs[0][0], 1, arrive, 0)
    env.run()
    return starts


def _start(i: int, now: int, jobs: list[TraceJob], starts: list[int], running: list, ends: list) -> None:
    _submit, size, run, estimate = jobs[i]
    starts[i] = now
    insort(running, (now + estimate, i, size))
    heappush(ends, (now + min(run, estimate), i))


def main(argv: list[str]) -> int:
    on_simpy = argv[:1] == ["--simpy"]
    if on_simpy:
        argv = argv[1:]
    if len(argv) != 1:
        print("usage: reference_easy.py [--simpy] TRACE.swf[.gz]", file=sys.stderr)
        return 2
    nodes, jobs = read_trace(argv[0])
    (simulate_on_simpy if on_simpy else simulate)(nodes, jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
