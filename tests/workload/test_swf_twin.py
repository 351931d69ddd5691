"""The SWF reader's usual line, compiled (``_swf.pyx``) and in Python
(:func:`sitesim.workload.swf_ints.plain_record`): the same record (values of the same
types), with the same text, or None, for any line; and the reader gives the same
records through either."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitesim.workload import swf, swf_ints
from sitesim.workload.swf import SwfReader
from sitesim.workload.swf_record import N_FIELDS, WHOLE_FIELDS

original = swf_ints.plain_record

needs_compiled = pytest.mark.skipif(
    swf.plain_record is original,
    reason="the compiled SWF line is not in use (not built: no C compiler at install; or SITESIM_COMPILED=0): nothing to compare",
)


def same(line: str) -> bool:
    a, b = swf.plain_record(line), original(line)
    if a is None or b is None:
        return a is b
    # repr tells the types apart, and -0.0 from 0.0, where == would not
    shown = [repr(v) for v in a.values()]
    return shown == [repr(v) for v in b.values()] and a.text == b.text and a == b


#: Tokens near the twin's edges: signs, zeros, the 18-digit limit, other characters.
TOKENS = st.one_of(
    st.integers(-(10**19), 10**19).map(str),
    st.integers(0, 5000).map(str),
    st.sampled_from(["-1", "0", "-0", "00", "007", "-", "--1", "1-", "12-3", "+5", "1.5", ".", ";", "1e3",
                     "1_000", "٣", "9" * 18, "-" + "9" * 18, "9" * 19, "1" + "0" * 17, "x"]),
    st.sampled_from(["142.00", "-0.5", "00.5", "0.0", ".5", "5.", "1.5.2", "1.5-", "-.5", "1e5", "1.5e3",
                     "9" * 30 + ".5", "1" + "0" * 400 + ".0", "nan", "inf", "1,5"]),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.decimals(allow_nan=False, allow_infinity=False, places=3).map(str),
)
BLANKS = st.sampled_from([" ", "  ", "\t", " \t ", "\x0b", "\x0c", "\r", "\x1c", "\x1f", "\u00a0", "\u2003"])


@st.composite
def lines(draw: st.DrawFn) -> str:
    count = draw(st.sampled_from([18, 18, 18, 17, 19, 0, 1]))
    tokens = draw(st.lists(TOKENS, min_size=count, max_size=count))
    gaps = draw(st.lists(BLANKS, min_size=count + 1, max_size=count + 1))
    lead = draw(st.sampled_from(["", " ", "\t", ";", "; "]))
    end = draw(st.sampled_from(["\n", "", "\r\n", " \n", "\x1c\n"]))
    body = "".join(g + t for g, t in zip(gaps, tokens)) + gaps[-1]
    return lead + body + end


@st.composite
def plain_lines(draw: st.DrawFn) -> str:
    """Lines of 18 plain numbers (a decimal only where a field may be fractional), one
    token sometimes replaced by an edge token: mostly records, so the values are compared."""
    numbers = st.integers(-(10**17), 10**17).map(str)
    decimals = st.decimals(min_value=-(10**9), max_value=10**9, allow_nan=False, places=2).map(str)
    tokens = [draw(numbers if i in WHOLE_FIELDS else st.one_of(numbers, decimals)) for i in range(N_FIELDS)]
    if draw(st.booleans()):
        tokens[draw(st.integers(0, N_FIELDS - 1))] = draw(TOKENS)
    return " ".join(tokens) + draw(st.sampled_from(["\n", "", " \r\n"]))


@needs_compiled
@settings(max_examples=600, deadline=None, derandomize=True)
@given(st.one_of(lines(), plain_lines()))
def test_the_twin_answers_as_the_original(line: str) -> None:
    assert same(line)


@needs_compiled
@pytest.mark.parametrize("line", [
    "1 " * 18,
    "-1 " * 18 + "\n",
    "1 " * 17 + "9" * 18,
    "1 " * 17 + "-" + "9" * 18,
    "1 " * 17 + "9" * 19,  # past the twin's 18 digits: the original's answer
    "1 " * 17 + "-0",
    "1 " * 17 + "01",
    "1 " * 18 + "\x1c",  # a separator only str.split knows
    "1 " * 18 + "5",
    "1 " * 18 + ";",
    "\u00a0".join(["1"] * 18),
    "",
    "\n",
    "; MaxProcs: 128\n",
    "1 0 -1 50 4 142.00 -1 4 60 -1 1 3 -1 -1 -1 -1 -1 -1\n",  # a decimal where a field may be fractional
    "1 0 -1 50 4.0 142.00 -1 4 60 -1 1 3 -1 -1 -1 -1 -1 -1\n",  # and in a whole-number field
    "1 0 -1 50 4 " + "1" + "0" * 400 + ".0" + " -1 4 60 -1 1 3 -1 -1 -1 -1 -1 -1",  # past the largest float
    "1 0 -1 50 4 1.5e3 -1 4 60 -1 1 3 -1 -1 -1 -1 -1 -1",
    "1 0 -1 50 4 007 -1 4 60 -1 1 3 -1 -1 -1 -1 -1 2.5",
])
def test_the_twin_at_its_edges(line: str) -> None:
    assert same(line)


@needs_compiled
def test_a_str_subclass_gets_the_originals_answer() -> None:
    class Line(str):
        pass

    line = Line("1 0 -1 50 4 142.00 -1 4 60 -1 1 3 -1 -1 -1 -1 -1 -1\n")
    assert same(line) and swf.plain_record(line) is not None


def test_the_reader_gives_the_same_records_either_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "t.swf"
    path.write_text(
        "; MaxProcs: 8\n"
        "1 0 -1 50 4 -1 -1 4 60 -1 1 3 -1 -1 -1 -1 -1 -1\n"
        "\n"
        "2 10 -1 123456 8 12.5 -1 8 200000 -1 1 3 -1 -1 -1 -1 -1 -1\n"
        "; a comment among the jobs\n"
        "3 20 -1 50 004 -1 -1 +4 60 -1 1 3 -1 -1 -1 -1 -0 -1\n"
        "4 30 -1 " + "9" * 20 + " 1 -1 -1 1 60 -1 1 3 -1 -1 -1 -1 -1 -1\n"
    )

    def read() -> tuple[list[tuple[object, ...]], list[str], int]:
        with SwfReader(path) as reader:
            records = [(r, r.text, reader.line) for r in reader]
            return records, reader.header.lines, reader.records

    twin_read = read()
    monkeypatch.setattr(swf, "plain_record", original)
    assert read() == twin_read
    records = [r for r, _, _ in twin_read[0]]
    assert [r.job_number for r in records] == [1, 2, 3, 4]
    assert [text is not None for _, text, _ in twin_read[0]] == [True, False, False, True]
    assert twin_read[1] == ["; MaxProcs: 8", "; a comment among the jobs"]
