"""The reader's integer table: ``int(token)`` for canonical integer text, else ValueError."""

from __future__ import annotations

import pytest

from sitesim.workload.swf_ints import SMALL_LIMIT, canonical_int


@pytest.mark.parametrize("token", ["-1", "0", "7", str(SMALL_LIMIT - 1), str(SMALL_LIMIT), "123456789012", "-5000"])
def test_same_as_int(token: str) -> None:
    value = canonical_int()(token)
    assert value == int(token) and type(value) is int and str(value) == token


@pytest.mark.parametrize("token", ["1.5", "abc", "", "nan", "1e3", "007", "-0", "+5", "1_000", "٣", "00", "04096"])
def test_anything_else_raises(token: str) -> None:
    with pytest.raises(ValueError):
        canonical_int()(token)


def test_writer_copies_text_only_when_it_is_the_values_text(tmp_path) -> None:
    """A line of canonical tokens keeps them (and formats exactly as its values do);
    one with other integer text is parsed as before and keeps none."""
    from sitesim.workload.swf import SwfReader
    from sitesim.workload.swf_write import format_with_times

    path = tmp_path / "t.swf"
    path.write_text(
        "; MaxProcs: 8\n"
        "1 0 -1 50 4 -1 -1 4 60 -1 1 3 -1 -1 -1 -1 -1 -1\n"
        "2 10 -1 123456 8 -1 -1 8 200000 -1 1 3 -1 -1 -1 -1 -1 -1\n"
        "3 20 -1 50 004 -1 -1 +4 60 -1 1 3 -1 -1 -1 -1 -0 -1\n"
    )
    with SwfReader(path) as reader:
        records = list(reader)
    assert [r.text is not None for r in records] == [True, True, False]
    assert records[2].allocated_processors == 4 and records[2].preceding_job == 0
    for r in records:
        plain = attrs_copy(r)
        assert plain.text is None and plain == r
        assert format_with_times(r, 5, 6, 7, 0) == format_with_times(plain, 5, 6, 7, 0)


def attrs_copy(record):
    import attrs

    return attrs.evolve(record)
