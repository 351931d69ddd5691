"""Run one sweep point and turn its result into a CSV row.

This is what executors ship to workers, so it is a plain module-level function of a
picklable :class:`~sitesim.sweep.grid.Point`, and it imports the simulation lazily
(``sitesim.runs.site`` is only needed by site-mode points).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

from attrs import define

from sitesim.sweep.grid import CONFIG_COLUMNS, OPTIONAL_COLUMNS, Point, format_cell

Row = dict[str, str]
RunFunction = Callable[[Point], Row]

#: Result columns taken from the run summary (same keys for site and replay runs).
SUMMARY_COLUMNS: tuple[str, ...] = (
    "submitted", "completed", "killed",
    "mean_wait", "mean_response", "mean_slowdown", "mean_bounded_slowdown",
    "utilization", "offered_load", "accepted_load", "throughput_per_day", "makespan",
)
#: Dependency-violation columns (replay only; empty for site runs).
VIOLATION_COLUMNS: tuple[str, ...] = (
    "violations_submission", "violations_execution",
    "violations_submission_fraction", "violations_execution_fraction",
    "violations_no_dependency", "violations_unresolved",
)
METRIC_COLUMNS: tuple[str, ...] = ("nodes_used", *SUMMARY_COLUMNS, *VIOLATION_COLUMNS)
#: The users' productivity (the run's ``productivity`` section, docs/metrics.md): site
#: runs only, empty for replays. The last columns of every sweep, so that a CSV written
#: before them is their exact prefix and is upgraded on resuming (sitesim/sweep/store.py).
PRODUCTIVITY_COLUMNS: tuple[str, ...] = (
    "sessions_started", "sessions_completed", "batches_per_session", "jobs_per_session",
    "mean_session_hours", "ended_after_long_response", "jobs_per_active_day",
)
COLUMNS: tuple[str, ...] = (*CONFIG_COLUMNS, *METRIC_COLUMNS, *PRODUCTIVITY_COLUMNS)
#: Adaptive-user metrics (the run summary's ``adaptive`` block), in sweeps over them.
ADAPTIVE_COLUMNS: tuple[str, ...] = (
    "adaptive_mean_turnaround", "rigid_mean_wait", "rigid_mean_turnaround",
)


def columns_for(points: Iterable[Point]) -> tuple[str, ...]:
    """The CSV columns of a sweep: :data:`COLUMNS`, with the optional options it varies
    (and the adaptive metrics, if it varies adaptive users)."""
    points = list(points)
    optional = tuple(c for c in OPTIONAL_COLUMNS if any(getattr(p, c) is not None for p in points))
    if not optional:
        return COLUMNS
    adaptive = ADAPTIVE_COLUMNS if "adaptive" in optional else ()
    return (*CONFIG_COLUMNS, *optional, *METRIC_COLUMNS, *adaptive, *PRODUCTIVITY_COLUMNS)


def make_row(point: Point, nodes_used: int, summary: Mapping[str, Any],
             violations: Mapping[str, Any] | None = None,
             productivity: Mapping[str, Any] | None = None) -> Row:
    """The CSV row of a finished run: config cells, then formatted metrics (the
    productivity cells empty without ``productivity``)."""
    row = point.cells()
    row["nodes_used"] = format_cell(nodes_used)
    for name in SUMMARY_COLUMNS:
        row[name] = format_cell(summary.get(name))
    for name in VIOLATION_COLUMNS:
        value = None if violations is None else violations.get(name.removeprefix("violations_"))
        row[name] = format_cell(value)
    adaptive = summary.get("adaptive")
    if point.adaptive is not None:
        row["adaptive_mean_turnaround"] = format_cell(adaptive["mean_turnaround"] if adaptive else None)
        row["rigid_mean_wait"] = format_cell(adaptive["rigid_mean_wait"] if adaptive else summary.get("mean_wait"))
        row["rigid_mean_turnaround"] = format_cell(
            adaptive["rigid_mean_turnaround"] if adaptive else summary.get("mean_response")
        )
    for name in PRODUCTIVITY_COLUMNS:
        row[name] = format_cell(None if productivity is None else productivity.get(name))
    return row


#: Folder of the site-level runs' outputs (trace.swf, summary.json, stats.txt) under a
#: sweep's output root (:class:`PointRun`).
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
    """A site-level run's folder, relative to the root: readable (policy, users, seed)
    and ending in a short hash of the point's whole key (duration, nodes, model, ...).
    Two configurations never share a folder, and since a replay's key holds its trace's
    path, a sweep rerun in the same folder with another duration (say) replays its new
    traces instead of reusing the replays of the old ones."""
    key = hashlib.sha256("\x1f".join(point.key()).encode()).hexdigest()[:8]
    return f"{RUNS}/{slug(point.scheduler)}-u{point.users}-s{point.seed}-{key}"


@define(frozen=True, slots=True)
class PointRun:
    """The per-point function of a sweep: the point's options on top of its base (its
    site file, else the declared defaults), as the command line puts flags on top of
    ``--site``. With a ``root``, each site-level run keeps its outputs in
    ``root/run_folder(point)`` (a study replays those traces), and a replay's relative
    trace is read from ``root``. A replay point with a site replays on the site's
    machine under its policy (:func:`sitesim.runs.sitefile.replay_on_site`). Picklable,
    for worker processes and Dask."""

    root: str | None = None

    def __call__(self, point: Point) -> Row:
        if point.mode == "replay":
            from sitesim.runs.replay import ReplayConfig, run_replay

            settings = point.settings()
            if self.root is not None:
                settings["trace"] = str(Path(self.root) / settings["trace"])
            blamed: AbstractContextManager[None] = nullcontext()
            if point.site is not None:  # on the site's machine, by the rule ``-c LOG --site`` follows
                from sitesim.runs.sitefile import blamed_on_site, load_site_file, replay_on_site, site_path

                on_site = replay_on_site(load_site_file(point.site), settings)
                # A value the site gave is blamed on the site.
                blamed = blamed_on_site(str(site_path(point.site)), set(on_site) - set(settings))
                settings = on_site
            with blamed:
                replayed = run_replay(ReplayConfig(**settings))
            return make_row(point, replayed.nodes, replayed.summary, replayed.violations)
        if point.mode == "site":
            from sitesim.runs.site import run_site

            config = site_config_of(point)
            out = None if self.root is None else Path(self.root) / run_folder(point)
            result = run_site(config, out=out, progress=False)
            return make_row(point, config.nodes, result.summary, productivity=result.productivity)
        raise ValueError(f"unknown mode {point.mode!r}")


def run_point(point: Point) -> Row:
    """Simulate one point (no output files) and return its row (:class:`PointRun`)."""
    return PointRun()(point)


def site_config_of(point: Point) -> Any:
    """The site configuration a site-level point runs: its settings on top of its site,
    by the rules every surface shares (:func:`sitesim.runs.sitefile.site_config`; a
    policy runs on the site's machine, on a partitioned site in every partition)."""
    from sitesim.runs.sitefile import load_site_file, site_config, site_path

    base = load_site_file(point.site) if point.site is not None else {}
    origin = str(site_path(point.site)) if point.site is not None else None
    return site_config(base, point.settings(), origin=origin)
