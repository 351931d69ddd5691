"""``sitesim fit LOG -o DIR``: a site fitted to any SWF log, ready to simulate.

Writes three files into DIR, each all-or-nothing (and DIR is removed again if it was
created and the fit failed):

- ``empirical.json``: the pooled empirical tables (the format of ``empirical/``);
- ``population.json``: the living population (:mod:`sitesim.analysis.profiles`);
- ``site.toml``: a site file naming both, with the log's machine size, duration and
  number of users, and the fitted service as its policy (a ``[service]`` table,
  :mod:`sitesim.runs.service_fit`, docs/service.md), so ``sitesim --site DIR/site.toml``
  simulates that site, and ``-s POLICY`` on top swaps the policy on the same machine.

A log without wait times (field 3 is -1 for every job) gets its starts simulated
first (:mod:`sitesim.runs.starts`; ``--start-policy`` forces that for any log).

A log that cannot be fitted gets one line naming the file and the reason: no job
records, no user field, no usable jobs (with the count of each cleaning exclusion),
fewer than :data:`MIN_USERS` users with usable jobs, or every usable job submitted at
one instant (no duration); more users than a site may simulate, or a batch wider than
a population may hold. Any log that passes writes a site that runs: sparse
observations fall back to pooled ones (:mod:`sitesim.users.population`), and values
beyond the limits the loaders set are capped at them and counted
(:mod:`sitesim.analysis.bounds`; the report's ``# capped`` line).

Nodes against processors (:mod:`sitesim.analysis.nodes`): when the header's nodes have
several processors each and the log shows that its jobs were given whole nodes, the
site is the log's nodes, and every size the fit measures is a job's node demand
(``ceil(size / processors_per_node)``); ``site.toml`` then sets
``processors_per_node``, so a replay of the log under the site divides its sizes the
same way (docs/service.md, "The machine as the log describes it").

Jobs larger than the machine the header declares are fitted as they are, and a run of
the site clips them to the whole machine (``size_mapping = "clip"``): the fit says how
many there are and the largest in its report (``# larger than the machine``) and in
``population.json`` (``provenance.larger_than_machine``), since a header that
understates the machine (a partition's size) makes every such job a full-machine job.
A fit is not refused for them: the rest of the log is still a population, and the count
says how far its sizes can be trusted (none of the shared archive logs has such a job).

Local time comes from the header (:class:`~sitesim.workload.calendar.Clock`): the zone
``TimeZoneString`` names, daylight saving included, else the ``TimeZone`` offset; the
report, ``population.json`` (``clock.local_time``, ``provenance.clock_from``) and a
comment of ``site.toml`` say which.
"""

from __future__ import annotations

import argparse
import gc
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import attrs
from attrs import define, field

from sitesim.analysis.bounds import Capped
from sitesim.analysis.cleaning import CleaningReport, TraceJob, clean_records, exclusion_reason
from sitesim.analysis.level_copula import FIT_LEVEL_MODEL, FIT_LEVEL_MODELS, check_level_model
from sitesim.analysis.nodes import NodeAllocation, node_allocation
from sitesim.analysis.population import analyze_population
from sitesim.analysis.service import ServiceFit
from sitesim.analysis.profiles import build_population_table
from sitesim.analysis.tables import build_table, write_table
from sitesim.analysis.trace import analyze_jobs, sha256_uncompressed
from sitesim.distributions.model import FIELDS, OPTIONAL, load_empirical
from sitesim.errors import InputError
from sitesim.exits import run_command
from sitesim.limits import MAX_NODES, MAX_USERS
from sitesim.runs.outdir import OutputDir
from sitesim.runs.output import write_text
from sitesim.runs.service_fit import fit_log_service, report_lines, service_lines
from sitesim.runs.starts import StartReplay, simulate_starts
from sitesim.users.population_table import FIT_GAPS, GAPS, LAST_ABSENCE
from sitesim.workload.calendar import Clock
from sitesim.workload.files import check_output, rereadable
from sitesim.workload.swf import SwfHeader, SwfReader
from sitesim.workload.trace_rules import replay_rules

