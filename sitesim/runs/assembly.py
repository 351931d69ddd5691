"""One run assembly for every kind of run: engine, machine, scheduler, observers.

A replay and a site-level run differ only in where jobs come from (a trace reader, or
simulated users) and in a few summary rules; everything between the job source and the
result files is put together here, once: the SimPy environment, the site around the
machine and the scheduler, the run's metrics, the optional event log, any extra
observers the caller attaches, and the SWF schedule writer when there is an output
directory. The summary takes the scheduler's own report through its one hook
(:meth:`~sitesim.schedulers.base.Scheduler.report`), never by asking which class it is.
A run whose users are simulated (site-level runs, replays with feedback) also keeps a
:class:`~sitesim.metrics.productivity.ProductivityRecorder` that its users report to.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import simpy

from sitesim.engine.eventlog import EventLog
from sitesim.engine.events import run as run_events
from sitesim.engine.machine import Machine
from sitesim.engine.site import Site
from sitesim.metrics.productivity import ProductivityRecorder
from sitesim.metrics.stats import RunMetrics
from sitesim.runs.outdir import OutputDir
from sitesim.runs.progress import run_with_progress, wanted
from sitesim.schedulers.base import Scheduler
from sitesim.workload.files import atomic_text_write
from sitesim.workload.recorded_waits import RecordedWaitWriter, recorded_waits_path
from sitesim.workload.schedule import ScheduleWriter


class RunAssembly:
    """A site ready to run: a job source submits to :attr:`site`, then :meth:`run`."""

    def __init__(
        self,
        scheduler: Scheduler,
        nodes: int,
        *,
        observers: Iterable[object] = (),
        debug: bool = False,
        load_over_window: bool = False,
    ) -> None:
        self.env = simpy.Environment()
        self.scheduler = scheduler
        self.nodes = nodes
        self.site = Site(self.env, Machine(nodes), scheduler)
        self.metrics = RunMetrics.with_threshold(
            nodes, scheduler.short_job_threshold, load_over_window=load_over_window
        )
        self.site.observe(self.metrics)
        if debug:
            self.site.observe(EventLog())
        for observer in observers:
            self.site.observe(observer)
        self.writer: ScheduleWriter | None = None
        #: The jobs' recorded waits beside the schedule, when asked (:meth:`write_schedule`).
        self.recorded_writer: RecordedWaitWriter | None = None
        #: The users' sessions, when users are simulated (:meth:`record_productivity`).
        self.recorder: ProductivityRecorder | None = None

    def record_productivity(self, shift: int) -> ProductivityRecorder:
        """A recorder for the users' sessions; ``shift``: seconds from a local midnight to
        time 0 (``Clock.unix_start + Clock.offset``), so its days are calendar days."""
        self.recorder = ProductivityRecorder(shift)
        return self.recorder

    def write_schedule(
        self, out: Path, name: str, header: list[str], stack: ExitStack, *, recorded_waits: bool = False,
    ) -> OutputDir:
        """Stream the schedule as SWF to ``out/name``; returns the staged output
        directory, published with every file in it only if the run succeeds. With
        ``recorded_waits``, the jobs' recorded waits go beside it
        (:mod:`sitesim.workload.recorded_waits`), so a replay gives each the same."""
        staged = stack.enter_context(OutputDir(out))
        stream = stack.enter_context(atomic_text_write(staged.path(name)))
        self.writer = ScheduleWriter(stream, header)
        self.site.observe(self.writer)
        if recorded_waits:
            waits = stack.enter_context(atomic_text_write(staged.path(recorded_waits_path(name).name)))
            self.recorded_writer = RecordedWaitWriter(waits)
            self.site.observe(self.recorded_writer)
        return staged

    def run(self, until: int | None = None, *, progress: bool | None = None) -> None:
        """Simulate until ``until`` (None: until no event is left), with a progress bar
        on simulated time if ``progress`` (None: only when stderr is a terminal)."""
        if wanted(progress):
            run_with_progress(self.env, until)
        else:
            run_events(self.env, until)

    def close(self, end: int | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        """End the observation window at ``end`` (default: the last completion), flush
        the schedule; returns the system summary and the scheduler's own report."""
        self.metrics.close(end)
        if self.recorder is not None:  # sessions in progress are cut where the window ends
            self.recorder.close(self.metrics.end)
        if self.writer is not None:
            self.writer.close()
        if self.recorded_writer is not None:
            self.recorded_writer.close()
        summary: dict[str, Any] = self.metrics.system_summary()
        return summary, self.scheduler.report(self.metrics.window)

    def productivity(
        self, users: Mapping[int, Mapping[str, Any]]
    ) -> tuple[dict[str, Any], dict[int, dict[str, Any]]]:
        """After :meth:`close`: the ``productivity`` section, and ``users`` (the per-user
        summaries) with each recorded user's own under ``productivity``. Completed jobs
        are the run metrics' (jobs that ended), by user."""
        if self.recorder is None:
            raise RuntimeError("this run records no productivity (no simulated users)")
        completed = {user: stats.completed for user, stats in self.metrics.users.items()}
        per_user = self.recorder.user_summaries(completed)
        merged = {
            user: {**s, "productivity": per_user[user]} if user in per_user else dict(s)
            for user, s in users.items()
        }
        return self.recorder.summary(completed), merged
