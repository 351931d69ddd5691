"""Event priorities and the one event type the simulator schedules.

Event order at equal timestamps is part of the model, not an accident of the engine:
job completions come first, then submissions, then one scheduling pass. This is the
order used by established simulators (pyss among them), so results are comparable, and
it is what makes a site-level run and the replay of its own trace take the same
decisions. SimPy orders its queue by ``(time, priority, insertion id)``, so the order
is fixed by giving each kind of event its priority below.
"""

from __future__ import annotations

from collections.abc import Callable
from heapq import heappush
from typing import Any

import simpy

#: A job ends (completes or is killed at its estimate).
COMPLETION = 0
#: A job is submitted, and user processes react to completions.
SUBMISSION = 1
#: A timer a scheduler set on a running job rings (e.g. a trial run's length elapsed),
#: or a wake-up it asked for comes (``Control.wake``: a held job's release): after the
#: completions of the instant (a job ending just then has no use for it), before the
#: pass that acts on it.
TIMER = 1
#: The scheduler's pass, after everything else that happened at the same time.
SCHEDULING = 2


class At(simpy.Event):
    """An event that fires ``delay`` seconds from now with a fixed ``priority``.

    It is SimPy's Timeout with a chosen priority: the callback receives the event, and
    ``event.payload`` is what it carries (a job, usually; also SimPy's ``value``). Using
    typed callbacks rather than processes keeps the per-event cost low, which matters at
    millions of events. ``event.time`` is the instant it fires, so a callback knows the
    time without asking the environment.

    Scheduling is ``Environment.schedule`` written out (the same queue entry, ``(time,
    priority, id, event)`` on SimPy's heap): a replay creates two of these per job, and
    the call it saves is a measurable part of that (docs/performance.md);
    ``tests/engine/test_events.py`` checks the entry against SimPy's own.
    """

    def __init__(
        self,
        env: simpy.Environment,
        delay: int,
        priority: int,
        callback: Callable[[At], None],
        value: Any = None,
    ) -> None:
        self.env = env
        # SimPy annotates callbacks as taking any Event; ours take At.
        self.callbacks = [callback]  # type: ignore[list-item]
        self.payload: Any = value
        self._value = value
        self._ok = True
        when = env._now + delay
        #: The instant this event fires (whole seconds: every delay here is an int).
        self.time: int = when  # type: ignore[assignment]
        heappush(env._queue, (when, priority, next(env._eid), self))  # type: ignore[misc]
