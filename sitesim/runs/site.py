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

from collections.abc import Iterable, Mapping
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import attrs
from attrs import define, field

from sitesim.version import __version__
from sitesim.distributions import SIZE_MAPPINGS, load_empirical
from sitesim.errors import InputError
from sitesim.metrics.stats import RunMetrics
from sitesim.runs import options
from sitesim.runs.assembly import RunAssembly
from sitesim.runs.output import (
    SYSTEM_HEADER,
    USER_HEADER,
    productivity_lines,
    summary_document,
    system_line,
    user_line,
)
from sitesim.runs.policy import (
    build_scheduler, check_machine, check_spec, machine_nodes, needs_recorded_waits, policy_label,
)
from sitesim.runs.sources import run_source
from sitesim.runs.user_kinds import Crowd, SiteUsers, configured_kinds, kinds_of
from sitesim.schedulers.base import Scheduler
from sitesim.moldable.gas import REQUEST_POLICIES
from sitesim.users import SUBMITTAL_MODELS, WORKPOOL_MODELS
from sitesim.workload.calendar import DEFAULT_CLOCK, Clock
from sitesim.workload.estimates import EstimateModel, make_estimates
from sitesim.workload.nodes import sizes_note

DAY = options.DAY
YEAR = 365 * DAY


def _default(name: str) -> Any:
    return options.default(name, options.SITE)


@define(frozen=True, slots=True)
class SiteConfig:
    """Everything that determines a site-level run's result (saved with every result).

    Its fields are the site-level options of :mod:`sitesim.runs.options`, which declares
    each one's default, unit and limits once; ``duration`` is stored in seconds.
    """

    users: int = _default("users")
    submittal: str = _default("submittal")
    workpool: str = _default("workpool")
    scheduler: str = _default("scheduler")
    estimates: str = _default("estimates")
    nodes: int = _default("nodes")
    #: Processors per node of a machine whose nodes go whole to jobs: a fitted site's
    #: sizes are already nodes (sitesim fit), so a site run only says so in its trace's
    #: header, and keeps it for a replay of the log under the site (docs/service.md).
    processors_per_node: int = _default("processors_per_node")
    #: Simulated seconds; None runs until ``max_jobs`` jobs have all ended.
    duration: int | None = _default("duration")
    max_jobs: int | None = _default("max_jobs")
    seed: int = _default("seed")
    #: Name of the empirical table in empirical/ (see sitesim.distributions).
    empirical: str = _default("empirical")
    #: How measured sizes map onto this machine: clip, scale or truncate (docs/models.md).
    size_mapping: str = _default("size_mapping")
    #: Calibration, the only one: every drawn runtime is multiplied by this. 1 is the
    #: ``measured`` site; the default is the ``paper`` site's value, fitted to the
    #: paper's Table 2 alone (docs/fidelity.md). models/paper.toml states it too.
    runtime_scale: float = _default("runtime_scale")
    #: A fitted population (``population.json`` of ``sitesim fit``): then the users are
    #: ``users`` people resampled from it, who arrive, hold sessions and leave
    #: (docs/validation.md), instead of the paper's static sessions.
    population: str | None = _default("population")
    #: Share of the users who submit moldable jobs sized by ``moldable_policy``
    #: (adaptive users, docs/moldable.md): users 1..round(adaptive x users).
    adaptive: float = _default("adaptive")
    moldable_policy: str = _default("moldable_policy")

    def __attrs_post_init__(self) -> None:
        """Check every value before a run; errors name the option (``users``, ...), and
        :func:`sitesim.runs.sitefile.site_config` turns that into the flag or site-file
        key the value came from."""
        if self.duration is None and self.max_jobs is None:
            raise InputError("a run needs a duration, a job limit, or both", field="duration")
        options.check_record(self, options.SITE)
        if self.population is not None and (self.submittal, self.workpool) != ("batch", "plain"):
            raise InputError(
                "a fitted population brings its users' own submittal and workpool behaviour",
                field="submittal" if self.submittal != "batch" else "workpool",
            )
        # Names, so that a typo fails before the run (and in a sweep, before any run).
        if self.population is None:
            SUBMITTAL_MODELS.get(self.submittal)
            WORKPOOL_MODELS.get(self.workpool)
        if make_estimates(self.estimates).needs_trace:
            raise InputError(
                f"estimate model {self.estimates!r} needs a trace; use it with -c", field="estimates"
            )
        check_spec(self.scheduler)
        if self.population is None and needs_recorded_waits(self.scheduler):
            raise InputError(
                f"{self.scheduler!r} gives each job the wait its log recorded, and this site's users carry"
                " none (a fitted population does): every job would start at once on an unbounded machine;"
                " name a base (hold:easy) or another policy", field="scheduler")
        declared = machine_nodes(self.scheduler, None)
        if declared is not None and declared != self.nodes:
            build_scheduler(self.scheduler, self.nodes)  # the policy's own message
        if self.size_mapping not in SIZE_MAPPINGS:
            known = ", ".join(SIZE_MAPPINGS)
            raise InputError(f"unknown size mapping {self.size_mapping!r} (known: {known})", field="size_mapping")
        REQUEST_POLICIES.get(self.moldable_policy)
        if self.adaptive and self.population is not None:
            raise InputError("adaptive users are static sessions; drop the fitted population", field="adaptive")


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
        lines += [SYSTEM_HEADER, system_line(self.summary, policy_label(c.scheduler), c.users)]
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
        if config["processors_per_node"] == 1:  # as do sites of one processor per node
            del config["processors_per_node"]
        return summary_document(
            "site",
            config,
            {
                "system": self.summary,
                "users": {str(u): s for u, s in self.users.items()},
                "productivity": self.productivity,
            },
        )


def trace_header(config: SiteConfig, clock: Clock = DEFAULT_CLOCK, note: str | None = None) -> list[str]:
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
        *([sizes_note(c.processors_per_node)] if c.processors_per_node != 1 else []),
        *([f"; Note: {note}"] if note else []),
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
        scheduler = build_scheduler(config.scheduler, config.nodes)
    check_machine(scheduler, config.nodes)
    scheduler.use_seed(config.seed)
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
            header=trace_header(config, clock, scheduler.note()), until=config.duration, progress=progress,
            # fitted users' jobs carry the waits they had in the log (what ``hold`` and
            # recorded levels read): kept beside the trace, so a replay gives them again
            recorded_waits=config.population is not None,
        )
