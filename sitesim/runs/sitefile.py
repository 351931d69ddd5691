"""Site definitions in TOML (``models/*.toml``): data, validated, apart from the engine.

A site is named by a path to its file or, for the shipped ones (``paper``, the default
of a bare ``sitesim``; ``measured``; ``closed``; ``partitions``), by its bare name:
:func:`site_path` resolves both, and :func:`shipped_sites_directory` is the one place
that knows where the shipped files live.

A site file sets any site-level option (:mod:`sitesim.runs.options`, by its name and in
its unit: ``duration`` in days; ``duration_days`` is still read). Unknown keys and wrong types are input errors naming
the file and the key, so a typo never silently falls back to a default.

``scheduler`` is a policy spec, or a ``[scheduler]`` table naming the policy and its
parameters (:func:`scheduler_table`).

``population`` (a ``population.json`` of ``sitesim fit``) and an ``empirical`` ending in
``.json`` are table files, given relative to the site file.

A policy may own a table of the site file (``Scheduler.site_table``: ``[[partitions]]``
splits the machine, docs/partitions.md): the site's policy is then ``NAME:`` this file,
which may declare the machine size; a top-level ``scheduler`` beside it is an input
error.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from contextlib import contextmanager
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import attrs

from sitesim.errors import InputError
from sitesim.resources import data_directory, shipped_names
from sitesim.runs import options
from sitesim.runs.policy import machine_nodes, under
from sitesim.schedulers.base import available
from sitesim.runs.site import SiteConfig
from sitesim.workload.tomlfile import read_toml

__all__ = ["load_site_file", "site_config"]

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
    seen: set[str] = set()
    for name, policy in available().items():
        if policy.site_table is None or policy.site_table not in data:
            continue
        if "scheduler" in data:
            raise InputError(f"a site sets its policy in [[{policy.site_table}]] (per part), not at top level",
                             path=where, field="scheduler")
        data.pop(policy.site_table)
        # The policy reads its table from this very file, and may declare the machine size.
        values["scheduler"] = f"{name}:{where}"
        declared = machine_nodes(values["scheduler"], None)
        if declared is not None:
            values["nodes"] = declared
    for key, value in data.items():
        try:
            if key == "scheduler" and isinstance(value, dict):
                values["scheduler"] = scheduler_table(value, where)
                continue
            converted = options.from_person({key: value}, options.SITE, where=_unknown_key)
        except InputError as exc:
            raise InputError(exc.message, path=where, field=exc.field or key) from None
        ((name, stored),) = converted.items()
        if name in seen:
            raise InputError(f"given twice (as {name} and {key})", path=where, field=key)
        if name == "population" or (name == "empirical" and str(stored).endswith(".json")):
            # Table files sit beside the site file (what ``sitesim fit`` writes).
            stored = str(Path(str(path)).parent / str(stored))
        values[name] = stored
        seen.add(name)
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


def _unknown_key(key: str) -> InputError:
    known = ", ".join(sorted(options.names(options.SITE)))
    return InputError(f"unknown key (known: {known})", field=key)


def site_config(
    base: dict[str, Any], overrides: dict[str, Any], *, origin: str | Path | None = None
) -> SiteConfig:
    """A SiteConfig from a site file's values (``base``, read from ``origin``) with
    command-line ``overrides`` on top.

    The rules every surface (command line, Python API, sweeps, studies) shares, here once:

    - a policy that brings its own machine (``partitioned:FILE``) replaces the site's,
      and its size is the machine's unless one is given
      (:func:`sitesim.runs.policy.machine_nodes`);
    - any other policy given on top of a site runs on the site's machine as the site's
      policy describes it (``Scheduler.under``): on a partitioned site, in every
      partition;
    - a job limit given without a duration, on a site that sets none, runs until the
      jobs have ended (no duration).

    An invalid value is reported where it was given: ``FILE: users: ...`` for a value
    from the site file, ``--users: ...`` for one from the command line, so an error
    never blames a flag the user did not type.
    """
    given = {k: v for k, v in overrides.items() if v is not None}
    site_policy = base.get("scheduler")
    declared = machine_nodes(given["scheduler"], None) if "scheduler" in given else None
    if declared is not None:  # a policy that brings its machine replaces the site's
        given.setdefault("nodes", declared)
    elif "scheduler" in given and site_policy is not None and given["scheduler"] != site_policy:
        given["scheduler"] = under(site_policy, given["scheduler"])
    merged = {**base, **given}
    if "max_jobs" in given and "duration" not in given and "duration" not in base:
        merged["duration"] = None
    unknown = set(merged) - {f.name for f in attrs.fields(SiteConfig)}
    if unknown:
        raise InputError(f"unknown site setting(s): {', '.join(sorted(unknown))}")
    try:
        return SiteConfig(**merged)
    except InputError as exc:
        name = options.name_of(exc.field or "")
        if name not in given and name in base and origin is not None:
            raise InputError(exc.message, path=str(origin), field=name) from None
        raise InputError(exc.message, path=exc.path, line=exc.line, field=flag_of(name)) from None


def replay_on_site(base: dict[str, Any], given: dict[str, Any]) -> dict[str, Any]:
    """Replay options (``given``, from the command line) on a site file's machine and
    policy (``base``, :func:`load_site_file`): ``sitesim -c LOG --site FILE`` replays the
    log on a fitted site's machine under its fitted service. Only the machine (its
    nodes, and the processors per node a whole-node site's log sizes are divided by)
    and the policy are taken (the rest of a site describes simulated users); a policy
    given on top runs on the site's machine as in :func:`site_config`."""
    out = dict(given)
    site_policy = base.get("scheduler")
    if "scheduler" not in out:
        if site_policy is not None:
            out["scheduler"] = site_policy
    elif site_policy is not None and machine_nodes(out["scheduler"], None) is None and out["scheduler"] != site_policy:
        out["scheduler"] = under(site_policy, out["scheduler"])
    if "nodes" not in out and "nodes" in base and machine_nodes(out.get("scheduler"), None) is None:
        out["nodes"] = base["nodes"]
    if "processors_per_node" not in out and "processors_per_node" in base:
        out["processors_per_node"] = base["processors_per_node"]
    return out


@contextmanager
def blamed_on_site(origin: str, taken: Collection[str]) -> Iterator[None]:
    """Run a replay whose options ``taken`` came from the site file ``origin``
    (:func:`replay_on_site`): an error about one of them (found only once the trace is
    read: processors per node its header does not declare) names the file and key, not
    a flag the user did not type."""
    try:
        yield
    except InputError as exc:
        name = options.name_of(exc.field or "")
        if name in taken:
            raise InputError(exc.message, path=origin, field=name) from None
        raise


def flag_of(name: str) -> str:
    """The command-line flag of an option (errors about a value given there name it)."""
    try:
        return options.option(name).flag
    except KeyError:
        return name
