"""The engine's uses of SimPy's internals (sitesim/engine/events.py) act as SimPy's own calls would."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest
import simpy

from sitesim.engine.events import (
    COMPLETION,
    NORMAL,
    SCHEDULING,
    SUBMISSION,
    URGENT,
    At,
    due_now,
    move_waiter,
    resume_on,
    run,
    stop_at,
)
from simpy.core import StopSimulation


def test_queue_entry_is_simpys() -> None:
    """Same (time, priority, id) key as ``env.schedule``, and ``time`` is the key's time."""
    env = simpy.Environment(initial_time=7)
    ours = At(env, 5, SUBMISSION, lambda e: None, "x")
    theirs = simpy.Event(env)
    env.schedule(theirs, SUBMISSION, 5)
    (t1, p1, id1, e1), (t2, p2, id2, e2) = sorted(env._queue)
    assert (t1, p1, e1) == (12, SUBMISSION, ours) and ours.time == 12
    assert (t2, p2, e2) == (12, SUBMISSION, theirs) and id2 == id1 + 1


def test_fires_in_priority_order_with_its_time_and_payload() -> None:
    env = simpy.Environment()
    seen: list[tuple[str, int, int]] = []

    def note(event: At) -> None:
        seen.append((event.payload, event.time, int(env.now)))

    At(env, 3, SCHEDULING, note, "pass")
    At(env, 3, COMPLETION, note, "end")
    At(env, 1, SUBMISSION, note, "submit")
    env.run()
    assert seen == [("submit", 1, 1), ("end", 3, 3), ("pass", 3, 3)]


def test_due_now_is_peek_at_the_clock() -> None:
    """``due_now`` answers as ``env.peek() <= env.now`` before, at and after an event."""
    env = simpy.Environment(initial_time=3)
    answers: list[tuple[bool, bool]] = []

    def ask(_event: At) -> None:
        answers.append((due_now(env), env.peek() <= env.now))

    assert not due_now(env)  # nothing queued at all
    At(env, 0, SUBMISSION, ask)
    At(env, 0, SCHEDULING, ask)
    At(env, 2, SUBMISSION, ask)
    assert due_now(env)
    env.run()
    assert answers == [(True, True), (False, False), (False, False)]


def test_stop_at_is_the_stop_run_until_makes() -> None:
    """Same queue entry as the stop ``env.run(until)`` schedules; running to it stops
    where ``env.run(until)`` would, after an event of equal priority queued before it
    at that instant, and before one queued after it."""
    traces: list[list[tuple[int, str]]] = []
    for ours in (True, False):
        env = simpy.Environment(initial_time=2)
        trace: list[tuple[int, str]] = []
        traces.append(trace)
        At(env, 7, COMPLETION, lambda e: trace.append((e.time, "before")))
        At(env, 8, COMPLETION, lambda e: trace.append((e.time, "before")))
        if ours:
            stop = stop_at(env, 10)
            (when, priority, _, event), = (e for e in env._queue if e[3] is stop)
            assert (when, priority) == (10, URGENT) and stop.ok and stop.value is None
            At(env, 8, URGENT, lambda e: trace.append((e.time, "after")))  # cut off
        env.run(until=stop if ours else 10)
        assert env.now == 10
    assert traces[0] == traces[1] == [(9, "before"), (10, "before")]


