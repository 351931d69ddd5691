"""A study's runs, on the sweep machinery: site-level runs, then every trace replayed.

Two sweeps (sitesim/sweep/), so both are parallel (processes or Dask), resumable,
locked and shown with a progress bar exactly as ``sitesim sweep`` is:

- ``results.csv``: one site-level run per (users, policy, seed). Each run also keeps
  its trace under ``runs/``, because the second sweep replays it;
- ``replays.csv``: each policy's site-level trace replayed in the open model under
  every policy of the study (itself included: the diagonal shows what the open model
  gets wrong even about the scheduler that made the trace).

The site-level runs are the sweep's own (:class:`~sitesim.sweep.run.PointRun`): each
point starts from the study's site file, and keeps its outputs in the study's folder.
So are the replays: each replays a trace the site-level sweep wrote, on the site's
machine under its policy. The study only checks each cached trace first: one that is
gone (a study interrupted between its sweeps, or traces removed) or damaged is made
again, since a run is determined by its key, so the trace is the same. The study stamps its points with the site's model
fingerprint itself, since the replays' traces do not exist when they are planned.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from attrs import define, field

from sitesim.runs.site import SiteConfig
from sitesim.study.config import StudyConfig, model_fingerprint, site_for, user_counts
from sitesim.study.traces import (Expected, discard_damaged, drop_locks, expectations, matches, record_checksums,
                                  trace_lock)
from sitesim.sweep.grid import CONFIG_COLUMNS, Key, Point
from sitesim.sweep.run import SUMMARY_COLUMNS, PointRun, Row, make_row, run_folder
from sitesim.sweep.runner import SweepReport, run_sweep

RESULTS = "results.csv"
REPLAYS = "replays.csv"
#: Cells a finished run never leaves ``nan``: a row with one is not a finished run, and
#: is run again (a ``nan`` taken as done showed as ``nan ± nan%`` in the report).
FINISHED = ("nodes_used", *SUMMARY_COLUMNS)


@define(frozen=True, slots=True)
class Plan:
    """The study's points: site-level runs and replays, with what each replay replays."""

    site_points: tuple[Point, ...]
    replay_points: tuple[Point, ...]
    #: For each replay point's trace: the site-level point that wrote it.
    sources: tuple[tuple[str, Point], ...]

    def source_of(self, trace: str) -> Point:
        return dict(self.sources)[trace]


def plan(study: StudyConfig, base: SiteConfig, site: str) -> Plan:
    """Every point of the study, stamped with the site's model fingerprint; ``site`` is
    the site file the site-level points start from."""
    model = model_fingerprint(base)
    sites: list[Point] = []
    replays: list[Point] = []
    sources: list[tuple[str, Point]] = []
    # The replays run on the site's machine; a machine size the study sets over the
    # site's is given to them as it is to the site-level runs.
    machine = {"nodes": base.nodes} if "nodes" in dict(study.settings) else {}
    for users in user_counts(study, base):
        for policy in study.policies:
            for seed in study.seeds:
                point = Point("site", scheduler=policy, estimates=base.estimates, seed=seed,
                              nodes=base.nodes, users=users, submittal=base.submittal,
                              workpool=base.workpool, duration=base.duration, model=model, site=site,
                              **{k: v for k, v in study.settings if k not in CONFIG_COLUMNS})
                sites.append(point)
                trace = f"{run_folder(point)}/trace.swf"
                sources.append((trace, point))
                for evaluated in study.policies:
                    replays.append(Point("replay", scheduler=evaluated, estimates="trace", seed=seed,
                                         trace=trace, load_factor=1.0, model=model, site=site, **machine))
    return Plan(tuple(sites), tuple(replays), tuple(sources))


@define(frozen=True, slots=True)
class ReplayRun:
    """The replay sweep's function: the sweep's own :class:`PointRun` (each point's trace,
    relative to the study's folder, replayed on the site's machine under the point's
    policy with the trace's estimates, as the paper's Tables 3-4 do), behind the
    study's check of its cached trace. A trace that is not what its run's row records
    is made again first; an empty one is a finding, not a replay (:func:`has_jobs`)."""

    site: PointRun
    base: SiteConfig
    sources: tuple[tuple[str, Point], ...]
    #: What each trace must be (its run's job count, its recorded checksum): a trace
    #: that is not is made again before it is replayed (sitesim/study/traces.py).
    expected: Mapping[str, Expected] = field(factory=dict)

    def __call__(self, point: Point) -> Row:
        assert point.trace is not None and self.site.root is not None
        trace = Path(self.site.root) / point.trace
        want = self.expected.get(point.trace)
        with trace_lock(Path(self.site.root), point.trace):
            if not matches(trace, want):
                self.site(dict(self.sources)[point.trace])
                if not matches(trace, want):
                    raise RuntimeError(f"{point.trace}: made again, and still not the run its row in"
                                       f" {RESULTS} records ({want.jobs if want else '?'} jobs)")
        if not has_jobs(trace):
            return make_row(point, site_for(self.base, point.scheduler).nodes,
                            {"submitted": 0, "completed": 0, "killed": 0})
        return self.site(point)


