"""A site-level simulation: users generate the workload while the scheduler runs it.

Run control (docs/site-level.md):

- the run lasts ``duration`` seconds of simulated time from 0, when every user starts
  its first batch; with ``max_jobs``, users stop submitting once that many jobs were
  submitted, and without a duration the run goes on until they have all ended;
- jobs still queued or running when the duration ends are not completed: the means
  (wait, response, slowdowns) and throughput count completed jobs only, utilisation
  counts node-seconds used up to the end, whatever job they belong to. The same rule
  holds for every scheduler, so runs are comparable;
- the SWF trace lists every submitted job, unfinished ones included (see
  :func:`sitesim.workload.schedule.job_record`);
- every user reports its sessions and batches to the run's
  :class:`~sitesim.metrics.productivity.ProductivityRecorder`: the ``productivity``
  section of the summary, and each user's (docs/metrics.md, "User productivity").
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import attrs
from attrs import define, field

from sitesim import __version__
from sitesim.distributions import SIZE_MAPPINGS, load_empirical
from sitesim.errors import InputError
from sitesim.limits import (
    MAX_JOBS, MAX_NODES, MAX_RUNTIME_SCALE, MAX_SECONDS, MAX_USERS, MIN_RUNTIME_SCALE, check_number, check_range,
    check_seed, years,
)
from sitesim.metrics.stats import RunMetrics
from sitesim.runs.assembly import RunAssembly
from sitesim.runs.output import (
    SYSTEM_HEADER,
    USER_HEADER,
    productivity_lines,
    summary_document,
    system_line,
    user_line,
)
from sitesim.runs.policy import build_scheduler, check_machine, check_policy, check_spec
from sitesim.runs.sources import run_source
from sitesim.runs.user_kinds import Crowd, SiteUsers, configured_kinds, kinds_of
from sitesim.schedulers.base import Scheduler
from sitesim.schedulers.partitioned import PartitionSpec, label, total_nodes
from sitesim.moldable.gas import REQUEST_POLICIES
from sitesim.users import SUBMITTAL_MODELS, WORKPOOL_MODELS
from sitesim.workload.calendar import DEFAULT_CLOCK, Clock
from sitesim.workload.estimates import EstimateModel, make_estimates

DAY = 86_400
YEAR = 365 * DAY


@define(frozen=True, slots=True)
class SiteConfig:
    """Everything that determines a site-level run's result (saved with every result)."""

    users: int = 10
    submittal: str = "batch"
    workpool: str = "plain"
    scheduler: str = "fcfs"
    estimates: str = "exact"
    nodes: int = 128
    #: Simulated seconds; None runs until ``max_jobs`` jobs have all ended.
    duration: int | None = YEAR
    max_jobs: int | None = None
    seed: int = 0
    #: Name of the empirical table in empirical/ (see sitesim.distributions).
    empirical: str = "combined"
    #: How measured sizes map onto this machine: clip, scale or truncate (docs/models.md).
    size_mapping: str = "scale"
    #: Calibration, the only one: every drawn runtime is multiplied by this. 1 is the
    #: ``measured`` site; the default is the ``paper`` site's value, fitted to the
    #: paper's Table 2 alone (docs/fidelity.md). models/paper.toml states it too.
    runtime_scale: float = 0.66
    #: Partitions (docs/partitions.md): then ``scheduler`` is "partitioned" and
    #: ``nodes`` their total. A tuple of frozen records keeps the config hashable.
    partitions: tuple[PartitionSpec, ...] = ()
    #: A fitted population (``population.json`` of ``sitesim fit``): then the users are
    #: ``users`` people resampled from it, who arrive, hold sessions and leave
    #: (docs/validation.md), instead of the paper's static sessions.
    population: str | None = None
    #: Share of the users who submit moldable jobs sized by ``moldable_policy``
    #: (adaptive users, docs/moldable.md): users 1..round(adaptive x users).
    adaptive: float = 0.0
    moldable_policy: str = "gas"

    def __attrs_post_init__(self) -> None:
        """Check every value before a run; errors name the field (``users``, ...), and
        :func:`sitesim.runs.sitefile.site_config` turns that into the flag or site-file
        key the value came from."""
        for name in ("submittal", "workpool", "scheduler", "estimates", "empirical", "size_mapping",
                     "moldable_policy"):
            if not isinstance(getattr(self, name), str):
                raise InputError(f"must be a name, got {getattr(self, name)!r}", field=name)
        if self.population is not None and not isinstance(self.population, str):
            raise InputError(f"must be a path, got {self.population!r}", field="population")
        check_policy(self.scheduler, self.partitions)
        if self.partitions and self.nodes != (total := total_nodes(self.partitions)):
            raise InputError(
                f"machine size {self.nodes} differs from the partitions' total {total}", field="nodes"
            )
        check_range("users", self.users, 1, MAX_USERS, "users")
        if self.population is not None and (self.submittal, self.workpool) != ("batch", "plain"):
            raise InputError(
                "a fitted population brings its users' own submittal and workpool behaviour",
                field="submittal" if self.submittal != "batch" else "workpool",
            )
        check_range("nodes", self.nodes, 1, MAX_NODES, "nodes")
        if self.duration is None and self.max_jobs is None:
            raise InputError("a run needs a duration, a job limit, or both", field="duration")
        if self.duration is not None:
            check_range("duration", self.duration, 1, MAX_SECONDS, f"seconds ({years(MAX_SECONDS)})")
        if self.max_jobs is not None:
            check_range("max_jobs", self.max_jobs, 1, MAX_JOBS, "jobs")
        check_seed("seed", self.seed)
        # Names, so that a typo fails before the run (and in a sweep, before any run).
        if self.population is None:
            SUBMITTAL_MODELS.get(self.submittal)
            WORKPOOL_MODELS.get(self.workpool)
        if make_estimates(self.estimates).needs_trace:
            raise InputError(
                f"estimate model {self.estimates!r} needs a trace; use it with -c", field="estimates"
            )
        if not self.partitions:
            check_spec(self.scheduler)
        if self.size_mapping not in SIZE_MAPPINGS:
            known = ", ".join(SIZE_MAPPINGS)
            raise InputError(f"unknown size mapping {self.size_mapping!r} (known: {known})", field="size_mapping")
        if isinstance(self.adaptive, bool) or not isinstance(self.adaptive, (int, float)) or not (
            0 <= self.adaptive <= 1 and math.isfinite(self.adaptive)
        ):
            raise InputError(f"must be a fraction in [0, 1], got {self.adaptive!r}", field="--adaptive")
        REQUEST_POLICIES.get(self.moldable_policy)
        if self.adaptive and self.population is not None:
            raise InputError("adaptive users are static sessions; drop the fitted population", field="--adaptive")
        check_number("runtime_scale", self.runtime_scale, MIN_RUNTIME_SCALE, MAX_RUNTIME_SCALE)


