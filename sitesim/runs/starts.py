"""Start times for a log that records none: replay its jobs under a scheduler.

Several archive logs leave field 3 (wait) at -1 for every job. Without a start there
is no completion, so no think time, batch or session can be measured, and the cleaning
would drop every job. ``sitesim fit`` then reconstructs the starts: the log's own jobs
are submitted at their recorded times, with their recorded sizes and runtimes, to the
log's machine under a scheduler, and each job's simulated start stands for the one the
log did not keep (docs/population.md, "Logs without wait times").

Which scheduler: ``--start-policy`` if given, else the policy a header ``Note`` names
(the archive writes ``; Note: uses the EASY scheduler``), else EASY, the most common
policy of the archive's machines. Only the jobs the cleaning would keep take part (a
job cancelled before it started never held nodes), and no job is killed: the planner
sees the user's request where it covers the runtime, else the runtime itself, because
the log says how long each job really ran.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import simpy
from attrs import define, field

from sitesim.analysis.cleaning import exclusion_reason
from sitesim.engine.events import run as run_events
from sitesim.engine.machine import Machine
from sitesim.engine.replay import TraceReplay
from sitesim.engine.site import Site
from sitesim.errors import InputError
from sitesim.runs.policy import build_scheduler, check_machine
from sitesim.workload.estimates import EstimateModel
from sitesim.workload.job import Job
from sitesim.workload.swf import SwfHeader, SwfReader, SwfRecord

#: The policy used when neither ``--start-policy`` nor the header names one.
DEFAULT_POLICY = "easy"
#: Words of a header note that name a policy, tested in this order.
_NOTE_POLICIES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bEASY\b", re.IGNORECASE), "easy"),
    (re.compile(r"\bconservative\b", re.IGNORECASE), "cons"),
    (re.compile(r"\bFCFS\b|first[- ]come", re.IGNORECASE), "fcfs"),
)


def header_policy(header: SwfHeader) -> str | None:
    """The policy a ``; Note:`` line of the header names, if any (``uses the EASY scheduler``)."""
    for line in header.lines:
        key, sep, value = line.lstrip(";").strip().partition(":")
        if not sep or key.strip().lower() != "note":
            continue
        for pattern, policy in _NOTE_POLICIES:
            if pattern.search(value):
                return policy
    return None


@define(slots=True)
class StartReplay:
    """What the start reconstruction did (the fit's provenance)."""

    policy: str
    #: ``--start-policy``, ``header note`` or ``default``.
    policy_from: str
    nodes: int
    #: Jobs replayed (each got a start), and jobs left out with the reason.
    replayed: int = 0
    left_out: dict[str, int] = field(factory=dict)
    #: Job number -> simulated start (trace seconds).
    starts: dict[int, int] = field(factory=dict, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "simulated": True,
            "policy": self.policy,
            "policy_from": self.policy_from,
            "nodes": self.nodes,
            "replayed": self.replayed,
            "left_out": dict(self.left_out),
        }

    def fill(self, records: Iterator[SwfRecord]) -> Iterator[SwfRecord]:
        """The records with field 3 set to the simulated wait; a job that took part but
        could not be replayed (larger than the machine, fitting no partition) gets -1,
        whatever the log recorded: every start the fit sees comes from the one replay,
        never a mix of simulated starts and the log's own."""
        starts = self.starts
        for rec in records:
            start = starts.get(int(rec.job_number))
            if start is not None:
                rec = rec.with_times(rec.submit_time, start - rec.submit_time, rec.run_time, rec.status)
            elif rec.wait_time != -1 and exclusion_reason(rec, ignore_wait=True) is None:
                rec = rec.with_times(rec.submit_time, -1, rec.run_time, rec.status)
            yield rec


class _NoKill(EstimateModel):
    """The request where it covers the runtime, else the runtime: the log ran every job
    to its recorded end, so the reconstruction must not kill any (not registered)."""

    name = "request-or-runtime"

    def estimate(self, runtime: int, requested: int, rng: Any) -> int:
        return max(runtime, requested)


class _Replayable:
    """The records of an open SWF reader that take part in the reconstruction.

    Quacks like the :class:`SwfReader` a :class:`TraceReplay` reads (iteration, ``path``,
    ``line``, ``skip_malformed``, ``skipped``), so the replay's own checks (submit
    order, job numbers, time limits) name the log's file and line.
    """

    def __init__(self, reader: SwfReader, left_out: dict[str, int]) -> None:
        self._reader = reader
        self._left_out = left_out

    def __iter__(self) -> Iterator[SwfRecord]:
        for rec in self._reader:
            reason = exclusion_reason(rec, ignore_wait=True)
            if reason is None:
                yield rec
            else:
                self._left_out[reason] = self._left_out.get(reason, 0) + 1

    @property
    def path(self) -> str | None:
        return self._reader.path

    @property
    def line(self) -> int:
        return self._reader.line

    @property
    def skip_malformed(self) -> bool:
        return self._reader.skip_malformed

    @property
    def skipped(self) -> int:
        return self._reader.skipped


class _Starts:
    """Observer: the final start of every job that ends."""

    __slots__ = ("starts",)

    def __init__(self, starts: dict[int, int]) -> None:
        self.starts = starts

    def on_end(self, job: Job) -> None:
        self.starts[job.id] = job.start


def simulate_starts(
    path: str | Path, header: SwfHeader, nodes: int, *, policy: str | None = None, skip_malformed: bool = False
) -> StartReplay:
    """Replay the log at ``path`` on ``nodes`` nodes and return every job's start."""
    if policy is not None:
        chosen, origin = policy, "--start-policy"
    else:
        named = header_policy(header)
        chosen, origin = (named, "header note") if named else (DEFAULT_POLICY, "default")
    try:
        scheduler = build_scheduler(chosen, nodes)
    except InputError as exc:
        raise InputError(exc.message, field="--start-policy") from None
    if not scheduler.bounded:
        # The log's own waits are what is missing: a service that replays them has none.
        raise InputError(
            f"{chosen!r} does not share out nodes (the log's service), so it cannot simulate"
            " the starts a log lacks; name a scheduler, e.g. easy",
            field="--start-policy",
        )
    check_machine(scheduler, nodes)
    result = StartReplay(policy=chosen, policy_from=origin, nodes=nodes)
    env = simpy.Environment()
    site = Site(env, Machine(nodes), scheduler)
    site.observe(_Starts(result.starts))
    with SwfReader(path, skip_malformed=skip_malformed) as reader:
        source = _Replayable(reader, result.left_out)
        replay = TraceReplay(site, cast(SwfReader, source), _NoKill(), failures=False)
        replay.start()
        run_events(env)  # SimPy's run, its loop written out (sitesim.engine.events)
    if replay.counts.too_large:
        result.left_out["larger_than_machine"] = replay.counts.too_large
    if replay.counts.unroutable:
        result.left_out["fitting_no_partition"] = replay.counts.unroutable
    result.replayed = len(result.starts)
    unplaceable = replay.counts.too_large + replay.counts.unroutable
    if not result.replayed and unplaceable:
        # Nothing to measure from: the fit would otherwise go on with none of the starts
        # it was asked to simulate (before: with the log's own waits, as if replayed).
        left = ", ".join(f"{n:,} {reason}" for reason, n in sorted(result.left_out.items()))
        raise InputError(
            f"no job could be replayed under {chosen} on {nodes:,} nodes to simulate the starts ({left}):"
            " is the header's MaxNodes/MaxProcs the machine's size?",
            path=str(path),
        )
    return result
