"""The Python API: ``sitesim.simulate(...)`` and ``sitesim.replay(trace, ...)``.

Both return a :class:`Result`: ``summary`` is what ``summary.json`` holds, ``jobs`` one
row per submitted job (:data:`sitesim.metrics.records.JOB_DTYPE`). Options are the
command line's (docs/api.md). Schedulers and models may be given by registered name
(``"easy"``, ``"timed:easy:300"``), as a class (registered on the spot if needed, or
named ``module:Class``), or, for the scheduler and the estimate model, as an instance;
``observers`` are attached to the site beside the run's own.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
from attrs import define, field

from sitesim.errors import InputError
from sitesim.limits import MAX_SECONDS, check_number
from sitesim.metrics.records import JobTable
from sitesim.runs.components import resolve
from sitesim.runs.policy import load_partitions, machine_nodes
from sitesim.runs.replay import ReplayConfig, run_replay
from sitesim.runs.site import DAY, run_site
from sitesim.runs.sitefile import load_site_file, site_config
from sitesim.schedulers.partitioned import PARTITIONED, PartitionSpec, total_nodes

#: A scheduler or model as the API takes it: a spec, a class, or (where allowed) an instance.
Component = str | type | object


@define(slots=True)
class Result:
    """What a run produced."""

    #: The run summary: exactly what ``summary.json`` holds (config, seed, results).
    summary: dict[str, Any]
    #: One row per submitted job, in arrival order (numpy structured array).
    jobs: np.ndarray = field(repr=lambda a: f"<{len(a)} jobs>")

    def to_pandas(self) -> Any:
        """``jobs`` as a pandas DataFrame (pandas is an optional extra: ``sitesim[pandas]``)."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("Result.to_pandas() needs pandas: pip install 'sitesim[pandas]'") from None
        return pd.DataFrame.from_records(self.jobs)


def _as_written(document: dict[str, Any]) -> dict[str, Any]:
    """The summary exactly as summary.json holds it (tuples become lists, and so on)."""
    return json.loads(json.dumps(document))  # type: ignore[no-any-return]


def _partitions(partitions: str | Path | Iterable[PartitionSpec] | None) -> tuple[PartitionSpec, ...]:
    if partitions is None:
        return ()
    if isinstance(partitions, (str, os.PathLike)):
        return load_partitions(partitions)  # type: ignore[arg-type]
    specs = tuple(_iterable(partitions, "partitions"))
    for spec in specs:
        if not isinstance(spec, PartitionSpec):
            raise InputError(f"must be a file or PartitionSpec records, got {spec!r}", field="partitions")
    return specs


# The API's own arguments are checked here, so that a wrong type is an InputError naming
# the argument, as on the command line, and never a TypeError from deep inside a run.
def _iterable(value: object, name: str) -> list[Any]:
    if isinstance(value, (str, bytes)):
        raise InputError(f"must be a list, got {value!r}", field=name)
    try:
        return list(value)  # type: ignore[call-overload]
    except TypeError:
        raise InputError(f"must be a list, got {value!r}", field=name) from None


def _path(value: object, name: str) -> Path | None:
    if value is None:
        return None
    if not isinstance(value, (str, os.PathLike)) or not str(value):
        raise InputError(f"must be a path, got {value!r}", field=name)
    return Path(value)


def _flags(**flags: object) -> None:
    for name, value in flags.items():
        if value is not None and not isinstance(value, bool):
            raise InputError(f"must be True or False, got {value!r}", field=name)


def _nodes(nodes: int | None, sched: object, spec: str | None, from_site: bool) -> int | None:
    """The machine size: given, else a ready-made scheduler's, else what the policy
    declares (``partitioned:FILE``; :func:`sitesim.runs.policy.machine_nodes`, the rule
    the command line and sweeps follow); a site file's own size comes before the last."""
    if nodes is not None:
        return nodes
    if sched is not None:
        return getattr(sched, "nodes", None)
    return None if from_site else machine_nodes(spec, None)


