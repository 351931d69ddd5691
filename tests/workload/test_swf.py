"""SWF reader/writer: exact round trip, headers, gzip, malformed input, streaming."""

from __future__ import annotations

import gzip
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitesim.errors import InputError
from sitesim.workload.swf import (
    N_FIELDS,
    WHOLE_FIELDS,
    SwfHeader,
    SwfReader,
    SwfRecord,
    format_record,
    parse_line,
    read_swf,
    write_swf,
)

HEADER = [
    "; Version: 2.2",
    "; Computer: test machine",
    "; MaxNodes: 64",
    "; MaxProcs: 128",
]
LINES = [
    "1 0 5 100 4 90.5 -1 4 200 -1 1 3 1 7 1 -1 -1 -1",
    "2 10 0 0 1 -1 -1 1 60 -1 5 3 1 7 1 -1 -1 -1",
    "3 10 2 3600 64 1e-05 2.5 64 7200 1024 0 4 2 8 1 -1 1 30",
]


def write_text(path: Path, text: str) -> Path:
    if path.suffix == ".gz":
        with gzip.open(path, "wt", encoding="utf-8") as f:
            f.write(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return write_text(tmp_path / "in.swf", "\n".join(HEADER + LINES) + "\n")


def test_parse_keeps_ints_and_floats() -> None:
    record = parse_line(LINES[2])
    assert record.job_number == 3 and isinstance(record.job_number, int)
    assert record.average_cpu_time == 1e-05 and isinstance(record.average_cpu_time, float)
    assert record.used_memory == 2.5
    assert record.think_time == 30
    assert len(record.values()) == N_FIELDS


def test_a_machine_of_whole_nodes_is_counted_in_nodes() -> None:
    both = SwfHeader(["; MaxNodes: 57", "; MaxProcs: 178"])
    assert both.machine_size() == 178 and both.machine_size(4) == 57
    assert SwfHeader(["; MaxProcs: 178"]).machine_size(4) == 45  # 178 / 4, rounded up
    assert SwfHeader([]).machine_size(4) is None


def test_round_trip_values_and_bytes(sample: Path, tmp_path: Path) -> None:
    header, records = read_swf(sample)
    assert header.lines == HEADER
    assert header.machine_size() == 128  # MaxProcs wins over MaxNodes
    first = tmp_path / "a.swf"
    second = tmp_path / "b.swf"
    assert write_swf(first, records, header.lines) == 3
    header2, records2 = read_swf(first)
    assert header2.lines == HEADER
    assert [r.values() for r in records2] == [r.values() for r in records]
    assert [tuple(map(type, r.values())) for r in records2] == [
        tuple(map(type, r.values())) for r in records
    ]
    write_swf(second, records2, header2.lines)
    assert first.read_bytes() == second.read_bytes()
    # Every token survives as written (spacing aside).
    written = [line.split() for line in first.read_text().splitlines() if not line.startswith(";")]
    assert written == [line.split() for line in LINES]


def test_float_values_round_trip_exactly(tmp_path: Path) -> None:
    tricky = [0.1, 1 / 3, 1e-300, 123456789.123456789, 2.5e20]
    records = [SwfRecord(job_number=i + 1, average_cpu_time=v) for i, v in enumerate(tricky)]
    path = tmp_path / "f.swf"
    write_swf(path, records)
    _, back = read_swf(path)
    assert [r.average_cpu_time for r in back] == tricky


def test_gzip_is_transparent_and_deterministic(sample: Path, tmp_path: Path) -> None:
    header, records = read_swf(sample)
    one = tmp_path / "one.swf.gz"
    two = tmp_path / "sub" / "two.swf.gz"
    two.parent.mkdir()
    write_swf(one, records, header.lines)
    write_swf(two, records, header.lines)
    assert one.read_bytes() == two.read_bytes()  # no name, no timestamp in the gzip header
    plain = tmp_path / "plain.swf"
    write_swf(plain, records, header.lines)
    assert gzip.decompress(one.read_bytes()) == plain.read_bytes()
    header_gz, records_gz = read_swf(one)
    assert header_gz.lines == HEADER
    assert [r.values() for r in records_gz] == [r.values() for r in records]


def test_comment_lines_after_jobs_join_the_header(tmp_path: Path) -> None:
    path = write_text(tmp_path / "c.swf", "\n".join([HEADER[0], LINES[0], "; late note", "", LINES[1]]) + "\n")
    with SwfReader(path) as reader:
        assert len(list(reader)) == 2
        assert reader.header.lines == [HEADER[0], "; late note"]


@pytest.mark.parametrize(
    ("line", "message", "field"),
    [
        ("1 0 5 100 4 90", "truncated line: expected 18 fields, found 6", None),
        (LINES[0] + " 7", "too many fields: expected 18 fields, found 19", None),
        (LINES[0].replace(" 100 ", " 1O0 ", 1), "'1O0' is not a number", "field 4 (run_time)"),
        (LINES[0].replace(" 4 90.5", " x 90.5", 1), "'x' is not a number", "field 5 (allocated_processors)"),
        # decimal values elsewhere on the line: the reader's second path, then the diagnosis
        (LINES[0].replace(" 4 90.5", " 4.0 90.5", 1), "'4.0' is not a whole number", "field 5 (allocated_processors)"),
        (LINES[0].replace(" 1 3 1 7 ", " 1 3.5 1 7 ", 1), "'3.5' is not a whole number", "field 12 (user_id)"),
        (LINES[0].replace(" 200 ", " inf ", 1), "'inf' is not a finite number", "field 9 (requested_time)"),
    ],
)
def test_malformed_line_names_file_line_and_field(
    tmp_path: Path, line: str, message: str, field: str | None
) -> None:
    path = write_text(tmp_path / "bad.swf", "\n".join([*HEADER, LINES[0], line, LINES[1]]) + "\n")
    with pytest.raises(InputError) as info, SwfReader(path) as reader:
        list(reader)
    error = info.value
    assert error.path == str(path)
    assert error.line == len(HEADER) + 2
    assert error.field == field
    assert message in str(error)
    assert str(error).startswith(f"{path}:{len(HEADER) + 2}: ")
    assert "\n" not in str(error)


def test_skip_malformed_counts_and_keeps_the_good_lines(tmp_path: Path) -> None:
    text = "\n".join([*HEADER, LINES[0], "1 2 3", LINES[1], "a b c d e f g h i j k l m n o p q r", LINES[2]])
    path = write_text(tmp_path / "bad.swf.gz", text + "\n")
    with SwfReader(path, skip_malformed=True) as reader:
        records = list(reader)
        assert reader.skipped == 2
        assert reader.records == 3
    assert [r.job_number for r in records] == [1, 2, 3]


def test_missing_file_and_truncated_gzip_are_input_errors(tmp_path: Path, sample: Path) -> None:
    with pytest.raises(InputError, match="cannot open trace"):
        SwfReader(tmp_path / "nope.swf")
    data = gzip.compress(sample.read_bytes() * 50)
    cut = tmp_path / "cut.swf.gz"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match="cannot read trace"), SwfReader(cut) as reader:
        list(reader)