#: Fewer distinct users than this is not a population.
MIN_USERS = 3


@define(slots=True, frozen=True)
class Oversized:
    """Usable jobs asking for more than the machine the header declares."""

    count: int
    largest: int
    machine: int
    #: What ``largest`` and ``machine`` count, and the header key that declares the
    #: machine: ``nodes`` and ``MaxNodes`` in a whole-node fit (sizes are node
    #: demands). Processors, the unit of a log's sizes, go unsaid, as they always did.
    unit: str = "processors"
    key: str = "MaxProcs"

    def to_dict(self) -> dict[str, int | str]:
        counted = {} if self.unit == "processors" else {"unit": self.unit}
        return {"count": self.count, "largest": self.largest, "machine_size": self.machine, **counted}

    def describe(self, jobs: int) -> str:
        unit = "" if self.unit == "processors" else f" {self.unit}"
        machine = f"{self.machine:,}{unit}" + (f", {self.key}" if unit else "")
        return (f"{self.count:,} of {jobs:,} jobs ask for more than the header's machine ({machine}; the"
                f" largest {self.largest:,}{unit}): a run clips them to the whole machine; if the machine is larger,"
                f" declare its size as {self.key} in the log's header")


@define(slots=True, frozen=True)
class FitSummary:
    """What a fit found: the defaults the site file sets, and where its clock came from."""

    users: int
    jobs: int
    days: float
    nodes: int
    clock: Clock
    #: Whether every empirical table could be built (else the site omits ``empirical``).
    complete: bool
    #: How the starts were simulated, for a log without wait times (else None).
    starts: StartReplay | None = None
    #: Values of the log beyond what a run accepts, capped at the bound, per table and
    #: field (``empirical.estimate_ratio``; :mod:`sitesim.analysis.bounds`).
    capped: Capped = field(factory=Capped)
    #: Usable jobs larger than the header's machine (a run clips them to it), and the largest.
    oversized: Oversized | None = None
    #: The fitted machine and service (the site file's ``[service]``; docs/service.md).
    service: ServiceFit | None = None
    #: Nodes against processors: with whole nodes, the site's sizes are node demands
    #: (``processors_per_node`` in the site file; :mod:`sitesim.analysis.nodes`).
    allocation: NodeAllocation | None = None

    @property
    def processors_per_node(self) -> int:
        """The site's ``processors_per_node``: 1 unless the jobs were given whole nodes."""
        return self.allocation.per_node if self.allocation is not None and self.allocation.whole else 1


def _oversized(jobs: list[TraceJob], declared: int | None, *, in_nodes: bool = False) -> Oversized | None:
    """The usable jobs larger than the header's machine (None without such jobs, or
    without a declared machine: then the machine is the largest job). ``in_nodes``: the
    sizes are node demands and the machine ``MaxNodes`` (a whole-node fit)."""
    if declared is None:
        return None
    sizes = [j.size for j in jobs if j.size > declared]
    if not sizes:
        return None
    if in_nodes:
        return Oversized(len(sizes), max(sizes), declared, "nodes", "MaxNodes")
    return Oversized(len(sizes), max(sizes), declared)


def _read(path: Path, skip_malformed: bool, starts: StartReplay | None) -> tuple[list[TraceJob], CleaningReport, SwfHeader]:
    with SwfReader(path, skip_malformed=skip_malformed) as reader:
        checked = replay_rules(reader)  # a log replay refuses cannot be fitted either
        records = checked if starts is None else starts.fill(checked)
        jobs, report = clean_records(records)
        return jobs, report, reader.header


def _no_waits(report: CleaningReport) -> bool:
    """Whether no job with a submit time has a wait time (field 3 is -1 throughout)."""
    timed = report.total - report.excluded["unknown_submit"]
    return timed > 0 and report.excluded["unknown_wait"] == timed