def simulate(
    users: int | None = None,
    *,
    scheduler: Component | None = None,
    submittal: str | type | None = None,
    workpool: str | type | None = None,
    estimates: Component | None = None,
    nodes: int | None = None,
    duration_days: float | None = None,
    max_jobs: int | None = None,
    seed: int | None = None,
    empirical: str | None = None,
    site: str | Path | None = None,
    partitions: str | Path | Iterable[PartitionSpec] | None = None,
    observers: Iterable[object] = (),
    out: str | Path | None = None,
    debug: bool = False,
    progress: bool | None = None,
    **settings: Any,
) -> Result:
    """A site-level run (the command line without ``-c``); ``settings`` are further
    :class:`~sitesim.runs.site.SiteConfig` fields (e.g. ``size_mapping``)."""
    _flags(debug=debug, progress=progress)
    out_dir = _path(out, "out")
    extra = _iterable(observers, "observers")
    if duration_days is not None:
        days = check_number("duration_days", duration_days, 1 / DAY, MAX_SECONDS / DAY, "days")
    if site is not None and not isinstance(site, (str, os.PathLike)):
        raise InputError(f"must be a site name or a path, got {site!r}", field="site")
    base = load_site_file(site) if site is not None else {}
    parts = _partitions(partitions)
    if parts:
        base.update(partitions=parts, scheduler=PARTITIONED, nodes=total_nodes(parts))
    sched_spec, sched = (None, None) if scheduler is None else resolve("scheduler", scheduler)
    est_spec, est = (None, None) if estimates is None else resolve("estimates", estimates)
    overrides: dict[str, Any] = {
        "users": users,
        "submittal": None if submittal is None else resolve("submittal", submittal)[0],
        "workpool": None if workpool is None else resolve("workpool", workpool)[0],
        "scheduler": sched_spec,
        "estimates": est_spec,
        "nodes": _nodes(nodes, sched, sched_spec, "nodes" in base),
        "seed": seed,
        "empirical": empirical,
        "max_jobs": max_jobs,
        **settings,
    }
    if duration_days is not None:
        overrides["duration"] = round(days * DAY)
    elif max_jobs is not None and "duration" not in base:
        base["duration"] = None
    config = site_config(base, overrides)
    table = JobTable()
    result = run_site(
        config, out_dir, debug=debug,
        observers=[table, *extra], scheduler=sched, estimates=est, progress=progress,
    )
    return Result(_as_written(result.document()), table.array())


def replay(
    trace: str | Path,
    *,
    scheduler: Component = "fcfs",
    estimates: Component = "trace",
    nodes: int | None = None,
    load_factor: float = 1.0,
    seed: int = 0,
    failures: str = "trace",
    skip_malformed: bool = False,
    partitions: str | Path | Iterable[PartitionSpec] | None = None,
    feedback: str | None = None,
    observers: Iterable[object] = (),
    out: str | Path | None = None,
    debug: bool = False,
    progress: bool | None = None,
) -> Result:
    """A replay of an SWF trace (the command line's ``-c``)."""
    _flags(debug=debug, progress=progress, skip_malformed=skip_malformed)
    trace_path = _path(trace, "trace")
    out_dir = _path(out, "out")
    extra = _iterable(observers, "observers")
    parts = _partitions(partitions)
    sched_spec, sched = resolve("scheduler", scheduler)
    est_spec, est = resolve("estimates", estimates)
    config = ReplayConfig(
        trace=str(trace_path),
        scheduler=PARTITIONED if parts else sched_spec,
        estimates=est_spec,
        nodes=_nodes(nodes, sched, sched_spec, False),
        load_factor=load_factor,
        seed=seed,
        failures=failures,
        skip_malformed=skip_malformed,
        partitions=parts,
        feedback=feedback,
    )
    table = JobTable()
    result = run_replay(
        config, out_dir, debug=debug,
        observers=[table, *extra], scheduler=sched, estimates=est, progress=progress,
    )
    return Result(_as_written(result.document()), table.array())


__all__ = ["Result", "replay", "simulate"]
