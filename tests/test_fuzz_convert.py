"""Fuzzing ``sitesim convert sacct``: every input converts, or is refused as bad input.

Beside tests/test_fuzz.py, and under its rules: random sacct outputs (headers with
columns missing or reordered, lines of good and hostile fields: times out of order,
skipped by daylight saving or out of range, sizes of 10^20, array task lists of 10^8,
heterogeneous components, steps), plain, gzipped or cut-off gzip, go through
``sitesim.cli.main`` with random flags. Any exception is a traceback a user would see,
exit 1 a run failing after its input was accepted; a refused conversion must leave an
earlier output byte-identical. Derandomized, with a small example budget.
"""

from __future__ import annotations

import gzip
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.test_fuzz import FUZZ, _run

COLUMNS = ["JobID", "User", "Group", "Partition", "Submit", "Start", "End", "Timelimit", "AllocCPUS", "ReqCPUS",
           "NNodes", "State"]
TIMES = st.one_of(
    st.builds(lambda d, s: f"2024-03-{d:02d}T{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}",
              st.integers(29, 31), st.integers(0, 86399)),
    st.sampled_from(["Unknown", "None", "", "0000-01-01T00:00:00", "0001-01-01T00:00:00", "9999-12-31T23:59:59",
                     "1969-12-31T23:59:59", "2106-02-08T00:00:00", "2024-03-31T02:30:00", "2024-10-27T02:30:00",
                     "2024-13-01T00:00:00", "yesterday", "2024-05-06 09:00:00+02:00"]),
)
JOBIDS = st.one_of(
    st.integers(1, 40).map(str),
    st.builds(lambda b, t: f"{b}_{t}", st.integers(1, 5), st.integers(0, 9)),
    st.builds(lambda b, c: f"{b}+{c}", st.integers(1, 5), st.integers(0, 2)),
    st.builds(lambda b, s: f"{b}.{s}", st.integers(1, 5), st.sampled_from(["batch", "extern", "0"])),
    st.sampled_from(["7_[1-3,5%2]", "8_[1-99999999]", "9_[0-10:2]", "9_[1-9:0]", "9_[5-1]", "9_[]", "x1", "",
                     "1_[1-" + "9" * 30 + "]", "10_[1-60000]"]),
)
COUNTS = st.one_of(st.integers(0, 64).map(str),
                   st.sampled_from(["", "-1", "1" + "0" * 20, "9" * 5000, "4.5", "x", "10000001"]))
LIMITS = st.sampled_from(["01:00:00", "1-00:00:00", "45:00", "30", "UNLIMITED", "Partition_Limit", "", "soon",
                          "99999999-00:00:00", "1:2:3:4", "-5"])
STATES = st.sampled_from(["COMPLETED", "FAILED", "TIMEOUT", "CANCELLED by 0", "PENDING", "RUNNING", "NODE_FAIL",
                          "LOST", "", "REQUEUED"])
FIELD = {"JobID": JOBIDS, "User": st.sampled_from(["ann", "bo", "", "a,b\"c"]), "Group": st.sampled_from(["g", ""]),
         "Partition": st.sampled_from(["batch", "gpu,batch", ""]), "Submit": TIMES, "Start": TIMES, "End": TIMES,
         "Timelimit": LIMITS, "AllocCPUS": COUNTS, "ReqCPUS": COUNTS, "NNodes": COUNTS, "State": STATES}


@st.composite
def sacct_outputs(draw: st.DrawFn) -> bytes:
    columns = list(COLUMNS)
    if draw(st.integers(0, 4)) == 0:
        columns = draw(st.permutations(COLUMNS))[: draw(st.integers(1, len(COLUMNS)))]
    lines = ["|".join(columns)]
    for _ in range(draw(st.integers(0, 8))):
        fields = [draw(FIELD[c]) for c in columns]
        if draw(st.integers(0, 5)) == 0:  # a field too many or too few
            fields = fields[:-1] if draw(st.booleans()) else [*fields, "x"]
        lines.append("|".join(fields))
    data = ("\n".join(lines) + "\n").encode()
    packing = draw(st.sampled_from(["plain", "plain", "gzip", "cut gzip"]))
    if packing == "gzip":
        return gzip.compress(data, mtime=0)
    if packing == "cut gzip":
        packed = gzip.compress(data, mtime=0)
        return packed[: draw(st.integers(0, len(packed) - 1))]
    return data


FLAGS = st.lists(st.sampled_from([
    ["--skip-malformed"], ["--mapping"], ["--timezone", "Europe/Stockholm"], ["--timezone", "America/New_York"],
    ["--timezone", "Nowhere/City"], ["--timezone", ""], ["--max-procs", "64"], ["--max-procs", "0"],
    ["--max-procs", "99999999999"], ["--max-nodes", "-1"], ["--max-nodes", "x"],
]), max_size=3)


@settings(parent=FUZZ, max_examples=60)
@given(log=sacct_outputs(), flags=FLAGS, out=st.sampled_from(["out.swf", "out.swf.gz", "."]))
def test_sacct_outputs_convert_or_are_input_errors(log: bytes, flags: list[list[str]], out: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "in.sacct"
        src.write_bytes(log)
        target = Path(tmp) / out
        earlier = b"; an earlier output\n"
        if out != ".":
            target.write_bytes(earlier)
        code = _run(["convert", "sacct", str(src), "-o", str(target), *(t for flag in flags for t in flag)])
        assert code in (0, 2)
        assert src.read_bytes() == log
        if code == 2 and out != ".":
            assert target.read_bytes() == earlier
