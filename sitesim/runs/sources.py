"""What submits a run's jobs (a job source), and the one sequence that runs a source.

Every run has the same shape: a :class:`~sitesim.runs.assembly.RunAssembly` (engine,
machine, scheduler, metrics), a *job source* that submits to its site, the schedule
written as it happens, then the summary. Only the source differs: a trace replayed in
the open model or with feedback (:mod:`sitesim.runs.trace_sources`), or a site's
simulated users (:mod:`sitesim.runs.user_kinds`). Both kinds of source are chosen by
name from a registry, so a new one is a registered class, and :func:`run_source` is
the part every run shares, written once.

A source reports its own extras for the summary (:meth:`JobSource.report`), as a
scheduler does through :meth:`~sitesim.schedulers.base.Scheduler.report`: the run
never asks which class it was given.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Protocol, TypeVar

from sitesim.runs.assembly import RunAssembly
from sitesim.runs.output import write_json, write_text


class JobSource(Protocol):
    """Something attached to a run's site that submits jobs to it once started."""

    def start(self) -> None:
        """Schedule the first submissions; the simulation then runs them."""

    def report(self) -> dict[str, Any]:
        """Extra entries for the run summary from this source (may be empty)."""


class RunResult(Protocol):
    """What a run returns: it knows its own ``summary.json`` and ``stats.txt``."""

    def document(self) -> dict[str, Any]: ...

    def stats(self) -> list[str]: ...


S = TypeVar("S", bound=JobSource)
R = TypeVar("R", bound=RunResult)


def run_source(
    run: RunAssembly,
    source: Callable[[], S],
    finish: Callable[[S, dict[str, Any], dict[str, Any]], R],
    stack: ExitStack,
    *,
    out: Path | None,
    schedule: str,
    header: list[str],
    until: int | None = None,
    progress: bool | None = None,
    recorded_waits: bool = False,
) -> R:
    """Run the job source that ``source()`` attaches to ``run``'s site; return the result.

    With ``out``, the schedule is streamed to ``out/schedule`` (the SWF ``header``
    first) and ``summary.json`` and ``stats.txt`` join it; ``stack`` publishes the
    directory only if the whole run succeeds. The source is built after the schedule
    writer is attached, so a source that observes the site hears of each event after
    the writer, as it always has. The run lasts until ``until`` (None: until no event
    is left), which also ends the observation window. ``recorded_waits``: the jobs'
    recorded waits go beside the schedule (:meth:`RunAssembly.write_schedule`). ``finish(source, summary,
    scheduler_report)`` turns the closed run into the result, and may refuse it (a
    replay that replayed nothing).
    """
    staged = run.write_schedule(out, schedule, header, stack, recorded_waits=recorded_waits) if out is not None else None
    built = source()
    built.start()
    run.run(until=until, progress=progress)
    summary, report = run.close(end=until)
    result = finish(built, summary, report)
    if staged is not None:
        write_json(staged.path("summary.json"), result.document())
        write_text(staged.path("stats.txt"), result.stats())
    return result
