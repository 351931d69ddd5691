"""A conventional simulation: replay an SWF trace, open model, under one scheduler.

A plain replay has no simulated users, so its summary has no ``productivity`` section;
a replay with feedback has one, measured from the recorded users' sessions as they
are replayed (docs/metrics.md, "User productivity").
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
from attrs import define, field

from sitesim.engine.replay import TraceReplay
from sitesim.errors import InputError
from sitesim.metrics.stats import RunMetrics
from sitesim.metrics.violations import ViolationCounter
from sitesim.runs import options
from sitesim.runs.assembly import RunAssembly
from sitesim.runs.output import (
    SYSTEM_HEADER,
    productivity_lines,
    summary_document,
    system_line,
)
from sitesim.runs.policy import build_scheduler, check_machine, machine_nodes, policy_label
from sitesim.runs.sources import run_source
from sitesim.runs.trace_sources import TRACE_SOURCES, TraceFeed, TraceKind
from sitesim.schedulers.base import Scheduler
from sitesim.workload.estimates import EstimateModel, make_estimates
from sitesim.workload.nodes import replay_divisor, sizes_note
from sitesim.workload.replay import ReplayCounts
from sitesim.workload.recorded_waits import read_recorded_waits, recorded_waits_path
from sitesim.workload.swf import SwfReader

if TYPE_CHECKING:  # moldable jobs: only runs that use them
    from sitesim.moldable.replace import MoldableSpec, Replacement

DEFAULT_NODES = 128


def _default(name: str) -> Any:
    return options.default(name, options.REPLAY)


@define(frozen=True, slots=True)
class ReplayConfig:
    """Everything that determines a replay's result.

    Its fields are the replay options of :mod:`sitesim.runs.options` (defaults, units
    and limits declared there), and the moldable replacement, an experiment's setting.
    """

    trace: str
    scheduler: str = _default("scheduler")
    estimates: str = _default("estimates")
    #: Machine size; None means the trace header's MaxProcs/MaxNodes (else 128); with
    #: ``processors_per_node`` dividing the sizes, its MaxNodes (nodes, like the sizes).
    nodes: int | None = _default("nodes")
    #: The log's sizes are processors of nodes given whole to jobs, this many each: a
    #: job takes ceil(size / N) nodes (a fitted whole-node site's; docs/service.md).
    #: Checked against the header when the trace is read
    #: (:func:`sitesim.workload.nodes.replay_divisor`): a log already in nodes
    #: (MaxNodes = MaxProcs) is replayed undivided.
    processors_per_node: int = _default("processors_per_node")
    load_factor: float = _default("load_factor")
    seed: int = _default("seed")
    skip_malformed: bool = _default("skip_malformed")
    #: "trace": status-0 jobs fail at their recorded runtime; "none": they complete
    #: (docs/failures.md).
    failures: str = _default("failures")
    #: Replay with feedback (docs/feedback-replay.md): None for the open model, else
    #: what session starts are anchored to, one of ``SESSION_STARTS``.
    feedback: str | None = _default("feedback")
    #: Jobs replaced by moldable ones and how they are sized (docs/moldable.md).
    moldable: MoldableSpec | None = None

    def __attrs_post_init__(self) -> None:
        options.check_record(self, options.REPLAY)
        if self.feedback is not None:
            from sitesim.users.recorded import SESSION_STARTS

            if self.feedback not in SESSION_STARTS:
                known = ", ".join(SESSION_STARTS)
                raise InputError(f"unknown feedback mode {self.feedback!r} (known: {known})", field="feedback")


@define(slots=True)
class ReplayResult:
    config: ReplayConfig
    nodes: int
    summary: dict[str, Any]
    users: dict[int, dict[str, Any]]
    counts: dict[str, int]
    metrics: RunMetrics = field(repr=False)
    #: Dependency violations (sitesim.metrics.violations; docs/violations.md).
    violations: dict[str, Any] = field(factory=dict)
    #: What the scheduler and the job source reported (``Scheduler.report``,
    #: ``TraceReplay.report``): ``partitions`` (docs/partitions.md), ``trial_runs``
    #: (docs/trial-runs.md), ``feedback`` (docs/feedback-replay.md), ...
    report: dict[str, Any] = field(factory=dict)
    #: The replaced jobs (docs/moldable.md); None without ``config.moldable``.
    replacement: Replacement | None = field(default=None, repr=False)
    #: The recorded users' productivity (replay with feedback; docs/metrics.md), each
    #: user's in ``users``; None in a plain replay, which simulates no users.
    productivity: dict[str, Any] | None = None

    @property
    def partitions(self) -> dict[str, Any]:
        """Per-partition summary (docs/partitions.md); empty without partitions."""
        return self.report.get("partitions", {})

    @property
    def trial_runs(self) -> dict[str, Any]:
        """Trial runs and what became of them (timed-run schedulers); else empty."""
        return self.report.get("trial_runs", {})

    @property
    def feedback(self) -> dict[str, Any]:
        """How the trace was grouped into batches (replay with feedback); else empty."""
        return self.report.get("feedback", {})

    def system_line(self) -> str:
        return system_line(self.summary, self.policy, len(self.users))

    def stats(self) -> list[str]:
        """``stats.txt``: the ``#sid`` line, and with feedback the ``#psid`` line."""
        lines = [SYSTEM_HEADER, self.system_line()]
        if self.productivity is not None:
            lines += productivity_lines(self.productivity)
        return lines

    @property
    def policy(self) -> str:
        """Table 2's policy column: the scheduler's spec, or its label (``partitioned``)."""
        return policy_label(self.config.scheduler)

    def document(self) -> dict[str, Any]:
        config = attrs.asdict(self.config)
        if config["processors_per_node"] == 1:  # replays in processors keep their summary bytes
            del config["processors_per_node"]
        config["nodes_used"] = self.nodes
        return summary_document(
            "replay",
            config,
            {
                "system": self.summary,
                "users": {str(u): s for u, s in self.users.items()},
                "trace_jobs": self.counts,
                "violations": self.violations,
                **self.report,
                **({} if self.productivity is None else {"productivity": self.productivity}),
            },
        )


