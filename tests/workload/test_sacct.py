"""``sitesim convert sacct``: hand-made sacct outputs converted and read back as the
expected SWF records (steps, arrays, heterogeneous jobs, every state, unknown times, a
daylight-saving change), one-line errors, and a converted site fitted, simulated and
replayed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from sitesim.cli import main
from sitesim.errors import InputError
from sitesim.workload.convert import convert_sacct, mapping_path
from sitesim.workload.sacct import _array_tasks, parse_limit
from sitesim.workload.swf import SwfRecord, read_swf

HEADER = "JobID|User|Group|Partition|Submit|Start|End|Timelimit|AllocCPUS|ReqCPUS|NNodes|State"


def sacct(path: Path, *lines: str, header: str = HEADER) -> Path:
    path.write_text("\n".join([header, *lines]) + "\n")
    return path


def swf(number: int, submit: int, wait: int, run: int, alloc: int, req: int, limit: int, status: int,
        user: int, group: int, queue: int) -> SwfRecord:
    return SwfRecord(number, submit, wait, run, alloc, -1, -1, req, limit, -1, status, user, group, -1, queue)


def converted(tmp_path: Path, *lines: str, zone: str = "UTC", **kw: object) -> tuple[list[str], list[SwfRecord]]:
    src = sacct(tmp_path / "in.sacct", *lines, header=str(kw.pop("header", HEADER)))
    convert_sacct(src, tmp_path / "out.swf", timezone=zone, **kw)  # type: ignore[arg-type]
    header, records = read_swf(tmp_path / "out.swf")
    return header.lines, records


def test_steps_are_skipped_and_states_map_to_swf_status(tmp_path: Path) -> None:
    _, records = converted(
        tmp_path,
        "10|ann|g1|batch|2024-05-06T09:00:00|2024-05-06T09:00:30|2024-05-06T10:00:30|02:00:00|8|8|1|COMPLETED",
        "10.batch|||batch|2024-05-06T09:00:30|2024-05-06T09:00:30|2024-05-06T10:00:30||8||1|COMPLETED",
        "10.extern|||batch|2024-05-06T09:00:30|2024-05-06T09:00:30|2024-05-06T10:00:30||8||1|COMPLETED",
        "10.0|||batch|2024-05-06T09:00:31|2024-05-06T09:00:31|2024-05-06T10:00:00||8||1|COMPLETED",
        "11|bo|g2|debug|2024-05-06T09:10:00|2024-05-06T09:20:00|2024-05-06T09:50:00|00:30:00|4|4|1|TIMEOUT",
        "12|ann|g1|batch|2024-05-06T09:20:00|2024-05-06T09:20:00|2024-05-06T09:21:40|1-00:00:00|2|2|1|FAILED",
        "13|cy|g1|batch|2024-05-06T09:30:00|2024-05-06T09:31:00|2024-05-06T11:00:00|10:00:00|16|16|2|NODE_FAIL",
        "14|bo|g2|batch|2024-05-06T09:40:00|None|2024-05-06T09:45:00|UNLIMITED|0|32|4|CANCELLED by 1002",
        "15|cy|g1|batch|2024-05-06T09:50:00|2024-05-06T09:51:00|2024-05-06T09:55:00|45:00|1|1|1|CANCELLED by 0",
        "16|dee|g3|batch|2024-05-06T10:00:00|2024-05-06T10:00:10|Unknown|Partition_Limit|2|2|1|RUNNING",
        "17|dee|g3|batch|2024-05-06T10:05:00|Unknown|Unknown|05:00|0|64|8|PENDING",
    )
    assert records == [
        swf(1, 0, 30, 3600, 8, 8, 7200, 1, 1, 1, 1),
        swf(2, 600, 600, 1800, 4, 4, 1800, 0, 2, 2, 2),  # TIMEOUT: killed at its limit
        swf(3, 1200, 0, 100, 2, 2, 86400, 0, 1, 1, 1),
        swf(4, 1800, 60, 5340, 16, 16, 36000, 0, 3, 1, 1),  # NODE_FAIL
        swf(5, 2400, 300, -1, -1, 32, -1, 5, 2, 2, 1),  # cancelled while pending: waited 5 min
        swf(6, 3000, 60, 240, 1, 1, 2700, 5, 3, 1, 1),  # cancelled while running
        swf(7, 3600, 10, -1, 2, 2, -1, -1, 4, 3, 1),  # still running: no end
        swf(8, 3900, -1, -1, -1, 64, 300, -1, 4, 3, 1),  # still pending: no start
    ]


def test_arrays_and_heterogeneous_jobs(tmp_path: Path) -> None:
    header, records = converted(
        tmp_path,
        "20_1|ann|g|batch|2024-05-06T09:00:00|2024-05-06T09:00:00|2024-05-06T09:10:00|01:00:00|4|4|1|COMPLETED",
        "20_1.batch|||batch|2024-05-06T09:00:00|2024-05-06T09:00:00|2024-05-06T09:10:00||4||1|COMPLETED",
        "20_2|ann|g|batch|2024-05-06T09:00:00|2024-05-06T09:05:00|2024-05-06T09:25:00|01:00:00|4|4|1|FAILED",
        "20_[3-5,9%2]|ann|g|batch|2024-05-06T09:00:00|Unknown|Unknown|01:00:00|0|4|1|PENDING",
        "21+0|bo|g|batch|2024-05-06T09:30:00|2024-05-06T09:40:00|2024-05-06T10:00:00|02:00:00|8|8|1|COMPLETED",
        "21+1|bo|g|gpu|2024-05-06T09:30:00|2024-05-06T09:40:00|2024-05-06T10:10:00|03:00:00|2|2|1|COMPLETED",
        "21+0.0|bo|g|batch|2024-05-06T09:40:00|2024-05-06T09:40:00|2024-05-06T10:00:00||8||1|COMPLETED",
    )
    pending = swf(0, 0, -1, -1, -1, 4, 3600, -1, 1, 1, 1)
    assert records == [
        swf(1, 0, 0, 600, 4, 4, 3600, 1, 1, 1, 1),
        swf(2, 0, 300, 1200, 4, 4, 3600, 0, 1, 1, 1),
        *[swf(n, *pending_fields(pending)) for n in (3, 4, 5, 6)],  # tasks 3, 4, 5 and 9
        swf(7, 1800, 600, 1800, 10, 10, 10800, 1, 2, 1, 1),  # one job: both components
    ]
    assert "; Note: from Slurm accounting: 2 steps skipped, 6 array tasks, 2 heterogeneous components merged;" \
        " states COMPLETED 2, FAILED 1, PENDING 4; users and groups numbered in order of appearance" in header


def pending_fields(r: SwfRecord) -> tuple[int, ...]:
    return (r.submit_time, r.wait_time, r.run_time, r.allocated_processors, r.requested_processors,
            r.requested_time, r.status, r.user_id, r.group_id, r.queue)  # type: ignore[return-value]


def test_a_daylight_saving_change_keeps_true_intervals(tmp_path: Path) -> None:
    # Europe/Stockholm: clocks go 02:00 -> 03:00 on 2024-03-31, 03:00 -> 02:00 on 2024-10-27
    header, records = converted(
        tmp_path,
        "1|ann|g|batch|2024-03-31T01:30:00|2024-03-31T01:50:00|2024-03-31T03:10:00|04:00:00|1|1|1|COMPLETED",
        "2|ann|g|batch|2024-10-27T01:30:00|2024-10-27T01:40:00|2024-10-27T03:10:00|04:00:00|1|1|1|COMPLETED",
        zone="Europe/Stockholm",
    )
    first, second = records
    assert (first.wait_time, first.run_time) == (1200, 20 * 60)  # 01:50 CET to 03:10 CEST
    assert (second.wait_time, second.run_time) == (600, 150 * 60)  # 01:40 CEST to 03:10 CET
    # 2024-03-31T00:30Z to 2024-10-26T23:30Z
    assert second.submit_time == 209 * 86400 + 23 * 3600
    assert "; UnixStartTime: 1711845000" in header  # 2024-03-31T00:30:00Z
    assert "; TimeZone: 3600" in header and "; TimeZoneString: Europe/Stockholm" in header


def test_header_machine_and_queues_and_anonymous_numbers(tmp_path: Path) -> None:
    lines = [
        "5|zed|staff|long|2024-05-06T09:00:00|2024-05-06T09:00:00|2024-05-06T09:10:00|01:00:00|12|12|3|COMPLETED",
        "6|amy|ops|short|2024-05-06T08:00:00|2024-05-06T08:00:00|2024-05-06T08:10:00|01:00:00|2|2|1|COMPLETED",
        "7|zed|ops|short|2024-05-06T10:00:00|2024-05-06T10:00:00|2024-05-06T10:10:00|01:00:00|2|2|1|COMPLETED",
    ]
    header, records = converted(tmp_path, *lines, mapping=True)
    # numbers in order of appearance in the file (zed first), records in submit order
    assert [(r.user_id, r.group_id, r.queue) for r in records] == [(2, 2, 2), (1, 1, 1), (1, 2, 2)]
    assert "; MaxProcs: 12" in header and "; MaxNodes: 3" in header
    assert any(line.startswith("; Note: MaxProcs and MaxNodes from the largest job") for line in header)
    assert "; Queue: 1 long" in header and "; Queue: 2 short" in header and "; MaxQueues: 2" in header
    assert mapping_path(tmp_path / "out.swf").read_text().splitlines() == [
        "kind,name,number", "user,zed,1", "user,amy,2", "group,staff,1", "group,ops,2",
        "partition,long,1", "partition,short,2",
    ]
    header, _ = converted(tmp_path, *lines, max_procs=512, max_nodes=32)
    assert "; MaxProcs: 512" in header and "; MaxNodes: 32" in header
    assert not any("largest job" in line for line in header)


def test_columns_in_any_order_and_parsable_with_trailing_bar(tmp_path: Path) -> None:
    header = "State|JobID|NCPUS|End|Start|Submit|User|"
    _, records = converted(
        tmp_path, "COMPLETED|3|6|2024-05-06T09:10:00|2024-05-06T09:01:00|2024-05-06T09:00:00|ann|", header=header
    )
    assert records == [SwfRecord(1, 0, 60, 540, 6, -1, -1, 6, -1, -1, 1, 1, -1, -1, -1)]


@pytest.mark.parametrize(
    ("line", "where"),
    [
        ("30|ann|g|b|2024-05-06T09:00:00|2024-05-06T09:00:00|2024-05-06T09:10:00|01:00:00|4|4|1", ":3: expected 12 fields"),
        ("30|ann|g|b|2024-05-06 nine|2024-05-06T09:00:00|Unknown|01:00:00|4|4|1|COMPLETED", ":3: Submit: "),
        ("30|ann|g|b|2024-05-06T09:00:00|Unknown|Unknown|01:00:00|4|4|1|LOST", ":3: State: unknown job state 'LOST'"),
        ("30|ann|g|b|2024-05-06T09:00:00|Unknown|Unknown|01:00:00|four|4|1|PENDING", ":3: AllocCPUS: 'four'"),
        ("30|ann|g|b|2024-05-06T09:00:00|Unknown|Unknown|soon|4|4|1|PENDING", ":3: Timelimit: 'soon'"),
        ("x30|ann|g|b|2024-05-06T09:00:00|Unknown|Unknown|01:00:00|4|4|1|PENDING", ":3: JobID: 'x30'"),
        ("31|ann|g|b|Unknown|Unknown|Unknown|01:00:00|4|4|1|PENDING", ":3: Submit: the submit time is unknown"),
    ],
)
def test_malformed_lines_are_one_line_errors_or_skipped_and_counted(
    line: str, where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = "29|ann|g|b|2024-05-06T08:00:00|2024-05-06T08:00:00|2024-05-06T08:10:00|01:00:00|4|4|1|COMPLETED"
    src = sacct(tmp_path / "in.sacct", good, line)
    out = tmp_path / "out.swf"
    assert main(["convert", "sacct", str(src), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and f"in.sacct{where}" in err, err
    assert not out.exists()
    assert main(["convert", "sacct", str(src), "-o", str(out), "--skip-malformed"]) == 0
    assert "1 malformed lines skipped" in capsys.readouterr().out
    assert len(read_swf(out)[1]) == 1


def test_unusable_inputs_name_the_cause(tmp_path: Path) -> None:
    src = sacct(tmp_path / "nohead.sacct", header="30|ann|g|b|2024-05-06T09:00:00|Unknown|Unknown|1|4|4|1|PENDING")
    with pytest.raises(InputError, match="nohead.sacct:1: the first line must be sacct's header"):
        convert_sacct(src, tmp_path / "o.swf")
    only_steps = sacct(tmp_path / "steps.sacct", "8.batch|||b|2024-05-06T09:00:00|Unknown|Unknown||4||1|RUNNING")
    with pytest.raises(InputError, match="no jobs to convert \\(only 1 steps\\)"):
        convert_sacct(only_steps, tmp_path / "o.swf")
    with pytest.raises(InputError, match="unknown time zone 'Nowhere/City'"):
        convert_sacct(only_steps, tmp_path / "o.swf", timezone="Nowhere/City")
    with pytest.raises(InputError, match="cannot read sacct output"):
        convert_sacct(tmp_path / "missing.sacct", tmp_path / "o.swf")
    assert not (tmp_path / "o.swf").exists()


def test_time_limits_and_array_task_lists() -> None:
    assert parse_limit("02:00:00") == 7200 and parse_limit("1-00:00:00") == 86400
    assert parse_limit("45:00") == 2700 and parse_limit("30") == 1800 and parse_limit("2-12") == 216000
    assert parse_limit("1-02:30") == 95400
    assert parse_limit("UNLIMITED") == parse_limit("Partition_Limit") == parse_limit("") == -1
    assert _array_tasks("[1-3,7,9-15%4]") == 11 and _array_tasks("[0-10:2]") == 6


def slurm_site(path: Path, seed: int = 5) -> Path:
    """Six users, three weeks of office-hour sessions on a 64-CPU cluster, with steps."""
    rng = np.random.default_rng(seed)
    lines, jobid = [], 1000
    start = np.datetime64("2024-04-01T00:00:00")
    for user in ("ann", "bo", "cy", "dee", "eve", "fay"):
        for day in range(21):
            if day % 7 >= 5 or rng.random() < 0.3:
                continue
            t = start + np.timedelta64(day * 86400 + int(rng.integers(8 * 3600, 15 * 3600)), "s")
            for _batch in range(int(rng.integers(1, 4))):
                run = int(rng.integers(60, 4000))
                wait = int(rng.integers(0, 900))
                cpus = int(rng.choice([1, 4, 16, 32]))
                s, e = t + np.timedelta64(wait, "s"), t + np.timedelta64(wait + run, "s")
                state = "COMPLETED" if rng.random() < 0.85 else "FAILED"
                jobid += 1
                lines.append(f"{jobid}|{user}|lab|batch|{t}|{s}|{e}|02:00:00|{cpus}|{cpus}|1|{state}")
                lines.append(f"{jobid}.batch|||batch|{s}|{s}|{e}||{cpus}||1|{state}")
                t = e + np.timedelta64(int(rng.integers(0, 600)), "s")
    lines.sort(key=lambda line: line.split("|")[4])
    return sacct(path, *lines)


def test_a_converted_slurm_site_fits_simulates_and_replays(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = slurm_site(tmp_path / "cluster.sacct")
    out = tmp_path / "cluster.swf"
    assert main(["convert", "sacct", str(src), "-o", str(out), "--timezone", "Europe/Stockholm", "--max-procs", "64"]) == 0
    assert main(["fit", str(out), "-o", str(tmp_path / "site")]) == 0
    fitted = json.loads((tmp_path / "site" / "population.json").read_text())
    assert len(fitted["users"]) == 6 and fitted["clock"]["zone"] == "Europe/Stockholm"
    assert fitted["provenance"]["starts"]["simulated"] is False
    assert main(["--site", str(tmp_path / "site" / "site.toml"), "-s", "easy", "--out", str(tmp_path / "run")]) == 0
    assert main(["-c", str(out), "-s", "easy", "--out", str(tmp_path / "replay")]) == 0
    text = capsys.readouterr().out
    assert "jobs replayed on 64 nodes" in text
    header, records = read_swf(tmp_path / "run" / "trace.swf")
    assert records and header.get("TimeZoneString") == "Europe/Stockholm"
