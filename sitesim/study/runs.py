"""A study's runs, on the sweep machinery: site-level runs, then every trace replayed.

Two sweeps (sitesim/sweep/), so both are parallel (processes or Dask), resumable,
locked and shown with a progress bar exactly as ``sitesim sweep`` is:

- ``results.csv``: one site-level run per (users, policy, seed). Each run also keeps
  its trace under ``runs/``, because the second sweep replays it;
- ``replays.csv``: each policy's site-level trace replayed in the open model under
  every policy of the study (itself included: the diagonal shows what the open model
  gets wrong even about the scheduler that made the trace).

The sweep's own per-point function runs the default (``paper``) site; a study runs any
site, so it passes run functions of its own that carry the site's configuration, and
stamps its points with that site's model fingerprint itself. A replay whose trace is
gone (a study interrupted between its sweeps, or traces removed) makes it again: a run
is determined by its key, so the trace is the same.
"""

from __future__ import annotations

import hashlib
import re
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from attrs import define

from sitesim.runs.site import SiteConfig
from sitesim.study.config import StudyConfig, model_fingerprint, site_for, user_counts
from sitesim.sweep.grid import CONFIG_COLUMNS, Point
from sitesim.sweep.run import Row, make_row
from sitesim.sweep.runner import SweepReport, run_sweep

RESULTS = "results.csv"
REPLAYS = "replays.csv"
#: Folder of the site-level runs' outputs (trace.swf, summary.json, stats.txt).
RUNS = "runs"


def slug(policy: str) -> str:
    """A folder name for a policy spec (``module:Class``, ``key=value`` options are not
    file-name safe): the spec itself when it is, else a cleaned form and a short hash
    (also for ``.`` and ``..``, which are safe characters but not folder names)."""
    if re.fullmatch(r"[A-Za-z0-9+._-]+", policy) and policy.strip("."):
        return policy
    clean = re.sub(r"[^A-Za-z0-9+._-]+", "_", policy).strip("_")
    return f"{clean}-{hashlib.sha256(policy.encode()).hexdigest()[:6]}"


def run_folder(point: Point) -> str:
    """The site-level run's folder, relative to the study's: readable (policy, users,
    seed) and ending in a short hash of the point's whole key (duration, nodes, model,
    ...). Two configurations never share a folder, and since a replay's key holds its
    trace's path, a study rerun in the same folder with another duration (say) replays
    its new traces instead of reusing the replays of the old ones."""
    assert point.users is not None
    key = hashlib.sha256("\x1f".join(point.key()).encode()).hexdigest()[:8]
    return f"{RUNS}/{slug(point.scheduler)}-u{point.users}-s{point.seed}-{key}"


@define(frozen=True, slots=True)
class Plan:
    """The study's points: site-level runs and replays, with what each replay replays."""

    site_points: tuple[Point, ...]
    replay_points: tuple[Point, ...]
    #: For each replay point's trace: the site-level point that wrote it.
    sources: tuple[tuple[str, Point], ...]

    def source_of(self, trace: str) -> Point:
        return dict(self.sources)[trace]


def plan(study: StudyConfig, base: SiteConfig) -> Plan:
    """Every point of the study, stamped with the site's model fingerprint."""
    model = model_fingerprint(base)
    sites: list[Point] = []
    replays: list[Point] = []
    sources: list[tuple[str, Point]] = []
    for users in user_counts(study, base):
        for policy in study.policies:
            for seed in study.seeds:
                point = Point("site", scheduler=policy, estimates=base.estimates, seed=seed,
                              nodes=base.nodes, users=users, submittal=base.submittal,
                              workpool=base.workpool, duration=base.duration, model=model,
                              **{k: v for k, v in study.settings if k not in CONFIG_COLUMNS})
                sites.append(point)
                trace = f"{run_folder(point)}/trace.swf"
                sources.append((trace, point))
                for evaluated in study.policies:
                    replays.append(Point("replay", scheduler=evaluated, estimates="trace", seed=seed,
                                         trace=trace, load_factor=1.0, model=model))
    return Plan(tuple(sites), tuple(replays), tuple(sources))


@define(frozen=True, slots=True)
class SiteRun:
    """The per-point function of the site-level sweep: the study's site with the point's
    users, policy and seed; its outputs kept in the point's run folder (picklable, for
    worker processes and Dask)."""

    base: SiteConfig
    root: str

    def config(self, point: Point) -> SiteConfig:
        assert point.users is not None
        return site_for(self.base, point.scheduler, users=point.users, seed=point.seed)

    def __call__(self, point: Point) -> Row:
        from sitesim.runs.site import run_site

        assert point.users is not None
        config = self.config(point)
        out = Path(self.root) / run_folder(point)
        result = run_site(config, out=out, progress=False)
        return make_row(point, config.nodes, result.summary, productivity=result.productivity)


@define(frozen=True, slots=True)
class ReplayRun:
    """The per-point function of the replay sweep: the point's trace (relative to the
    study's folder, so its key does not depend on where the study is) replayed under
    the point's policy with the trace's estimates, as the paper's Tables 3-4 do."""

    site: SiteRun
    sources: tuple[tuple[str, Point], ...]

    def __call__(self, point: Point) -> Row:
        from sitesim.runs.replay import ReplayConfig, run_replay

        assert point.trace is not None
        trace = Path(self.site.root) / point.trace
        if not trace.is_file():
            self.site(dict(self.sources)[point.trace])
        # On a partitioned site the trace is replayed on the same partitions, all under
        # the point's policy, as the site-level runs ran them.
        site = site_for(self.site.base, point.scheduler)
        if not has_jobs(trace):
            return make_row(point, site.nodes, {"submitted": 0, "completed": 0, "killed": 0})
        replayed = run_replay(ReplayConfig(trace=str(trace), scheduler=site.scheduler, estimates="trace",
                                           load_factor=1.0, seed=point.seed))
        return make_row(point, replayed.nodes, replayed.summary, replayed.violations)


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
    with open(trace, encoding="utf-8", errors="replace") as handle:
        return any(line.strip() and not line.lstrip().startswith(";") for line in handle)


@define(slots=True)
class StudyRuns:
    """How the study's two sweeps went."""

    sites: SweepReport
    replays: SweepReport

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
        failed = len(s.failed) + len(r.failed)
        return (f"{s.ran} of {s.total} site-level runs and {r.ran} of {r.total} replays run now{resumed}"
                + (f"; {failed} failed (run the same command again to retry them)" if failed else ""))


def run_all(plan_: Plan, base: SiteConfig, root: Path, executor: Any, *, jobs: int | None,
            progress: bool) -> StudyRuns:
    """Both sweeps into ``root``; the replays run only once every site-level run is done."""
    site = SiteRun(base, str(root))
    sites = run_sweep(plan_.site_points, root / RESULTS, executor, jobs=jobs, run=site, progress=progress)
    if not sites.ok:
        return StudyRuns(sites, SweepReport(total=len(plan_.replay_points)))
    replays = run_sweep(plan_.replay_points, root / REPLAYS, executor, jobs=jobs,
                        run=ReplayRun(site, plan_.sources), progress=progress)
    return StudyRuns(sites, replays)


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
