"""The fitted population table (``population.json``): per-user profiles of a real log.

One profile per real user of the log, holding that user's own observations (user-based
resampling, after Zakay & Feitelson), so heavy and light users keep their behaviour:

- ``arrival`` and ``span``: first submission and active span (first to last submission);
- ``widths``, ``gaps``, ``thinks``: batch widths, gaps inside batches, think times
  within sessions;
- ``absences``: from the end of one session (its last completion) to the start of the
  user's next one, in *operational* time of the user's own weekly cycle of session
  starts (:class:`~sitesim.workload.calendar.Warp`; the site's cycle reweighted by the
  user's ``start_day_counts``, its session starts per hour of the day, shrunk towards
  the site's by ``day_cycle_strength``: :mod:`sitesim.analysis.day_cycles`), so a
  simulated absence laid down from any hour lands on the user's hours and the log's
  weekdays (``"absence_cycle": "own"``); ``gaps_operational``: the gaps inside
  batches, measured in operational time of their own cycle, that of the log's
  submissions inside batches (``gap_weights``; long gaps in real time carry daytime
  batches into the night, and the session starts' cycle stretched night batches apart);
- ``runs``: (size, runtime, repetitions) of each distinct job;
- ``jobs_in_order`` and ``session_batches``: every job's (size, runtime) in submission
  order and the number of batches of each session, so the user's batches can be
  rebuilt whole, each with its own jobs and gaps (``"batches": "resampled"``,
  :mod:`sitesim.users.population_table`); ``waits_in_order``: each of those jobs' wait
  in the log, which the ``hold`` service gives it again (validation under the log's
  service, docs/validation.md);
- ``continue_offset``: the user's own log-odds offset on the site's continuation curve
  (and beside the users, ``continuation_by_part``: one more offset per part of the local
  day the waited-for job ended in, fitted together with the users' own: people go home
  at night);
- ``batch_hours`` and ``absence_hours``: the local hour of the week (0 = Monday 00:00)
  each batch began in, and each absence began in (the end of the session before it), so
  batches and absences are dealt by the part of the day (``day_parts``), the batches of
  the weekend apart from the weekdays' (``weekends``).

Beside them: the clock, the 168 hourly weights of session starts and of submissions
inside batches, the continuation curve against response time, the log's duration and
machine size, what the log measured (the validation's reference) and provenance. Same
input, same bytes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sitesim.analysis.bounds import Capped
from sitesim.analysis.day_cycles import ABSENCE_CYCLES, WEEKENDS, day_counts, own_cycle, prior_strength, site_profile
from sitesim.analysis.continuation import (
    RESPONSE_EDGES,
    SLOWDOWN_EDGES,
    continuation_curve,
    part_and_user_offsets,
    logistic_fit,
)
from sitesim.analysis.population import PopulationAnalysis
from sitesim.analysis.tables import _num as _table_num
from sitesim.errors import InputError
from sitesim.limits import POPULATION_BOUNDS
from sitesim.workload.calendar import Warp, cycle_signature
from sitesim.version import __version__

FORMAT = "sitesim-population"
FORMAT_VERSION = 1
#: A user's own observations are used for a quantity when there are at least this many;
#: otherwise the pooled observations of all users (see docs/validation.md).
MIN_OBSERVATIONS = 5
#: Parts of the local day a user's batches and absences are dealt by (the table's
#: ``day_parts``; six hours each): a batch is dealt from those the user began in the
#: part of the day it begins in, an absence from those that followed a session ending in
#: the part of the day the session ends in (docs/population.md, "Dealt by the hour").
DAY_PARTS = 4


def _num(value: Any) -> float | int | None:
    """A table number; non-finite values (an hour without submissions) become null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return _table_num(value)


