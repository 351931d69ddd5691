"""Reports of a run: the paper's Table 2 lines and the JSON summary.

The JSON summary holds the configuration (seed included) next to the results, so any
result file is enough to re-run it. Nothing time- or machine-dependent goes in files,
so the same seed gives byte-identical outputs.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sitesim.version import __version__
from sitesim.workload.files import atomic_text_write

USER_HEADER = "#uid load av-util av-resp av-wait av-sld num_jobs complete model wp"
SYSTEM_HEADER = "#sid load av-util av-resp av-wait av-sld num_jobs complete policy num_usr"
#: User productivity (docs/metrics.md), after Table 2: per user, then the site's line.
_PRODUCTIVITY = "sessions completed av-batches av-jobs av-hours long-end jobs/day active-days"
PRODUCTIVITY_USER_HEADER = f"#puid {_PRODUCTIVITY}"
PRODUCTIVITY_SYSTEM_HEADER = f"#psid {_PRODUCTIVITY} num_usr"


def _common(s: Mapping[str, Any]) -> str:
    return (
        f"{s['load']:.2f} {s['utilization']:.2f} {s['mean_response']:.2f} "
        f"{s['mean_wait']:.2f} {s['mean_bounded_slowdown']:.2f} "
        f"{s['completed']} {s['complete']}"
    )


def user_line(uid: int, s: Mapping[str, Any], model: str, workpool: str) -> str:
    """A ``#uid`` line; av-sld is the bounded slowdown (10 s threshold)."""
    return f"{uid} {_common(s)} {model} {workpool}"


def system_line(s: Mapping[str, Any], policy: str, users: int, sid: int = 1) -> str:
    """The ``#sid`` line of Table 2."""
    return f"{sid} {_common(s)} {policy} {users}"


def _figure(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def productivity_line(key: int, p: Mapping[str, Any], users: int | None = None) -> str:
    """A ``#puid`` line (``key`` the user), or with ``users`` the ``#psid`` line; ``-``
    where no session was completed (or no day was active)."""
    line = (
        f"{key} {p['sessions_started']} {p['sessions_completed']} {_figure(p['batches_per_session'])}"
        f" {_figure(p['jobs_per_session'])} {_figure(p['mean_session_hours'])}"
        f" {_figure(p['ended_after_long_response'])} {_figure(p['jobs_per_active_day'])}"
        f" {p['active_days']}"
    )
    return line if users is None else f"{line} {users}"


def productivity_lines(system: Mapping[str, Any], users: Mapping[int, Mapping[str, Any]] | None = None) -> list[str]:
    """The ``#puid`` lines of ``users`` (if given), then the ``#psid`` line of ``system``."""
    lines = []
    if users is not None:
        lines = [PRODUCTIVITY_USER_HEADER, *(productivity_line(u, p) for u, p in users.items())]
    return [*lines, PRODUCTIVITY_SYSTEM_HEADER, productivity_line(1, system, system["users"])]


def summary_document(kind: str, config: Mapping[str, Any], results: Mapping[str, Any]) -> dict[str, Any]:
    return {"sitesim": __version__, "kind": kind, "config": dict(config), **results}


def write_json(path: Path, document: Mapping[str, Any]) -> None:
    with atomic_text_write(path) as out:
        json.dump(document, out, indent=2, sort_keys=True)
        out.write("\n")


def write_text(path: Path, lines: list[str]) -> None:
    with atomic_text_write(path) as out:
        out.write("\n".join(lines) + "\n")
