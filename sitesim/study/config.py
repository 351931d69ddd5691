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
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs
from attrs import define, field

from sitesim.version import __version__
from sitesim.errors import InputError
from sitesim.limits import MAX_REPLICATIONS, MAX_SECONDS, MAX_USERS, check_range, years
from sitesim.runs.site import DAY, SiteConfig
from sitesim.sweep.fingerprint import digest, site_model

#: The file a study writes its configuration to, and ``--from`` reads.
STUDY_FILE = "study.toml"
#: Keys of ``study.toml`` (``sitesim_version`` and ``model`` are recorded for the reader;
#: a rerun reports a difference in either but runs).
KEYS = frozenset({"site", "policies", "seeds", "users", "duration", "sitesim_version", "model"})


def _tuple(value: Any) -> tuple[Any, ...]:
    return tuple(value) if isinstance(value, (list, tuple)) else (value,)


@define(frozen=True, slots=True)
class StudyConfig:
    """What a study runs: every policy on the site, for each user count and seed.

    ``users`` empty means the site's own user count; ``duration`` None the site's own
    duration (seconds otherwise).
    """

    site: str
    policies: tuple[str, ...] = field(converter=_tuple)
    seeds: tuple[int, ...] = field(converter=_tuple)
    users: tuple[int, ...] = field(default=(), converter=_tuple)
    duration: int | None = None


def seeds_of(count: int) -> tuple[int, ...]:
    """``--seeds N``: the seeds 0 .. N-1 (every run draws only from its own seed)."""
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_REPLICATIONS:
        raise InputError(f"must be a whole number in 1..{MAX_REPLICATIONS}, got {count!r}", field="--seeds")
    return tuple(range(count))


def duration_of(days: float) -> int:
    """``--duration DAYS`` in whole seconds, checked in days: a typo (``1e300``) is
    refused with a short message, not echoed as a 300-digit number of seconds."""
    high = MAX_SECONDS // DAY
    if not 0 < days <= high or round(days * DAY) < 1:
        raise InputError(f"must be a number of days above 0 and at most {high:,} ({years(MAX_SECONDS)}),"
                         f" got {days:.6g}", field="--duration")
    return round(days * DAY)


def resolve(study: StudyConfig, *, base_dir: Path | None = None) -> SiteConfig:
    """The site configuration the study's runs start from (the first user count and
    policy), every value of the study checked: unknown sites and policies, seeds,
    users and duration fail here, before any output exists.

    ``base_dir``: where a relative site path is read from (a ``study.toml``'s folder).
    """
    from sitesim.runs.policy import check_spec
    from sitesim.runs.sitefile import load_site_file, site_config, site_path

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
    if not path.is_file():
        raise InputError("site file not found", path=str(path))
    values = load_site_file(path)
    overrides: dict[str, Any] = {"seed": study.seeds[0]}
    if "partitions" not in values:
        overrides["scheduler"] = study.policies[0]
    if study.users:
        overrides["users"] = study.users[0]
    if study.duration is not None:
        overrides["duration"] = study.duration
    base = site_config(values, overrides, origin=str(path))
    for policy in study.policies:
        try:
            site_for(base, policy)
        except InputError as exc:
            raise InputError(exc.message, field="--scheduler") from None
    return base


def site_for(base: SiteConfig, policy: str, **changes: Any) -> SiteConfig:
    """``base`` run under ``policy``: on a partitioned site, every partition runs it
    (each keeps its nodes and admission rules), so the study compares policies on the
    same partitioned machine."""
    if base.partitions:
        partitions = tuple(attrs.evolve(p, scheduler=policy) for p in base.partitions)
        return attrs.evolve(base, partitions=partitions, **changes)
    return attrs.evolve(base, scheduler=policy, **changes)


def site_file(site: str, base_dir: Path | None) -> str:
    """A site as ``site_path`` reads it: a shipped name as is, a relative path taken from
    ``base_dir`` when given."""
    if is_site_name(site) or base_dir is None or Path(site).is_absolute():
        return site
    return str(base_dir / site)


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
    model = site_model(base)
    for name in ("empirical", "population"):  # files by name: their content is hashed too
        value = model["config"].get(name)
        if isinstance(value, str) and (name == "population" or value.endswith(".json")):
            model["config"][name] = Path(value).name
    return digest({"mode": "site", "site": model})


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
    if study.duration is not None:
        lines.append(f"duration = {study.duration}  # seconds ({study.duration / DAY:g} days)")
    lines.append(f"model = {json.dumps(model)}  # fingerprint of the site model (docs/sweeps.md)")
    with atomic_text_write(path) as out:
        out.write("\n".join(lines) + "\n")


def _toml_list(values: Sequence[Any]) -> str:
    return "[" + ", ".join(json.dumps(v) for v in values) + "]"


def read_study_file(path: Path) -> tuple[StudyConfig, dict[str, Any]]:
    """The study a ``study.toml`` describes, and the file's recorded extras (version, model)."""
    where = str(path)
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError:
        raise InputError("no such file", path=where) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path=where) from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InputError(f"bad TOML: {exc}", path=where) from None
    unknown = sorted(set(data) - KEYS)
    if unknown:
        raise InputError(f"unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(KEYS))})", path=where)
    for key, kind in (("site", str), ("policies", list), ("seeds", list)):
        if not isinstance(data.get(key), kind):
            raise InputError(f"missing or wrong type (a {kind.__name__})", path=where, field=key)
    if "users" in data and not isinstance(data["users"], list):
        raise InputError("wrong type (a list)", path=where, field="users")
    duration = data.get("duration")
    if duration is not None and (isinstance(duration, bool) or not isinstance(duration, int) or duration < 1):
        raise InputError(f"must be a positive whole number of seconds, got {duration!r}", path=where, field="duration")
    study = StudyConfig(site=data["site"], policies=data["policies"], seeds=data["seeds"],
                        users=data.get("users", ()), duration=duration)
    extras: dict[str, Any] = {k: data[k] for k in ("sitesim_version", "model") if k in data}
    return study, extras


def describe(study: StudyConfig, base: SiteConfig) -> dict[str, str]:
    """The study's settings as label → text, for the report's first table."""
    c = base
    fitted = c.population is not None
    return {
        "site": study.site,
        "machine": f"{c.nodes} nodes" + (
            f" in partitions {', '.join(f'{p.name} ({p.nodes})' for p in c.partitions)}, each under the policy"
            if c.partitions else ""),
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
