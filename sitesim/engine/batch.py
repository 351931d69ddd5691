"""The event a user waits on for a batch: it succeeds once every job of the batch ended.

A user's batch was first waited on the way SimPy offers: one event per job, succeeded
by the site when the job ends, and an ``AllOf`` over them. That costs three events and
a condition check per job, most of which change nothing: only the last job's event
makes the condition succeed. :class:`BatchEnd` keeps exactly the order in which that
construction acted and drops the rest, so schedules are unchanged (which is checked
against the ``AllOf`` original in ``tests/engine/test_batch.py``):

- the ``AllOf`` succeeded while its last per-job event was being processed, which is
  one ``SUBMISSION``-priority event after the completion that ended the batch's last
  job; ``BatchEnd`` schedules one such event for that job alone and succeeds in it;
- a batch is normally closed (the ``AllOf`` created) in the step that submits its
  last job, which cannot have ended yet, so the condition could not succeed then, and
  the jobs that ended earlier only counted: they are counted here without an event;
- but a job limit can cut a batch short, closing it a gap after its last submission.
  A job that ended before that close had its event processed, or still due, when the
  ``AllOf`` was created, which decided whether the condition succeeded at once or
  later; a batch that may be closed late (``late_close``) gives such jobs a real event,
  so the same rule applies.

The events that are dropped created nothing, so every other event keeps its place in
SimPy's ``(time, priority, insertion id)`` order.
"""

from __future__ import annotations

from collections.abc import Callable

import simpy

from sitesim.engine.events import SUBMISSION, At


class BatchEnd(simpy.Event):
    """Succeeds (value: ``None``) when every job added to it has ended.

    The job source adds each job it submits (``Site.watch``), then :meth:`close`\\s the
    batch and yields the event. Jobs may end before the batch is closed. ``late_close``:
    the batch may be closed after the step that submitted its last job (see the module
    docstring); otherwise it must be closed in that step.
    """

    __slots__ = ("jobs", "ended", "seen", "closed", "late_close", "on_idle")

    def __init__(self, env: simpy.Environment, late_close: bool = True) -> None:
        super().__init__(env)
        #: Jobs added; of them, ended; of those, whose end the batch has processed.
        self.jobs = 0
        self.ended = 0
        self.seen = 0
        self.closed = False
        self.late_close = late_close
        #: Called (no argument) when every job added so far has ended while the batch is
        #: still open: a user who reacts to its jobs' ends between two submissions of a
        #: batch (``submit_batch``'s ``react``) sets it for the gap it waits in.
        self.on_idle: Callable[[], None] | None = None

    def add(self) -> None:
        """One more job of the batch was submitted (``Site.watch`` calls this)."""
        self.jobs += 1

    def close(self) -> BatchEnd:
        """No more jobs will be added: from now on the batch can end. Returns itself."""
        self.closed = True
        if not self.late_close and self.ended == self.jobs:
            raise RuntimeError("a batch closed after all its jobs ended must be made with late_close=True")
        if self.seen == self.jobs:  # every job ended, and that was seen, before closing
            self.succeed()
        return self

    def job_ended(self) -> None:
        """One of the batch's jobs ended now (the site calls this from the completion)."""
        self.ended += 1
        if not self.closed:
            if self.late_close:
                At(self.env, 0, SUBMISSION, self._seen)
            else:
                self.seen += 1
            if self.on_idle is not None and self.ended == self.jobs:
                self.on_idle()
        elif self.ended == self.jobs:
            At(self.env, 0, SUBMISSION, self._last_seen)

    def _seen(self, _event: At) -> None:
        """A job that ended before closing: it counts from now (and may be the last)."""
        self.seen += 1
        if self.closed and self.seen == self.jobs:
            self.succeed()

    def _last_seen(self, _event: At) -> None:
        """The last job's end, seen after closing: the batch ends (as the ``AllOf`` did)."""
        self.succeed()
