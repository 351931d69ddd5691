"""``NAME:key=value,...`` arguments of policies with named parameters.

A policy such as ``multifactor`` takes several parameters, each with a default; its
spec names only those that differ (``multifactor:fairshare=0,favor=small``), and its
:attr:`~sitesim.schedulers.base.Scheduler.spec` names them all, so that a summary
records the exact configuration. Durations are whole seconds or carry a unit
(``30s``, ``15m``, ``12h``, ``7d``). Errors name the spec and the key.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from sitesim.errors import InputError

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86_400}
_DURATION = re.compile(r"(\d+)([smhd]?)")
#: No parameter value may exceed this (a century in seconds, a weight of 10^12).
LIMIT = 10**12


def duration(text: str) -> int:
    """Whole seconds from ``N`` or ``N`` followed by s, m, h or d."""
    match = _DURATION.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"not a duration (whole seconds, or N with s, m, h or d): {text!r}")
    value = int(match.group(1)) * _UNITS[match.group(2) or "s"]
    if value > 100 * 365 * 86_400:
        raise ValueError(f"duration too long (at most a century): {text!r}")
    return value


def weight(text: str) -> float:
    """A finite, non-negative number."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"not a number: {text!r}") from None
    if not math.isfinite(value) or value < 0 or value > LIMIT:
        raise ValueError(f"must be a finite number in [0, 1e12], got {text!r}")
    return value


def choice(*allowed: str) -> Callable[[str], str]:
    """One of ``allowed``."""

    def convert(text: str) -> str:
        if text not in allowed:
            raise ValueError(f"must be one of {', '.join(allowed)}, got {text!r}")
        return text

    return convert


def parse_options(name: str, arg: str | None, fields: Mapping[str, Callable[[str], Any]]) -> dict[str, Any]:
    """The ``key=value`` pairs of ``NAME:arg``, each converted by its field's function;
    unknown or repeated keys and bad values are input errors naming the key."""
    values: dict[str, Any] = {}
    if not arg:
        return values
    for item in arg.split(","):
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep:
            raise InputError(f"{name}: expected key=value, got {item!r}", field="--scheduler")
        if key not in fields:
            raise InputError(f"{name}: unknown parameter {key!r} (known: {', '.join(fields)})", field="--scheduler")
        if key in values:
            raise InputError(f"{name}: parameter {key!r} given twice", field="--scheduler")
        try:
            values[key] = fields[key](text.strip())
        except ValueError as exc:
            raise InputError(f"{name}: {key}: {exc}", field="--scheduler") from None
    return values


def format_options(name: str, values: Mapping[str, Any]) -> str:
    """``name:key=value,...`` in the order given (numbers without a needless ``.0``)."""
    def text(value: Any) -> str:
        if isinstance(value, float) and value.is_integer():
            return str(int(value))
        return str(value)

    return name + ":" + ",".join(f"{key}={text(value)}" for key, value in values.items())


def split_specs(text: str) -> list[str]:
    """Split a comma-separated list of policy specs, keeping ``key=value`` arguments with
    their policy: ``easy,multifactor:age=1,size=0`` is ``easy`` and
    ``multifactor:age=1,size=0`` (no policy name contains ``=``)."""
    specs: list[str] = []
    for item in (part.strip() for part in text.split(",")):
        if specs and "=" in item and ":" not in item and "=" in specs[-1]:
            specs[-1] += "," + item
        else:
            specs.append(item)
    return specs
