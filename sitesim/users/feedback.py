"""Replay with feedback: a trace's users, each waiting for their own jobs.

A conventional replay submits every job at its recorded time, whatever the scheduler
does. Here (docs/feedback-replay.md) the jobs keep their users, batches and think
times (:mod:`sitesim.users.recorded`), but a batch is submitted only once every job of
the batch it waits for has ended, plus the recorded offsets (think time, then gaps).
An archived log becomes a closed-loop workload: a faster scheduler lets the users
submit their next batches sooner, as in a site-level run.

Each submitted job's SWF fields 17 and 18 name what it really waited for -- the job of
the awaited batch that ended last (ties: the later arrival, the site-level rule) and
the time from that end to the submission -- so the run's dependency-violation count
is zero by construction, and replaying a site-level trace under the scheduler that
produced it reproduces that run's schedule exactly: same batches, same think times,
same completions, hence the same submit times; jobs submitted at one instant go in
job-number order, which is the site-level run's arrival order.

The recorded users' sessions (:class:`~sitesim.users.recorded.RecordedSession`) are
reported to a :class:`~sitesim.metrics.productivity.ProductivityRecorder` when one is
given: a session starts at its first submission and is completed when its last batch
ended, which is when the recording says the user went home (docs/metrics.md, "User
productivity").

Memory: unlike the conventional replay, the whole trace is held (a job's submit time
is only known once its dependency ends), a few hundred bytes per job.
"""

from __future__ import annotations

import heapq
import itertools
from typing import Any

import attrs

from sitesim.engine.events import SUBMISSION, At
from sitesim.engine.replay import TraceReplay
from sitesim.engine.site import Site
from sitesim.metrics.productivity import ProductivityRecorder
from sitesim.users.recorded import FeedbackCounts, RecordedBatch, plan_batches
from sitesim.workload.estimates import EstimateModel
from sitesim.workload.job import Job
from sitesim.workload.swf import SwfReader, SwfRecord


class FeedbackReplay(TraceReplay):
    """Feeds a site from a trace, each batch after the batch its user waited for.

    Which records are replayed, and their counts, are the conventional replay's
    (:class:`~sitesim.engine.replay.TraceReplay`). ``load_factor`` X scales the
    recorded times of root batches (users' first batches and absolute session starts)
    as the conventional replay scales every arrival: sessions arrive X times as often,
    while think times and gaps inside sessions stay as recorded.
    """

    def __init__(
        self,
        site: Site,
        reader: SwfReader,
        estimates: EstimateModel,
        *,
        session_starts: str = "absolute",
        recorder: ProductivityRecorder | None = None,
        **options: Any,
    ) -> None:
        """``options`` are the conventional replay's (load_factor, rng, failures, shaper);
        ``recorder`` hears of the users' sessions and batches."""
        super().__init__(site, reader, estimates, **options)
        self.session_starts = session_starts
        self.recorder = recorder
        self.feedback = FeedbackCounts(session_starts=session_starts)
        #: Jobs due for submission: (time, job number, tie-breaker, job, its batch).
        self._due: list[tuple[int, int, int, Job, RecordedBatch]] = []
        self._ties = itertools.count()
        self._wake: At | None = None
        self._wake_time = -1
        #: Submitted, unfinished jobs by arrival sequence -> their batch.
        self._batch_of: dict[int, RecordedBatch] = {}
        site.observe(self)

    def start(self) -> None:
        """Read the trace, group it into batches, and schedule the root batches."""
        jobs = list(self.accepted())
        plan = getattr(self.shaper, "plan", None)
        if plan is not None:  # moldable replacement: its draws in trace order, not submit order
            plan(jobs)
        batches, self.feedback = plan_batches(jobs, self.session_starts)
        for batch in batches:
            if batch.waits:
                assert batch.previous is not None
                batch.previous.dependents.append(batch)
            else:
                anchor = self.scaled(batch.jobs[0].submit)
                for job, offset in zip(batch.jobs, batch.offsets, strict=True):
                    self._push(anchor + offset, job, batch, None)

    def report(self) -> dict[str, Any]:
        """How the trace was grouped into batches, for the run summary."""
        return {"feedback": attrs.asdict(self.feedback)}

    # -- site observer ---------------------------------------------------------------
    def on_end(self, job: Job) -> None:
        batch = self._batch_of.pop(job.seq, None)
        if batch is None:
            return
        last = batch.last
        if last is None or (job.end, job.seq) > (last.end, last.seq):
            batch.last = job
        batch.open -= 1
        if batch.open == 0:
            self._release(batch)

    # -- internals -------------------------------------------------------------------
    def _release(self, batch: RecordedBatch) -> None:
        """``batch`` has ended: its dependents start their offsets from now."""
        now = int(self.site.env.now)
        waited = batch.last
        session = batch.session
        if self.recorder is not None and session is not None and waited is not None:
            assert session.record is not None
            self.recorder.batch_ended(session.record, now, len(batch.jobs), waited.end - waited.submit)
            session.open -= 1
            if session.open == 0:
                self.recorder.complete(session.record, now)
        for dependent in batch.dependents:
            for job, offset in zip(dependent.jobs, dependent.offsets, strict=True):
                self._push(now + offset, job, dependent, waited)
        batch.dependents.clear()

    def _push(self, time: int, job: Job, batch: RecordedBatch, waited: Job | None) -> None:
        if waited is None:
            job.preceding, job.think = -1, -1
        else:
            job.preceding, job.think = waited.id, time - waited.end
        source = job.source
        if isinstance(source, SwfRecord) and (
            source.preceding_job != job.preceding or source.think_time != job.think
        ):
            job.source = attrs.evolve(source, preceding_job=job.preceding, think_time=job.think)
        heapq.heappush(self._due, (time, job.id, next(self._ties), job, batch))
        if self._wake is None or time < self._wake_time:
            env = self.site.env
            self._wake = At(env, time - int(env.now), SUBMISSION, self._submit_due)
            self._wake_time = time

    def _submit_due(self, event: At) -> None:
        """Submit every job due now, in job-number order, and wait for the next."""
        if event is not self._wake:  # superseded by an earlier wake-up
            return
        self._wake = None
        now = int(self.site.env.now)
        due = self._due
        counts = self.counts
        recorder = self.recorder
        while due and due[0][0] <= now:
            _, _, _, job, batch = heapq.heappop(due)
            if batch.session_start and job is batch.jobs[0]:
                previous = batch.previous
                if previous is not None and previous.open > 0:
                    self.feedback.overlapping_session_starts += 1
            if self.shaper is not None:  # a moldable job is sized now (docs/moldable.md)
                job = self.shaper(job)
            self.site.submit(job)
            self._batch_of[job.seq] = batch
            counts.submitted += 1
            session = batch.session
            if recorder is not None and session is not None and session.record is None:
                session.record = recorder.open(session.user, now)
        if due:
            time = due[0][0]
            self._wake = At(self.site.env, time - now, SUBMISSION, self._submit_due)
            self._wake_time = time