def test_failed_write_leaves_nothing_behind(tmp_path: Path) -> None:
    def records():
        yield SwfRecord(job_number=1)
        raise RuntimeError("boom")

    target = tmp_path / "out.swf"
    with pytest.raises(RuntimeError):
        write_swf(target, records())
    assert list(tmp_path.iterdir()) == []


def test_reading_is_streaming(tmp_path: Path) -> None:
    """Memory held while iterating does not grow with the number of records.

    A 250k-job trace is about 25 MB of text and well over 100 MB as records; streaming means the
    reader holds one record at a time. Checked on 20k lines (tracemalloc is slow): the
    peak must stay far below what holding the records would take.
    """
    line = format_record(parse_line(LINES[2])) + "\n"
    path = tmp_path / "big.swf"
    with open(path, "w") as f:
        f.write("; MaxProcs: 128\n")
        f.write(line * 20_000)
    tracemalloc.start()
    try:
        count = 0
        with SwfReader(path) as reader:
            for _ in reader:
                count += 1
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == 20_000
    assert peak < 1_000_000, f"peak {peak} bytes while streaming 20k records"


def test_real_trace_round_trip(trace_path, tmp_path: Path) -> None:
    path = trace_path("KTH-SP2")
    header, records = read_swf(path)
    assert len(records) == 28_476
    out = tmp_path / "kth.swf.gz"
    write_swf(out, records, header.lines)
    header2, records2 = read_swf(out)
    assert header2.lines == header.lines
    assert [r.values() for r in records2] == [r.values() for r in records]
    with gzip.open(path, "rt") as original, gzip.open(out, "rt") as copy:
        tokens = [ln.split() for ln in original if not ln.startswith(";")]
        assert tokens == [ln.split() for ln in copy if not ln.startswith(";")]


