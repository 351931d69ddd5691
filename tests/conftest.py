"""Shared fixtures: access to the real traces named by ``SITESIM_TRACES``.

Tests that need a real log ask for ``trace_path("SDSC-SP2")``; without the directory
(or the file) they are skipped with a reason saying what to set.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

#: Short names of the archive logs used by the tests, and their file names.
TRACE_FILES = {
    "SDSC-SP2": "SDSC-SP2-1998-4.2-cln.swf.gz",
    "CTC-SP2": "CTC-SP2-1996-3.1-cln.swf.gz",
    "KTH-SP2": "KTH-SP2-1996-2.1-cln.swf.gz",
}


def traces_dir() -> Path | None:
    value = os.environ.get("SITESIM_TRACES")
    return Path(value) if value else None


@pytest.fixture
def trace_path() -> Callable[[str], Path]:
    """Return a function mapping a short trace name to its file, skipping if absent."""

    def find(name: str) -> Path:
        directory = traces_dir()
        if directory is None:
            pytest.skip("real traces not available: set SITESIM_TRACES to the traces directory")
        path = directory / TRACE_FILES.get(name, name)
        if not path.exists():
            pytest.skip(f"trace {path.name} not found in SITESIM_TRACES={directory}")
        return path

    return find
