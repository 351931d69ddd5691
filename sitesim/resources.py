"""The data files sitesim ships: empirical tables and site definitions.

In the repository they live in the top-level ``empirical/`` and ``models/`` folders,
the one source of truth; a wheel carries the same files as the data-only packages
``sitesim.empirical`` and ``sitesim.models`` (setup.py maps the folders onto them), and
they are read through :mod:`importlib.resources`, so an installed sitesim finds them
wherever it is run from. Where to look, first that applies:

1. the environment variable (``SITESIM_EMPIRICAL``, ``SITESIM_MODELS``): a directory
   of one's own tables or site files;
2. the installed data package (a wheel, or an editable install);
3. the source tree's top-level folder (running from a checkout without installing).
"""

from __future__ import annotations

import os
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

#: Environment variables that override where each kind of data is read from.
ENV = {"empirical": "SITESIM_EMPIRICAL", "models": "SITESIM_MODELS"}


def data_directory(kind: str) -> Traversable:
    """The directory of shipped ``kind`` files (``empirical`` or ``models``)."""
    if kind not in ENV:
        raise ValueError(f"unknown kind of shipped data {kind!r} (known: {', '.join(ENV)})")
    override = os.environ.get(ENV[kind])
    if override:
        return Path(override)
    try:
        packaged = resources.files(f"sitesim.{kind}")
    except ModuleNotFoundError:
        packaged = None
    if packaged is not None and packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parent.parent / kind


def shipped_names(kind: str, suffix: str) -> list[str]:
    """Names (without ``suffix``) of the files of one kind, e.g. the site files."""
    directory = data_directory(kind)
    if not directory.is_dir():
        return []
    return sorted(p.name.removesuffix(suffix) for p in directory.iterdir() if p.name.endswith(suffix))


def describe(directory: Traversable) -> str:
    """A directory as a message shows it: its path, never a ``MultiplexedPath(...)`` repr
    (what :mod:`importlib.resources` gives for a package spread over several folders)."""
    if isinstance(directory, os.PathLike):
        return os.fspath(directory)
    paths = getattr(directory, "_paths", None)  # MultiplexedPath keeps its folders here
    if paths:
        return " or ".join(os.fspath(p) for p in paths)
    return f"the shipped folder {directory.name}"
