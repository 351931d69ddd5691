"""The site's scheduling pass: one per instant, after everything else at that instant.

:meth:`Site.settle` runs the pass at once when no other event is due at the instant
(the pass would be the very next event), and queues it otherwise; both must give the
pass the same view as a pass that always is an event of its own.
"""

from __future__ import annotations

from collections.abc import Generator

import simpy

from sitesim.engine.events import SUBMISSION, At
from sitesim.engine.machine import Machine
from sitesim.engine.site import Site
from sitesim.schedulers.fcfs import FcfsScheduler
from sitesim.workload.job import Job


class Recording(FcfsScheduler):
    """FCFS that notes, for every pass, the time and the job ids it saw queued."""

    def __init__(self, nodes: int) -> None:
        super().__init__(nodes)
        self.passes: list[tuple[int, list[int]]] = []

    def schedule(self, now: int, free: int) -> list[Job]:
        self.passes.append((now, [job.id for job in self.queue]))
        return super().schedule(now, free)


def job(number: int, runtime: int = 10, size: int = 1) -> Job:
    return Job(id=number, submit=0, size=size, runtime=runtime, estimate=runtime)


def test_settle_waits_for_other_events_of_the_instant() -> None:
    """A job source settling at t=5 while a process still submits at t=5: one pass,
    after both submissions (not one after each)."""
    env = simpy.Environment()
    scheduler = Recording(4)
    site = Site(env, Machine(4), scheduler)

    def source(event: At) -> None:
        site.enter(event.payload)
        site.settle()

    def user() -> Generator[simpy.Event, None, None]:
        yield env.timeout(5)
        site.submit(job(2))

    At(env, 5, SUBMISSION, source, job(1))
    env.process(user())
    env.run()
    assert scheduler.passes[0] == (5, [1, 2])
    assert [t for t, _ in scheduler.passes].count(5) == 1


def test_settle_runs_the_pass_at_once_when_the_instant_is_over() -> None:
    """Nothing else due at t=3: the pass runs inside the callback, and a zero-length
    job started by it ends at the same instant, followed by a pass of its own."""
    env = simpy.Environment()
    scheduler = Recording(2)
    site = Site(env, Machine(2), scheduler)
    ended: list[tuple[int, int]] = []

    class Ends:
        def on_end(self, j: Job) -> None:
            ended.append((j.id, j.end))

    site.observe(Ends())

    def source(event: At) -> None:
        for j in event.payload:
            site.enter(j)
        site.settle()
        # The pass ran already: the zero-length job holds its nodes until its end event.
        assert site.running == 2 and scheduler.passes == [(3, [1, 2, 3])]

    At(env, 3, SUBMISSION, source, [job(1, runtime=0), job(2, runtime=4), job(3, runtime=1)])
    env.run()
    assert ended == [(1, 3), (3, 4), (2, 7)]
    assert scheduler.passes == [(3, [1, 2, 3]), (3, [3]), (4, []), (7, [])]


def test_completion_at_the_same_instant_as_an_arrival_comes_first() -> None:
    """An end and an arrival at t=10: the end frees the node before the single pass."""
    env = simpy.Environment()
    scheduler = Recording(1)
    site = Site(env, Machine(1), scheduler)
    site.submit(job(1, runtime=10))
    At(env, 10, SUBMISSION, lambda e: (site.enter(e.payload), site.settle()), job(2, runtime=5))
    env.run()
    assert scheduler.passes == [(0, [1]), (10, [2]), (15, [])]
