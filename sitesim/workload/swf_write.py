"""Writing SWF: one right-aligned line per job, files written all-or-nothing.

Split from :mod:`sitesim.workload.swf` (reading), which re-exports these names; both
build on :mod:`sitesim.workload.swf_record`. Writing is on every replay's hot path
(the schedule writer formats a line per job), hence the single %-format per line below.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from sitesim.workload.files import atomic_text_write
from sitesim.workload.swf_record import Number, SwfRecord

# Column widths used when writing, wide enough for the archive's logs; values that
# need more room simply widen their column (the format is whitespace-separated).
_WIDTHS = (7, 10, 7, 7, 5, 8, 5, 5, 7, 5, 2, 5, 4, 5, 3, 3, 7, 6)
# A whole line in one %-operation: "%7s" pads str(v) exactly like str(v).rjust(7), and
# str() of a float is its repr (shortest exact form), so this is format_value + rjust
# for every value at a fraction of the cost (writing is on the replay's hot path).
_LINE = " ".join(f"%{w}s" for w in _WIDTHS)
_LINE_NL = _LINE + "\n"


def format_value(value: Number) -> str:
    """SWF text of one value: integers as such, floats in their shortest exact form."""
    return repr(value) if isinstance(value, float) else str(value)


def format_record(record: SwfRecord) -> str:
    """One SWF job line (no newline), columns right-aligned for readability."""
    return _LINE % record.values()


def format_values(values: tuple[Number, ...]) -> str:
    """:func:`format_record` of the record holding ``values``, newline included."""
    return _LINE_NL % values


def format_with_times(record: SwfRecord, submit: int, wait: int, run: int, status: int) -> str:
    """:func:`format_values` of ``record.values_with_times(...)``; the unchanged
    fields are copied from the tokens of ``record.text`` when the reader kept the line
    (canonical tokens, so the same characters), which costs a fraction of formatting
    them again."""
    line = record.text
    if line is None:
        return _LINE_NL % record.values_with_times(submit, wait, run, status)
    t = line.split()
    return _LINE_NL % (
        t[0], submit, wait, run, t[4], t[5], t[6], t[7], t[8], t[9],
        status, t[11], t[12], t[13], t[14], t[15], t[16], t[17],
    )


def write_swf(
    path: str | os.PathLike[str],
    records: Iterable[SwfRecord],
    header: Iterable[str] = (),
) -> int:
    """Write an SWF file all-or-nothing; returns the number of records written.

    ``header`` lines are written first; a leading ``;`` is added where missing.
    """
    count = 0
    with atomic_text_write(path) as out:
        for line in header:
            out.write(line if line.startswith(";") else "; " + line)
            out.write("\n")
        for record in records:
            out.write(format_record(record))
            out.write("\n")
            count += 1
    return count