def fit_log(
    log: str | Path,
    out: Path,
    *,
    name: str | None = None,
    skip_malformed: bool = False,
    start_policy: str | None = None,
    gaps: str = FIT_GAPS,
    levels: str = FIT_LEVEL_MODEL,
) -> FitSummary:
    """Fit ``log`` and write DIR/{site.toml, population.json, empirical.json}.

    A log without wait times (or any log, with ``start_policy``) gets its starts
    simulated first (:mod:`sitesim.runs.starts`). A pipe is copied once to a temporary
    file, since a fit reads its log more than once; errors name ``log`` all the same.
    ``gaps``: whether the users keep their batches' gaps ("fixed"), react inside a
    batch to their jobs' ends ("reacting"), or react when present to see them
    ("present"; docs/population.md). ``levels``: how the service draws its jobs' levels
    (:data:`~sitesim.analysis.level_copula.FIT_LEVEL_MODELS`; docs/service.md)."""
    if gaps not in GAPS:
        raise InputError(f"unknown gaps {gaps!r} (known: {', '.join(GAPS)})", field="--gaps")
    check_level_model(levels)
    path = Path(log)
    check_output(out, [path], field="--out", folder=True)  # DIR is replaced whole: not the log's folder
    with rereadable(path) as source, _frozen_for_the_fit() as freeze:
        try:
            return _fit_log(path, source, out, name, skip_malformed, start_policy, gaps, levels, freeze)
        except InputError as exc:
            if exc.path == str(source):
                exc.path = str(path)
            raise


@contextmanager
def _frozen_for_the_fit() -> Iterator[Callable[[], None]]:
    """What freezes the objects alive so far (``gc.freeze``) for the rest of the fit,
    thawed at its end; a no-op for a caller that froze objects of its own, who keeps
    the collector as it set it (decided once, here).

    Why: the log's jobs live as long as the fit. Frozen, the collector's full
    collections no longer walk them again and again (CTC-SP2: about 0.2 s of the fit's
    7 s of CPU; docs/service.md, "Speed")."""
    if gc.get_freeze_count():
        yield lambda: None
        return
    try:
        yield gc.freeze
    finally:
        gc.unfreeze()


