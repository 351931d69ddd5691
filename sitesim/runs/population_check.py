"""Limits on the values of a fitted population (``population.json``), checked before a run.

Why here: the table's loader (:mod:`sitesim.users.population`) turns the document into
users and trusts its numbers, as it should for what ``sitesim fit`` wrote. A file edited
by hand or damaged (a NaN offset, a job of -4 nodes, a runtime of 1e300 s) then failed
deep inside a run with a RuntimeError or OverflowError, or ran silently. This check knows
only the few fields whose values a run draws directly, and tolerates fields it does not
know, so the format can grow without it; every message names the file and the field.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sitesim.analysis.continuation import MAX_OFFSET
from sitesim.analysis.day_cycles import ABSENCE_CYCLES, HOURS, WEEKENDS, prior_strength_of
from sitesim.errors import InputError
from sitesim.inputs import read_document
from sitesim.limits import MAX_DAY_PARTS, MAX_OBSERVATIONS, POPULATION_BOUNDS

#: Per-user lists of seconds a run draws from (think times, gaps, absences, the log's
#: waits that ``hold`` serves again).
_SECONDS = ("thinks", "gaps", "gaps_operational", "absences", "waits_in_order")
#: Per-user lists of local hours of the week (0 = Monday 00:00 .. 167) that batches and
#: absences began at (dealt by the part of the day).
_HOURS = ("batch_hours", "absence_hours")
#: Per-user lists of jobs, ``[size, runtime, ...]``.
_JOBS = ("runs", "jobs_in_order")
_WIDTHS = POPULATION_BOUNDS["widths"]
_SIZE = POPULATION_BOUNDS["size"]
_RUNTIME = POPULATION_BOUNDS["runtime"]


#: Weekly cycles (168 hourly weights) that operational time is laid down in.
_CYCLES = ("session_start_weights", "gap_weights")


def _check_cycle(weights: Any, where: str, key: str) -> None:
    """168 non-negative weights, not all zero (each hour's share of the week)."""
    if not isinstance(weights, list) or len(weights) != 168:
        raise InputError("must be a list of 168 hourly weights (Monday 00:00 first)", path=where, field=key)
    for j, value in enumerate(weights):
        if not _within(value, 0, math.inf):
            raise InputError(f"{value!r} is not a non-negative weight", path=where, field=f"{key}[{j}]")
    if not any(weights):
        raise InputError("every hour has weight 0: the week has no operational time", path=where, field=key)


def _numbers(value: Any, where: str) -> Iterator[tuple[str, float]]:
    """Every number of a JSON value, with where it is (``users[3].continue_offset``)."""
    if isinstance(value, bool):
        return
    if isinstance(value, (int, float)):
        yield where, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _numbers(item, f"{where}.{key}" if where else str(key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _numbers(item, f"{where}[{i}]")


def _within(value: Any, low: float, high: float) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float)) and low <= value <= high


def check_population_file(path: str | Path) -> Any:
    """An input error naming ``path`` and the field unless the population's numbers are
    finite and its users' sizes, runtimes, think times and batch widths within limits.
    A document that is not JSON, or not a population, is left to the loader to refuse.
    Returns the document read (None where it is not JSON), so the loader reads it once
    (:meth:`~sitesim.users.population_table.FittedPopulation.load`)."""
    where = str(path)
    text = read_document(path, "population", long_lines=True)
    deep = InputError("nested too deeply to read", path=where)  # json reads and writes by recursion
    try:
        data = json.loads(text)
    except RecursionError:
        raise deep from None
    except ValueError:
        return None  # the loader says what is wrong, as it always did
    try:
        check_population(data, where)
    except RecursionError:
        raise deep from None
    return data


def _first_non_finite(data: Any) -> tuple[str, float] | None:
    """The first number of ``data`` that is not finite, with where it is; None if none.

    Why two passes: json's encoder, which refuses NaN and the infinities when told to,
    finds out at C speed whether there is one at all (a fitted year's table holds some
    600,000 numbers, and walking them with their names cost a run 0.3 s of CPU); only
    then is the document walked to name the field."""
    try:
        json.dumps(data, allow_nan=False)
    except ValueError:
        return next(((f, n) for f, n in _numbers(data, "") if isinstance(n, float) and not math.isfinite(n)), None)
    return None


def check_population(data: Any, where: str) -> None:
    """:func:`check_population_file` on a document already read (``where`` names it in
    messages)."""
    found = _first_non_finite(data)
    if found is not None:
        field, number = found
        raise InputError(f"{number} is not a finite number", path=where, field=field)
    if isinstance(data, dict) and "min_observations" in data:
        minimum = data["min_observations"]
        # A user with fewer observations draws from the pooled lists; 0 or less sends
        # users with empty lists to draw from them (an IndexError deep in a run).
        if isinstance(minimum, bool) or not isinstance(minimum, int) or minimum < 1:
            raise InputError(f"must be a whole number of at least 1, got {minimum!r}", path=where,
                             field="min_observations")
    if isinstance(data, dict) and "day_parts" in data:
        parts = data["day_parts"]
        if isinstance(parts, bool) or not isinstance(parts, int) or not 1 <= parts <= MAX_DAY_PARTS:
            raise InputError(f"must be a whole number in 1..{MAX_DAY_PARTS}, got {parts!r}", path=where,
                             field="day_parts")
    if isinstance(data, dict) and "weekends" in data and data["weekends"] not in WEEKENDS:
        raise InputError(f"must be one of {', '.join(map(repr, WEEKENDS))}, got {data['weekends']!r}", path=where,
                         field="weekends")
    if isinstance(data, dict) and "day_cycle_strength" in data:
        try:
            prior_strength_of(data["day_cycle_strength"])
        except ValueError as exc:
            raise InputError(str(exc).removeprefix("day_cycle_strength "), path=where, field="day_cycle_strength") from None
    own = isinstance(data, dict) and data.get("absence_cycle") == "own"
    if isinstance(data, dict) and "absence_cycle" in data:
        if data["absence_cycle"] not in ABSENCE_CYCLES:
            raise InputError(f"must be one of {', '.join(map(repr, ABSENCE_CYCLES))}, got {data['absence_cycle']!r}",
                             path=where, field="absence_cycle")
        if own and "day_cycle_strength" not in data:
            raise InputError('is needed with absence_cycle "own"', path=where, field="day_cycle_strength")
    if isinstance(data, dict) and "continuation_by_part" in data:
        offsets = data["continuation_by_part"]
        if not isinstance(offsets, list):
            raise InputError("must be a list of log-odds offsets, one per part of the day", path=where,
                             field="continuation_by_part")
        for j, value in enumerate(offsets):
            if not _within(value, -MAX_OFFSET, MAX_OFFSET):
                raise InputError(f"{value!r} is not a log-odds offset in -{MAX_OFFSET:g}..{MAX_OFFSET:g}", path=where,
                                 field=f"continuation_by_part[{j}]")
    if isinstance(data, dict):
        for key in _CYCLES:
            if key in data:
                _check_cycle(data[key], where, key)
    users = data.get("users") if isinstance(data, dict) else None
    if not isinstance(users, list):
        return
    for i, user in enumerate(users):
        if not isinstance(user, dict):
            continue
        for key in _SECONDS:
            low, high = POPULATION_BOUNDS[key]
            for j, value in enumerate(user.get(key) or []):
                if not _within(value, low, high):
                    raise InputError(f"{value!r} is not a time in {low:.0f}..{high:.0f} s", path=where,
                                     field=f"users[{i}].{key}[{j}]")
        for key in _HOURS:
            for j, value in enumerate(user.get(key) or []):
                if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 168:
                    raise InputError(f"{value!r} is not an hour of the week in 0..167", path=where,
                                     field=f"users[{i}].{key}[{j}]")
        if own and "start_day_counts" not in user:
            raise InputError('is needed with absence_cycle "own"', path=where, field=f"users[{i}].start_day_counts")
        if "start_day_counts" in user:
            counts = user["start_day_counts"]
            if not isinstance(counts, list) or len(counts) != HOURS:
                raise InputError(f"must be a list of {HOURS} session-start counts (00:00 first)", path=where,
                                 field=f"users[{i}].start_day_counts")
            for j, value in enumerate(counts):
                if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_OBSERVATIONS:
                    raise InputError(f"{value!r} is not a count of session starts (0..{MAX_OBSERVATIONS:.0e})",
                                     path=where,
                                     field=f"users[{i}].start_day_counts[{j}]")
        for j, value in enumerate(user.get("widths") or []):
            if not _within(value, *_WIDTHS):
                raise InputError(f"{value!r} is not a batch width in {_WIDTHS[0]:.0f}..{_WIDTHS[1]:.0f}", path=where,
                                 field=f"users[{i}].widths[{j}]")
        for key in _JOBS:
            for j, job in enumerate(user.get(key) or []):
                if not isinstance(job, list) or len(job) < 2:
                    continue
                if not _within(job[0], *_SIZE):
                    raise InputError(f"size {job[0]!r} is not in {_SIZE[0]:.0f}..{_SIZE[1]:.0f} nodes", path=where,
                                     field=f"users[{i}].{key}[{j}]")
                if not _within(job[1], *_RUNTIME):
                    raise InputError(f"runtime {job[1]!r} is not in {_RUNTIME[0]:.0f}..{_RUNTIME[1]:.0f} s", path=where,
                                     field=f"users[{i}].{key}[{j}]")