def _nums(values: Any) -> list[float | int | None]:
    """:func:`_num` of each value. A table has hundreds of thousands: an int, or a
    whole float below 10^6 (times in seconds), is its own 6-digit rounding and is kept
    as it is, without the call."""
    values = list(values)
    types = set(map(type, values))
    if types <= {int}:
        return values
    if types == {float} and len(values) >= _CHECK_AT_ONCE:
        a = np.array(values)
        if ((a > -1e6) & (a < 1e6) & (a == np.floor(a))).all():  # all whole, NaN not
            return values
    return [v if type(v) is int or (type(v) is float and -1e6 < v < 1e6 and v.is_integer()) else _num(v)
            for v in values]


#: From this many floats on, :func:`_nums` asks numpy whether all are whole at once.
_CHECK_AT_ONCE = 16


def _spans(warp: Warp, pairs: Sequence[tuple[float, float]]) -> list[float]:
    """Each (a, b) of ``pairs`` as operational time of ``warp``: ``forward(b) - forward(a)``."""
    ops = warp.forward_all([t for pair in pairs for t in pair])
    return [b - a for a, b in zip(ops[::2], ops[1::2], strict=True)]


def _user_batches(pa: PopulationAnalysis) -> list[tuple[int, int]]:
    """(first, end) index into the per-batch arrays of each user, in user order."""
    bounds, at = [], 0
    for u in pa.users:
        bounds.append((at, at + u.batches))
        at += u.batches
    return bounds


def _gap_weights(pa: PopulationAnalysis) -> NDArray[np.int64]:
    """The weekly cycle of submissions inside batches (each gap's end), which the gaps
    are measured and laid down in; a log without such submissions: the session starts'.

    Why not the session starts' cycle: a batch goes on at night far more than sessions
    begin then (CTC-SP2: 37% of in-session jobs at night, 30% of session starts), so
    gaps laid down at the session-start rate stretched at night, and broke the night's
    batches into pieces (docs/population.md, "Gaps in the cycle of batches")."""
    ends = [b for u in pa.users for _, b in u.gap_pairs]
    if not ends:
        return pa.session_starts.weekly
    return cycle_signature(ends, pa.clock).weekly


