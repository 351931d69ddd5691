"""The Python API: ``sitesim.simulate(...)`` and ``sitesim.replay(trace, ...)``.

Both return a :class:`Result`: ``summary`` is what ``summary.json`` holds, ``jobs`` one
row per submitted job (:data:`sitesim.metrics.records.JOB_DTYPE`). Options are the
command line's, by the names and in the units :mod:`sitesim.runs.options` declares
(docs/api.md). Schedulers and models may be given by registered name
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
from sitesim.metrics.records import JobTable
from sitesim.runs import options
from sitesim.runs.components import resolve
from sitesim.runs.replay import ReplayConfig, run_replay
from sitesim.runs.site import run_site
from sitesim.runs.sitefile import load_site_file, site_config

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


#: Options that name a component, which the API also takes as a class or an instance.
_COMPONENTS = ("scheduler", "estimates", "submittal", "workpool")


def _components(values: dict[str, Any]) -> tuple[dict[str, Any], Any, Any]:
    """Component options as specs, with the ready-made scheduler and estimate model."""
    instances: dict[str, Any] = {}
    for kind in _COMPONENTS:
        if values.get(kind) is not None:
            values[kind], instances[kind] = resolve(kind, values[kind])
    return values, instances.get("scheduler"), instances.get("estimates")


def _options(given: dict[str, Any], mode: str) -> dict[str, Any]:
    """Stored values of the run options given as keywords (the declaration's names and
    units: ``duration`` in days); None means not given, as on the command line."""
    return options.from_person({k: v for k, v in given.items() if v is not None}, mode)


def _nodes(values: dict[str, Any], sched: object) -> None:
    """A ready-made scheduler's machine, unless a size is given (the rest of the
    machine-size rule is the configuration's own: :func:`sitesim.runs.sitefile.site_config`)."""
    if values.get("nodes") is None and sched is not None:
        values["nodes"] = getattr(sched, "nodes", None)
    if values.get("nodes") is None:
        values.pop("nodes", None)


def simulate(
    users: int | None = None,
    *,
    site: str | Path | None = None,
    observers: Iterable[object] = (),
    out: str | Path | None = None,
    debug: bool = False,
    progress: bool | None = None,
    **settings: Any,
) -> Result:
    """A site-level run (the command line without ``-c``). ``settings`` are the
    site-level run options by their declared names and units (:mod:`sitesim.runs.options`;
    ``duration`` in days, as on the command line and in site files); the scheduler and
    the models may also be classes, and the scheduler and estimate model instances."""
    _flags(debug=debug, progress=progress)
    out_dir = _path(out, "out")
    extra = _iterable(observers, "observers")
    if site is not None and not isinstance(site, (str, os.PathLike)):
        raise InputError(f"must be a site name or a path, got {site!r}", field="site")
    base = load_site_file(site) if site is not None else {}
    values, sched, est = _components({"users": users, **settings})
    overrides = _options(values, options.SITE)
    _nodes(overrides, sched)
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
    observers: Iterable[object] = (),
    out: str | Path | None = None,
    debug: bool = False,
    progress: bool | None = None,
    **settings: Any,
) -> Result:
    """A replay of an SWF trace (the command line's ``-c``). ``settings`` are the replay
    options by their declared names (:mod:`sitesim.runs.options`)."""
    _flags(debug=debug, progress=progress)
    trace_path = _path(trace, "trace")
    out_dir = _path(out, "out")
    extra = _iterable(observers, "observers")
    values, sched, est = _components(dict(settings))
    stored = _options({**values, "trace": str(trace_path)}, options.REPLAY)
    _nodes(stored, sched)
    config = ReplayConfig(**stored)
    table = JobTable()
    result = run_replay(
        config, out_dir, debug=debug,
        observers=[table, *extra], scheduler=sched, estimates=est, progress=progress,
    )
    return Result(_as_written(result.document()), table.array())


__all__ = ["Result", "replay", "simulate"]
