"""Site definitions in TOML (``models/*.toml``): data, validated, apart from the engine.

A site file sets any field of :class:`~sitesim.runs.site.SiteConfig`; durations are
given in days (``duration_days``). Unknown keys and wrong types are input errors naming
the file and the key, so a typo never silently falls back to a default.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import attrs

from sitesim.errors import InputError
from sitesim.runs.site import DAY, SiteConfig

_TYPES: dict[str, type | tuple[type, ...]] = {
    "users": int,
    "submittal": str,
    "workpool": str,
    "scheduler": str,
    "estimates": str,
    "nodes": int,
    "duration_days": (int, float),
    "max_jobs": int,
    "seed": int,
    "empirical": str,
}


def load_site_file(path: str | Path) -> dict[str, Any]:
    """SiteConfig keyword arguments from a TOML site file (``description`` is ignored)."""
    where = str(path)
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"cannot read site file: {exc.strerror or exc}", path=where) from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"invalid TOML: {exc}", path=where) from None
    data.pop("description", None)
    values: dict[str, Any] = {}
    for key, value in data.items():
        expected = _TYPES.get(key)
        if expected is None:
            known = ", ".join(sorted(_TYPES))
            raise InputError(f"unknown key (known: {known})", path=where, field=key)
        if isinstance(value, bool) or not isinstance(value, expected):
            raise InputError(f"wrong type {type(value).__name__}", path=where, field=key)
        if key == "duration_days":
            values["duration"] = round(value * DAY)
        else:
            values[key] = value
    return values


def site_config(base: dict[str, Any], overrides: dict[str, Any]) -> SiteConfig:
    """A SiteConfig from a site file's values with command-line ``overrides`` on top."""
    merged = {**base, **{k: v for k, v in overrides.items() if v is not None}}
    unknown = set(merged) - {f.name for f in attrs.fields(SiteConfig)}
    if unknown:
        raise InputError(f"unknown site setting(s): {', '.join(sorted(unknown))}")
    return SiteConfig(**merged)
