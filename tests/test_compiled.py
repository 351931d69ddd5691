"""A damaged compiled twin: the run goes on with the Python original, after a warning
that says how to rebuild it (never an ImportError traceback)."""

from __future__ import annotations

import importlib.machinery
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sitesim import twin_manifest
from sitesim.compiled import REBUILD, CompiledTwinWarning, twin
from sitesim.twin_manifest import problem


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


# -- the build's record: a compiled twin is checked before it is loaded --------------------------

ROOT = Path(__file__).resolve().parents[1]
TWINS = ROOT / "sitesim" / "schedulers"


def test_the_record_finds_a_short_or_changed_module(tmp_path: Path) -> None:
    module = tmp_path / f"_m{importlib.machinery.EXTENSION_SUFFIXES[0]}"
    module.write_bytes(bytes(range(256)) * 40)
    assert problem(module) is not None and "left no record" in str(problem(module))
    twin_manifest.write(tmp_path, [module, tmp_path / "_never_built.so"])
    assert problem(module) is None
    assert "_never_built" not in (tmp_path / twin_manifest.MANIFEST).read_text()
    module.write_bytes(bytes(range(256)) * 12)  # cut short
    assert problem(module) == "it is 3,072 bytes where its build recorded 10,240"
    module.write_bytes(bytes(range(255, -1, -1)) * 40)  # the same size, other bytes
    assert "differ from those its build recorded" in str(problem(module))
    (tmp_path / twin_manifest.MANIFEST).write_text('{"format": "something else"}')
    assert "does not describe it" in str(problem(module))


def test_every_built_twin_matches_its_record() -> None:
    built = sorted((ROOT / "sitesim").glob("*/_*" + importlib.machinery.EXTENSION_SUFFIXES[0]))
    if not built:
        pytest.skip("the compiled twins are not built here")
    assert {path.name: problem(path) for path in built} == {path.name: None for path in built}


@pytest.mark.parametrize("size", [1000, 3000, 5000])
def test_a_truncated_compiled_twin_falls_back_instead_of_killing_the_process(tmp_path: Path, size: int) -> None:
    """Loading a shared library cut to a few KB died of SIGBUS (exit -7, no message)."""
    real = sorted(TWINS.glob("_backfill" + importlib.machinery.EXTENSION_SUFFIXES[0]))
    if not real or problem(real[0]) is not None:
        pytest.skip("the compiled twins are not built here")
    package = tmp_path / "twinpkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / real[0].name).write_bytes(real[0].read_bytes()[:size])
    (package / twin_manifest.MANIFEST).write_bytes((TWINS / twin_manifest.MANIFEST).read_bytes())
    code = "from sitesim.compiled import twin; print(twin('_backfill', package='twinpkg'))"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "None"
    assert f"it is {size:,} bytes where its build recorded" in done.stderr and "CompiledTwinWarning" in done.stderr
