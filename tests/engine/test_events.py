"""At schedules itself exactly as SimPy's own ``Environment.schedule`` would."""

from __future__ import annotations

import simpy

from sitesim.engine.events import COMPLETION, SCHEDULING, SUBMISSION, At


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