@define(slots=True)
class SiteResult:
    config: SiteConfig
    summary: dict[str, Any]
    users: dict[int, dict[str, Any]]
    metrics: RunMetrics = field(repr=False)
    #: The users' productivity (docs/metrics.md); each user's is in ``users``.
    productivity: dict[str, Any] = field(factory=dict)

    def table(self) -> list[str]:
        """The paper's Table 2: ``#uid`` lines, then the ``#sid`` line."""
        c = self.config
        lines = [USER_HEADER]
        model, pool = ("resampled", "resampled") if c.population else (c.submittal, c.workpool)
        lines += [user_line(uid, s, model, pool) for uid, s in self.users.items()]
        lines += [SYSTEM_HEADER, system_line(self.summary, c.scheduler, c.users)]
        return lines

    def stats(self) -> list[str]:
        """``stats.txt``: :meth:`table`, then the users' productivity (``#puid`` lines and
        the ``#psid`` line)."""
        per_user = {u: s["productivity"] for u, s in self.users.items() if "productivity" in s}
        return [*self.table(), *productivity_lines(self.productivity, per_user)]

    def document(self) -> dict[str, Any]:
        config = attrs.asdict(self.config)
        if config["population"] is None:  # the paper's sites keep their summary bytes
            del config["population"]
        return summary_document(
            "site",
            config,
            {
                "system": self.summary,
                "users": {str(u): s for u, s in self.users.items()},
                "productivity": self.productivity,
            },
        )


