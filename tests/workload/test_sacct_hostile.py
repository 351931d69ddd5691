"""``sitesim convert sacct`` on hostile input: every line that contradicts itself, or
names more than any machine or log holds, is one line naming file, line and column
(exit 2, an earlier output left byte-identical), or skipped and counted under
``--skip-malformed``; a file that cannot be read to its end names file and line."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from sitesim.cli import main
from sitesim.limits import MAX_ARRAY_TASKS
from sitesim.workload.sacct import _array_tasks
from sitesim.workload.swf import read_swf

HEADER = "JobID|User|Group|Partition|Submit|Start|End|Timelimit|AllocCPUS|ReqCPUS|NNodes|State"
GOOD = "29|ann|g|b|2024-05-06T08:00:00|2024-05-06T08:00:00|2024-05-06T08:10:00|01:00:00|4|4|1|COMPLETED"


def line(jobid: str = "30", submit: str = "2024-05-06T09:00:00", start: str = "2024-05-06T09:10:00",
         end: str = "2024-05-06T09:20:00", limit: str = "01:00:00", alloc: str = "4", req: str = "4",
         nodes: str = "1", state: str = "COMPLETED") -> str:
    return "|".join([jobid, "ann", "g", "b", submit, start, end, limit, alloc, req, nodes, state])


BAD = {
    "end before start": (line(end="2024-05-06T09:05:00"), "End: '2024-05-06T09:05:00' is before the start"),
    "start before submit": (line(start="2024-05-06T08:10:00"), "Start: '2024-05-06T08:10:00' is before the submission"),
    "cancelled before its submission": (line(start="None", end="2024-05-06T08:00:00", state="CANCELLED by 0"),
                                        "End: '2024-05-06T08:00:00' is before the submission"),
    "huge AllocCPUS": (line(alloc="1" + "0" * 20), "AllocCPUS: 100000000000000000000 is more than the 10,000,000"),
    "huge NNodes": (line(nodes="99999999"), "NNodes: 99999999 is more than"),
    "year 0": (line(submit="0000-05-06T09:00:00"), "Submit: '0000-05-06T09:00:00' is not a time"),
    "year 1": (line(submit="0001-01-01T00:00:00"), "Submit: '0001-01-01T00:00:00' is outside 1970..2106"),
    "year 9999": (line(end="9999-12-31T23:00:00"), "End: '9999-12-31T23:00:00' is outside 1970..2106"),
    "huge time limit": (line(limit="99999999-00:00:00"), "Timelimit: '99999999-00:00:00' is not a time limit"),
    "array of 10^8 tasks": (line(jobid="105_[1-99999999]", start="Unknown", end="Unknown", state="PENDING"),
                            "JobID: '105_[1-99999999]' names 99,999,999 pending array tasks"),
    "array step 0": (line(jobid="105_[1-9:0]", start="Unknown", end="Unknown", state="PENDING"),
                     "JobID: '105_[1-9:0]': cannot read"),
    "array backwards": (line(jobid="105_[9-1]", start="Unknown", end="Unknown", state="PENDING"),
                        "JobID: '105_[9-1]': cannot read"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_contradictory_or_absurd_line_is_one_line_or_skipped(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad, message = BAD[case]
    src = tmp_path / "in.sacct"
    src.write_text(f"{HEADER}\n{GOOD}\n{bad}\n")
    out = tmp_path / "out.swf"
    out.write_text("earlier output\n")
    assert main(["convert", "sacct", str(src), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and f"in.sacct:3: {message}" in err, err
    assert out.read_text() == "earlier output\n"  # nothing half-written over it
    assert main(["convert", "sacct", str(src), "-o", str(out), "--skip-malformed"]) == 0
    assert "1 malformed lines skipped" in capsys.readouterr().out
    assert len(read_swf(out)[1]) == 1


def test_a_time_the_clocks_skipped_is_malformed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Europe/Stockholm went from 02:00 to 03:00 on 2024-03-31: 02:30 never happened there
    # (read with the winter offset it lay after 03:10, and the run became 0 s long).
    src = tmp_path / "dst.sacct"
    src.write_text(f"{HEADER}\n{line(submit='2024-03-31T01:30:00', start='2024-03-31T02:30:00', end='2024-03-31T03:10:00')}\n")
    out = tmp_path / "out.swf"
    assert main(["convert", "sacct", str(src), "-o", str(out), "--timezone", "Europe/Stockholm"]) == 2
    err = capsys.readouterr().err
    assert "dst.sacct:2: Start: '2024-03-31T02:30:00' does not exist in Europe/Stockholm" in err
    # the same wall-clock times in UTC are fine
    assert main(["convert", "sacct", str(src), "-o", str(out)]) == 0
    assert read_swf(out)[1][0].run_time == 40 * 60


@pytest.mark.parametrize("damage", ["truncated", "fake"])
def test_a_damaged_gzip_is_one_line(damage: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    packed = gzip.compress(f"{HEADER}\n".encode() + f"{GOOD}\n".encode() * 200, mtime=0)
    src = tmp_path / "in.sacct.gz"
    src.write_bytes(packed[:60] if damage == "truncated" else b"\x1f\x8b" + b"not gzip at all" * 4)
    assert main(["convert", "sacct", str(src), "-o", str(tmp_path / "out.swf"), "--skip-malformed"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "in.sacct.gz:" in err and "cannot read sacct output" in err, err
    assert "Traceback" not in err and not (tmp_path / "out.swf").exists()


def test_pending_arrays_are_bounded_over_the_whole_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    half = MAX_ARRAY_TASKS // 2 + 1
    pending = [line(jobid=f"{n}_[1-{half}]", start="Unknown", end="Unknown", state="PENDING") for n in (40, 41)]
    src = tmp_path / "in.sacct"
    src.write_text("\n".join([HEADER, GOOD, *pending]) + "\n")
    assert main(["convert", "sacct", str(src), "-o", str(tmp_path / "o.swf")]) == 2
    assert f"in.sacct:4: JobID: '41_[1-{half}]' names {half:,} pending array tasks (and earlier lines {half:,})" \
        in capsys.readouterr().err


def test_heterogeneous_components_adding_up_beyond_any_machine(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parts = [line(jobid=f"50+{k}", alloc="6000000", req="6000000") for k in (0, 1)]
    src = tmp_path / "in.sacct"
    src.write_text("\n".join([HEADER, GOOD, *parts]) + "\n")
    assert main(["convert", "sacct", str(src), "-o", str(tmp_path / "o.swf")]) == 2
    assert "in.sacct:4: AllocCPUS: the components of heterogeneous job 50 add up to more than 10,000,000" \
        in capsys.readouterr().err
    assert main(["convert", "sacct", str(src), "-o", str(tmp_path / "o.swf"), "--skip-malformed"]) == 0
    assert [r.allocated_processors for r in read_swf(tmp_path / "o.swf")[1]] == [4, 6000000]


def test_array_task_lists_must_run_forwards() -> None:
    assert _array_tasks("[0-10:2]") == 6 and _array_tasks("[7]") == 1
    for spec in ("[1-9:0]", "[1-9:-2]", "[9-1]", "[5-1,1-10]"):
        with pytest.raises(ValueError):
            _array_tasks(spec)
