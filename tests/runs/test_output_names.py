"""Errors about outputs name the path the user gave, never a hidden staging name
(``.x.png.part.png``, ``.out.123.abc.part``, ``.s.csv.part``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitesim.cli import main
from sitesim.errors import InputError
from sitesim.runs.outdir import OutputDir
from sitesim.workload.files import atomic_text_write

LOG = "; MaxNodes: 4\n" + "".join(f"{n} {n * 10} 0 30 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n" for n in range(1, 6))


def _blocked(tmp_path: Path) -> Path:
    """A path under a plain file: nothing can be created there."""
    (tmp_path / "file").write_text("")
    return tmp_path / "file" / "inside"


def _status(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:
        return int(exc.code or 0)


def test_output_directory_errors_name_the_directory(tmp_path: Path) -> None:
    target = _blocked(tmp_path)
    with pytest.raises(InputError) as caught, OutputDir(target):
        pass
    assert str(target) in str(caught.value) and ".part" not in str(caught.value)


def test_atomic_write_errors_name_the_file(tmp_path: Path) -> None:
    target = _blocked(tmp_path)
    with pytest.raises(InputError) as caught, atomic_text_write(target) as out:
        out.write("x")
    assert str(caught.value).startswith(str(target)) and ".part" not in str(caught.value)
    folder = tmp_path / "folder"
    folder.mkdir()
    with pytest.raises(InputError, match="folder: cannot write"), atomic_text_write(folder) as out:
        out.write("x")
    assert list(tmp_path.glob(".*")) == []


@pytest.mark.parametrize("argv", [
    ["-c", "LOG", "--out", "BLOCKED"],
    ["plot", "load", "LOG", "-o", "BLOCKED.png"],
    ["sweep", "--users", "1", "--duration", "0.05", "--serial", "-o", "BLOCKED.csv"],
])
def test_commands_name_the_users_path(tmp_path: Path, argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    if argv[0] == "plot":
        pytest.importorskip("matplotlib")
    log = tmp_path / "log.swf"
    log.write_text(LOG)
    blocked = _blocked(tmp_path)
    argv = [a.replace("BLOCKED", str(blocked)).replace("LOG", str(log)) for a in argv]
    assert _status(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(blocked) in err and ".part" not in err, err