def trace_header(config: SiteConfig, clock: Clock = DEFAULT_CLOCK) -> list[str]:
    """SWF header of the generated trace: machine size, local time of time 0, and how
    it was generated."""
    c = config
    # A fitted site's users bring their own behaviour; its tables are named by file only.
    submittal, workpool = ("resampled", "resampled") if c.population else (c.submittal, c.workpool)
    empirical = Path(c.empirical).name if c.empirical.endswith(".json") else c.empirical
    return [
        "; Version: 2.2",
        "; Computer: sitesim site-level simulation",
        *clock.header_lines(),
        f"; MaxNodes: {c.nodes}",
        f"; MaxProcs: {c.nodes}",
        f"; Note: generated by sitesim {__version__}: users {c.users}, submittal {submittal},"
        f" workpool {workpool}, scheduler {c.scheduler}, estimates {c.estimates},"
        f" empirical {empirical}, size mapping {c.size_mapping}, runtime scale {c.runtime_scale},"
        f" duration {c.duration}, max jobs {c.max_jobs}, seed {c.seed}",
        *([f"; Note: population {Path(c.population).name}"] if c.population else []),
        *([f"; Note: partitions {label(c.partitions)}"] if c.partitions else []),
        "; Note: field 17 = the job of the user's previous batch that ended last (the"
        " completion the user waited for); field 18 = submit time minus that end; -1 in a"
        " user's first batch",
        "; Note: jobs unfinished at the end have status -1, their intended runtime in"
        " field 4, and wait -1 if they never started",
    ]


def run_site(
    config: SiteConfig,
    out: Path | None = None,
    *,
    debug: bool = False,
    observers: Iterable[object] = (),
    scheduler: Scheduler | None = None,
    estimates: EstimateModel | None = None,
    progress: bool | None = None,
    user_kinds: Mapping[Any, int] | None = None,
) -> SiteResult:
    """Simulate ``config.users`` users on the site; with ``out``, write the result files.

    ``observers`` are attached to the site beside the run's own (any object with some
    of ``on_submit``/``on_start``/``on_end``/``on_kill``). ``scheduler`` and
    ``estimates``: ready-made objects to use instead of building the ones the config
    names (the Python API's instances; ``progress``: a bar on simulated time, by default only when stderr
    is a terminal; the config still records their specs). ``user_kinds``: how many users of
    each registered kind (name or class, :data:`~sitesim.runs.user_kinds.USER_KINDS`), in
    number order, instead of the split the config implies (adding up to ``config.users``).
    """
    tables = load_empirical(config.empirical).for_site(config.nodes, config.size_mapping, config.runtime_scale)
    submittal_cls = SUBMITTAL_MODELS.get(config.submittal)
    workpool_cls = WORKPOOL_MODELS.get(config.workpool)
    if estimates is None:
        estimates = make_estimates(config.estimates)
    if estimates.needs_trace:  # a model passed in (SiteConfig refuses such names)
        raise InputError(
            f"estimate model {config.estimates!r} needs a trace; use it with -c", field="--estimates"
        )
    estimates.use_tables(tables)
    if scheduler is None:
        scheduler = build_scheduler(config.scheduler, config.nodes, config.partitions)
    check_machine(scheduler, config.nodes)
    run = RunAssembly(scheduler, config.nodes, observers=observers, debug=debug, load_over_window=True)
    site = run.site
    # Users never ask for more nodes than the scheduler can give one job (the whole
    # machine, or the largest partition).
    crowd = Crowd(
        site, tables, estimates, scheduler.largest_job, config.users, config.seed, config.max_jobs,
        submittal_cls, workpool_cls, config.moldable_policy, config.population,
    )
    split = user_kinds if user_kinds is not None else configured_kinds(
        config.users, population=config.population, adaptive=config.adaptive
    )
    kinds = kinds_of(crowd, split)
    clock = SiteUsers.clock(kinds, DEFAULT_CLOCK)
    recorder = run.record_productivity(clock.unix_start + clock.offset)
    users_source = SiteUsers(site, kinds, recorder, run.metrics)

    def finish(source: SiteUsers, summary: dict[str, Any], report: dict[str, Any]) -> SiteResult:
        summary["mean_work"] = run.metrics.system.offered_work / site.submitted if site.submitted else 0.0
        summary["unfinished_queued"] = site.submitted - site.running - summary["completed"]
        summary["unfinished_running"] = site.running
        summary.update(report)
        summary.update(source.report())
        productivity, with_sessions = run.productivity(run.metrics.user_summaries())
        return SiteResult(config, summary, with_sessions, run.metrics, productivity)

    with ExitStack() as stack:
        return run_source(
            run, lambda: users_source, finish, stack, out=out, schedule="trace.swf",
            header=trace_header(config, clock), until=config.duration, progress=progress,
        )
