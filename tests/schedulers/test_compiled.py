"""A damaged compiled twin: the run goes on with the Python original, after a warning
that says how to rebuild it (never an ImportError traceback)."""

from __future__ import annotations

import importlib.machinery
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sitesim.schedulers.compiled import REBUILD, CompiledTwinWarning, twin


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An importable package of its own, so the real twins are never touched."""
    folder = tmp_path / "twinpkg"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield folder
    for name in [m for m in sys.modules if m.startswith("twinpkg")]:
        del sys.modules[name]


def test_a_truncated_twin_falls_back_with_a_warning(package: Path) -> None:
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    (package / f"_loop{suffix}").write_bytes(b"\x7fELF\x02\x01")  # a .so cut short
    with pytest.warns(CompiledTwinWarning, match="cannot be loaded.*Python code") as caught:
        assert twin("_loop", package="twinpkg") is None
    assert REBUILD in str(caught[0].message)


def test_a_twin_whose_import_fails_falls_back(package: Path) -> None:
    (package / "_broken.py").write_text("import twinpkg_nothing_here\n")
    with pytest.warns(CompiledTwinWarning):
        assert twin("_broken", package="twinpkg") is None


def test_a_twin_not_built_is_silent(package: Path, recwarn: pytest.WarningsRecorder) -> None:
    assert twin("_absent", package="twinpkg") is None
    assert not recwarn.list


def test_a_working_twin_loads(package: Path) -> None:
    (package / "_fine.py").write_text("VALUE = 3\n")
    module = twin("_fine", package="twinpkg")
    assert module is not None and module.VALUE == 3


def test_twins_off(package: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (package / "_fine2.py").write_text("VALUE = 3\n")
    monkeypatch.setenv("SITESIM_COMPILED", "0")
    assert twin("_fine2", package="twinpkg") is None
