"""The numbers of SWF job lines: the reader's usual line, and its integer table.

Most of an SWF line is small numbers: ``-1`` (unknown), sizes, statuses, user and group
ids, short times. ``int(token)`` costs about as much per field as everything else the
reader does per line, and looking those up in a table of their canonical text is
several times cheaper; any other token goes through ``int`` itself.

Only *canonical* integer text is accepted (what ``str`` of the value gives back: no
``+``, no leading zeros, no ``_``, ASCII digits); anything else raises ``ValueError``,
as a non-number does. So a line whose 18 tokens all pass holds exactly the text the
writer would produce for its values, and the schedule writer may copy the unchanged
fields verbatim (:func:`sitesim.workload.swf_write.format_with_times`).

The reader's usual line, 18 *plain numbers* (canonical integers, and plain decimals
where a field may be fractional: CTC-SP2 gives its average CPU time, field 6, as
``12.34`` on half of its lines), is :func:`plain_record`, one call per line, with a
compiled twin. A line that is not plain goes through :func:`number_table`: the same
table, with every other token read as ``int``, else as a finite ``float``
(:func:`read_number`), so only the few tokens off the table cost a Python call.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from sitesim.workload.swf_record import N_FIELDS, WHOLE_FIELDS, SwfRecord

#: The table covers -1 (SWF's "unknown") up to, not including, this value.
SMALL_LIMIT = 4096


class _CanonicalInts(dict[str, int]):
    """``str(i) -> i`` for small ``i``; any other canonical integer text is parsed."""

    __slots__ = ()

    def __missing__(self, token: str) -> int:
        value = int(token)
        if str(value) != token:
            raise ValueError(f"not canonical integer text: {token!r}")
        return value


def read_number(token: str) -> int | float:
    """An int, else a finite float (``ValueError`` for anything else); ``nan`` and
    ``inf`` are not numbers a log can hold."""
    # The usual integer, without paying for an exception first.
    if token.isdecimal() or (token[:1] == "-" and token[1:].isdecimal()):
        return int(token)
    if "." not in token:  # int never reads a decimal point: no exception to pay for then
        try:
            return int(token)
        except ValueError:
            pass
    value = float(token)
    if not math.isfinite(value):
        raise ValueError(token) from None
    return value


class _Numbers(dict[str, int | float]):
    """``str(i) -> i`` for small ``i``; any other token is :func:`read_number`'s."""

    __slots__ = ()

    def __missing__(self, token: str) -> int | float:
        return read_number(token)


_table: _CanonicalInts | None = None
_numbers: _Numbers | None = None


def canonical_int() -> Callable[[str], int]:
    """``int`` of a canonical integer token (``ValueError`` for any other token),
    fast for small values.

    The table is built on first use (about a millisecond), so a run that reads no
    SWF does not pay for it; it is a constant, shared by every reader.
    """
    return _canonical().__getitem__


def _canonical() -> _CanonicalInts:
    global _table
    if _table is None:
        _table = _CanonicalInts({str(i): i for i in range(-1, SMALL_LIMIT)})
    return _table


#: A decimal token of the reader's usual line: digits, a point, digits (an optional
#: minus sign first), as the logs write a fractional field (CTC-SP2's average CPU time,
#: ``142.00``). Any other decimal form goes through the reader's general path.
PLAIN_DECIMAL = re.compile(r"-?[0-9]+\.[0-9]+")


def plain_record(line: str) -> SwfRecord | None:
    """The record of a job line of 18 plain numbers, else None.

    Plain numbers are canonical integer tokens and, in a field that may be fractional
    (not :data:`~sitesim.workload.swf_record.WHOLE_FIELDS`), finite
    :data:`PLAIN_DECIMAL` tokens. A line of canonical integers alone keeps the line as
    its ``text`` (the schedule writer copies its tokens). Any other line (blank, a
    comment, other number text, a decimal in a whole-number field, a bad line) gives
    None, and the reader's other paths take it, with the same values or the same error
    as before this path existed.

    This is the line an SWF log is almost all made of, so it is the reader's one call
    per line; :mod:`sitesim.workload._swf` is its compiled twin, and this function stays
    the specification the twin is tested against.
    """
    tokens = line.split()
    if len(tokens) != N_FIELDS:
        return None
    integer = canonical_int()
    if "." not in line:
        try:
            record = SwfRecord(*map(integer, tokens))
        except ValueError:  # not all canonical integers
            return None
        record.text = line
        return record
    values: list[int | float] = []
    for i, token in enumerate(tokens):
        if "." in token:
            if i in WHOLE_FIELDS or not PLAIN_DECIMAL.fullmatch(token):
                return None
            value: int | float = float(token)
            if not math.isfinite(value):
                return None
        else:
            try:
                value = integer(token)
            except ValueError:
                return None
        values.append(value)
    return SwfRecord(*values)  # type: ignore[arg-type]


def number_table() -> Callable[[str], int | float]:
    """:func:`read_number` of any token (``ValueError`` for a non-number), fast for
    small canonical integers: the reader's second path, for a line that is not plain
    (:func:`plain_record`). Same values as ``read_number`` token by token, since the
    table holds only canonical text, whose ``int`` it is."""
    global _numbers
    if _numbers is None:
        _numbers = _Numbers(_canonical())
    return _numbers.__getitem__
