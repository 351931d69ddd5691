"""The site: one machine, one scheduler, and the life cycle of every job.

The site is the only place that knows a job's real runtime. It turns scheduler
decisions into node allocations and completion events, and tells observers (metrics,
trace writers, waiting users) about submissions, starts and ends. Job sources (a trace
replay, simulated users) only call :meth:`Site.submit`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import simpy

from sitesim.engine.events import COMPLETION, SCHEDULING, At
from sitesim.engine.machine import Machine
from sitesim.schedulers.base import Scheduler
from sitesim.workload.job import Job

JobHook = Callable[[Job], None]


class SiteObserver(Protocol):
    """Anything that wants to hear about jobs; each hook is optional."""

    def on_submit(self, job: Job) -> None: ...
    def on_start(self, job: Job) -> None: ...
    def on_end(self, job: Job) -> None: ...


class Site:
    """Connects job submissions, a scheduler and a machine inside a SimPy environment."""

    def __init__(self, env: simpy.Environment, machine: Machine, scheduler: Scheduler) -> None:
        self.env = env
        self.machine = machine
        self.scheduler = scheduler
        self._submit_hooks: list[JobHook] = []
        self._start_hooks: list[JobHook] = []
        self._end_hooks: list[JobHook] = []
        self._watchers: dict[int, simpy.Event] = {}
        self._pass_pending = False
        self._seq = 0
        #: Jobs submitted, running now.
        self.submitted = 0
        self.running = 0

    def observe(self, observer: object) -> None:
        """Register whichever of ``on_submit``/``on_start``/``on_end`` the observer has."""
        for name, hooks in (
            ("on_submit", self._submit_hooks),
            ("on_start", self._start_hooks),
            ("on_end", self._end_hooks),
        ):
            hook = getattr(observer, name, None)
            if hook is not None:
                hooks.append(hook)

    # -- job sources -------------------------------------------------------------
    def submit(self, job: Job) -> None:
        """Submit ``job`` now; the scheduler sees it in the pass at the end of this instant."""
        job.submit = int(self.env.now)
        job.seq = self._seq
        self._seq += 1
        if job.id < 0:  # generated jobs are numbered in arrival order, from 1
            job.id = job.seq + 1
        self.submitted += 1
        self.scheduler.enqueue(job, job.submit)
        for hook in self._submit_hooks:
            hook(job)
        self._request_pass()

    def watch(self, job: Job) -> simpy.Event:
        """An event that succeeds when ``job`` ends (what a waiting user yields on)."""
        event = self.env.event()
        self._watchers[job.id] = event
        return event

    # -- internals -------------------------------------------------------------------
    def _request_pass(self) -> None:
        if not self._pass_pending:
            self._pass_pending = True
            At(self.env, 0, SCHEDULING, self._pass)

    def _pass(self, _event: simpy.Event) -> None:
        self._pass_pending = False
        now = int(self.env.now)
        machine = self.machine
        for job in self.scheduler.schedule(now, machine.free):
            machine.allocate(job.size)
            job.start = now
            if job.runtime > job.estimate:
                job.killed = True
                duration = job.estimate
            else:
                duration = job.runtime
            self.running += 1
            At(self.env, duration, COMPLETION, self._end, job)
            for hook in self._start_hooks:
                hook(job)

    def _end(self, event: simpy.Event) -> None:
        job: Job = event.value
        job.end = int(self.env.now)
        self.machine.release(job.size)
        self.running -= 1
        self.scheduler.job_ended(job, job.end)
        for hook in self._end_hooks:
            hook(job)
        watcher = self._watchers.pop(job.id, None) if self._watchers else None
        if watcher is not None:
            watcher.succeed(job)
        self._request_pass()
