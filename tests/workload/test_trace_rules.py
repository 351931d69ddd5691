"""fit, plot and replay hold a log to the same rules (sitesim.workload.trace_rules)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitesim.cli import main
from sitesim.errors import InputError
from sitesim.workload.swf import SwfReader
from sitesim.workload.trace_rules import replay_rules


def _line(number: int, submit: int | str, user: int = 1, runtime: int | str = 50) -> str:
    return f"{number} {submit} 0 {runtime} 2 -1 -1 2 100 -1 1 {user} 1 -1 -1 -1 -1 -1"


def _good(n: int = 8) -> list[str]:
    return ["; MaxNodes: 8", *(_line(i, i * 100, user=i % 3 + 1) for i in range(1, n + 1))]


def _status(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:
        return int(exc.code or 0)


BAD = {
    "decreasing submits": (5, lambda lines: lines.__setitem__(4, _line(4, 5, user=2)), "earlier than the previous"),
    "repeated job number": (6, lambda lines: lines.__setitem__(5, _line(2, 500, user=3)), "appears twice"),
    "huge submit": (9, lambda lines: lines.__setitem__(8, _line(8, 4 * 10**15, user=3)), "beyond the limit"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_replay_and_fit_refuse_the_same_logs(tmp_path: Path, case: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    line, damage, message = BAD[case]
    lines = _good()
    damage(lines)
    log = tmp_path / "log.swf"
    log.write_text("\n".join(lines) + "\n")
    commands = {
        "replay": ["-c", str(log)],
        "fit": ["fit", str(log), "-o", str(tmp_path / "fit")],
    }
    for argv in commands.values():
        capsys.readouterr()
        assert _status(argv) == 2
        err = capsys.readouterr().err
        assert f"log.swf:{line}:" in err and message in err and err.count("\n") == 1
    assert not (tmp_path / "fit").exists()


def test_plot_refuses_a_huge_time(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = _good()
    lines[3] = _line(3, 300, runtime=10**16)
    log = tmp_path / "log.swf"
    log.write_text("\n".join(lines) + "\n")
    assert _status(["plot", "load", str(log), "-o", str(tmp_path / "x.png")]) == 2
    assert "log.swf:4: field 4 (run_time)" in capsys.readouterr().err


def test_a_good_log_is_fitted(tmp_path: Path) -> None:
    log = tmp_path / "log.swf"
    log.write_text("\n".join(_good(30)) + "\n")
    assert _status(["fit", str(log), "-o", str(tmp_path / "fit")]) == 0


def test_skip_malformed_skips_a_repeated_number(tmp_path: Path) -> None:
    log = tmp_path / "log.swf"
    log.write_text("\n".join([*_good(3), _line(2, 400)]) + "\n")
    with SwfReader(log, skip_malformed=True) as reader:
        assert [r.job_number for r in replay_rules(reader)] == [1, 2, 3]
        assert reader.skipped == 1
    with SwfReader(log) as reader, pytest.raises(InputError, match="appears twice"):
        list(replay_rules(reader))


def test_unknown_submit_times_and_unrunnable_jobs_are_not_ordered(tmp_path: Path) -> None:
    """What a replay skips (no size or runtime) is not held to the order, as in replay."""
    log = tmp_path / "log.swf"
    log.write_text("\n".join([_line(1, 100), _line(2, 50, runtime=-1), _line(3, -1), _line(4, 100)]) + "\n")
    with SwfReader(log) as reader:
        assert len(list(replay_rules(reader))) == 4
