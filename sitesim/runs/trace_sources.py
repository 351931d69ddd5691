"""Job sources that replay a trace, registered by name (:data:`TRACE_SOURCES`).

A replay reads one SWF trace; what turns its records into submissions is a *trace
source* kind: ``trace``, the open model (every job at its recorded time,
docs/replay.md), or ``feedback``, each batch after the batch its user waited for
(docs/feedback-replay.md). A replay configuration names the kind through
``feedback`` (None: ``trace``), and :func:`sitesim.runs.replay.run_replay` takes any
registered kind by name or class: a new way of replaying a trace is a class with a
``name``, a one-line ``summary`` and :meth:`TraceKind.source`, registered with
``@TRACE_SOURCES.register``, not a branch in the run.

This module stays light: the feedback replay (numpy, the recorded users) is imported
only by the kind that builds it, so a plain replay never loads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from attrs import define

from sitesim.engine.replay import TraceReplay
from sitesim.errors import InputError
from sitesim.registry import Registry
from sitesim.runs.assembly import RunAssembly
from sitesim.workload.estimates import EstimateModel
from sitesim.workload.swf import SwfReader

if TYPE_CHECKING:  # numpy and moldable jobs: only replays that use them
    import numpy as np

    from sitesim.moldable.replace import Replacement


@define(frozen=True, slots=True)
class TraceFeed:
    """What a trace source is built from: the run, the open trace, and how to read it."""

    run: RunAssembly
    reader: SwfReader
    estimates: EstimateModel
    #: The run's one generator, when the estimate model draws; else None.
    rng: np.random.Generator | None
    load_factor: float
    #: True: status-0 jobs fail at their recorded runtime (docs/failures.md).
    failures: bool
    #: Moldable replacement of jobs at submission (docs/moldable.md), or None.
    shaper: Replacement | None
    #: A replay with feedback's session starts (``--feedback``); None in the open model.
    session_starts: str | None
    #: Processors per node of a machine whose nodes go whole to jobs (1: sizes as recorded).
    per_node: int = 1
    #: Each job's recorded wait by number, read beside a site-level run's trace
    #: (sitesim.workload.recorded_waits); None: each record's field 3.
    recorded_waits: Mapping[int, int] | None = None

    def options(self) -> dict[str, Any]:
        """The keyword arguments every :class:`TraceReplay` takes after its three."""
        return {"load_factor": self.load_factor, "rng": self.rng, "failures": self.failures, "shaper": self.shaper,
                "per_node": self.per_node, "recorded_waits": self.recorded_waits}


class TraceKind:
    """A registered way of replaying a trace: builds the run's source from a feed."""

    name: ClassVar[str]
    summary: ClassVar[str] = ""

    @classmethod
    def source(cls, feed: TraceFeed) -> TraceReplay:
        """The job source for this run, attached to ``feed.run.site``, not yet started.

        It is a :class:`TraceReplay` (or derives from one): the run reads its
        ``counts`` of the records read, refused and submitted.
        """
        raise NotImplementedError

    @classmethod
    def described(cls, feed: TraceFeed) -> str:
        """What the schedule's header calls this replay (``a conventional replay``)."""
        return f"a replay by job source {cls.name}"


#: Ways of replaying a trace, by name.
TRACE_SOURCES: Registry[type[TraceKind]] = Registry("trace source", "--feedback", TraceKind)


@TRACE_SOURCES.register
class OpenModel(TraceKind):
    name = "trace"
    summary = "the open model: every job at its recorded (load-scaled) time"

    @classmethod
    def source(cls, feed: TraceFeed) -> TraceReplay:
        return TraceReplay(feed.run.site, feed.reader, feed.estimates, **feed.options())

    @classmethod
    def described(cls, feed: TraceFeed) -> str:
        return "a conventional replay"


@TRACE_SOURCES.register
class WithFeedback(TraceKind):
    name = "feedback"
    summary = "each batch after the batch its user waited for, then the recorded think time"

    @classmethod
    def source(cls, feed: TraceFeed) -> TraceReplay:
        """The feedback replay, whose recorded users report their sessions to the run's
        productivity recorder, its days the trace's calendar days."""
        from sitesim.users.feedback import FeedbackReplay
        from sitesim.workload.calendar import Clock

        starts = cls._starts(feed)
        clock = Clock.from_header(feed.reader.header)
        recorder = feed.run.record_productivity(clock.unix_start + clock.offset)
        return FeedbackReplay(
            feed.run.site, feed.reader, feed.estimates, session_starts=starts, recorder=recorder, **feed.options()
        )

    @classmethod
    def described(cls, feed: TraceFeed) -> str:
        return f"a replay with feedback (session starts {cls._starts(feed)})"

    @staticmethod
    def _starts(feed: TraceFeed) -> str:
        if feed.session_starts is None:
            raise InputError("a replay with feedback needs its session starts", field="--feedback")
        return feed.session_starts
