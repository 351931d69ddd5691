"""Local time of a trace: the daily and weekly cycles of its users.

SWF times are seconds from the start of the log. The header says when that was and
where: ``UnixStartTime`` (seconds since the epoch, UTC) and ``TimeZone`` (seconds to
add to UTC for local time; ``TimeZoneString`` names the zone). Local time of a job is
therefore ``UnixStartTime + TimeZone + submit``. The fixed offset ignores daylight
saving (an error of at most one hour for half the year); the simulator writes and
reads its own traces with the same convention, so fitted and simulated cycles compare
like with like.

Hours of the week are numbered from Monday 00:00 (0) to Sunday 23:00 (167); the epoch
(1970-01-01) was a Thursday, hence the 72-hour shift.

A trace without a header clock (and every site not fitted to a log) uses the
convention :data:`DEFAULT_CLOCK`: time 0 is Monday 1970-01-05 00:00, time zone UTC.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Any

import numpy as np
from attrs import define
from numpy.typing import ArrayLike, NDArray

from sitesim.workload.swf import SwfHeader

HOUR = 3600
DAY = 24 * HOUR
WEEK = 7 * DAY
#: Hours from the epoch's Monday-based week start: 1970-01-01 was a Thursday.
_EPOCH_HOUR_OF_WEEK = 3 * 24
#: Daytime for the "share of submissions in daytime" signature: [08:00, 18:00).
DAY_START, DAY_END = 8, 18


@define(slots=True, frozen=True)
class Clock:
    """Where time 0 of a trace falls in local calendar time."""

    #: Seconds since the epoch (UTC) at time 0.
    unix_start: int = 4 * DAY
    #: Seconds added to UTC for local time.
    offset: int = 0
    #: The zone's name, for people (the offset is what is used).
    zone: str = "UTC"
    #: Whether the trace's header said so (False: the convention was assumed).
    declared: bool = False

    @classmethod
    def from_header(cls, header: SwfHeader) -> Clock:
        """The header's clock; :data:`DEFAULT_CLOCK` if ``UnixStartTime`` is missing."""
        start = header.get_int("UnixStartTime")
        if start is None:
            return DEFAULT_CLOCK
        offset = header.get_int("TimeZone") or 0
        zone = header.get("TimeZoneString") or f"UTC{offset / HOUR:+g}"
        return cls(unix_start=start, offset=offset, zone=zone, declared=True)

    def local(self, t: ArrayLike) -> NDArray[np.float64]:
        """Local seconds since the epoch of trace times ``t``."""
        return np.asarray(t, dtype=float) + (self.unix_start + self.offset)

    def hour_of_day(self, t: ArrayLike) -> NDArray[np.int64]:
        return (np.floor(self.local(t) / HOUR).astype(np.int64)) % 24

    def hour_of_week(self, t: ArrayLike) -> NDArray[np.int64]:
        hours = np.floor(self.local(t) / HOUR).astype(np.int64)
        return (hours + _EPOCH_HOUR_OF_WEEK) % 168

    def header_lines(self) -> list[str]:
        """SWF header lines that tell a reader where time 0 is."""
        return [
            f"; UnixStartTime: {self.unix_start}",
            f"; TimeZone: {self.offset}",
            f"; TimeZoneString: {self.zone}",
        ]

    def to_dict(self) -> dict[str, Any]:
        return {
            "unix_start": self.unix_start,
            "offset": self.offset,
            "zone": self.zone,
            "declared": self.declared,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Clock:
        return cls(
            unix_start=int(data["unix_start"]),
            offset=int(data["offset"]),
            zone=str(data["zone"]),
            declared=bool(data.get("declared", True)),
        )


#: Sites not fitted to a log: time 0 is Monday 1970-01-05 00:00 UTC.
DEFAULT_CLOCK = Clock()


@define(slots=True)
class CycleSignature:
    """Daily and weekly cycle of a set of event times (usually submissions)."""

    #: Events per hour of the day (24) and of the week (168), local time.
    hourly: NDArray[np.int64]
    weekly: NDArray[np.int64]

    @property
    def events(self) -> int:
        return int(self.hourly.sum())

    @property
    def daytime_share(self) -> float:
        """Share of events in [08:00, 18:00) local time."""
        return float(self.hourly[DAY_START:DAY_END].sum() / max(1, self.events))

    @property
    def weekend_share(self) -> float:
        """Share of events on Saturday and Sunday."""
        return float(self.weekly[120:].sum() / max(1, self.events))

    @property
    def peak_ratio(self) -> float:
        """Busiest hour of the day over the quietest (inf if some hour has none)."""
        low = self.hourly.min()
        return float(self.hourly.max() / low) if low > 0 else float("inf")

    def hourly_fractions(self) -> NDArray[np.float64]:
        return self.hourly / max(1, self.events)


def cycle_signature(times: ArrayLike, clock: Clock) -> CycleSignature:
    """Count ``times`` (trace seconds) per local hour of the day and of the week."""
    t = np.asarray(times, dtype=float)
    return CycleSignature(
        hourly=np.bincount(clock.hour_of_day(t), minlength=24).astype(np.int64),
        weekly=np.bincount(clock.hour_of_week(t), minlength=168).astype(np.int64),
    )


class Warp:
    """Operational time of a weekly cycle: seconds counted at the cycle's local rate.

    ``weights`` (168 values, Monday 00:00 first) are the relative intensity of each local
    hour of the week, normalised to mean 1, so a week of trace time is a week of
    operational time. An interval drawn in operational time and laid down from a given
    moment stretches across quiet hours and shrinks across busy ones, so events spaced
    that way follow the cycle while keeping the measured spread of intervals.
    Scalar and pure Python: it runs once per simulated session.
    """

    __slots__ = ("_base", "_rates", "_cum")

    def __init__(self, clock: Clock, weights: ArrayLike, floor: float = 0.01) -> None:
        w = np.asarray(weights, dtype=float)
        if w.shape != (168,) or not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
            raise ValueError("a weekly cycle needs 168 non-negative weights, not all zero")
        # A floor keeps every hour possible (a week's empty hour is not a law).
        w = np.maximum(w / w.mean(), floor)
        w = w / w.mean()
        self._base = float(clock.unix_start + clock.offset + _EPOCH_HOUR_OF_WEEK * HOUR)
        self._rates = [float(r) for r in w]
        cum = np.concatenate([[0.0], np.cumsum(w) * HOUR])
        cum[-1] = WEEK
        self._cum = [float(c) for c in cum]

    def forward(self, t: float) -> float:
        """Operational time of trace time ``t``."""
        week, phase = divmod(t + self._base, WEEK)
        hour = min(int(phase // HOUR), 167)
        return week * WEEK + self._cum[hour] + self._rates[hour] * (phase - hour * HOUR)

    def inverse(self, op: float) -> float:
        """Trace time whose operational time is ``op``."""
        week, rest = divmod(op, WEEK)
        hour = min(bisect_right(self._cum, rest) - 1, 167)
        phase = hour * HOUR + (rest - self._cum[hour]) / self._rates[hour]
        return week * WEEK + phase - self._base

    def after(self, t: float, op_interval: float) -> float:
        """Trace time ``op_interval`` operational seconds after ``t``."""
        return self.inverse(self.forward(t) + op_interval)
