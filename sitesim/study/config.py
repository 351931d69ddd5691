"""A study's configuration: which site, which policies, which seeds (docs/study.md).

A study is named by what a person types (``--site kth/site.toml -s fcfs,easy --seeds 5``)
and resolved here, once, into the site-level configuration every run starts from. The
whole configuration is checked before anything is created, so bad input leaves no
output directory behind; and it is written back as ``study.toml``, which
``sitesim study --from`` reads, so a study can be rerun exactly.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs
from attrs import define, field

from sitesim.version import __version__
from sitesim.errors import InputError
from sitesim.limits import MAX_REPLICATIONS, MAX_USERS, check_range
from sitesim.runs import options
from sitesim.runs.site import DAY, SiteConfig
from sitesim.sweep.fingerprint import digest, site_model

#: The file a study writes its configuration to, and ``--from`` reads.
STUDY_FILE = "study.toml"
#: The site-level options a study sets on its site, one value each (``users`` may be a
#: list: the study runs each count): every sweepable option but the policy and the seed,
#: which the study varies itself (``-s``, ``--seeds``).
SETTINGS: tuple[str, ...] = tuple(o.name for o in options.options(options.SITE)
                                  if o.sweep and o.name not in ("scheduler", "seed", "users"))
#: Keys of ``study.toml`` (``sitesim_version`` and ``model`` are recorded for the reader;
#: a rerun reports a difference in either but runs); settings by option name and unit.
KEYS = frozenset({"site", "policies", "seeds", "users", "sitesim_version", "model", *SETTINGS})


def _tuple(value: Any) -> tuple[Any, ...]:
    return tuple(value) if isinstance(value, (list, tuple)) else (value,)


@define(frozen=True, slots=True)
class StudyConfig:
    """What a study runs: every policy on the site, for each user count and seed.

    ``users`` empty means the site's own user count; ``settings`` are other site-level
    options set on the site (stored values: a duration in seconds), by name.
    """

    site: str
    policies: tuple[str, ...] = field(converter=_tuple)
    seeds: tuple[int, ...] = field(converter=_tuple)
    users: tuple[int, ...] = field(default=(), converter=_tuple)
    settings: tuple[tuple[str, Any], ...] = field(default=(), converter=lambda v: tuple(dict(v).items()))

    @property
    def duration(self) -> int | None:
        """Simulated seconds, when the study sets them (else the site's own)."""
        return dict(self.settings).get("duration")


def seeds_of(count: int) -> tuple[int, ...]:
    """``--seeds N``: the seeds 0 .. N-1 (every run draws only from its own seed)."""
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_REPLICATIONS:
        raise InputError(f"must be a whole number in 1..{MAX_REPLICATIONS}, got {count!r}", field="--seeds")
    return tuple(range(count))


def settings_of(values: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    """Stored values of the study's settings, given by option name in its unit."""
    return tuple(options.from_person(values, options.SITE).items())


def resolve(study: StudyConfig, *, base_dir: Path | None = None) -> SiteConfig:
    """The site configuration the study's runs start from (the first user count and
    policy), every value of the study checked: unknown sites and policies, seeds,
    users and duration fail here, before any output exists.

    ``base_dir``: where a relative site path is read from (a ``study.toml``'s folder).
    """
    from sitesim.runs.policy import check_spec
    from sitesim.runs.sitefile import load_site_file, site_config, site_path
    from sitesim.workload.files import is_stream

    if not study.policies:
        raise InputError("name at least one policy", field="--scheduler")
    for spec in study.policies:
        if not isinstance(spec, str) or not spec:
            raise InputError(f"policies are non-empty names, got {list(study.policies)}", field="--scheduler")
        check_spec(spec)
    if len(set(study.policies)) != len(study.policies):
        raise InputError(f"a policy is named twice: {', '.join(study.policies)}", field="--scheduler")
    if not study.seeds or any(isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in study.seeds):
        raise InputError(f"seeds are non-negative whole numbers, got {list(study.seeds)}", field="--seeds")
    for users in study.users:
        if isinstance(users, bool) or not isinstance(users, int):
            raise InputError(f"must be whole numbers, got {list(study.users)}", field="--users")
        check_range("--users", users, 1, MAX_USERS, "users")
    site = site_file(study.site, base_dir)
    path = site_path(site)
    if isinstance(path, Path) and is_stream(path):
        raise InputError("a pipe or device, not a site file: each of the study's runs reads its site file"
                         " again, so give a regular file", path=str(path))
    if not path.is_file():
        raise InputError("site file not found" if not path.is_dir() else "a folder, not a site file",
                         path=str(path))
    values = load_site_file(path)
    overrides: dict[str, Any] = {"seed": study.seeds[0], **dict(study.settings)}
    if study.users:
        overrides["users"] = study.users[0]
    config = site_config(values, overrides, origin=str(path))
    check_tables(config)
    base = site_for(config, study.policies[0])
    for policy in study.policies:
        try:
            site_for(base, policy)
        except InputError as exc:
            raise InputError(exc.message, field="--scheduler") from None
    return base


def check_tables(config: SiteConfig) -> None:
    """Load the tables every run of the study reads (the empirical table, the fitted
    population), once, before anything is written: a bad one is one input error naming
    its file, not a failed run at every point, which "run again to retry" could only
    fail the same way."""
    from sitesim.distributions import load_empirical
    from sitesim.runs.population_check import check_population_file
    from sitesim.users.population_table import FittedPopulation

    load_empirical(config.empirical).for_site(config.nodes, config.size_mapping, config.runtime_scale)
    if config.population is not None:
        FittedPopulation.load(config.population, config.nodes, check_population_file(config.population))


def site_for(base: SiteConfig, policy: str, **changes: Any) -> SiteConfig:
    """``base`` run under ``policy``, on the site's machine as its policy describes it:
    on a partitioned site every partition runs ``policy`` (each keeps its nodes and
    admission rules), so the study compares policies on the same partitioned machine."""
    from sitesim.runs.policy import under

    return attrs.evolve(base, scheduler=under(base.scheduler, policy), **changes)


def site_file(site: str, base_dir: Path | None) -> str:
    """A site as ``site_path`` reads it: a shipped name as is, a relative path taken from
    ``base_dir`` when given."""
    if is_site_name(site) or base_dir is None or Path(site).is_absolute():
        return site
    return str(base_dir / site)


def identity(study: StudyConfig, base_dir: Path | None) -> tuple[Any, ...]:
    """What makes two studies the same study: the site and table files they name (by
    the file reached, not the path written), policies, seeds, users and settings."""
    site = study.site if is_site_name(study.site) else os.path.realpath(site_file(study.site, base_dir))
    settings = sorted((name, os.path.realpath(value) if name in _FILES and isinstance(value, str)
                       and value.endswith(".json") else value) for name, value in study.settings)
    return site, tuple(study.policies), tuple(study.seeds), tuple(study.users), tuple(settings)


def is_site_name(site: str) -> bool:
    """Whether ``site`` names a shipped site (no folder, no suffix), as ``site_path`` reads it."""
    return Path(site).name == site and not Path(site).suffix


def user_counts(study: StudyConfig, base: SiteConfig) -> tuple[int, ...]:
    """The user counts the study runs: ``--users``, else the site's own."""
    return study.users or (base.users,)


def model_fingerprint(base: SiteConfig) -> str:
    """The sweep's fingerprint of the site model (sitesim/sweep/fingerprint.py): the same
    document a plain site sweep hashes, so a study of the ``paper`` site and
    ``sitesim sweep`` name the same runs with the same ``model``. Table and population
    files count by name and content, not by the path they were reached by, so a study
    rerun from another folder (``--from``) names the same runs."""
    return digest({"mode": "site", "site": site_model(base)})


#: Settings that name a table file (``population``, an ``empirical`` ``.json``): written
#: to study.toml relative to the study's folder and read back from it, as ``site`` is.
_FILES = ("population", "empirical")


def write_study_file(path: Path, study: StudyConfig, model: str) -> None:
    """``study.toml``: the study's exact configuration (a relative site path is written
    relative to the study's folder, so the folder can move with its site file)."""
    from sitesim.workload.files import atomic_text_write

    site = study.site
    if not is_site_name(site) and not Path(site).is_absolute():
        site = os.path.relpath(Path(site).resolve(), path.parent.resolve())
    lines = [
        "# sitesim study: rerun with `sitesim study --from study.toml`",
        f"sitesim_version = {json.dumps(__version__)}",
        f"site = {json.dumps(site)}",
        f"policies = {_toml_list(study.policies)}",
        f"seeds = {_toml_list(study.seeds)}",
    ]
    if study.users:
        lines.append(f"users = {_toml_list(study.users)}")
    for name, value in study.settings:
        if name in _FILES and isinstance(value, str) and value.endswith(".json") and not Path(value).is_absolute():
            value = os.path.relpath(Path(value).resolve(), path.parent.resolve())  # moves with the study
        lines.append(f"{name} = {json.dumps(options.person_value(options.option(name), value))}")
    lines.append(f"model = {json.dumps(model)}  # fingerprint of the site model (docs/sweeps.md)")
    with atomic_text_write(path) as out:
        out.write("\n".join(lines) + "\n")


def _toml_list(values: Sequence[Any]) -> str:
    return "[" + ", ".join(json.dumps(v) for v in values) + "]"


def read_study_file(path: Path) -> tuple[StudyConfig, dict[str, Any]]:
    """The study a ``study.toml`` describes, and the file's recorded extras (version, model)."""
    where = str(path)
    from sitesim.workload.tomlfile import read_toml

    if not os.path.lexists(path):
        raise InputError("no such file", path=where)
    data = read_toml(path, "study file")
    unknown = sorted(set(data) - KEYS)
    if unknown:
        raise InputError(f"unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(KEYS))})", path=where)
    for key, kind in (("site", str), ("policies", list), ("seeds", list)):
        if not isinstance(data.get(key), kind):
            raise InputError(f"missing or wrong type (a {kind.__name__})", path=where, field=key)
    if "users" in data and not isinstance(data["users"], list):
        raise InputError("wrong type (a list)", path=where, field="users")
    given = {k: data[k] for k in SETTINGS if k in data}
    try:
        for name in _FILES:  # relative table files are the study folder's
            value = given.get(name)
            if isinstance(value, str) and value.endswith(".json") and not Path(value).is_absolute():
                given[name] = str(path.parent / value)
        settings = settings_of(given)
    except InputError as exc:
        raise InputError(exc.message, path=where, field=exc.field) from None
    study = StudyConfig(site=data["site"], policies=data["policies"], seeds=data["seeds"],
                        users=data.get("users", ()), settings=settings)
    extras: dict[str, Any] = {k: data[k] for k in ("sitesim_version", "model") if k in data}
    return study, extras


def _machine(c: SiteConfig) -> str:
    """The machine in words: its size, and the composite the site's policy describes
    (a partitioned site: its file, every part under the policy compared)."""
    from sitesim.runs.policy import policy_label, under

    if under(c.scheduler, "POLICY") == "POLICY":
        return f"{c.nodes} nodes"
    return f"{c.nodes} nodes, {policy_label(c.scheduler)} ({under(c.scheduler, 'POLICY')}), each part under the policy"


def describe(study: StudyConfig, base: SiteConfig) -> dict[str, str]:
    """The study's settings as label → text, for the report's first table."""
    c = base
    fitted = c.population is not None
    return {
        "site": study.site,
        "machine": _machine(c),
        "users": ", ".join(str(u) for u in user_counts(study, base)),
        "simulated time": "until the job limit" if c.duration is None else f"{c.duration / DAY:g} days",
        "users' behaviour": "fitted population (resampled)" if fitted else f"{c.submittal} submittal, {c.workpool} workpool",
        "runtime estimates": c.estimates,
        "policies": ", ".join(study.policies),
        "seeds": ", ".join(str(s) for s in study.seeds),
        "model fingerprint": model_fingerprint(base),
        "sitesim": __version__,
        **({"job limit": str(c.max_jobs)} if c.max_jobs is not None else {}),
    }
