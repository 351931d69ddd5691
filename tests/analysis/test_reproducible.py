"""The shipped empirical/ tables are exactly what the extractor produces from the traces."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.traces


def load_script():
    spec = importlib.util.spec_from_file_location("extract_empirical", REPO / "scripts" / "extract_empirical.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_regenerated_tables_are_byte_identical(tmp_path: Path, trace_path) -> None:
    traces = trace_path("SDSC-SP2").parent
    script = load_script()
    assert script.main(["--traces", str(traces), "--out", str(tmp_path), "-q"]) == 0
    shipped = sorted(p.name for p in (REPO / "empirical").glob("*.json"))
    produced = sorted(p.name for p in tmp_path.glob("*.json"))
    assert produced == shipped == ["CTC-SP2.json", "KTH-SP2.json", "SDSC-SP2.json", "combined.json"]
    for name in produced:
        assert (tmp_path / name).read_bytes() == (REPO / "empirical" / name).read_bytes(), name


def test_missing_traces_directory_is_reported(tmp_path: Path, capsys) -> None:
    assert load_script().main(["--traces", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert "trace files missing" in capsys.readouterr().err
