"""Site definitions in TOML (``models/*.toml``): data, validated, apart from the engine.

A site is named by a path to its file or, for the shipped ones (``paper``, the default
of a bare ``sitesim``; ``measured``; ``closed``; ``partitions``), by its bare name:
:func:`site_path` resolves both, and :func:`shipped_sites_directory` is the one place
that knows where the shipped files live.

A site file sets any field of :class:`~sitesim.runs.site.SiteConfig`; durations are
given in days (``duration_days``). Unknown keys and wrong types are input errors naming
the file and the key, so a typo never silently falls back to a default.

``scheduler`` is a policy spec, or a ``[scheduler]`` table naming the policy and its
parameters (:func:`scheduler_table`).

``population`` (a ``population.json`` of ``sitesim fit``) and an ``empirical`` ending in
``.json`` are table files, given relative to the site file.

A ``[[partitions]]`` array of tables splits the machine (docs/partitions.md; the table
format: :mod:`sitesim.runs.policy`). The machine size is then their total and the
scheduler ``partitioned``; a top-level ``scheduler`` beside them is an input error.
"""

from __future__ import annotations

import math
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import attrs

from sitesim.distributions import SIZE_MAPPINGS
from sitesim.errors import InputError
from sitesim.limits import MAX_RUNTIME_SCALE, MIN_RUNTIME_SCALE, check_number
from sitesim.resources import data_directory, shipped_names
from sitesim.runs.policy import load_partitions, parse_partitions, read_toml
from sitesim.runs.site import DAY, SiteConfig
from sitesim.schedulers.partitioned import PARTITIONED, total_nodes

__all__ = ["load_partitions", "load_site_file", "site_config"]

_TYPES: dict[str, type | tuple[type, ...]] = {
    "users": int,
    "submittal": str,
    "workpool": str,
    "scheduler": (str, dict),
    "estimates": str,
    "nodes": int,
    "duration_days": (int, float),
    "max_jobs": int,
    "seed": int,
    "empirical": str,
    "size_mapping": str,
    "runtime_scale": (int, float),
    "population": str,
}


def shipped_sites_directory() -> Traversable:
    """Where the shipped site files are: the repository's top-level ``models/``, carried
    by the wheel, or ``$SITESIM_MODELS`` (sitesim/resources.py)."""
    return data_directory("models")


def shipped_sites() -> list[str]:
    """Names of the shipped sites."""
    return shipped_names("models", ".toml")


def site_path(site: str | Path) -> Path | Traversable:
    """The file of ``site``: a bare name (no directory, no suffix) is a shipped site,
    anything else a path."""
    text = str(site)
    if isinstance(site, Path) or Path(text).name != text or Path(text).suffix:
        return Path(site)
    path = shipped_sites_directory() / f"{text}.toml"
    if not path.is_file():
        known = ", ".join(shipped_sites()) or "none"
        raise InputError(f"unknown site {text!r} (shipped: {known}; or give a path to a TOML file)")
    return path