def _fit_log(
    path: Path, source: Path, out: Path, name: str | None, skip_malformed: bool, start_policy: str | None,
    gaps: str,
    levels: str,
    freeze: Callable[[], None],
) -> FitSummary:
    """:func:`fit_log` on ``source``, a file that can be read again (``path``: the log
    as the user named it, for names and messages); ``freeze`` is called once the log's
    jobs are read (:func:`_frozen_for_the_fit`)."""
    where = str(path)
    jobs, report, header = _read(source, skip_malformed, None)
    if report.total == 0:
        raise InputError("no job records: nothing to fit", path=where)
    if report.with_user == 0:
        raise InputError("no user field (field 12 is -1 for every job): users cannot be fitted", path=where)
    starts = None
    if start_policy is not None or _no_waits(report):
        nodes = header.machine_size() or _largest(source, skip_malformed)
        starts = simulate_starts(source, header, nodes, policy=start_policy, skip_malformed=skip_malformed)
        jobs, report, header = _read(source, skip_malformed, starts)
    freeze()  # the log's jobs, for the rest of the fit
    if not jobs:
        raise InputError(
            f"no usable jobs after cleaning: all {report.total:,} excluded, {report.describe()}"
            " (docs/models.md, Cleaning)",
            path=where,
        )
    users = len({j.user for j in jobs})
    if users < MIN_USERS:
        raise InputError(
            f"only {users} user(s) with usable jobs: too few to fit a population (need {MIN_USERS})", path=where
        )
    if users > MAX_USERS:  # a site simulates every user of its log: none can be capped
        raise InputError(f"{users:,} users with usable jobs: more than the {MAX_USERS:,} a site may simulate", path=where)
    if max(j.submit for j in jobs) <= min(j.submit for j in jobs):
        raise InputError(
            f"all {len(jobs)} usable jobs were submitted at one instant: no duration to fit", path=where
        )
    name = name or path.name.split(".swf")[0]
    # Whole nodes (sitesim.analysis.nodes): the machine is its nodes, each job's size its
    # node demand, in every table, the service and its calibration alike.
    allocation = node_allocation(header, jobs, starts_recorded=starts is None)
    if allocation.whole:
        jobs = [attrs.evolve(j, size=allocation.size(j.size)) for j in jobs]
    declared = allocation.nodes or header.machine_size()
    machine = declared or min(max(j.size for j in jobs), MAX_NODES)
    oversized = _oversized(jobs, declared, in_nodes=allocation.whole)
    clock = Clock.from_header(header)
    analysis = analyze_jobs(
        jobs, report, name=name, source=path.name, sha256=sha256_uncompressed(source), machine_size=machine
    )
    command = f"sitesim fit {path.name}"
    table = build_table(analysis, [analysis], command)
    population = analyze_population(jobs, clock)
    service = fit_log_service(jobs, machine, header, starts, allocation, levels)
    provenance = {
        "file": path.name,
        "sha256_uncompressed": analysis.sha256,
        "cleaning": report.to_dict(),
        "starts": starts.to_dict() if starts is not None else {"simulated": False, "from": "field 3 (wait)"},
        "machine_size_from": ("header (MaxNodes: jobs given whole nodes)" if allocation.whole
                              else "header" if header.machine_size() else "largest job"),
        **({"larger_than_machine": oversized.to_dict()} if oversized is not None else {}),
        "clock_from": clock.describe(),
        "service": service.findings,
        "generator": command,
    }
    try:
        pop_table = build_population_table(population, name=name, machine_size=machine, provenance=provenance)
    except InputError as exc:
        raise InputError(exc.message, path=where) from None
    if gaps != GAPS[0]:  # a table without the key keeps its gaps, as tables before the key did
        pop_table["gaps"] = gaps
    # A visit ends with its last session: its users deal only absences that end within it
    # (docs/population.md, "The end of a visit").
    pop_table["last_absence"] = LAST_ABSENCE[-1]
    capped = Capped()  # per table: a job capped in both counts once in each
    for prefix, document in (("empirical", table), ("population", pop_table)):
        for key, entry in document["provenance"].get("capped", {}).items():
            capped.counts[f"{prefix}.{key}"] = entry["count"]
    if service.findings["service"].get("capped"):
        capped.counts["service.delays"] = service.findings["service"]["capped"]
    complete = all(table["distributions"][f] is not None for f in FIELDS if f not in OPTIONAL)
    days = population.duration / 86400
    lines = [
        f'description = "Fitted by sitesim fit to {path.name}: {users} users over {days:.1f} days on {machine} nodes"',
        'population = "population.json"',
        *(['empirical = "empirical.json"'] if complete else []),
        f"users = {users}",
        f"nodes = {machine}",
        *([f"# machine: {allocation.why}", f"processors_per_node = {allocation.per_node}"]
          if allocation.whole else []),
        f"duration = {max(days, 1 / 86400):.6f}",
        'size_mapping = "clip"',
        "runtime_scale = 1.0",
        f"# local time: {clock.describe()}",
        *service_lines(service),
    ]
    with OutputDir(out) as staged:
        write_table(staged.path("empirical.json"), table)
        write_table(staged.path("population.json"), pop_table)
        write_text(staged.path("site.toml"), lines)
        _check_loadable(staged.path("empirical.json") if complete else None, where)
    return FitSummary(users, len(jobs), days, machine, clock, complete, starts, capped, oversized, service,
                      allocation)


def _check_loadable(empirical: Path | None, where: str) -> None:
    """Refuse, before anything is published, an empirical table the run's loader would
    refuse: the fit writes only what a run accepts. The values were capped to the
    loaders' bounds (:mod:`sitesim.analysis.bounds`, the population's too), so this
    fails only on a fault of the fit itself. (The population's own check reads every
    number of the table, seconds for a large log: the property tests run it instead.)"""
    if empirical is None:
        return
    try:
        load_empirical(str(empirical))
    except InputError as exc:
        what = f"{exc.field}: " if exc.field else ""
        raise InputError(f"the fit made a table a run would refuse (empirical.json: {what}{exc.message});"
                         " please report it", path=where) from None


