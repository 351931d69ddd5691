"""Integer tokens of SWF job lines, read through a table of the common small values.

``int(token)`` costs about as much per field as everything else the reader does per
line, and most of an SWF line is small numbers: ``-1`` (unknown), sizes, statuses,
user and group ids, short times. Looking those up in a table of their canonical text
is several times cheaper; any other token goes through ``int`` itself.

Only *canonical* integer text is accepted (what ``str`` of the value gives back: no
``+``, no leading zeros, no ``_``, ASCII digits); anything else raises ``ValueError``,
as a non-number does. So a line whose 18 tokens all pass holds exactly the text the
writer would produce for its values, and the schedule writer may copy the unchanged
fields verbatim (:func:`sitesim.workload.swf_write.format_with_times`); the reader
parses any other line field by field, with ``int``, as before.
"""

from __future__ import annotations

from collections.abc import Callable

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


_table: _CanonicalInts | None = None


def canonical_int() -> Callable[[str], int]:
    """``int`` of a canonical integer token (``ValueError`` for any other token),
    fast for small values.

    The table is built on first use (about a millisecond), so a run that reads no
    SWF does not pay for it; it is a constant, shared by every reader.
    """
    global _table
    if _table is None:
        _table = _CanonicalInts({str(i): i for i in range(-1, SMALL_LIMIT)})
    return _table.__getitem__
