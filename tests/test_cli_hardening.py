"""Hostile values of derived quantities: each is one line and exit status 2.

The limits cover what a value becomes in a run, not only the SWF fields: a load
factor of 1e-300 spreads a log over 1e302 s, a runtime scale of 1e300 overflows.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sitesim.cli import main

LOG = "; MaxNodes: 8\n" + "".join(
    f"{n} {n * 60} 0 100 2 -1 -1 2 200 -1 1 {n % 3 + 1} 1 -1 -1 -1 -1 -1\n" for n in range(1, 11)
)


def _status(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:
        return int(exc.code or 0)


@pytest.mark.parametrize("factor", ["1e-300", "1e300", "0.0001", "nan", "inf", "-1"])
def test_load_factors_beyond_limits(tmp_path: Path, factor: str, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "log.swf"
    log.write_text(LOG)
    assert _status(["-c", str(log), "--load-factor", factor]) == 2
    assert "--load-factor" in capsys.readouterr().err


@pytest.mark.parametrize("factor", ["0.001", "1000", "2"])
def test_load_factors_within_limits(tmp_path: Path, factor: str) -> None:
    log = tmp_path / "log.swf"
    log.write_text(LOG)
    assert _status(["-c", str(log), "--load-factor", factor]) == 0


@pytest.mark.parametrize("scale", ["1e300", "1e-300", "0", "nan"])
def test_runtime_scale_beyond_limits(tmp_path: Path, scale: str, capsys: pytest.CaptureFixture[str]) -> None:
    site = tmp_path / "site.toml"
    site.write_text(f"runtime_scale = {scale}\n")
    assert _status(["--site", str(site), "--duration", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "runtime_scale" in err


def test_an_os_error_names_its_file(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 34, group 12: ``[Errno 21] Is a directory: 'x'``, or a message naming no file."""
    from sitesim.exits import run_command

    def body() -> int:
        raise IsADirectoryError(21, "Is a directory", "some/dir")

    assert run_command("sitesim", body) == 2
    assert capsys.readouterr().err == "sitesim: error: some/dir: Is a directory\n"
