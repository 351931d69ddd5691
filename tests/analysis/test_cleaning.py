"""Cleaning rules, and analysing an SWF file end to end."""

from __future__ import annotations

import gzip
import hashlib
from pathlib import Path

import pytest

from sitesim.analysis import analyze_trace, clean_records
from sitesim.analysis.cleaning import exclusion_reason
from sitesim.errors import InputError
from sitesim.workload.swf import SwfRecord, write_swf


def rec(**kw) -> SwfRecord:
    base = dict(job_number=1, submit_time=0, wait_time=0, run_time=10, allocated_processors=4,
                requested_processors=4, requested_time=60, status=1, user_id=1)
    base.update(kw)
    return SwfRecord(**base)


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({}, None),
        ({"run_time": 0}, None),
        ({"status": 5, "run_time": 30}, None),  # cancelled while running: it ran
        ({"submit_time": -1}, "unknown_submit"),
        ({"wait_time": -1}, "unknown_wait"),
        ({"user_id": -1}, "unknown_user"),
        ({"status": 5, "run_time": -1}, "cancelled_before_start"),
        ({"status": 5, "run_time": 0}, "cancelled_before_start"),
        ({"run_time": -1}, "unknown_runtime"),
        ({"allocated_processors": -1, "requested_processors": -1}, "unknown_size"),
    ],
)
def test_exclusion_rules(fields: dict, reason: str | None) -> None:
    assert exclusion_reason(rec(**fields)) == reason


def test_size_falls_back_to_requested_and_report_adds_up() -> None:
    records = [rec(job_number=1, allocated_processors=-1, requested_processors=16),
               rec(job_number=2, run_time=-1), rec(job_number=3)]
    jobs, report = clean_records(records)
    assert [j.size for j in jobs] == [16, 4]
    assert report.size_from_requested == 1
    assert report.total == 3 and report.kept == 2
    assert report.kept + sum(report.excluded.values()) == report.total


def test_report_names_each_reason_with_its_field_largest_first() -> None:
    records = [rec(job_number=i, wait_time=-1) for i in range(3)] + [rec(job_number=9, user_id=-1, wait_time=-1)]
    records.append(rec(job_number=10, status=5, run_time=0))
    jobs, report = clean_records(records)
    assert not jobs and report.with_user == 4
    assert report.excluded["unknown_wait"] == 4 and report.excluded["cancelled_before_start"] == 1
    assert report.describe() == (
        "4 unknown wait time (field 3), 1 cancelled before they started (field 11 is 5, field 4 <= 0)"
    )
    assert "with_user" not in report.to_dict()  # the tables' provenance keeps its shape
    assert clean_records([rec()])[1].describe() == "none"


def test_ignore_wait_keeps_what_a_simulated_start_would_make_usable() -> None:
    assert exclusion_reason(rec(wait_time=-1), ignore_wait=True) is None
    assert exclusion_reason(rec(wait_time=-1, run_time=-1), ignore_wait=True) == "unknown_runtime"
    assert exclusion_reason(rec(wait_time=-1, submit_time=-1), ignore_wait=True) == "unknown_submit"


def test_analyze_trace_reads_swf_and_hashes_uncompressed(tmp_path: Path) -> None:
    records = [rec(job_number=1, submit_time=0, run_time=100),
               rec(job_number=2, submit_time=50, run_time=100),
               rec(job_number=3, submit_time=400, run_time=-1, status=5)]
    plain = tmp_path / "tiny.swf"
    write_swf(plain, records, header=["MaxProcs: 64"])
    path = tmp_path / "tiny.swf.gz"
    path.write_bytes(gzip.compress(plain.read_bytes(), mtime=0))
    a = analyze_trace(path)
    assert a.name == "tiny" and a.source == "tiny.swf.gz" and a.machine_size == 64
    assert a.sha256 == hashlib.sha256(gzip.decompress(path.read_bytes())).hexdigest()
    assert a.cleaning.excluded["cancelled_before_start"] == 1
    assert a.submission.batch_widths.tolist() == [2]
    assert a.summary()["negative_think_fraction"] == 1.0


def test_trace_without_usable_jobs_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "empty.swf"
    write_swf(path, [rec(run_time=-1)])
    with pytest.raises(InputError, match="no usable jobs"):
        analyze_trace(path)


def test_malformed_trace_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.swf"
    path.write_text("; MaxProcs: 8\n1 0 0 10 4\n")
    with pytest.raises(InputError) as err:
        analyze_trace(path)
    assert err.value.line == 2