def has_jobs(trace: Path) -> bool:
    """Whether a site-level trace has a job line.

    A site-level run may submit no job at all (few users who start late, a short
    duration: a fitted KTH-SP2 site with 20 users over 2 days). Replaying its trace is
    not an error of the study but a finding: the open model has nothing to predict. The
    replay is recorded as a row with no metrics (shown as "no jobs" in cross.csv and
    the report) rather than failed, because a failed run is retried by every rerun and
    fails the same way, so the study could never finish and never write its report; and
    rather than refused up front, because only the runs tell which traces are empty,
    and the other user counts and seeds of the study still have their results.
    """
    from sitesim.inputs import open_text_read

    with open_text_read(trace) as handle:
        return any(line.strip() and not line.lstrip().startswith(";") for line in handle)


def trace_keys(plan_: Plan) -> dict[str, Key]:
    """Trace → the key of the site-level point that wrote it (its row's key)."""
    return {trace: point.key() for trace, point in plan_.sources}


@define(slots=True)
class StudyRuns:
    """How the study's two sweeps went."""

    sites: SweepReport
    replays: SweepReport
    #: Cached traces that did not match their runs' rows: removed, made again when needed.
    remade: int = 0

    @property
    def ok(self) -> bool:
        return self.sites.ok and self.replays.ok

    @property
    def ran(self) -> int:
        return self.sites.ran + self.replays.ran

    def describe(self) -> str:
        """One line for the person who started the study: what was already done."""
        s, r = self.sites, self.replays
        if not self.ran and self.ok:
            return (f"nothing new to run: all {s.total} site-level runs and {r.total} replays were"
                    " already done; outputs rewritten from them")
        resumed = " (resumed: the rest were already done)" if s.existing or r.existing else ""
        if s.damaged or r.damaged or self.remade:
            resumed += (f"; {s.damaged + r.damaged} damaged rows (a count or metric not a finite number) and"
                        f" {self.remade} traces not matching their runs' rows were redone")
        failed = len(s.failed) + len(r.failed)
        return (f"{s.ran} of {s.total} site-level runs and {r.ran} of {r.total} replays run now{resumed}"
                + (f"; {failed} failed (run the same command again to retry them)" if failed else ""))


def run_all(plan_: Plan, base: SiteConfig, root: Path, executor: Any, *, jobs: int | None,
            progress: bool) -> StudyRuns:
    """Both sweeps into ``root``; the replays run only once every site-level run is done."""
    from sitesim.sweep.store import read_rows

    site = PointRun(str(root))
    sites = run_sweep(plan_.site_points, root / RESULTS, executor, jobs=jobs, run=site, progress=progress,
                      finite=FINISHED)
    if not sites.ok:
        return StudyRuns(sites, SweepReport(total=len(plan_.replay_points)))
    expected = expectations(read_rows(root / RESULTS)[1], trace_keys(plan_), root)
    remade = discard_damaged(root, expected)
    try:
        replays = run_sweep(plan_.replay_points, root / REPLAYS, executor, jobs=jobs,
                            run=ReplayRun(site, base, plan_.sources, expected), progress=progress, finite=FINISHED)
    finally:
        drop_locks(root)
    record_checksums(root, expected)
    return StudyRuns(sites, replays, remade=len(remade))


def prune_traces(plan_: Plan, root: Path, keep_seed: int) -> None:
    """Remove the site-level run folders of every seed but ``keep_seed`` once all their
    replays are done: the report draws its figures from one seed, and a missing trace is
    made again should a later, larger study need it. Only folders the study made."""
    for trace, point in plan_.sources:
        if point.seed != keep_seed:
            folder = root / Path(trace).parent
            if folder.is_dir():
                shutil.rmtree(folder)


def first_seed_traces(plan_: Plan, root: Path, users: int, seed: int) -> dict[str, Path]:
    """Policy → the trace of its site-level run for ``users`` and ``seed`` (made again if gone)."""
    out = {}
    for trace, point in plan_.sources:
        if point.users == users and point.seed == seed:
            out[point.scheduler] = root / trace
    return out


def selected(rows: Sequence[Row], points: Sequence[Point]) -> list[Row]:
    """The rows of ``points`` (a CSV may also hold an earlier study's other rows)."""
    from sitesim.sweep.store import row_key

    wanted = {p.key() for p in points}
    return [r for r in rows if row_key(r) in wanted]
