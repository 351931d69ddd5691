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


class SharedFits:
    """``sitesim fit`` of each log in ``SITESIM_TRACES``, made once per test session:
    fitting the larger logs takes 10-40 s each, and several tests need the same sites.
    Under pytest-xdist each worker has a session of its own, so the tests that use it are
    put in one ``xdist_group`` ("shared-fits")."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._fits: dict[str, tuple[Path, object]] = {}

    def get(self, file_name: str) -> tuple[Path, object]:
        """(the fitted site's directory, its FitSummary; None if the fit refused the log),
        skipping the test when the log is not there."""
        directory = traces_dir()
        if directory is None or not (directory / file_name).is_file():
            pytest.skip(f"needs {file_name} in $SITESIM_TRACES (real Parallel Workloads Archive logs)")
        if file_name not in self._fits:
            from sitesim.errors import InputError
            from sitesim.runs.fit import fit_log

            site = self.root / file_name.split(".swf")[0]
            try:
                info: object = fit_log(directory / file_name, site)
            except InputError:
                info = None
            self._fits[file_name] = (site, info)
        return self._fits[file_name]


@pytest.fixture(scope="session")
def shared_fit(tmp_path_factory: pytest.TempPathFactory) -> SharedFits:
    return SharedFits(tmp_path_factory.mktemp("shared-fits"))
