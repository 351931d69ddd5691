"""``sitesim plot`` errors name the path the user gave, never the staging file."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitesim.cli import main
from tests.plot.test_plot import schedule_file


@pytest.mark.parametrize("kind", ["load", "gantt"])
def test_unwritable_output_names_the_given_path(kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    swf = schedule_file(tmp_path / "s.swf")
    out = tmp_path / "missing" / "x.png"
    assert main(["plot", kind, str(swf), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"sitesim plot: error: {out}: cannot write the picture: No such file or directory"
    assert ".part" not in err