def build_population_table(pa: PopulationAnalysis, *, name: str, machine_size: int, provenance: dict[str, Any]) -> dict[str, Any]:
    """The JSON-able fitted population of ``pa``.

    Values beyond what a run accepts (:data:`~sitesim.limits.POPULATION_BOUNDS`) are
    capped at the bound and counted per key under ``provenance.capped`` (a key only
    tables with such values carry; :mod:`sitesim.analysis.bounds`). A batch wider than
    a population may hold is an input error instead: its width is tied to its jobs and
    gaps, and no cap keeps them in line."""
    curve = continuation_curve(pa.batch_response, pa.batch_continued, RESPONSE_EDGES)
    gap_weights = _gap_weights(pa)
    gap_warp = Warp(pa.clock, gap_weights)
    capped = Capped()

    def within(key: str, values: Any) -> list[float | int | None]:
        low, high = POPULATION_BOUNDS[key]
        values = list(values)
        if values and not low <= min(values) <= max(values) <= high:
            values = [capped.value(key, v, low, high) for v in values]
        return _nums(values)

    def jobs(pairs: list[tuple[int, float]]) -> list[tuple[int, float | int | None]]:
        """(size, runtime) pairs within the bounds of ``size`` and ``runtime``."""
        if not pairs:
            return []
        sizes, runtimes = zip(*pairs)
        return list(zip(within("size", sizes), within("runtime", runtimes), strict=True))  # type: ignore[arg-type]

    widest = POPULATION_BOUNDS["widths"][1]
    users = []
    clock = pa.clock

    def hours(times: list[float]) -> list[int]:
        return clock.hour_of_week(times).tolist() if times else []

    # Each user's session starts by the hour of the day, and how far the users' own
    # hours are drawn towards the site's (sitesim/analysis/day_cycles.py).
    start_counts = [day_counts(hours([u.first, *(b for _, b in u.session_breaks)])) for u in pa.users]
    strength = float(f"{prior_strength(start_counts):.6g}")
    profile = site_profile(start_counts)

    # Going on after a batch: the offsets of the part of the day the waited-for job ended
    # in and the users' own, fitted together (docs/population.md, "Going home at night").
    end_parts = [h % 24 * DAY_PARTS // 24 for h in hours(list(pa.batch_end))]
    offsets, by_part = part_and_user_offsets(curve, pa.batch_response, pa.batch_continued, _user_batches(pa), end_parts,
                                               DAY_PARTS, MIN_OBSERVATIONS)
    for u, counts, offset in zip(pa.users, start_counts, offsets, strict=True):
        own = Warp(pa.clock, own_cycle(pa.session_starts.weekly, counts, profile, strength))
        if max(u.widths) > widest:
            raise InputError(f"user {u.user} submitted a batch of {max(u.widths):,} jobs, more than the {widest:,.0f}"
                             " a fitted population may hold")
        users.append(
            {
                "user": u.user,
                "arrival": _num(u.first),
                "span": _num(u.span),
                "jobs": u.jobs,
                "widths": list(u.widths),
                "gaps": within("gaps", u.gaps),
                "gaps_operational": within("gaps_operational", _spans(gap_warp, u.gap_pairs)),
                "thinks": within("thinks", u.thinks),
                "absences": within("absences", _spans(own, u.session_breaks)),
                "runs": [[s, r, k] for (s, r), (_, _, k) in zip(jobs([(s, r) for s, r, _ in u.runs]), u.runs, strict=True)],
                "jobs_in_order": list(map(list, jobs(u.jobs_in_order))),
                "waits_in_order": within("waits_in_order", u.waits_in_order),
                "session_batches": list(u.session_batches),
                "continue_offset": _num(round(offset, 4)),
                "batch_hours": hours(u.batch_starts),
                "absence_hours": hours([a for a, _ in u.session_breaks]),
                "start_day_counts": counts,
            }
        )
    if capped.total:  # per key: how many values were moved onto [low, high]
        provenance = {**provenance, "capped": {
            key: {"count": n, "bounds": [_num(v) for v in POPULATION_BOUNDS[key]]} for key, n in capped.to_dict().items()
        }}
    fit = logistic_fit(pa.batch_response, pa.batch_slowdown, pa.batch_continued)
    by_slowdown = continuation_curve(pa.batch_slowdown, pa.batch_continued, SLOWDOWN_EDGES)
    measured: dict[str, Any] = {k: _num(v) for k, v in pa.signatures().items()}
    measured["duration_days"] = _num(pa.duration / 86400)
    measured["arrival_rate_per_week"] = _num(pa.arrival_rate())
    measured["median_span_days"] = _num(float(np.median(pa.spans)) / 86400)
    gaps = pa.session_gaps
    measured["median_session_gap_hours"] = _num(float(np.median(gaps)) / 3600 if gaps.size else float("nan"))
    measured["hourly_submissions"] = [int(v) for v in pa.submissions.hourly]
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "name": name,
        "clock": pa.clock.to_dict(),
        "duration": int(round(pa.duration)),
        "machine_size": machine_size,
        "min_observations": MIN_OBSERVATIONS,
        "batches": "resampled",
        "day_parts": DAY_PARTS,
        "session_start_weights": [int(v) for v in pa.session_starts.weekly],
        "absence_cycle": ABSENCE_CYCLES[-1],
        "weekends": WEEKENDS[-1],
        "day_cycle_strength": _num(strength),
        "gap_weights": [int(v) for v in gap_weights],
        "continuation": curve.to_dict(),
        "continuation_by_part": [_num(round(a, 4)) for a in by_part],
        "users": users,
        "measured": measured,
        "continuation_checks": {
            "by_slowdown": by_slowdown.to_dict(),
            "logistic": {
                "model": "logit P(continue) = b0 + b1 log10(response s) + b2 log10(bounded slowdown)",
                "coefficients": [_num(c) for c in fit.coefficients],
                "standard_errors": [_num(s) for s in fit.standard_errors],
                "batches": fit.batches,
            },
        },
        "provenance": {**provenance, "tool": f"sitesim {__version__}"},
    }