def test_move_waiter_moves_a_process_onto_a_timeout_made_then() -> None:
    """The process waiting on a timer is resumed by an entry like the one ``env.timeout``
    would make at the move, hence after what was queued for that instant before and
    before what is queued after; the timer then fires with nothing to do."""
    env = simpy.Environment()
    trace: list[tuple[int, str]] = []
    entries: list[tuple[Any, ...]] = []

    def process() -> Generator[simpy.Event, Any, None]:
        timer = env.timeout(5)
        At(env, 2, SUBMISSION, lambda e: move(timer))
        yield timer
        trace.append((int(env.now), "resumed"))

    def move(timer: simpy.Event) -> None:
        trace.append((int(env.now), f"moved {move_waiter(timer, 1)}"))
        theirs = env.timeout(1)
        entries.extend(e for e in env._queue if e[3] is theirs or e[3].callbacks == [proc._resume])
        At(env, 1, NORMAL, lambda e: trace.append((e.time, "queued after")))

    proc = env.process(process())
    At(env, 3, NORMAL, lambda e: trace.append((e.time, "queued before")))
    env.run()
    (t1, p1, id1, _), (t2, p2, id2, _) = sorted(entries)
    assert (t1, p1) == (t2, p2) == (3, NORMAL) and id2 == id1 + 1
    assert trace == [(2, "moved True"), (3, "queued before"), (3, "resumed"), (3, "queued after")]

    idle = simpy.Environment()
    assert not move_waiter(idle.timeout(1), 0) and len(idle._queue) == 1


def test_resume_on_refuses_a_shared_or_processed_event() -> None:
    env = simpy.Environment()
    seen: list[int] = []
    own = env.event()
    resume_on(own, lambda e: seen.append(int(env.now)))
    with pytest.raises(RuntimeError, match="other callbacks"):
        resume_on(own, lambda e: None)
    own.succeed()
    env.run()
    assert seen == [0]
    with pytest.raises(RuntimeError, match="already processed"):
        resume_on(own, lambda e: None)


def _scenario(env: simpy.Environment, trace: list[tuple[Any, ...]]) -> None:
    """Processes, timeouts and At events sharing instants, and a callback that stops
    the simulation while another callback of its event is still to run."""

    def worker(name: str, gaps: list[int]) -> Generator[simpy.Event, Any, None]:
        for gap in gaps:
            value = yield env.timeout(gap, value=gap)
            trace.append((env.now, name, value))

    env.process(worker("a", [1, 2, 2, 5]))
    env.process(worker("b", [3, 3, 1]))
    for when, priority in ((3, SCHEDULING), (3, COMPLETION), (5, SUBMISSION), (9, NORMAL)):
        At(env, when, priority, lambda e: trace.append((e.time, "at", e.payload)), priority)
    shared = env.timeout(4)
    shared.callbacks.append(lambda e: trace.append((env.now, "first")))
    shared.callbacks.append(StopSimulation.callback)
    shared.callbacks.append(lambda e: trace.append((env.now, "after the stop")))


@pytest.mark.parametrize("until", [None, 4, 6, 20])
def test_run_is_simpys_run(until: int | None) -> None:
    """The same events in the same order as ``env.run``, the same clock when it
    returns, stopped by a callback or at ``until``, and resumed the same way."""
    traces: list[list[tuple[Any, ...]]] = []
    for ours in (True, False):
        env = simpy.Environment()
        trace: list[tuple[Any, ...]] = []
        traces.append(trace)
        _scenario(env, trace)
        for _ in range(3):  # the first run stops at the callback; later ones resume
            if until is not None and until <= env.now:
                break
            run(env, until) if ours else env.run(until)
            trace.append(("returned", env.now))
        trace.append(("left", sorted((t, p) for t, p, _, _ in env._queue)))
    assert traces[0] == traces[1]


def test_run_crashes_on_a_failed_event_and_refuses_a_past_until() -> None:
    for ours in (True, False):
        env = simpy.Environment(initial_time=5)
        failed = env.event()
        failed.fail(KeyError("lost"))
        with pytest.raises(KeyError, match="lost") as caught:
            run(env) if ours else env.run()
        assert isinstance(caught.value.__cause__, KeyError)
        defused = env.event()
        defused.fail(KeyError("kept"))
        defused.defused = True
        run(env) if ours else env.run()
        with pytest.raises(ValueError, match="must be greater"):
            run(env, 5) if ours else env.run(5)