def _nothing_replayed(counts: ReplayCounts) -> str:
    """Why a replay has no job: a run of no jobs has no meaningful metric."""
    if counts.read == 0:
        what = "no job lines" + (f" ({counts.malformed} malformed skipped)" if counts.malformed else "")
    else:
        what = (
            f"none of its {counts.read} jobs can run: {counts.unknown} unknown size/runtime,"
            f" {counts.too_large} larger than the machine, {counts.unroutable} fitting no partition"
        )
    return f"nothing to replay: {what}"


def _job_source(config: ReplayConfig) -> str:
    """The trace source kind (:data:`~sitesim.runs.trace_sources.TRACE_SOURCES`) a
    configuration names: the open model, or with ``feedback`` the closed-loop replay."""
    return "trace" if config.feedback is None else "feedback"


def run_replay(
    config: ReplayConfig,
    out: Path | None = None,
    *,
    debug: bool = False,
    observers: Iterable[object] = (),
    scheduler: Scheduler | None = None,
    estimates: EstimateModel | None = None,
    progress: bool | None = None,
    source: str | type[TraceKind] | None = None,
) -> ReplayResult:
    """Replay ``config.trace``; with ``out``, write summary.json, stats.txt, schedule.swf.

    ``observers`` are attached to the site beside the run's own (any object with some
    of ``on_submit``/``on_start``/``on_end``/``on_kill``). ``scheduler`` and
    ``estimates``: ready-made objects instead of the ones the config names (the Python
    API's instances; ``progress``: a bar on simulated time, by default only when stderr
    is a terminal). Output files appear only if the whole run succeeds. ``source``: a
    registered trace source kind (name or class,
    :data:`~sitesim.runs.trace_sources.TRACE_SOURCES`) instead of the one the config names.
    """
    if estimates is None:
        estimates = make_estimates(config.estimates)
    rng = None
    if estimates.random:
        import numpy as np

        rng = np.random.default_rng(config.seed)
    with ExitStack() as stack:
        reader = stack.enter_context(SwfReader(config.trace, skip_malformed=config.skip_malformed))
        # A log in processors is divided, one already in nodes (a site's own trace) is not.
        per_node = replay_divisor(reader.header, config.processors_per_node, path=config.trace)
        # Given, else the policy's own (a partitioned:FILE policy), else the trace header's.
        nodes = (
            machine_nodes(config.scheduler, config.nodes)
            or reader.header.machine_size(per_node) or DEFAULT_NODES
        )
        if nodes < 1:
            raise InputError(f"machine size must be positive, got {nodes}", field="--nodes")
        if scheduler is None:
            scheduler = build_scheduler(config.scheduler, nodes)
        check_machine(scheduler, nodes)
        scheduler.use_seed(config.seed)
        violations = ViolationCounter()
        run = RunAssembly(scheduler, nodes, observers=[violations, *observers], debug=debug)
        shaper = None
        if config.moldable:
            from sitesim.moldable.replace import Replacement

            shaper = Replacement.for_site(config.moldable, run.site, config.seed)
        kind = TRACE_SOURCES.resolve(_job_source(config) if source is None else source)
        beside = recorded_waits_path(config.trace)
        recorded = read_recorded_waits(beside) if beside.is_file() else None
        feed = TraceFeed(
            run, reader, estimates, rng, config.load_factor, config.failures == "trace", shaper, config.feedback,
            per_node, recorded,
        )
        header = [
            *reader.header.lines,
            f"; sitesim: schedule of {kind.described(feed)}, scheduler {config.scheduler},"
            f" estimates {config.estimates}, load factor {config.load_factor:g}, nodes {nodes}",
            *([sizes_note(per_node)] if per_node != 1 else []),
            *([f"; Note: each job's recorded wait is read from {beside.name}, not field 3"] if recorded is not None
              else []),
            *([f"; Note: {note}"] if (note := scheduler.note()) else []),
        ]

        def finish(replay: TraceReplay, summary: dict[str, Any], report: dict[str, Any]) -> ReplayResult:
            if replay.counts.submitted == 0:
                raise InputError(_nothing_replayed(replay.counts), path=config.trace)
            violations.close()
            users: dict[int, dict[str, Any]] = dict(run.metrics.user_summaries())
            productivity = None
            if run.recorder is not None:  # the source simulates users (feedback)
                productivity, users = run.productivity(users)
            return ReplayResult(
                config=config,
                nodes=nodes,
                summary=summary,
                users=users,
                counts=attrs.asdict(replay.counts),
                metrics=run.metrics,
                violations=violations.summary(),
                report={**replay.report(), **report, **({"moldable": shaper.summary()} if shaper else {}),
                        **({"recorded_waits": beside.name} if recorded is not None else {})},
                replacement=shaper,
                productivity=productivity,
            )

        return run_source(
            run, lambda: kind.source(feed), finish, stack, out=out, schedule="schedule.swf", header=header,
            progress=progress,
        )
