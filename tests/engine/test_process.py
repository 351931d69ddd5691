"""A user generator runs under :class:`UserProcess` exactly as under SimPy's ``Process``.

Scripted generators wait seconds or on events that other events succeed, with ties at
every instant, beside callbacks of each priority; the trace of who acted when, in
order, must be the same whichever driver runs the generators.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest
import simpy
from hypothesis import given, settings
from hypothesis import strategies as st

from sitesim.engine.events import At
from sitesim.engine.machine import Machine
from sitesim.engine.process import UserProcess
from sitesim.engine.site import Site
from sitesim.schedulers.fcfs import FcfsScheduler
from sitesim.workload.job import Job

#: A step of a script: ("wait", seconds, _); ("on", k, _): wait on one's own signal k
#: unless it was processed; ("fire", seconds, k): a callback of priority k succeeds
#: every user's signal k (those not yet succeeded) that many seconds from now, in user
#: order.
Step = tuple[str, int, int]


def site_of(env: simpy.Environment) -> Site:
    """A site for the processes to belong to (these users submit nothing)."""
    return Site(env, Machine(1), FcfsScheduler(1))


def run(scripts: list[list[Step]], light: bool) -> list[tuple[int, str]]:
    env = simpy.Environment()
    site = site_of(env)
    trace: list[tuple[int, str]] = []
    signals: dict[tuple[int, int], simpy.Event] = {}

    def signal(uid: int, k: int) -> simpy.Event:
        return signals.setdefault((uid, k), env.event())

    def fire(event: At) -> None:
        k = event.payload
        trace.append((int(env.now), f"fire {k}"))
        for uid in range(len(scripts)):
            if not signal(uid, k).triggered:
                signal(uid, k).succeed()

    def user(uid: int, script: list[Step]) -> Generator[Any, Any, None]:
        trace.append((int(env.now), f"start {uid}"))
        for what, a, b in script:
            if what == "wait":
                yield a if light else env.timeout(a)
            elif what == "on":
                if signal(uid, a).processed:
                    continue
                yield signal(uid, a)
            else:
                At(env, a, b, fire, b)
            trace.append((int(env.now), f"{uid} after {what} {a}"))

    for uid, script in enumerate(scripts):
        if light:
            UserProcess(site, user(uid, script))
        else:
            env.process(user(uid, script))
    env.run()
    return trace


def test_the_same_order_as_simpy_on_a_small_script() -> None:
    """Two users at t=0: the first waits on signal 1, which the second has fired at t=1
    by a priority-1 callback queued after its own next wait."""
    scripts = [
        [("on", 1, 0), ("wait", 1, 0)],
        [("wait", 1, 0), ("fire", 0, 1), ("wait", 0, 0)],
    ]
    light = run(scripts, light=True)
    assert light == [
        (0, "start 0"), (0, "start 1"),
        (1, "1 after wait 1"), (1, "1 after fire 0"), (1, "fire 1"), (1, "1 after wait 0"),
        (1, "0 after on 1"), (2, "0 after wait 1"),
    ]
    assert light == run(scripts, light=False)


steps = st.one_of(
    st.tuples(st.just("wait"), st.sampled_from([0, 0, 1, 2]), st.just(0)),
    st.tuples(st.just("on"), st.integers(0, 2), st.just(0)),
    st.tuples(st.just("fire"), st.sampled_from([0, 1, 2]), st.integers(0, 2)),
)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(scripts=st.lists(st.lists(steps, max_size=6), min_size=1, max_size=4))
def test_the_same_order_as_simpy(scripts: list[list[Step]]) -> None:
    assert run(scripts, light=True) == run(scripts, light=False)


def test_a_negative_wait_is_an_error() -> None:
    env = simpy.Environment()

    def user() -> Generator[int, Any, None]:
        yield -1

    UserProcess(site_of(env), user())
    with pytest.raises(ValueError, match="negative time"):
        env.run()


@pytest.mark.parametrize("wait", [None, 1.5])
def test_a_wait_is_whole_seconds_or_an_event(wait: object) -> None:
    """A bare ``yield`` or a fraction of a second is an error (the clock is whole seconds)."""
    env = simpy.Environment()

    def user() -> Generator[object, Any, None]:
        yield wait

    UserProcess(site_of(env), user())
    with pytest.raises(TypeError, match="whole seconds or an event"):
        env.run()


def test_an_event_is_waited_on_by_one_user_only() -> None:
    """The pass a resumption asks for runs inside the processing of the event it resumed
    on, so another callback of that event would come after it, not before as under
    SimPy: an event already waited on is refused."""
    env = simpy.Environment()
    shared = env.event()

    def user() -> Generator[simpy.Event, Any, None]:
        yield shared

    site = site_of(env)
    UserProcess(site, user())
    UserProcess(site, user())
    with pytest.raises(RuntimeError, match="an event of its own"):
        env.run()


def test_an_error_in_a_step_leaves_its_pass_queued() -> None:
    """A user that submits, then fails: the error propagates, and the job submitted
    still has its pass queued (as a submission outside a step would), so a caller who
    goes on running sees it start."""
    env = simpy.Environment()
    site = site_of(env)

    def user() -> Generator[object, Any, None]:
        site.submit(Job(id=1, submit=0, size=1, runtime=5, estimate=5))
        yield "soon"

    UserProcess(site, user())
    with pytest.raises(TypeError, match="whole seconds or an event"):
        env.run()
    env.run()
    assert site.submitted == 1 and site.running == 0 and site.scheduler.queue == []
