"""UTC offsets of an IANA time zone, daylight saving included, as a sorted step function.

Why not ask :mod:`zoneinfo` for every time: a log holds hundreds of thousands of
submissions and a run lays down an absence per session, so the offsets are kept as
the instants they change at (found once per calendar year, when first needed) and a
time's offset is a binary search. The zone rules come from the system's tz database or,
where it has none, the ``tzdata`` package (a dependency of sitesim).
"""

from __future__ import annotations

from bisect import bisect_right
from datetime import UTC, datetime
from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import numpy as np
from numpy.typing import NDArray

#: Step of the scan for changes of offset (no zone changes its offset twice in 6 hours).
_STEP = 6 * 3600


def known_zone(name: str) -> ZoneInfo | None:
    """The IANA zone ``name`` (``Europe/Stockholm``, ``US/Pacific``), None if unknown."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return None


class ZoneOffsets:
    """The offsets of one zone over the calendar years seen so far.

    ``instants[i]`` (Unix seconds) starts a stretch of offset ``offsets[i]`` seconds that
    lasts until ``instants[i + 1]``; :meth:`cover` extends the years covered.
    """

    __slots__ = ("zone", "instants", "offsets", "_first", "_last", "_span")

    def __init__(self, zone: ZoneInfo) -> None:
        self.zone = zone
        self.instants: list[int] = []
        self.offsets: list[int] = []
        self._first = self._last = 0  # years covered: none yet
        self._span = (0.0, -1.0)  # Unix times covered: none yet

    def _offset(self, instant: int) -> int:
        delta = datetime.fromtimestamp(instant, self.zone).utcoffset()
        return int(delta.total_seconds()) if delta is not None else 0

    def _year(self, year: int) -> tuple[list[int], list[int]]:
        """The year's start and every change of offset in it, to the second."""
        start = int(datetime(year, 1, 1, tzinfo=UTC).timestamp())
        end = int(datetime(year + 1, 1, 1, tzinfo=UTC).timestamp())
        instants, offsets = [start], [self._offset(start)]
        t = start
        while t < end:
            step = min(t + _STEP, end)
            if self._offset(step) != offsets[-1]:
                low, high = t, step  # offset(low) is the last one, offset(high) the next
                while high - low > 1:
                    mid = (low + high) // 2
                    low, high = (mid, high) if self._offset(mid) == offsets[-1] else (low, mid)
                instants.append(high)
                offsets.append(self._offset(high))
            t = step
        return instants, offsets

    def cover(self, low: float, high: float) -> None:
        """Make the instants cover Unix times ``low..high``."""
        if self._span[0] <= low and high < self._span[1]:
            return
        first = datetime.fromtimestamp(low, UTC).year
        last = datetime.fromtimestamp(high, UTC).year
        if self.instants and self._first <= first and last <= self._last:
            return
        years = range(min(first, self._first) if self.instants else first, max(last, self._last) + 1)
        instants: list[int] = []
        offsets: list[int] = []
        for year in years:
            for instant, offset in zip(*self._year(year), strict=True):
                if not offsets or offset != offsets[-1]:
                    instants.append(instant)
                    offsets.append(offset)
        self.instants, self.offsets = instants, offsets
        self._first, self._last = years[0], years[-1]
        self._span = (float(instants[0]), datetime(years[-1] + 1, 1, 1, tzinfo=UTC).timestamp())

    @property
    def years(self) -> tuple[int, int]:
        """First and last calendar year covered (what a cache of derived values checks)."""
        return self._first, self._last

    def offset_at(self, instant: float) -> tuple[int, int]:
        """(index of the stretch holding Unix time ``instant``, its offset)."""
        self.cover(instant, instant)
        i = max(bisect_right(self.instants, instant) - 1, 0)
        return i, self.offsets[i]

    def offsets_at(self, instants: NDArray[np.float64]) -> NDArray[np.int64]:
        """The offset at each of ``instants`` (Unix seconds)."""
        if instants.size == 0:
            return np.zeros(0, dtype=np.int64)
        self.cover(float(instants.min()), float(instants.max()))
        index = np.searchsorted(np.asarray(self.instants, dtype=float), instants, side="right") - 1
        return np.asarray(self.offsets, dtype=np.int64)[np.maximum(index, 0)]


@cache
def zone_offsets(name: str) -> ZoneOffsets:
    """The (shared, growing) offsets of zone ``name``; a name :func:`known_zone` knows."""
    zone = known_zone(name)
    if zone is None:
        raise ValueError(f"unknown time zone {name!r}")
    return ZoneOffsets(zone)
