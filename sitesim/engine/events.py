"""Event priorities, the one event type the simulator schedules, and every use of SimPy's
internals.

Event order at equal timestamps is part of the model, not an accident of the engine:
job completions come first, then submissions, then one scheduling pass. This is the
order used by established simulators (pyss among them), so results are comparable, and
it is what makes a site-level run and the replay of its own trace take the same
decisions. SimPy orders its queue by ``(time, priority, insertion id)``, so the order
is fixed by giving each kind of event its priority below.

The engine works on SimPy's event queue directly where SimPy's public calls would cost
a measurable share of a run, or cannot say what is meant (move a waiting process onto
another event). Every such use of SimPy's private state is here, behind a named
function, so that a change of SimPy's internals breaks one module, which
``tests/engine/test_events.py`` checks against SimPy's own calls; no other module of
the package touches them (``tests/engine/test_internals.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from heapq import heappop, heappush
from typing import Any

import simpy
from simpy.core import NORMAL as _NORMAL
from simpy.core import URGENT as _URGENT
from simpy.core import StopSimulation

#: SimPy's priority of a process's start (its ``Initialize`` event) and of the stop
#: ``env.run(until)`` schedules: before anything else due at the same instant.
URGENT = _URGENT
#: SimPy's priority of an ``env.timeout``, hence of a process's wait of some seconds.
NORMAL = _NORMAL

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


def due_now(env: simpy.Environment) -> bool:
    """Whether another event is due at the current instant (``env.peek() <= env.now``,
    without the two calls): a callback that would queue an event for this very instant,
    last of it, may act at once instead when nothing else is due."""
    queue = env._queue
    return bool(queue) and queue[0][0] <= env._now


def resume_on(event: simpy.Event, callback: Callable[[simpy.Event], None]) -> None:
    """Call ``callback`` as ``event`` is processed, as a SimPy process waiting on it would
    be resumed; ``event`` must be pending and have no other callback (the waiter's own).

    The waiter is then resumed inside the event's processing with nothing after it, so
    what it does at that point is all that happens at the event."""
    callbacks = event.callbacks
    if callbacks is None:
        raise RuntimeError(f"{event} was already processed: a user waits only on pending events")
    if callbacks:
        raise RuntimeError(f"{event} has other callbacks: a user waits only on an event of its own")
    callbacks.append(callback)


def move_waiter(event: simpy.Event, delay: int) -> bool:
    """Move the latest callback waiting on pending ``event`` (a waiting process's
    resumption) onto a new event ``delay`` seconds from now at ``NORMAL`` priority, the
    entry a timeout of ``delay`` would make; ``event`` then fires with that callback gone.

    For a wait that may end sooner than the timer it waits on, while the timer keeps its
    place among same-second events. False, and nothing moved, when nothing waits on
    ``event`` or it was processed."""
    callbacks = event.callbacks
    if not callbacks:
        return False
    At(event.env, delay, NORMAL, callbacks.pop())
    return True


def stop_at(env: simpy.Environment, until: int) -> simpy.Event:
    """The event ``env.run(until=until)`` schedules to stop at ``until``: scheduled now, so
    that running in pieces towards it (``env.run(until=stop)`` at last) ends at the same
    event as one ``env.run(until)``."""
    stop = simpy.Event(env)
    stop._ok = True
    stop._value = None
    env.schedule(stop, URGENT, until - env.now)
    return stop


def run(env: simpy.Environment, until: int | None = None) -> None:
    """``env.run(until)`` (None: until no event is left; else a time after now), with
    SimPy's ``Environment.step`` written out in the loop.

    A replay processes about two events per job, and a method call per event was a
    visible part of its cost over a bare event loop (docs/performance.md). This loop
    does what ``run`` and ``step`` do, in the same order: pop the next entry, set the
    clock, hand the event to its callbacks, crash on a failed event nobody defused,
    and stop at ``until`` (the stop :func:`stop_at` schedules, as ``run`` does) or
    when a callback raises ``StopSimulation`` (the event's remaining callbacks are put
    back, first at its instant, for a later run). ``tests/engine/test_events.py``
    runs it beside ``env.run`` on the same events.
    """
    stop = None
    if until is not None:
        if until <= env._now:
            raise ValueError(f"until ({until}) must be greater than the current simulation time")
        stop = stop_at(env, until)
        stop.callbacks.append(StopSimulation.callback)  # type: ignore[union-attr]
    queue = env._queue
    try:
        while queue:
            env._now, _, _, event = heappop(queue)
            callbacks, event.callbacks = event.callbacks, None  # type: ignore[assignment]
            try:
                for callback in callbacks:  # type: ignore[union-attr]
                    callback(event)
            except StopSimulation:
                # Found only on the way out, so the loop pays nothing per callback; the
                # stopping callback (the ``until`` event's) is listed once.
                done = next(i for i, c in enumerate(callbacks) if c is callback) + 1  # type: ignore[arg-type]
                event.callbacks = callbacks[done:]  # type: ignore[index]
                env.schedule(event, -1)  # type: ignore[arg-type]
                raise
            if not event._ok and not hasattr(event, "_defused"):
                failure = event._value
                exc = type(failure)(*failure.args)
                exc.__cause__ = failure
                raise exc
    except StopSimulation:
        return
    if stop is not None:
        raise RuntimeError(f'No scheduled events left but "until" event was not triggered: {stop}')
