"""Local time of a trace: the daily and weekly cycles of its users.

SWF times are seconds from the start of the log. The header says when that was and
where: ``UnixStartTime`` (seconds since the epoch, UTC), ``TimeZoneString`` (the
zone's IANA name, ``US/Pacific``) and ``TimeZone`` (seconds to add to UTC, one fixed
offset). Local time of a job follows the zone when the header names one that the tz
database knows: daylight saving included, as the users' clocks went (a fixed offset put
summer days an hour early, and a header whose ``TimeZone`` is missing or wrong put them
up to 9 hours off). Without a known ``TimeZoneString``, local time is
``UnixStartTime + TimeZone + submit`` (no daylight saving). :attr:`Clock.local_time`
says which, and the fitted tables carry it, so fitted and simulated cycles compare like
with like (a simulated trace's header names the same zone).

Hours of the week are numbered from Monday 00:00 (0) to Sunday 23:00 (167); the epoch
(1970-01-01) was a Thursday, hence the 72-hour shift.

A trace without a header clock (and every site not fitted to a log) uses the
convention :data:`DEFAULT_CLOCK`: time 0 is Monday 1970-01-05 00:00, time zone UTC.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np
from attrs import define
from numpy.typing import ArrayLike, NDArray

from sitesim.workload.swf import SwfHeader
from sitesim.workload.zones import known_zone, zone_offsets

HOUR = 3600
DAY = 24 * HOUR
WEEK = 7 * DAY
#: Hours from the epoch's Monday-based week start: 1970-01-01 was a Thursday.
_EPOCH_HOUR_OF_WEEK = 3 * 24
#: Daytime for the "share of submissions in daytime" signature: [08:00, 18:00).
DAY_START, DAY_END = 8, 18
#: The weekend, Saturday and Sunday: the hours of the (Monday-based) week from this one.
WEEKEND_START = 5 * 24


#: How a clock gives local time (:attr:`Clock.local_time`): the IANA zone named by the
#: header's ``TimeZoneString`` (daylight saving included), or one fixed offset.
LOCAL_TIMES = ("zone", "offset")


@define(slots=True, frozen=True)
class Clock:
    """Where time 0 of a trace falls in local calendar time."""

    #: Seconds since the epoch (UTC) at time 0.
    unix_start: int = 4 * DAY
    #: Seconds added to UTC for local time when ``local_time`` is "offset" (the header's
    #: ``TimeZone``, 0 without it); with a zone, kept for the header a simulation writes.
    offset: int = 0
    #: The zone's name: an IANA zone when ``local_time`` is "zone"; else for people.
    zone: str = "UTC"
    #: Whether the trace's header said so (False: the convention was assumed).
    declared: bool = False
    #: "zone": local time follows ``zone``'s rules; "offset": ``offset`` throughout.
    local_time: str = "offset"

    @classmethod
    def from_header(cls, header: SwfHeader) -> Clock:
        """The header's clock; :data:`DEFAULT_CLOCK` if ``UnixStartTime`` is missing.

        The zone named by ``TimeZoneString`` when the tz database knows it, else the
        fixed ``TimeZone`` offset (0 when missing too)."""
        start = header.get_int("UnixStartTime")
        if start is None:
            return DEFAULT_CLOCK
        offset = header.get_int("TimeZone") or 0
        named = header.get("TimeZoneString")
        if named and known_zone(named) is not None:
            return cls(unix_start=start, offset=offset, zone=named, declared=True, local_time="zone")
        return cls(unix_start=start, offset=offset, zone=named or f"UTC{offset / HOUR:+g}", declared=True)

    @property
    def follows_zone(self) -> bool:
        return self.local_time == "zone"

    def describe(self) -> str:
        """Where local time comes from, in words (the fit's report and provenance)."""
        if not self.declared:
            return f"{self.zone} (convention: no UnixStartTime in the header)"
        if self.follows_zone:
            return f"{self.zone} (TimeZoneString: IANA zone, daylight saving included)"
        fixed = f"UTC{self.offset / HOUR:+g} (TimeZone {self.offset} s, fixed offset"
        if self.zone.startswith("UTC"):
            return fixed + "; no TimeZoneString)"
        return fixed + f"; TimeZoneString {self.zone!r} is not a zone the tz database knows)"

    def local(self, t: ArrayLike) -> NDArray[np.float64]:
        """Local seconds since the epoch of trace times ``t``."""
        if not self.follows_zone:
            return np.asarray(t, dtype=float) + (self.unix_start + self.offset)
        utc = np.asarray(t, dtype=float) + self.unix_start
        return utc + zone_offsets(self.zone).offsets_at(np.atleast_1d(utc)).reshape(utc.shape)

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
            "local_time": self.local_time,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Clock:
        """A clock from :meth:`to_dict`; tables fitted before zones were followed have no
        ``local_time`` and keep their fixed offset."""
        local_time = str(data.get("local_time", "offset"))
        if local_time not in LOCAL_TIMES:
            raise ValueError(f"unknown local_time {local_time!r} ({' or '.join(LOCAL_TIMES)})")
        zone = str(data["zone"])
        if local_time == "zone" and known_zone(zone) is None:
            raise ValueError(f"unknown time zone {zone!r} (an IANA name such as Europe/Stockholm)")
        return cls(
            unix_start=int(data["unix_start"]),
            offset=int(data["offset"]),
            zone=zone,
            declared=bool(data.get("declared", True)),
            local_time=local_time,
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
        return float(self.weekly[WEEKEND_START:].sum() / max(1, self.events))

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

    A clock that follows a zone (:attr:`Clock.local_time` "zone") counts each real
    second at the rate of the local hour it falls in: where daylight saving starts, the
    skipped local hour takes no operational time, and where it ends the repeated one
    counts twice, so operational time keeps rising with trace time.
    """

    __slots__ = ("_base", "_rates", "_cum", "_rates_all", "_cum_all", "_start", "_zone", "_years", "_carry", "_ops")

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
        self._rates_all, self._cum_all = w, cum  # the same values, for forward_all
        self._start = clock.unix_start
        self._zone = zone_offsets(clock.zone) if clock.follows_zone else None
        #: Per stretch of one offset (the zone's instants): the operational time taken
        #: out at the changes of offset since time 0's stretch, and the operational time
        #: at the stretch's start; computed again when the zone covers more years.
        self._years = (0, 0)
        self._carry: list[float] = []
        self._ops: list[float] = []

    def _op(self, local: float) -> float:
        """Operational time of local seconds (from the epoch's Monday 00:00)."""
        week, phase = divmod(local, WEEK)
        hour = min(int(phase // HOUR), 167)
        return week * WEEK + self._cum[hour] + self._rates[hour] * (phase - hour * HOUR)

    def _local(self, op: float) -> float:
        """The local seconds whose operational time is ``op``."""
        week, rest = divmod(op, WEEK)
        hour = min(bisect_right(self._cum, rest) - 1, 167)
        phase = hour * HOUR + (rest - self._cum[hour]) / self._rates[hour]
        return week * WEEK + phase

    def forward(self, t: float) -> float:
        """Operational time of trace time ``t``."""
        if self._zone is None:
            return self._op(t + self._base)
        utc = t + self._start
        self._zone.offset_at(utc)  # covers utc's year
        self._sync()  # covers time 0's year too, which may move the stretches' indices
        k, offset = self._zone.offset_at(utc)
        return self._op(utc + offset + _EPOCH_HOUR_OF_WEEK * HOUR) - self._carry[k]

    def forward_all(self, times: Sequence[float]) -> list[float]:
        """:meth:`forward` of each of ``times``, float for float (numpy's floor division
        and remainder are Python's), at a fraction of the cost: a fit measures every
        user's absences and gaps this way."""
        if not len(times):
            return []
        t = np.asarray(times, dtype=float)
        if self._zone is None:
            return self._op_all(t + self._base).tolist()
        zone = self._zone
        utc = t + self._start
        # forward covers each instant's year, and then time 0's: covering them all
        # first gives the same stretches, and each its same offset and carry.
        zone.cover(float(utc.min()), float(utc.max()))
        self._sync()
        k = np.maximum(np.searchsorted(np.asarray(zone.instants, dtype=float), utc, side="right") - 1, 0)
        local = utc + np.asarray(zone.offsets, dtype=float)[k] + _EPOCH_HOUR_OF_WEEK * HOUR
        return (self._op_all(local) - np.asarray(self._carry)[k]).tolist()

    def _op_all(self, local: NDArray[np.float64]) -> NDArray[np.float64]:
        """:meth:`_op` of each of ``local``, the same operations in the same order."""
        week, phase = np.divmod(local, WEEK)
        hour = np.minimum((phase // HOUR).astype(np.int64), 167)
        return week * WEEK + self._cum_all[hour] + self._rates_all[hour] * (phase - hour * HOUR)

    def inverse(self, op: float) -> float:
        """Trace time whose operational time is ``op``."""
        if self._zone is None:
            return self._local(op) - self._base
        zone = self._zone
        zone.cover(op + self._start, op + self._start)
        while True:  # cover the years around op's trace time (operational time drifts)
            self._sync()
            if op < self._ops[0]:
                zone.cover(zone.instants[0] - DAY, zone.instants[0])
            elif op >= self._ops[-1]:
                zone.cover(zone.instants[-1], zone.instants[-1] + 366 * DAY)
            else:
                break
        k = bisect_right(self._ops, op) - 1
        return self._local(op + self._carry[k]) - zone.offsets[k] - _EPOCH_HOUR_OF_WEEK * HOUR - self._start

    def _sync(self) -> None:
        """Recompute the stretches' carries after the zone covered more years.

        ``_ops`` has one more entry than the stretches: the operational time at the end
        of the last year covered, where what follows is not known yet."""
        zone = self._zone
        assert zone is not None
        zone.cover(self._start, self._start)
        if self._years == zone.years:
            return
        shift = _EPOCH_HOUR_OF_WEEK * HOUR
        instants, offsets = zone.instants, zone.offsets
        home = max(bisect_right(instants, self._start) - 1, 0)
        carry = [0.0] * len(instants)
        for k in range(home + 1, len(instants)):  # after time 0's stretch
            at = instants[k] + shift
            carry[k] = carry[k - 1] + self._op(at + offsets[k]) - self._op(at + offsets[k - 1])
        for k in range(home - 1, -1, -1):  # before it
            at = instants[k + 1] + shift
            carry[k] = carry[k + 1] - self._op(at + offsets[k + 1]) + self._op(at + offsets[k])
        end = float(datetime(zone.years[1] + 1, 1, 1, tzinfo=UTC).timestamp())
        ops = [self._op(u + o + shift) - c for u, o, c in zip(instants, offsets, carry, strict=True)]
        ops.append(self._op(end + offsets[-1] + shift) - carry[-1])
        self._carry, self._ops, self._years = carry, ops, zone.years

    def hour_of_week(self, t: float) -> int:
        """Local hour of the week (0 = Monday 00:00) of trace time ``t``, as
        :meth:`Clock.hour_of_week` gives it, for one time (once per simulated batch)."""
        if self._zone is None:
            local = t + self._base
        else:
            utc = t + self._start
            local = utc + self._zone.offset_at(utc)[1] + _EPOCH_HOUR_OF_WEEK * HOUR
        return int(local % WEEK // HOUR)

    def after(self, t: float, op_interval: float) -> float:
        """Trace time ``op_interval`` operational seconds after ``t``."""
        return self.inverse(self.forward(t) + op_interval)
