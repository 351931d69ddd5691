"""A study from configuration to report: check, run what is missing, write the outputs.

The order is what keeps bad input from leaving anything behind and an interrupted study
resumable: everything is checked before the output folder is made; study.toml is
written first (so ``--from`` can finish an interrupted study); the sweeps append rows as
runs finish; cross.csv and report.html are rewritten whole from the CSVs at the end,
so they always describe every run the study has.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from attrs import define

from sitesim.errors import InputError
from sitesim.limits import MAX_SWEEP_RUNS
from sitesim.runs.site import SiteConfig
from sitesim.study.config import (
    STUDY_FILE, StudyConfig, describe, identity, is_site_name, model_fingerprint, read_study_file, resolve, site_file,
    site_for, user_counts, write_study_file,
)
from sitesim.study.cross import CROSS, matrix, no_jobs, predictions, write_cross
from sitesim.study.narrative import PRIMARY, paragraph
from sitesim.study.runs import (REPLAYS, RESULTS, Plan, StudyRuns, first_seed_traces, has_jobs, plan,
                                 prune_traces, run_all, selected, trace_keys)
from sitesim.study.traces import CHECKSUMS, expectations, matches
from sitesim.sweep.run import PointRun
from sitesim.sweep.store import read_rows

REPORT = "report.html"


@define(slots=True)
class Study:
    """A checked study: its configuration, the site every run starts from, its points."""

    config: StudyConfig
    base: SiteConfig
    plan: Plan
    #: Where the study's relative site and table paths are read from (a study.toml's folder).
    base_dir: Path | None = None


def prepare(config: StudyConfig, out: Path, *, base_dir: Path | None = None) -> Study:
    """Check the study and its output folder; create nothing."""
    if out.exists() and not out.is_dir():
        raise InputError("exists and is not a folder", path=str(out), field="-o")
    if str(out) in ("", "."):
        raise InputError("give the study its own folder, not the current one", field="-o")
    parent = next((p for p in out.parents if p.exists()), None)
    if parent is not None and not parent.is_dir():
        raise InputError(f"cannot write: {parent} is not a folder", path=str(out), field="-o")
    base = resolve(config, base_dir=base_dir)
    check_size(config, base)
    return Study(config, base, plan(config, base, site_file(config.site, base_dir)), base_dir)


def check_outputs(study: Study, out: Path) -> None:
    """No file the study writes is one of its inputs (its site file, tables, a policy's
    partition file): ``--site DIR/results.csv -o DIR`` would write over it."""
    from sitesim.runs.policy import policy_files
    from sitesim.sweep.run import RUNS
    from sitesim.workload.files import check_output

    base = study.base
    site = site_file(study.config.site, study.base_dir)
    empirical = base.empirical if base.empirical.endswith(".json") else None
    policies = [site_for(base, policy).scheduler for policy in study.config.policies]
    inputs = [site if not is_site_name(site) else None, base.population, empirical,
              *(path for policy in policies for path in policy_files(policy))]
    for name in (RESULTS, REPLAYS, CROSS, REPORT, STUDY_FILE, CHECKSUMS):
        check_output(out / name, inputs, field="-o")
    check_output(out / RUNS, inputs, field="-o", folder=True)


def check_size(config: StudyConfig, base: SiteConfig) -> None:
    """Refuse a study larger than a sweep may be, counted before any point is built:
    each of its two sweeps is a sweep, and ``--seeds 10000`` with 7 policies and 10
    user counts would otherwise build millions of points, then run for years."""
    sites = len(user_counts(config, base)) * len(config.policies) * len(config.seeds)
    replays = sites * len(config.policies)
    if replays > MAX_SWEEP_RUNS:
        raise InputError(f"the study has {sites:,} site-level runs and {replays:,} replays, more than the"
                         f" limit of {MAX_SWEEP_RUNS:,} runs a sweep; use fewer seeds, policies or user counts",
                         field="sitesim study")


def run_study(study: Study, out: Path, executor: Any = None, *, jobs: int | None = None,
              progress: bool = False, figures: Path | None = None) -> StudyRuns:
    """Run what is missing of ``study`` into ``out`` and write its outputs there."""
    from sitesim.study.lock import StudyLock

    with StudyLock(out):  # before anything is written: a refused study changes nothing
        recorded = out / STUDY_FILE
        resumed = recorded.exists()
        if resumed:
            check_same_study(study, out)
        else:  # written as soon as the study is accepted, so --from can finish it if interrupted
            write_study_file(recorded, study.config, model_fingerprint(study.base))
        runs = run_all(study.plan, study.base, out, executor, jobs=jobs, progress=progress)
        if runs.ok:
            prune_traces(study.plan, out, study.config.seeds[0])
            write_outputs(study, out, figures)
            if resumed:  # only a finished study replaces the record (its version, its model)
                write_study_file(recorded, study.config, model_fingerprint(study.base))
    return runs


def check_same_study(study: Study, out: Path) -> None:
    """Refuse a folder whose ``study.toml`` records another study: the two would share
    ``results.csv`` and ``replays.csv`` and one report would mix them. The same study
    (site, policies, seeds, users, settings; its model may have changed) resumes."""
    try:
        recorded, _ = read_study_file(out / STUDY_FILE)
        same = identity(recorded, out) == identity(study.config, study.base_dir)
    except InputError:
        same = False
    if not same:
        raise InputError(f"holds another study (its {STUDY_FILE}); give this study its own folder, or resume"
                         f" that one with --from {out / STUDY_FILE}", path=str(out), field="-o")


def _rows(path: Path, points: Any) -> list[dict[str, str]]:
    if not path.exists():
        return []
    return selected(read_rows(path)[1], points)


def write_outputs(study: Study, out: Path, figures_dir: Path | None = None) -> None:
    """cross.csv and report.html from the study's rows (and its first seed's traces)."""
    from sitesim.study import figures as draw
    from sitesim.study.report import Figure, cross_tables, metric_tables, page
    from sitesim.workload.files import atomic_text_write

    config, policies = study.config, list(study.config.policies)
    users = list(user_counts(config, study.base))
    site_rows = _rows(out / RESULTS, study.plan.site_points)
    replay_rows = _rows(out / REPLAYS, study.plan.replay_points)
    cells = matrix(predictions(site_rows, replay_rows, study.plan.sources), policies)
    empty = no_jobs(replay_rows, study.plan.sources, cells)
    write_cross(out / CROSS, cells, empty)

    seed = config.seeds[0]
    traces = _traces(study, out, users[0], seed)
    shown: list[Figure] = []
    if len(users) > 1:
        shown.append(Figure("throughput", draw.throughput_vs_users(site_rows, policies, users),
                            "Throughput against the number of users, per policy (mean and 95% CI over the seeds)."))
    shown.append(Figure("wait", draw.metric_bars(site_rows, users[0], policies, PRIMARY),
                        f"Mean wait per policy with {users[0]} users (mean and 95% CI over the seeds; best in green)."))
    if traces:  # none when no policy's run submitted a job
        shown.append(Figure("cdf", draw.wait_cdfs({p: s.start - s.submit for p, s in traces.items()}, seed),
                            f"Distribution of the waits of the jobs that started, per policy ({users[0]} users,"
                            f" seed {seed})."))
        curves = {p: (*_curves(s), s.machine) for p, s in traces.items()}
        shown.append(Figure("load", draw.load_over_time(curves, seed),
                            f"Utilisation and queued jobs over simulated time, per policy ({users[0]} users,"
                            f" seed {seed})."))
    heat = [Figure(f"cross_{u}", draw.heat_map(cells, policies, u, PRIMARY),
                   f"Error of the open model's mean wait, % ({u} users): row = whose site-level trace,"
                   " column = the policy it was replayed under; mean ± 95% CI over the seeds.")
            for u in users if any(c.users == u for c in cells)]
    settings = describe(config, study.base)
    findings = [paragraph(site_rows, cells, u, policies, len(config.seeds)) for u in users]
    html = page(f"Scheduler study: {config.site}", settings, findings, metric_tables(site_rows, users, policies),
                shown, heat, cross_tables(cells, users, policies, empty))
    with atomic_text_write(out / REPORT) as handle:
        handle.write(html)
    if figures_dir is not None:
        draw.save({f.name: f.png for f in (*shown, *heat)}, figures_dir)


def _traces(study: Study, out: Path, users: int, seed: int) -> dict[str, Any]:
    """Policy → schedule of its site-level run (``users``, ``seed``), made again if gone;
    runs that submitted no job are left out (nothing to draw)."""
    from sitesim.plot.schedule import read_schedule

    site = PointRun(str(out))
    found = first_seed_traces(study.plan, out, users, seed)
    expected = expectations(_rows(out / RESULTS, study.plan.site_points), trace_keys(study.plan), out)
    for trace, point in study.plan.sources:
        if point.users == users and point.seed == seed and not matches(out / trace, expected.get(trace)):
            site(point)
    return {p: read_schedule(path) for p, path in found.items() if has_jobs(path)}


def _curves(schedule: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    from sitesim.plot.schedule import load_curves

    return load_curves(schedule)
