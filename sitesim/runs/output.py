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

from sitesim import __version__
from sitesim.workload.files import atomic_text_write

USER_HEADER = "#uid load av-util av-resp av-wait av-sld num_jobs complete model wp"
SYSTEM_HEADER = "#sid load av-util av-resp av-wait av-sld num_jobs complete policy num_usr"


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


def summary_document(kind: str, config: Mapping[str, Any], results: Mapping[str, Any]) -> dict[str, Any]:
    return {"sitesim": __version__, "kind": kind, "config": dict(config), **results}


def write_json(path: Path, document: Mapping[str, Any]) -> None:
    with atomic_text_write(path) as out:
        json.dump(document, out, indent=2, sort_keys=True)
        out.write("\n")


def write_text(path: Path, lines: list[str]) -> None:
    with atomic_text_write(path) as out:
        out.write("\n".join(lines) + "\n")
