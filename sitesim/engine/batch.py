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
- a job that ended before the batch was closed had its event processed, or still due,
  when the ``AllOf`` was created, which decided whether the condition succeeded at once
  or later; such jobs keep a real event here, so the same rule applies. (It matters
  only when a job limit cuts a batch short, closing it a gap after its last submission;
  otherwise the batch is closed with its last job just submitted.)

The events that are dropped created nothing, so every other event keeps its place in
SimPy's ``(time, priority, insertion id)`` order.
"""

from __future__ import annotations

import simpy

from sitesim.engine.events import SUBMISSION, At


class BatchEnd(simpy.Event):
    """Succeeds (value: ``None``) when every job added to it has ended.

    The job source adds each job it submits (``Site.wait_on``), then :meth:`close`\\s the
    batch and yields the event. Jobs may end before the batch is closed.
    """

    __slots__ = ("jobs", "ended", "seen", "closed")

    def __init__(self, env: simpy.Environment) -> None:
        super().__init__(env)
        #: Jobs added; of them, ended; of those, whose end the batch has processed.
        self.jobs = 0
        self.ended = 0
        self.seen = 0
        self.closed = False

    def close(self) -> BatchEnd:
        """No more jobs will be added: from now on the batch can end. Returns itself."""
        self.closed = True
        if self.seen == self.jobs:  # every job ended, and that was seen, before closing
            self.succeed()
        return self

    def job_ended(self) -> None:
        """One of the batch's jobs ended now (the site calls this from the completion)."""
        self.ended += 1
        if not self.closed:
            At(self.env, 0, SUBMISSION, self._seen)
        elif self.ended == self.jobs:
            At(self.env, 0, SUBMISSION, self._last_seen)

    def _seen(self, _event: At) -> None:
        """A job that ended before closing: it counts from now (and may be the last)."""
        self.seen += 1
        if self.closed and self.seen == self.jobs:
            self.succeed()

    def _last_seen(self, _event: At) -> None:
        self.succeed()
