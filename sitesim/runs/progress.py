"""A progress bar on simulated time, for long single runs at a terminal.

Shown only when asked for, or by default only when stderr is a terminal: never in
pipes, files or CI logs. The simulation is advanced a simulated day at a time so the
bar can move; stopping and resuming SimPy between days leaves the order of events, and
so the schedule, unchanged (see :func:`run_with_progress`).
"""

from __future__ import annotations

import math
import sys

import simpy

from sitesim.engine.events import stop_at
DAY = 86_400


def wanted(progress: bool | None) -> bool:
    """``progress`` if given, else whether stderr is a terminal."""
    if progress is not None:
        return progress
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def run_with_progress(env: simpy.Environment, until: int | None) -> None:
    """``env.run(until)``, updating a tqdm bar of simulated days.

    The final stop is scheduled first, exactly as ``env.run(until)`` schedules it, so
    events at the very end instant are cut off the same way; the intermediate stops
    only pause the loop between events (SimPy keeps its queue in order).
    """
    from tqdm import tqdm  # a terminal is there: the import is worth it

    stop: simpy.Event | None = None
    if until is not None:
        stop = stop_at(env, until)  # what env.run(until) schedules for a time
    total = None if until is None else until / DAY
    with tqdm(total=total, unit="day", desc="simulated", file=sys.stderr, leave=False) as bar:
        while True:
            nxt = env.peek()
            if math.isinf(nxt):  # nothing left (a replay that has finished)
                break
            day_end = (int(nxt) // DAY + 1) * DAY
            if until is not None and day_end >= until:
                break
            env.run(until=day_end)
            # SimPy leaves the stop event at the head of its queue (no callbacks left,
            # processed first on resuming): process it now, so peek() sees real events.
            env.step()
            bar.update(env.now / DAY - bar.n)
        if stop is not None:
            env.run(until=stop)
        bar.update(env.now / DAY - bar.n)
