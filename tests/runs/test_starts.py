"""Logs without wait times: starts simulated by replaying the log (sitesim.runs.starts),
the policy chosen from --start-policy, the header's notes or the default, recorded in
the fit's provenance; and a real log with field 3 blanked fits like the original."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from sitesim.cli import main
from sitesim.runs.fit import fit_log
from sitesim.runs.starts import header_policy, simulate_starts
from sitesim.workload.swf import SwfHeader, SwfRecord, read_swf, write_swf


def job(number: int, submit: int, user: int, size: int, run: int, *, wait: int = -1, status: int = 1) -> SwfRecord:
    return SwfRecord(number, submit, wait, run, size, -1, -1, size, run, -1, status, user)


@pytest.mark.parametrize(
    ("lines", "policy"),
    [
        (["; Note: uses the EASY scheduler"], "easy"),
        (["; Computer: IBM SP2", "; Note: scheduled with conservative backfilling"], "cons"),
        (["; note: FCFS, no backfilling"], "fcfs"),
        (["; Note: uses DJM for job management"], None),
        (["; Information: EASY was installed later"], None),  # only notes count
        ([], None),
    ],
)
def test_header_notes_name_the_policy(lines: list[str], policy: str | None) -> None:
    assert header_policy(SwfHeader(lines)) == policy


def four_node_log(path: Path, header: list[str] = ()) -> Path:  # type: ignore[assignment]
    # 4 nodes: job 2 (4 nodes) waits for job 1; job 3 (1 node, short) can backfill
    # under EASY but waits behind job 2 under FCFS; job 4 was cancelled before it started
    records = [
        job(1, 0, 1, 2, 100),
        job(2, 10, 2, 4, 50),
        job(3, 20, 3, 1, 30),
        job(4, 25, 3, 2, 0, status=5),
        job(5, 400, 1, 1, 10),
    ]
    write_swf(path, records, ["; MaxProcs: 4", *header])
    return path


def test_starts_follow_the_policy_and_leave_out_what_never_ran(tmp_path: Path) -> None:
    log = four_node_log(tmp_path / "log.swf")
    header, _ = read_swf(log)
    easy = simulate_starts(log, header, 4)
    assert (easy.policy, easy.policy_from) == ("easy", "default")
    assert easy.starts == {1: 0, 2: 100, 3: 20, 5: 400}
    assert easy.left_out == {"cancelled_before_start": 1} and easy.replayed == 4
    fcfs = simulate_starts(log, header, 4, policy="fcfs")
    assert fcfs.policy_from == "--start-policy" and fcfs.starts[3] == 150
    filled = list(easy.fill(iter(read_swf(log)[1])))
    assert [r.wait_time for r in filled] == [0, 90, 0, -1, 0]


def test_jobs_larger_than_the_machine_are_named(tmp_path: Path) -> None:
    log = four_node_log(tmp_path / "log.swf")
    header, _ = read_swf(log)
    result = simulate_starts(log, header, 3)
    assert result.left_out == {"cancelled_before_start": 1, "larger_than_machine": 1}
    assert 2 not in result.starts


def office_without_waits(path: Path, header: list[str]) -> Path:
    """Three users, each a few sessions of short batches, no wait recorded."""
    records, number = [], 0
    for day in range(6):
        for user in (1, 2, 3):
            t = day * 86_400 + 9 * 3600 + user * 600
            for batch in range(3):
                for k in range(2):
                    number += 1
                    records.append(job(number, t + 5 * k, user, 1 + user % 2, 300))
                t += 300 + 10 + 120 * batch
    records.sort(key=lambda r: (r.submit_time, r.job_number))
    for n, r in enumerate(records, 1):
        r.job_number = n
    write_swf(path, records, ["; MaxProcs: 4", *header])
    return path


def test_a_log_without_waits_fits_and_says_how_its_starts_were_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = office_without_waits(tmp_path / "nowait.swf", ["; Note: uses the EASY scheduler"])
    assert main(["fit", str(log), "-o", str(tmp_path / "site")]) == 0
    out = capsys.readouterr().out
    assert "starts simulated under easy (header note) on 4 nodes: 108 jobs replayed" in out
    starts = json.loads((tmp_path / "site" / "population.json").read_text())["provenance"]["starts"]
    assert starts == {
        "simulated": True, "policy": "easy", "policy_from": "header note", "nodes": 4, "replayed": 108, "left_out": {}
    }
    assert main(["--site", str(tmp_path / "site" / "site.toml"), "-s", "easy", "--out", str(tmp_path / "run")]) == 0
    # --start-policy overrides the note, and also applies to a log that has waits
    assert main(["fit", str(log), "-o", str(tmp_path / "f"), "--start-policy", "fcfs"]) == 0
    assert "under fcfs (--start-policy)" in capsys.readouterr().out
    recorded = json.loads((tmp_path / "site" / "population.json").read_text())["provenance"]
    assert recorded["cleaning"]["excluded"]["unknown_wait"] == 0


def test_a_log_with_waits_keeps_them_unless_asked(tmp_path: Path) -> None:
    records = [job(i, 3000 * i, 1 + i % 3, 1, 60, wait=7) for i in range(1, 13)]
    write_swf(tmp_path / "w.swf", records, ["; MaxProcs: 2"])
    assert fit_log(tmp_path / "w.swf", tmp_path / "a").starts is None
    provenance = json.loads((tmp_path / "a" / "population.json").read_text())["provenance"]
    assert provenance["starts"] == {"simulated": False, "from": "field 3 (wait)"}
    forced = fit_log(tmp_path / "w.swf", tmp_path / "b", start_policy="cons")
    assert forced.starts is not None and forced.starts.policy_from == "--start-policy"


def test_unknown_start_policy_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = office_without_waits(tmp_path / "nowait.swf", [])
    assert main(["fit", str(log), "-o", str(tmp_path / "site"), "--start-policy", "nope"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--start-policy" in err and "nope" in err
    assert not (tmp_path / "site").exists()
    # the log's service has no waits to give a log without them
    assert main(["fit", str(log), "-o", str(tmp_path / "site"), "--start-policy", "hold"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--start-policy" in err and "does not share out nodes" in err
    assert not (tmp_path / "site").exists()


@pytest.mark.traces
def test_kth_without_waits_fits_close_to_the_original(tmp_path: Path, trace_path) -> None:  # type: ignore[no-untyped-def]
    """KTH-SP2 (header: EASY) with field 3 blanked: the population fitted on simulated
    starts keeps the original's users, jobs and session structure."""
    original = trace_path("KTH-SP2")
    blank = tmp_path / "kth-nowait.swf.gz"
    with gzip.open(original, "rt") as src, gzip.open(blank, "wt") as dst:
        for line in src:
            if not line.startswith(";"):
                fields = line.split()
                fields[2] = "-1"
                line = " ".join(fields) + "\n"
            dst.write(line)
    a = fit_log(original, tmp_path / "a")
    b = fit_log(blank, tmp_path / "b")
    assert b.starts is not None and (b.starts.policy, b.starts.policy_from) == ("easy", "header note")
    assert (b.users, b.jobs, b.nodes) == (a.users, a.jobs, a.nodes)
    ma = json.loads((tmp_path / "a" / "population.json").read_text())["measured"]
    mb = json.loads((tmp_path / "b" / "population.json").read_text())["measured"]
    for key in ("daytime_share", "weekend_share", "users_per_week"):
        assert mb[key] == pytest.approx(ma[key], rel=1e-9)  # submissions are the log's
    # sessions are cut where think times exceed 20 minutes, and think times run from
    # the (now simulated) ends: the session structure moves, within these bounds
    assert mb["jobs_per_session"] == pytest.approx(ma["jobs_per_session"], rel=0.15)
    assert mb["batches_per_session"] == pytest.approx(ma["batches_per_session"], rel=0.2)
    assert mb["continuation"] == pytest.approx(ma["continuation"], abs=0.1)