@pytest.mark.parametrize(
    ("token", "value"),
    [("-1", -1), ("0", 0), ("42", 42), ("+7", 7), ("2.50", 2.5), ("-1e3", -1000.0), ("1E-2", 0.01)],
)
def test_numbers_parse_like_int_then_float(token: str, value: float) -> None:
    # Times and amounts may be fractional; ids, counts and codes must be whole.
    fractional = [i for i in range(N_FIELDS) if i not in WHOLE_FIELDS]
    tokens = [token if i in fractional else "1" for i in range(N_FIELDS)]
    record = parse_line(" ".join(tokens))
    values = record.values()
    assert [values[i] for i in fractional] == [value] * len(fractional)
    assert type(record.run_time) is type(value)


@pytest.mark.parametrize("token", ["--5", "²", "1.2.3", "0x10", ""])
def test_odd_tokens_are_errors(token: str) -> None:
    tokens = ["1"] * N_FIELDS
    tokens[3] = token or "-"
    with pytest.raises(InputError, match="field 4"):
        parse_line(" ".join(tokens))


#: Tokens of every kind a line may hold: canonical integers on and off the reader's
#: table, other integer text, decimals, and what is not a finite number.
TOKENS = ["-1", "0", "7", "4095", "4096", "123456789", "-5000", "007", "+4", "-0", "1_000",
          "2.50", "1e3", "-0.5", "12.34", "nan", "inf", "x", "1.2.3"]


def _reference(tokens: list[str]) -> tuple[int | float, ...] | str:
    """The line's values, or its first bad field, read token by token: int, else a
    finite float, and whole numbers where the record needs them."""
    values: list[int | float] = []
    for i, token in enumerate(tokens):
        try:
            value: int | float = int(token)
        except ValueError:
            try:
                value = float(token)
            except ValueError:
                return f"field {i + 1} "
            if value != value or value in (float("inf"), float("-inf")):
                return f"field {i + 1} "
            if i in WHOLE_FIELDS:
                return f"field {i + 1} "
        values.append(value)
    return tuple(values)


@settings(derandomize=True, max_examples=300, deadline=None, database=None)
@given(st.lists(st.sampled_from(TOKENS), min_size=N_FIELDS, max_size=N_FIELDS))
def test_reader_and_parse_line_read_any_line_token_by_token(tokens: list[str]) -> None:
    """Whichever path a line takes (all canonical integers, decimal values, the
    field-by-field diagnosis), the record is the tokens' values, type for type, and a
    bad line's error names its first bad field, in the reader as in ``parse_line``."""
    import tempfile

    expected = _reference(tokens)
    line = " ".join(tokens)
    with tempfile.TemporaryDirectory() as folder:
        path = write_text(Path(folder) / "t.swf", f"; MaxProcs: 8\n{line}\n")
        for read in (lambda: parse_line(line, path=str(path), lineno=2),
                     lambda: read_swf(path)[1][0]):
            if isinstance(expected, str):
                with pytest.raises(InputError) as info:
                    read()
                assert info.value.line == 2 and str(info.value.field).startswith(expected)
            else:
                values = read().values()
                assert values == expected
                assert [type(v) for v in values] == [type(v) for v in expected]