def load_site_file(site: str | Path | Traversable) -> dict[str, Any]:
    """SiteConfig keyword arguments from a site file or shipped site name (see
    :func:`site_path`; ``description`` is ignored)."""
    path = site if isinstance(site, Traversable) and not isinstance(site, Path) else site_path(site)
    where = str(path)
    data = read_toml(path)
    data.pop("description", None)
    values: dict[str, Any] = {}
    if "partitions" in data:
        if "scheduler" in data:
            raise InputError(
                "a partitioned site sets the policy per partition, not at top level",
                path=where,
                field="scheduler",
            )
        partitions = parse_partitions(data.pop("partitions"), where)
        values["partitions"] = partitions
        values["scheduler"] = PARTITIONED
        values["nodes"] = total_nodes(partitions)
    for key, value in data.items():
        expected = _TYPES.get(key)
        if expected is None:
            known = ", ".join(sorted(_TYPES))
            raise InputError(f"unknown key (known: {known})", path=where, field=key)
        if isinstance(value, bool) or not isinstance(value, expected):
            raise InputError(f"wrong type {type(value).__name__}", path=where, field=key)
        if key == "duration_days":
            assert isinstance(value, (int, float))  # checked just above
            if not (math.isfinite(value) and value > 0):
                raise InputError(f"must be a positive finite number, got {value}", path=where, field=key)
            values["duration"] = round(value * DAY)
        elif key == "size_mapping" and value not in SIZE_MAPPINGS:
            known = ", ".join(SIZE_MAPPINGS)
            raise InputError(f"unknown size mapping {value!r} (known: {known})", path=where, field=key)
        elif key == "runtime_scale":
            try:
                values[key] = check_number(key, value, MIN_RUNTIME_SCALE, MAX_RUNTIME_SCALE)
            except InputError as exc:
                raise InputError(exc.message, path=where, field=key) from None
        elif key == "scheduler" and isinstance(value, dict):
            values[key] = scheduler_table(value, where)
        elif key == "seed" and isinstance(value, int) and value < 0:
            raise InputError(f"seeds are non-negative, got {value}", path=where, field=key)
        elif key == "population" or (key == "empirical" and str(value).endswith(".json")):
            # Table files sit beside the site file (what ``sitesim fit`` writes).
            values[key] = str(Path(str(path)).parent / str(value))
        else:
            values[key] = value
    return values


def scheduler_table(table: dict[str, Any], where: str) -> str:
    """The spec a ``[scheduler]`` table names: ``name`` and the policy's parameters,
    ``NAME:key=value,...`` (e.g. ``[scheduler] name = "multifactor"``, ``fairshare =
    5000``); the policy checks the parameters when the run is built."""
    name = table.get("name")
    if not isinstance(name, str) or not name:
        raise InputError("a [scheduler] table needs a policy name (name = \"...\")", path=where, field="scheduler.name")
    params = []
    for key, value in table.items():
        if key == "name":
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise InputError(f"wrong type {type(value).__name__}", path=where, field=f"scheduler.{key}")
        text = str(value)
        if "," in text or "=" in text:
            raise InputError(f"a parameter value may not hold ',' or '=': {text!r}", path=where, field=f"scheduler.{key}")
        params.append(f"{key}={text}")
    return f"{name}:{','.join(params)}" if params else name


#: The command-line flag that sets each SiteConfig field (errors about a value given on
#: the command line name the flag).
FLAGS: dict[str, str] = {
    "users": "--users", "submittal": "--submittal", "workpool": "--workpool",
    "scheduler": "--scheduler", "estimates": "--estimates", "nodes": "--nodes",
    "duration": "--duration", "max_jobs": "--jobs", "seed": "--seed",
    "empirical": "--empirical", "partitions": "--partitions", "population": "--site",
}
#: Site-file keys whose name differs from the SiteConfig field they set.
_KEYS: dict[str, str] = {"duration": "duration_days"}
_FIELD_OF_FLAG = {flag: name for name, flag in FLAGS.items()}


def site_config(
    base: dict[str, Any], overrides: dict[str, Any], *, origin: str | Path | None = None
) -> SiteConfig:
    """A SiteConfig from a site file's values (``base``, read from ``origin``) with
    command-line ``overrides`` on top.

    An invalid value is reported where it was given: ``FILE: users: ...`` for a value
    from the site file, ``--users: ...`` for one from the command line, so an error
    never blames a flag the user did not type.
    """
    given = {k: v for k, v in overrides.items() if v is not None}
    merged = {**base, **given}
    unknown = set(merged) - {f.name for f in attrs.fields(SiteConfig)}
    if unknown:
        raise InputError(f"unknown site setting(s): {', '.join(sorted(unknown))}")
    try:
        return SiteConfig(**merged)
    except InputError as exc:
        name = _FIELD_OF_FLAG.get(exc.field or "", exc.field or "")
        if name not in given and name in base and origin is not None:
            raise InputError(exc.message, path=str(origin), field=_KEYS.get(name, name)) from None
        raise InputError(exc.message, path=exc.path, line=exc.line, field=FLAGS.get(name, exc.field)) from None
