"""The site: one machine, one scheduler, and the life cycle of every job.

The site is the only place that knows a job's real runtime. It turns scheduler
decisions into node allocations and completion events, and tells observers (metrics,
trace writers, waiting users) about submissions, starts and ends. Job sources (a trace
replay, simulated users) only call :meth:`Site.submit`.

Schedulers that preempt (timed-run scheduling, docs/trial-runs.md) get a
:class:`Control` through ``scheduler.bind``: ``kill`` frees a running job's nodes at
once (so the same pass can start other jobs on them) and ``timer`` asks for a call back
after some seconds of a run; ``wake`` asks for a pass at a later time (a policy that
holds jobs until a release time, sitesim/schedulers/hold.py). A killed run's
completion event stays queued; the run token on the job (``job.run_token``, the
pending completion event) tells the stale event apart. Policies that never kill pay one
attribute store per start and one identity test per end.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import simpy

from sitesim.engine.batch import BatchEnd
from sitesim.engine.events import COMPLETION, SCHEDULING, TIMER, At, due_now
from sitesim.engine.machine import Machine
from sitesim.schedulers.base import Scheduler
from sitesim.workload.job import Job

JobHook = Callable[[Job], None]


class SiteObserver(Protocol):
    """Anything that wants to hear about jobs; each hook is optional."""

    def on_submit(self, job: Job) -> None: ...
    def on_start(self, job: Job) -> None: ...
    def on_end(self, job: Job) -> None: ...
    def on_kill(self, job: Job) -> None:
        """A run was killed by the scheduler; ``start``/``end`` delimit it during the call."""


class Control:
    """What a scheduler may do besides starting jobs: kill a running one, time one, or
    ask for a later pass.

    A separate object, not the site itself, so that a policy gets exactly these three
    powers and nothing else of the engine.
    """

    __slots__ = ("_site",)

    def __init__(self, site: Site) -> None:
        self._site = site

    def kill(self, job: Job) -> None:
        """Kill ``job``'s current run now; its nodes are free for starts in this pass.

        The job is not ended: it is the scheduler's to start again (from scratch) later.
        The scheduler's own ``job_ended`` is not called for it.
        """
        self._site._kill(job)

    def timer(self, job: Job, seconds: int) -> None:
        """Call ``scheduler.timer_expired(job, now)`` ``seconds`` after this pass (for a
        job starting in it: ``seconds`` into its run); then hold a scheduling pass,
        unless ``scheduler.needs_pass`` says it would start nothing and change nothing.
        Set from ``timer_expired`` itself, it counts from the pass that follows, at the
        same instant.

        Meant for ``schedule()``; the timer is dropped if that run ends or is killed
        first.
        """
        self._site._timers.append((job, seconds))

    def wake(self, seconds: int) -> None:
        """Hold a scheduling pass ``seconds`` from now, whatever else happens by then:
        for a policy whose decisions change with the clock alone (a job held until a
        release time, sitesim/schedulers/hold.py)."""
        if seconds < 0:
            raise ValueError(f"a wake-up cannot be in the past ({seconds} s)")
        At(self._site.env, seconds, TIMER, self._site._wake)


class Site:
    """Connects job submissions, a scheduler and a machine inside a SimPy environment."""

    def __init__(self, env: simpy.Environment, machine: Machine, scheduler: Scheduler) -> None:
        self.env = env
        # Only a policy that says it does not share out nodes may exceed the machine.
        machine.bounded = scheduler.bounded
        self.machine = machine
        self.scheduler = scheduler
        self._submit_hooks: list[JobHook] = []
        self._start_hooks: list[JobHook] = []
        self._end_hooks: list[JobHook] = []
        self._kill_hooks: list[JobHook] = []
        self._timers: list[tuple[Job, int]] = []
        self._watchers: dict[int, BatchEnd] = {}
        self._pass_pending = False
        #: None outside a job source's step; inside one, whether it submitted a job.
        self._step_submitted: bool | None = None
        self._seq = 0
        #: Jobs submitted, running now.
        self.submitted = 0
        self.running = 0
        scheduler.bind(Control(self))

    def observe(self, observer: object) -> None:
        """Register whichever of ``on_submit``/``on_start``/``on_end``/``on_kill`` it has."""
        for name, hooks in (
            ("on_submit", self._submit_hooks),
            ("on_start", self._start_hooks),
            ("on_end", self._end_hooks),
            ("on_kill", self._kill_hooks),
        ):
            hook = getattr(observer, name, None)
            if hook is not None:
                hooks.append(hook)

    # -- job sources -------------------------------------------------------------
    def submit(self, job: Job) -> None:
        """Submit ``job`` now; the scheduler sees it in the pass at the end of this instant."""
        self.enter(job)
        if self._step_submitted is None:
            self._request_pass()
        else:
            self._step_submitted = True

    def begin_step(self) -> None:
        """A job source's event callback begins: its submissions leave the pass to
        :meth:`end_step` (a user process brackets each resumption with the two)."""
        self._step_submitted = False

    def end_step(self, *, at_once: bool = True) -> None:
        """The step's last act: if it submitted, :meth:`settle` (or, with ``at_once``
        false, for a step cut short by an error, queue the pass as a submission did).

        The pass a submission asks for always comes after the rest of the step; asking
        at the step's end instead of at the submission only moves the creation of its
        event within the step, and no other event shares its time and priority (one
        pass is pending at most), so the order of events is the same; and when nothing
        else is due at the instant, :meth:`settle` runs the pass at once instead of
        queueing an event that would have been the next one.
        """
        submitted, self._step_submitted = self._step_submitted, None
        if submitted:
            if at_once:
                self.settle()
            else:
                self._request_pass()

    def enter(self, job: Job) -> None:
        """Submit ``job`` now, leaving the pass to :meth:`settle`.

        For a job source submitting from an event callback of its own, which then calls
        :meth:`settle` as its last step (the trace replay does).
        """
        job.submit = int(self.env.now)
        job.seq = self._seq
        self._seq += 1
        if job.id < 0:  # generated jobs are numbered in arrival order, from 1
            job.id = job.seq + 1
        self.submitted += 1
        self.scheduler.enqueue(job, job.submit)
        for hook in self._submit_hooks:
            hook(job)

    def settle(self, now: int | None = None) -> None:
        """Hold this instant's scheduling pass, as the last step of an event callback
        (``now``: the current time, when the caller has it at hand).

        The pass must come after everything else that happens at this instant (module
        docstring of :mod:`sitesim.engine.events`). When no other event is due now, the
        pass would be the very next event, so it runs at once instead of costing an
        event of its own; otherwise it is queued at ``SCHEDULING`` priority as usual.
        Either way the same pass sees the same state, so schedules do not change.
        """
        if self._pass_pending:
            return
        if due_now(self.env):
            self._pass_pending = True
            At(self.env, 0, SCHEDULING, self._pass)
        else:
            self._run_pass(int(self.env.now) if now is None else now)

    def watch(self, job: Job, batch: BatchEnd) -> None:
        """Count ``job`` in ``batch``, the event its user will wait on (submitted jobs only)."""
        batch.add()
        self._watchers[job.id] = batch

    # -- internals -------------------------------------------------------------------
    def _request_pass(self) -> None:
        if not self._pass_pending:
            self._pass_pending = True
            At(self.env, 0, SCHEDULING, self._pass)

    def _pass(self, event: At) -> None:
        self._pass_pending = False
        self._run_pass(event.time)

    def _run_pass(self, now: int) -> None:
        env = self.env
        machine = self.machine
        started = self.scheduler.schedule(now, machine.free)
        if started:
            nodes = 0
            for job in started:
                nodes += job.size
            free = machine.free - nodes
            if free < 0:
                machine.allocate(nodes)  # raises: the scheduler over-allocated
            machine.free = free
            self.running += len(started)
            hooks = self._start_hooks
            end = self._end
            for job in started:
                job.start = now
                if job.runtime > job.estimate:
                    job.killed = True
                    duration = job.estimate
                else:
                    duration = job.runtime
                job.run_token = At(env, duration, COMPLETION, end, job)
                for hook in hooks:
                    hook(job)
        if self._timers:
            self._set_timers(now)

    def _set_timers(self, now: int) -> None:
        timers, self._timers = self._timers, []
        for job, seconds in timers:
            token = job.run_token
            if token is None:
                raise RuntimeError(f"timer set on job {job.id}, which is not running")
            # A timer due at or after the run's end would only be dropped (the end
            # comes first: COMPLETION before TIMER at one instant), so none is set.
            if now + seconds < token.time:
                At(self.env, seconds, TIMER, self._ring, (job, token))

    def _ring(self, event: At) -> None:
        job, token = event.payload
        if job.run_token is not token:  # that run ended or was killed meanwhile
            return
        now = event.time
        scheduler = self.scheduler
        scheduler.timer_expired(job, now)
        # A timer set by timer_expired is set by the pass; otherwise the policy may
        # know that the pass would do nothing.
        if self._timers or scheduler.needs_pass(self.machine.free):
            self.settle(now)

    def _wake(self, _event: At) -> None:
        self.settle()

    def _kill(self, job: Job) -> None:
        if job.run_token is None:
            raise RuntimeError(f"job {job.id} is not running: only a running job can be killed")
        job.run_token = None
        now = int(self.env.now)
        self.machine.release(job.size)
        self.running -= 1
        if job.first_start < 0:
            job.first_start = job.start
        job.restarts += 1
        job.lost += now - job.start
        job.end = now
        for hook in self._kill_hooks:
            hook(job)
        # Back to "waiting": a run cut off before the restart reports it as never started.
        job.start = job.end = -1

    def _end(self, event: At) -> None:
        job: Job = event.payload
        if job.run_token is not event:  # completion of a run killed earlier
            return
        job.run_token = None
        job.end = now = int(event.time)
        machine = self.machine
        free = machine.free + job.size
        if free > machine.nodes:
            machine.release(job.size)  # raises: more nodes released than exist
        machine.free = free
        self.running -= 1
        self.scheduler.job_ended(job, now)
        for hook in self._end_hooks:
            hook(job)
        batch = self._watchers.pop(job.id, None) if self._watchers else None
        if batch is not None:
            batch.job_ended()
        self.settle(now)
