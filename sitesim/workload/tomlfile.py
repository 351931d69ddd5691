"""TOML input files (site files, partition files, grids, study files): read whole,
through the one bounded reader (:func:`~sitesim.workload.files.read_document`), errors
in one line.

``path`` may also be a shipped file (:mod:`sitesim.resources`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from sitesim.errors import InputError

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable


def read_toml(path: str | Path | Traversable, what: str = "site file") -> dict[str, Any]:
    """A TOML file's tables; unreadable or invalid files are input errors naming it and
    ``what`` it is."""
    import tomllib  # here, not at the top: a run without a site or partition file never reads TOML

    from sitesim.workload.files import read_document

    text = read_document(path, what)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"invalid TOML: {exc}", path=str(path)) from None
