"""Integer tokens of SWF job lines, read through a table of the common small values.

``int(token)`` costs about as much per field as everything else the reader does per
line, and most of an SWF line is small numbers: ``-1`` (unknown), sizes, statuses,
user and group ids, short times. Looking those up in a table of their canonical text
is several times cheaper; any other token (a large time, a job number, ``007``, a
non-number) falls through to ``int`` itself. The result is ``int(token)`` in every case,
including its ``ValueError``, so records are the same as before.
"""

from __future__ import annotations

from collections.abc import Callable

#: The table covers -1 (SWF's "unknown") up to, not including, this value.
SMALL_LIMIT = 4096


class _SmallInts(dict[str, int]):
    """``str(i) -> i`` for small ``i``; a lookup of any other token is ``int(token)``."""

    __slots__ = ()

    def __missing__(self, token: str) -> int:
        return int(token)


_table: _SmallInts | None = None


def token_to_int() -> Callable[[str], int]:
    """A function equal to ``int`` on str tokens, fast for small canonical integers.

    The table is built on first use (about a millisecond), so a run that reads no
    SWF does not pay for it; it is a constant, shared by every reader.
    """
    global _table
    if _table is None:
        _table = _SmallInts({str(i): i for i in range(-1, SMALL_LIMIT)})
    return _table.__getitem__