def _largest(path: Path, skip_malformed: bool) -> int:
    """The largest job the cleaning would keep given a start (its size as the cleaning
    takes it): the machine size of a log whose header declares none."""
    with SwfReader(path, skip_malformed=skip_malformed) as reader:
        sizes = (
            r.allocated_processors if r.allocated_processors > 0 else r.requested_processors
            for r in reader
            if exclusion_reason(r, ignore_wait=True) is None
        )
        return max(sizes, default=1)


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="sitesim fit",
        description="Measure a living user population (sessions, continuation, daily and weekly "
        "cycles, arrivals and departures, per-user behaviour) and the empirical tables from an "
        "SWF log, and write a site file that simulates it (docs/validation.md).",
        epilog="Then: sitesim --site DIR/site.toml --out OUT (-s POLICY: another policy on the fitted machine)."
        " Exit status: 0 success, 2 bad input.",
    )
    parser.add_argument("log", metavar="LOG", help="SWF log (.swf or .swf.gz)")
    parser.add_argument("-o", "--out", type=Path, required=True, metavar="DIR", help="output directory")
    parser.add_argument("--name", help="name of the fitted site (default: the log's file name)")
    parser.add_argument("--skip-malformed", action="store_true", help="skip and count malformed SWF lines")
    parser.add_argument(
        "--start-policy", metavar="POLICY",
        help="simulate the jobs' starts by replaying the log under POLICY (as -s) instead of"
        " reading field 3; a log without wait times gets this by default, under the policy"
        " its header's notes name, else easy (docs/population.md)",
    )
    parser.add_argument(
        "--gaps", choices=GAPS, default=FIT_GAPS,
        help="inside a batch, keep the log's gaps (fixed), submit the next job a think time after the"
        " earlier ones all ended, when that comes first (reacting), or do so with the probability the"
        f" continuation curve gives that the user is there to see the end (present); default {FIT_GAPS}"
        " (docs/population.md)",
    )
    parser.add_argument(
        "--levels", choices=FIT_LEVEL_MODELS, default=FIT_LEVEL_MODEL,
        help="how the fitted service draws each job's delay level: where the job's recorded wait falls among"
        " its size class's in the log (recorded); or per user, a Gaussian copula of the waits' rank correlation"
        " (gaussian), or a mixture that also repeats a user's previous level, fitted to the persistence of long"
        f" waits (mixture); default {FIT_LEVEL_MODEL} (docs/service.md, \"Levels from the recorded waits\")",
    )
    args = parser.parse_args(argv)
    return run_command("sitesim fit", lambda: _fit(args))


def _fit(args: argparse.Namespace) -> int:
    info = fit_log(
        args.log, args.out, name=args.name, skip_malformed=args.skip_malformed, start_policy=args.start_policy,
        gaps=args.gaps, levels=args.levels,
    )
    clock = info.clock
    if info.starts is not None:
        s = info.starts
        left = ", ".join(f"{n} {reason}" for reason, n in sorted(s.left_out.items())) or "none"
        print(
            f"# starts simulated under {s.policy} ({s.policy_from}) on {s.nodes} nodes:"
            f" {s.replayed} jobs replayed; left out: {left}"
        )
    print(
        f"# fitted {info.users} users, {info.jobs} jobs over {info.days:.1f} days on"
        f" {info.nodes} nodes; local time {clock.describe()}"
    )
    if info.service is not None:
        for line in report_lines(info.service):
            print(line)
    if info.capped.total:
        print(f"# capped at the limits a run accepts (docs/population.md): {info.capped.describe()}")
    if info.oversized is not None:
        print(f"# larger than the machine: {info.oversized.describe(info.jobs)}")
    if not info.complete:
        print("# some empirical tables are empty in this log: the site uses the combined tables for estimates")
    print(f"# wrote {args.out / 'site.toml'}; simulate with: sitesim --site {args.out / 'site.toml'}")
    return 0

