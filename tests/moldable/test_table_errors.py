"""A moldable table that cannot be read gets the one-line message every input gets."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitesim.cli import main
from tests.moldable.test_replace import small_trace


def test_missing_moldable_table_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    trace = small_trace(tmp_path / "t.swf", 0)
    monkeypatch.chdir(tmp_path)
    args = ["-c", str(trace), "-s", "cons", "--moldable", "0.5", "--moldable-table", "nope.csv"]
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert err == "sitesim: error: nope.csv: cannot read moldable table: No such file or directory"
